"""Checks every chapter's property tests share: run a chapter's analysis on a generated file and
hold its report to what it shows.

- every number a computed sentence states is shown in a table or chart of the same run (to the
  sentence's precision);
- "exactly identified" is said if and only if some fit has no residual degrees of freedom;
- no table is empty (a section the data cannot support is one sentence).

Chapters' generators live in their own test files; this module only checks results.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from mqperf import chapters
from mqperf.present.results import Missing, Results, Text
from mqperf.present.tables import Table

# A number as sentences write it: 60,112 / 0.12 / 1.5e-05 / -3.2; not part of a word or name.
_NUMBER = re.compile(r"(?<![\w.,/-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?(?![\w/])")
# Parts of a sentence that are names, code or links, not results; and the statistics of the test
# that decided a claim (models.evidence: "(one-sided t-test ... p = 0.012)"), which back a result.
_NOT_RESULTS = re.compile(r"“[^”]*”|`[^`]*`|\{[a-z]+\}`[^`]*`|\[[^\]]*\]\([^)]*\)|\$[^$]*\$|\([A-Z]\d{3}\)|E\d{3}"
                          r"|\((?:one-sided |two-sided )?(?:t-test|F-test|Shapiro|Spearman)[^()]*(?:\([^()]*\)[^()]*)*\)")
#: Numbers every report may state without a table: the interval level, small counts.
CONVENTIONS = {95.0}


def run(chapter: str, data: Path | str, **params) -> Results:
    """The chapter's analysis on ``data`` with ``params`` over its reader defaults, as ``mqperf run``."""
    from mqperf import parameters

    values = parameters.effective(chapter, str(data), {**parameters.run_overrides(chapter, str(data), {}), **params}).values
    return chapters.module(chapter).analyse(values)


def stated_numbers(markdown: str) -> list[str]:
    """The numbers a passage states, as written (names, code, formulas and links left out)."""
    text = _NOT_RESULTS.sub(" ", markdown)
    return [m.group(0) for m in _NUMBER.finditer(text)]


def shown_values(results: Results) -> list[float]:
    """Every number a run's tables (cells and captions) and charts (their data) show."""
    values: list[float] = []
    for item in results.items.values():
        if isinstance(item, Table):
            for col in item.frame.columns:
                values.extend(_floats(item.frame[col]))
                values.extend(_floats_in_text(str(col)))
            values.extend(_floats_in_text(item.caption or ""))
            for row in item._cells():
                for cell in row:
                    values.extend(_floats_in_text(cell))
        elif item is not None and hasattr(item, "to_dict"):
            spec = item.to_dict()
            for rows in spec.get("datasets", {}).values():
                for row in rows:
                    for v in row.values():
                        values.extend(_floats([v]))
                        if isinstance(v, str):
                            values.extend(_floats_in_text(v))
    return values


def _floats(values) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, bool) or v is None:
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def _floats_in_text(text: str) -> list[float]:
    return [_parse(t) for t in _NUMBER.findall(str(text))]


def _parse(token: str) -> float:
    return float(token.replace(",", ""))


def _matches(token: str, shown: list[float]) -> bool:
    value = _parse(token)
    if value in CONVENTIONS or (value == int(value) and 0 <= value <= 10):
        return True
    # Half a unit in the token's last place: 60,100 matches a shown 60,112; 0.12 a shown 0.1234.
    mantissa = token.replace(",", "").split("e")[0].lstrip("-")
    exponent = int(token.split("e")[1]) if "e" in token else 0
    if "." in mantissa:
        place = -len(mantissa.split(".")[1])
    else:  # 60,100 is a rounding to hundreds of a shown 60,112
        place = len(mantissa) - len(mantissa.rstrip("0")) if mantissa.strip("0") else 0
    half = 0.5 * 10 ** (place + exponent) * (1 + 1e-9)
    return any(abs(abs(s) - abs(value)) <= half for s in shown)


def unshown_numbers(results: Results) -> dict[str, list[str]]:
    """By passage: the numbers it states that no table or chart of the run shows."""
    shown = shown_values(results)
    out = {}
    for key, text in results.sentences().items():
        missing = [t for t in stated_numbers(text) if not _matches(t, shown)]
        if missing:
            out[key] = missing
    return out


def says_exactly_identified(results: Results) -> bool:
    return any("exactly identified" in t for t in results.sentences().values())


def assert_report_is_honest(results: Results, fit_results: dict | None = None) -> None:
    """The shared properties; ``fit_results`` (series -> FitResult) enables the identification check."""
    unshown = unshown_numbers(results)
    assert not unshown, f"numbers stated but shown in no table or chart: {unshown}"
    for key, item in results.items.items():
        if isinstance(item, Table):
            assert len(item.frame) > 0, f"table {key} is empty"
        assert not (isinstance(item, Text) and not item.markdown.strip()), f"passage {key} is blank"
        if isinstance(item, Missing):
            assert item.why.strip(), f"section {key} is missing without a reason"
    for key, text in results.sentences().items():
        # "–" is what prose.num shows for a missing number: a sentence must say what is missing instead.
        assert not re.search(r"(?:^|[\s(])–(?=[\s).,;:]|$)", text), f"passage {key} shows '–' where a number belongs: {text[:200]!r}"
        for block in text.split("\n"):  # a paragraph or one bullet (a series' own sentences)
            said = [s.strip() for s in re.split(r"(?<=[.!?])\s+", block) if len(s.strip()) > 30]
            doubled = {s for s in said if said.count(s) > 1}
            assert not doubled, f"passage {key} says the same sentence twice: {sorted(doubled)[0][:120]!r}"
    if not results.book_data:
        from mqperf.present.results import ABOUT_TITLE

        assert not any(ABOUT_TITLE in t for t in results.sentences().values()), \
            "a passage about the published measurements shows on a reader's data"
    if fit_results is not None:
        exact = any(r.df_resid <= 0 and r.exactly_identified for r in fit_results.values())
        assert says_exactly_identified(results) == exact, (
            f"'exactly identified' said: {says_exactly_identified(results)}; "
            f"a fit with no residual degrees of freedom: {exact}")


def frame_to_csv(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path


def book(chapter: str, **over) -> Results:
    """The chapter's analysis on the book's own data (the notebook's defaults), with ``over``."""
    from mqperf import parameters

    values = parameters.defaults(chapter)
    values.update(over)
    return chapters.module(chapter).analyse(values)


def table(results: Results, key: str) -> pd.DataFrame:
    """The frame of table ``key`` (failing when the section is a sentence instead)."""
    item = results.show(key)
    assert isinstance(item, Table), f"{key} is {item!r}"
    return item.frame


def write(tmp_path: Path, frame: pd.DataFrame, name: str) -> str:
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


# -- the truth tests' shared checks ----------------------------------------------------------------

_QUOTED = re.compile(r"“([^”]*)”")


def text_faults(said: dict[str, str], given: set[str] | None = None) -> list[tuple[str, str, str]]:
    """("text", passage, why) for each fault any chapter's sentences can have: a dash where a number
    belongs, a reader's name not printed as given (case or "_" changed), a sentence said twice."""
    out, seen = [], []
    for key, text in said.items():
        if re.search(r"(?<![\w\d])–(?![\w\d])", text):
            out.append(("text", key, "a dash stands where a number belongs"))
        for name in _QUOTED.findall(text) if given is not None else []:
            folded = {g for g in given if g.lower() == name.lower() or g.replace("_", " ") == name}
            if name not in given and folded:
                out.append(("text", key, f"name {name!r} not as given"))
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if len(sentence) > 40 and sentence in seen:
                out.append(("text", key, f"said twice: {sentence[:80]}"))
            seen.append(sentence)
    return out


def tally(cases: list[dict], run_case, false_sentences, tmp: Path) -> dict:
    """A truth test's count by class of fault over its cases, printed case by case (run as a script
    to measure a chapter's false sentences before and after a change)."""
    totals, sentences = {}, 0
    for i, case in enumerate(cases):
        folder = tmp / f"case{i}"
        folder.mkdir(parents=True, exist_ok=True)
        r, frame = run_case(folder, case)
        if isinstance(r, Exception):
            totals["refused"] = totals.get("refused", 0) + 1
            print(f"  {case['id']}: refused: {r}")
            continue
        sentences += sum(len(re.split(r"(?<=[.!?])\s+", t)) for t in r.sentences().values())
        for cls, key, why in false_sentences(r, case, frame):
            totals[cls] = totals.get(cls, 0) + 1
            print(f"  {case['id']}: [{cls}] {key}: {why}")
    return {"sentences": sentences, **totals}


def assert_no_false_sentences(found: list[tuple[str, str]]) -> None:
    """A truth test's verdict on one case: every (class, text) an audit found is listed."""
    assert not found, "\n".join(f"{cls}: {text}" for cls, text in found)


def print_audits(cases, audit) -> None:
    """Run ``audit(case, folder)`` over every case and print its false sentences and their count by
    class: a truth test run as a script, to measure a chapter before and after a change."""
    import tempfile
    from collections import Counter

    counts: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            for cls, text in audit(case, Path(tmp)):
                counts[cls] += 1
                print(f"[{case.id}] {cls}: {text}")
    print("false sentences by class:", dict(counts), "total", sum(counts.values()))


def assert_refused_in_one_line(chapter: str, path: Path, text: str, column: str) -> None:
    """``text`` written to ``path`` and run: a DataError of one line naming the file and ``column``."""
    from mqperf.errors import DataError

    path.write_text(text, encoding="utf-8")
    try:
        run(chapter, path)
    except DataError as exc:
        message = str(exc)
    else:
        raise AssertionError(f"{chapter} accepted {text!r}")
    assert "\n" not in message and str(path) in message and column in message, message
