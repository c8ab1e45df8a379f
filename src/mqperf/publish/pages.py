"""Pages generated from the data, so they cannot drift from it.

``chapters/_generated/`` receives the Data catalog (from ``data/datapackage.json`` and the
CSV files), the Errata (from ``data/errata.csv``), the Model cards (from ``models/``) and the
chapters' parameter tables (from the declarations in :mod:`mqperf.chapters`) and contract
sections (from ``data/contracts/`` and ``data/examples/``), both included by the
Bring-your-own-data page.
Files are rewritten only when their text changes, so Sphinx's incremental build stays warm.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from mqperf.present.cards import load_cards
from mqperf.paths import chapters_dir, data_dir

GENERATED = "_generated"


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def data_catalog() -> str:
    package = json.loads((data_dir() / "datapackage.json").read_text(encoding="utf-8"))
    out = [
        "(data-catalog)=",
        "# Data catalog",
        "",
        "Every dataset the book uses, generated from `data/datapackage.json`. Each row of every",
        "dataset carries its basis (`measured`, `derived`, `constraint`, `config`, or `chart` for a",
        "value read off a figure that no table prints, with the axis and the reading's uncertainty),",
        "the source it comes from (a seed article, or an IBM MQ performance report under",
        "`sources/ibm-mqperf/`) and the shortest exact quote that states it (for a table row, the",
        "row as printed, with the table's caption); derived rows state their formula. The test",
        "suite checks every quote against its source and recomputes every derived value; chart",
        "readings are kept in datasets of their own, never mixed with printed values.",
        "",
    ]
    summary = []
    for res in package["resources"]:
        rows = _rows(data_dir() / res["path"])
        seeds = sorted({r.get("seed", "") for r in rows if r.get("seed")})
        summary.append([f"{{ref}}`{res['name']} <data-{res['name']}>`", res.get("title", ""), len(rows), ", ".join(seeds)])
    out += [_table(["dataset", "title", "rows", "sources"], summary), ""]
    for res in package["resources"]:
        rows = _rows(data_dir() / res["path"])
        bases = sorted({r.get("basis", "") for r in rows} - {""})
        out += [f"(data-{res['name']})=", f"## {res['name']}", "", f"**{res.get('title', '')}**", "", res.get("description", ""), ""]
        sources = "; ".join(f"{s.get('title', '')} (`{s.get('path', '')}`)" for s in res.get("sources", []))
        out += [f"*File* `data/{res['path']}` · *rows* {len(rows)} · *basis* {', '.join(bases)} · *source* {sources}", ""]
        fields = []
        for f in res["schema"]["fields"]:
            cons = f.get("constraints", {})
            rules = []
            if cons.get("required"):
                rules.append("required")
            for key in ("minimum", "exclusiveMinimum", "maximum", "pattern"):
                if key in cons:
                    rules.append(f"{key} {cons[key]}")
            if "enum" in cons:
                rules.append("one of " + ", ".join(map(str, cons["enum"])))
            fields.append([f"`{f['name']}`", f.get("type", ""), f.get("unit", ""), f.get("role", ""), f.get("description", ""), "; ".join(rules)])
        out += [_table(["field", "type", "unit", "role", "description", "rules"], fields), ""]
    return "\n".join(out)


def _seed_titles() -> dict[str, str]:
    """Seed file name -> article title, from the data package's source lists."""
    package = json.loads((data_dir() / "datapackage.json").read_text(encoding="utf-8"))
    titles = {}
    for res in package.get("resources", []):
        for src in res.get("sources", []):
            if src.get("path") and src.get("title"):
                titles[Path(src["path"]).name] = src["title"]
                titles[src["path"]] = src["title"]  # a report is named by its path under ../shared
    return titles


def _number(text: str) -> str:
    """A number from a CSV or card with thousands separators and every digit it has (these
    pages quote values, they do not round them); text that is not a number stays as it is."""
    raw = text.strip()
    try:
        float(raw.replace(",", ""))
    except ValueError:
        return text
    if "e" in raw.lower():
        return raw
    sign, digits = ("-", raw[1:]) if raw.startswith("-") else ("", raw)
    whole, _, frac = digits.replace(",", "").partition(".")
    return f"{sign}{int(whole or 0):,}" + (f".{frac}" if frac else "")


def _blockquote(quote: str) -> str:
    """A quote as one Markdown blockquote, however many lines or paragraphs it has.

    The quote is the source's text, shown as the characters it is: a line of it that starts
    with "> 0" or "*", or holds a backtick or a role, is escaped (:func:`mqperf.present.text.markdown`),
    never read as a nested quote, a list or markup."""
    from mqperf.present.text import markdown

    return "\n".join(f"> {markdown(line)}".rstrip() for line in quote.strip().splitlines())


def _implied(r: dict) -> str | None:
    """The "Implied" sentence of an erratum, or None when the row states no implied value."""
    value, formula, printed = r.get("implied_value", ""), r.get("implied_formula", ""), r.get("printed_value", "")
    if not value:
        return None
    shown = _number(value)
    # A formula that is just the value restates it; it adds nothing to show both.
    computed = f"`{formula}` = {shown}" if formula and _number(formula) != shown else shown
    against = f", where the source prints {_number(printed)}" if printed else ""
    return f"**Implied.** {computed}{against}."


def errata() -> str:
    rows = _rows(data_dir() / "errata.csv")
    titles = _seed_titles()
    out = [
        "(errata)=",
        "# Errata in the sources",
        "",
        "The seed articles contain arithmetic slips and contradictions. The book's data keep",
        "what is printed; this page says what the printed numbers imply instead and why it",
        "matters. It is generated from `data/errata.csv`, and the test suite recomputes every",
        "implied value.",
        "",
        _table(["erratum", "dataset(s)", "printed", "implied"],
               [[f"{{ref}}`{r['erratum_id']} <errata-{r['erratum_id'].lower()}>`", r["affects"],
                 _number(r["printed_value"]) or "–", _number(r["implied_value"]) or "–"] for r in rows]),
        "",
    ]
    for r in rows:
        seed = r["seed"]
        source = f"*{titles[seed]}* (`{seed}`)" if seed in titles else f"`{seed}`"
        out += [
            f"(errata-{r['erratum_id'].lower()})=",
            f"## {r['erratum_id']}: {r['affects']}",
            "",
            _blockquote(r["quote"]),
            "",
            f"— {source}",
            "",
            f"**Problem.** {r['problem']}",
            "",
        ]
        implied = _implied(r)
        if implied:
            out += [implied, ""]
        out += [f"**Why it matters.** {r['why_it_matters']}", ""]
    return "\n".join(out)


_FIT_LABELS = {"nobs": "points", "df_model": "parameters estimated", "df_resid": "residual degrees of freedom",
               "ssr": "sum of squared residuals", "rmse": "RMSE", "r2": "R²", "mape": "MAPE (%)",
               "mape_pct": "MAPE (%)", "n_constraints": "constraints", "identification": "identification"}


def _fit_sentence(fit: dict) -> str:
    parts = []
    for key, value in fit.items():
        if value is None or value == "" or isinstance(value, bool):
            continue  # a flag restates the identification sentence
        label = _FIT_LABELS.get(key, key.replace("_", " "))
        parts.append(f"{label} {_shown(value)}")
    return "; ".join(parts)


def model_cards() -> str:
    cards = load_cards()
    out = [
        "(model-cards)=",
        "# Model cards",
        "",
        "Every model the chapters fit, as written to `models/*.json`: parameters with their units",
        "and 95 % intervals (none where the fit is exactly identified, or for a parameter held at",
        "its bound), fit statistics, and the SHA-256 of the dataset it was fitted to.",
        "",
    ]
    if not cards:
        out.append("No model cards yet: run `make book`.")
    for card in cards:
        fit = card.get("fit", {})
        out += [f"## {card.get('name', card.get('card'))}", "", f"`{card.get('formula', '')}`", ""]
        params = []
        for p, v in card.get("parameters", {}).items():
            bound = "held there" if v.get("fixed_by_bound") else ("yes" if v.get("at_bound") else "no")
            params.append([p, _shown(v.get("estimate")), _shown(v.get("std_err")), _interval(v.get("ci95")),
                           v.get("unit", "") or "–", bound])
        out += [_table(["parameter", "estimate", "std. error", "95 % interval", "unit", "at bound"], params), ""]
        out += [f"*Fit:* {_fit_sentence(fit)}.", ""]
        data = card.get("data", {})
        out += [f"*Data:* `{data.get('dataset')}` (sha256 `{str(data.get('sha256', ''))[:16]}…`, "
                f"{data.get('nobs')} observations).", ""]
        for note in card.get("notes", []):
            out.append(f"- {note}")
        out.append("")
    return "\n".join(out)


def _shown(value) -> str:
    """A card's value (already rounded to the card's digits when it was written) as text."""
    from mqperf import numbers

    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else numbers.format_number(value, numbers.CARD_DIGITS)


def parameters() -> str:
    """Every chapter's parameters, as ``mqperf list`` and ``mqperf run -p`` read them.

    Included by ``chapters/bring_your_own_data.md`` (this file is not a page of its own).
    """
    from mqperf import parameters as params
    from mqperf import catalog

    out = [
        "Generated from the chapters' declarations (`src/mqperf/chapters/<chapter>.py`), which",
        "`mqperf list` prints and `mqperf run` checks every `-p` value against before it starts.",
        "*Default* is the book's value; *mqperf run* is where a run on your data starts when it",
        "differs (the book's companion datasets are then off). `cards_dir` is set by `mqperf run`.",
        "",
    ]
    for chapter in catalog.chapters():
        out += [f"(byod-parameters-{chapter.name.replace('_', '-')})=", f"### Parameters of {chapter.name}", ""]
        rows = []
        for p in params.describe(chapter.name):
            run = "" if p["run_default"] == p["default"] else f"`{json.dumps(p['run_default'])}`"
            name = f"`{p['name']}`" + ("" if p["settable"] else (" (`--data`)" if p["how_to_set"] == "--data FILE"
                                                                  else " (set by mqperf run)"))
            rows.append([name, p["type"], p.get("unit", ""), f"`{json.dumps(p['default'])}`", run, p["range"], p["help"]])
        out += [_table(["parameter", "type", "unit", "default", "mqperf run", "allowed", "meaning"], rows), ""]
    return "\n".join(out)


def _field_type(field: dict) -> str:
    """A contract field's type and constraints in words: ``integer ≥ 1``, ``number > 0``, ..."""
    c = field.get("constraints", {})
    if "enum" in c:
        return " or ".join(f"`{v}`" for v in c["enum"])
    kind = {"string": "text", "boolean": "true or false"}.get(field["type"], field["type"])
    bounds = []
    if "minimum" in c:
        bounds.append(f"≥ {_number(str(c['minimum']))}")
    if "exclusiveMinimum" in c:
        bounds.append(f"> {_number(str(c['exclusiveMinimum']))}")
    if "maximum" in c:
        bounds.append(f"≤ {_number(str(c['maximum']))}")
    if "exclusiveMaximum" in c:
        bounds.append(f"< {_number(str(c['exclusiveMaximum']))}")
    return " ".join([kind, ", ".join(bounds)]).strip()


def contract_table(name: str) -> str:
    """The columns of contract ``name`` as a Markdown table."""
    from mqperf.data.contracts import CONTRACTS

    rows = [[f"`{f['name']}`", _field_type(f), f.get("unit", ""),
             "yes" if f.get("constraints", {}).get("required") else "no", f.get("description", "")]
            for f in CONTRACTS[name]["fields"]]
    return _table(["column", "type", "unit", "required", "meaning"], rows)


def contracts() -> str:
    """The Bring-your-own-data page's contract sections, one per chapter that reads a file.

    Generated from ``data/contracts/`` (columns, and the contract's ``description`` as the
    guidance) and ``data/examples/`` (the example file, which the tests run).
    """
    from mqperf.data.contracts import CONTRACTS
    from mqperf import catalog

    out = ["Generated from `data/contracts/<chapter>.json` (the Table Schema `mqperf check` and",
           "`mqperf run` validate against) and `data/examples/<chapter>.csv` (each example is run by",
           "the test suite).", ""]
    examples = data_dir() / "examples"
    for chapter in catalog.chapters():
        if not chapter.contract:
            continue
        main = CONTRACTS[chapter.name]
        out += [f"(byod-{chapter.name.replace('_', '-')})=", f"### {chapter.name}: {main['title']}",
                "", contract_table(chapter.name), ""]
        example = examples / f"{chapter.name}.csv"
        if example.is_file():
            extras = "".join(f" -p {p.stem.split('.', 1)[1]} data/examples/{p.name}"
                             for p in sorted(examples.glob(f"{chapter.name}.*.csv")))
            out += ["Example (`data/examples/" + example.name + "`):", "", "```text",
                    example.read_text(encoding="utf-8").rstrip("\n"), "```", "", "```bash",
                    f".venv/bin/mqperf run {chapter.name} --data data/examples/{example.name}{extras} --out report/",
                    "```", ""]
        if main.get("description"):
            out += [main["description"], ""]
        for other in sorted(n for n in CONTRACTS if n.startswith(chapter.name + ".")):
            param = other.split(".", 1)[1]
            out += [f"The `{param}` parameter takes a file of its own ({CONTRACTS[other]['title']}):", "",
                    contract_table(other), ""]
            extra = examples / f"{other}.csv"
            if extra.is_file():
                out += [f"Example (`data/examples/{extra.name}`):", "", "```text",
                        extra.read_text(encoding="utf-8").rstrip("\n"), "```", ""]
            if CONTRACTS[other].get("description"):
                out += [CONTRACTS[other]["description"], ""]
    return "\n".join(out)


def formats() -> str:
    """The Bring-your-own-data page's list of tools: what to run, which chapters it feeds.

    Generated from the readers' registry (:mod:`mqperf.data.readers`), so the list names
    exactly the formats `mqperf run --data` recognises. A list, not a table: the commands are
    long and a table cell cannot wrap them.
    """
    from mqperf.data import readers
    from mqperf import catalog

    chapters = {c.name: c.title for c in catalog.chapters()}
    items = []
    for fmt in readers.formats():
        if not fmt.feeds:
            continue  # recognised only to say what it is (MQSMFCSV's SQL mode)
        fed = []
        for key in fmt.feeds:
            chapter, _, input_name = key.partition(".")
            if chapter in chapters:
                link = f"{{doc}}`{chapters[chapter]} </chapters/{chapter}>`"
                fed.append(link + (f" (its `{input_name}` input: a second `--data` file)" if input_name else ""))
        title = re.sub(r"(?<![\w`])(--?[A-Za-z][\w=.-]*)", r"`\1`", fmt.title)  # options as code, not en dashes
        items.append(f"- **{fmt.tool}**: {title}. Feeds {'; '.join(fed) or 'no chapter yet'}.\n\n"
                     f"  ```text\n  {fmt.command}\n  ```")
    return "\n".join(items) + "\n"


def _interval(ci) -> str:
    if not ci or ci[0] is None:
        return "none"
    return f"{_shown(ci[0])} to {_shown(ci[1])}"


#: The generated pages, and what writes each. Only the model cards page shows what executing the
#: chapters writes (their cards in ``models/``): ``mqperf build`` writes the others meanwhile.
PAGES = {"data_catalog.md": data_catalog, "errata.md": errata, "model_cards.md": model_cards,
         "parameters.md": parameters, "contracts.md": contracts, "formats.md": formats}
AFTER_EXECUTION = ("model_cards.md",)


def write_all(names=None) -> list[Path]:
    """Write the generated pages (``names``: only those); returns the paths (rewritten only when changed)."""
    target = chapters_dir() / GENERATED
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, page in PAGES.items():
        if names is not None and name not in names:
            continue
        text = page()
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
