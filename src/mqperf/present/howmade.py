"""Two sections every report has, whatever its chapter: "This run" and "How this report was made".

**This run** replaces the raw parameter cells: one row per data file (its name, size and
SHA-256, and what was read from a tool's files with every conversion note) and one per
parameter (its value, the default for this kind of run, its unit).

**How this report was made** lists the checks a report makes on its own data before stating a
result, each with its outcome for this data, computed:

- the measurements behind each point and their spread, or "one measurement per point: spread
  unknown";
- how rates were aggregated (total count over total time, or the mean of rows' rates and when
  that is the same);
- the residual checks of every fit before its intervals (normality and even spread), and which
  interval each fit's tables give (Student-t, or a bootstrap when the checks fail);
- every answer that leaves the measured range, labelled "extrapolated" where it is given;
- the setup the files state (MQ version, platform, interval length from the tools' headers),
  and "not stated" for what they do not;
- any chapter-specific check (``Results.checked``).

No peer checks how a result is reported (asv, Bencher and Apache Otava detect regressions);
this section makes a report's own honesty something a reader can audit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from mqperf.present import prose, text

#: The setup a report looks for in its files' headers.
SETUP = ("MQ version", "platform", "interval length")


def _size(path: Path) -> str:
    try:
        return f"{path.stat().st_size:,} bytes"
    except OSError:
        return "size unknown"


def _conversion(path: Path) -> list[dict]:
    """What ``conversion.json`` beside a converted input says about it (a tool's files read)."""
    record = path.parent / "conversion.json"
    if path.parent.name != "inputs" or not record.is_file():
        return []
    try:
        entries = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    # An entry's "input" is the chapter ("<chapter>") for the main data, which is written as
    # data.csv, or "<chapter>.<input>" for another input, written as <input>.csv.
    def written_as(target: str) -> str:
        return (target.split(".", 1)[1] if "." in target else "data") + ".csv"

    return [e for e in entries if written_as(str(e.get("input", ""))) == path.name]


def this_run(chapter: str, values: dict, book_data: bool) -> pd.DataFrame:
    """The "This run" table: data files first, then every parameter with its default and unit."""
    from mqperf import parameters
    from mqperf.data import loader, views
    from mqperf.declarations import DataFile, Internal

    decl = parameters.declarations(chapter)
    defaults = parameters.defaults(chapter)
    if not book_data:
        defaults = {**defaults, **parameters.reader_defaults(chapter)[0]}
    rows = []
    for name, d in decl.items():
        if not isinstance(d, DataFile) or not values.get(name):
            continue
        src = views.describe(values[name])
        path = loader.resource_path(src.name) if src.book_data else Path(str(values[name]))
        what = f"{text.visible(src.name)} ({_size(path)}, SHA-256 {str(src.sha256)[:16]}…)"
        if src.book_data:
            what = f"the book's dataset {what}"
        rows.append({"item": name, "value": what, "default": "", "unit": ""})
        for conv in _conversion(path):
            files = ", ".join(text.visible(f) for f in conv.get("files", []))
            rows.append({"item": f"{name}: read from", "value": f"{files} ({', '.join(conv.get('formats', []))})",
                         "default": "", "unit": ""})
            for note in conv.get("notes", []):
                rows.append({"item": f"{name}: conversion", "value": text.visible(note), "default": "", "unit": ""})
    for name, d in decl.items():
        if isinstance(d, (DataFile, Internal)):
            continue
        value, default = values.get(name), defaults.get(name)
        rows.append({"item": name, "value": _shown(value), "default": "" if default == value else _shown(default),
                     "unit": getattr(d, "unit", "") or ""})
    return pd.DataFrame(rows, columns=["item", "value", "default", "unit"]).rename(
        columns={"default": "default (where another value was given)"})


def _shown(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return prose.num(value, 12)
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v) for v in value)
    return text.visible(value)


# -- how this report was made ------------------------------------------------------------------

def _points(points) -> str:
    from mqperf.data import aggregate

    if points is None or not hasattr(points, "columns") or len(points) == 0:
        return "no fitted points"
    if aggregate.COUNT in points and points[aggregate.COUNT].max() > 1:
        n = points[aggregate.COUNT]
        return (f"{prose.num(n.min())} to {prose.num(n.max())} rows per point (median {prose.num(n.median())}); "
                "each point's standard deviation is in the data table")
    return "one measurement per point: spread unknown"


def _rates(points, results) -> str:
    from mqperf.data import aggregate

    if "Rates" in results.checks:
        return results.checks["Rates"]
    if points is None or not hasattr(points, "columns") or not aggregate.aggregated(points):
        return "as given: one rate per row, nothing averaged"
    if getattr(points, "attrs", {}).get("weighted_by"):
        return (f"each point is total count over total time: its rows' rates weighted by "
                f"{points.attrs['weighted_by']}")
    return ("each point is the mean of its rows' rates; the rows give no interval length, so this is total count "
            "over total time only if the rows cover equal times")


def fitted(results) -> dict:
    """Every fit the report shows, by name: the chapter's own list, else the fits behind its cards."""
    fits = dict(results.fit_results)
    seen = {id(r) for r in fits.values()}
    for name, res in results.card_results.items():
        if id(res) not in seen:
            fits[name] = res
            seen.add(id(res))
    return {k: v for k, v in fits.items() if hasattr(v, "residual_checks")}


def _residuals(results) -> list[tuple[str, str]]:
    labels = {name: card.get("name", name) for name, card in results.cards}
    rows = []
    for name, res in fitted(results).items():
        label = text.visible(labels.get(name, name))
        if res.df_resid <= 0:
            rows.append((f"Residuals of {label}", "no residual degrees of freedom: nothing to check, and no intervals"))
        else:
            rows.append((f"Residuals of {label}", f"{res.residual_checks.words()}; intervals: {res.interval_method}"))
    return rows


def section(results) -> pd.DataFrame:
    """The "How this report was made" table for ``results``: one row per check, with its outcome."""
    rows = [("Measurements behind each point", _points(results.points)),
            ("Rates", _rates(results.points, results))]
    fits = _residuals(results)
    if fits:
        shown, rest = fits[:12], len(fits) - 12
        rows += shown
        if rest > 0:
            failed = sum(1 for res in list(fitted(results).values())[12:] if not res.residual_checks.passed)
            rows.append(("Residuals of the other fits", f"{rest:,} more fits; {failed:,} of them fail a check"))
    else:
        rows.append(("Residuals", "no fitted model with residuals in this report"))
    if results.answers is None:
        rows.append(("Extrapolations", "this chapter does not check its answers against the measured range"))
    elif results.extrapolations:
        listed = "; ".join(results.extrapolations[:6]) + (f"; and {len(results.extrapolations) - 6:,} more"
                                                          if len(results.extrapolations) > 6 else "")
        n = len(results.extrapolations)
        rows.append(("Extrapolations", f"{prose.count(n, 'answer')} {'leaves' if n == 1 else 'leave'} the measured "
                                       f"range, each labelled where it is given: {listed}"))
    else:
        rows.append(("Extrapolations", f"no answer in this report ({results.answers}) leaves the measured range"))
    stated = results.setup
    rows.append(("Setup stated in the files", "; ".join(
        f"{k}: {text.visible(stated[k]) if k in stated else 'not stated'}" for k in (*SETUP, *[k for k in stated
                                                                                            if k not in SETUP]))))
    for check, outcome in results.checks.items():
        if check != "Rates":
            rows.append((check, outcome))
    return pd.DataFrame(rows, columns=["check", "outcome for this data"])


def stated_setup(chapter: str, values: dict) -> dict:
    """The setup the data files' tools state (``conversion.json`` beside a converted input)."""
    from mqperf import parameters
    from mqperf.declarations import DataFile

    found = {}
    for name, d in parameters.declarations(chapter).items():
        if isinstance(d, DataFile) and values.get(name) and not isinstance(values[name], (list, dict)):
            for conv in _conversion(Path(str(values[name]))):
                found.update(conv.get("setup", {}))
    return found


def add(results, chapter: str, values: dict) -> None:
    """Add both sections to ``results`` (the notebook shows ``this_run`` and ``how_made``)."""
    results.setup = {**stated_setup(chapter, values), **results.setup}
    results.table("this_run", this_run(chapter, values, results.book_data), digits=6)
    results.table("how_made", section(results), digits=3)

