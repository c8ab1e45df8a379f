"""What ``mqperf fleet`` computes per dataset (in a Dask worker) and the summary it writes.

:func:`run_row` runs in a worker process: it calls :func:`mqperf.chapters.preflight` (the
chapter's ``analyse``, exactly what ``mqperf run`` checks and the notebook shows) and turns
the chapter's model cards into small plain dicts, so only a few hundred bytes per dataset
travel back to the client. Summary columns are generic (read from the cards); a chapter adds
its own by declaring, in its package (``mqperf.chapters.<chapter>``; optional, a chapter without
them has no columns of its own):

* ``fleet_columns(p, r) -> dict[str, dict]``: extra columns per card name; a key that is no
  card's name is a series the chapter could not fit (its dict holds ``series`` and ``reason``);
* ``CURRENT_COLUMN`` and ``UNIT`` (optional): the column holding a series' current rate, which
  the page charts against the modelled peak (``peak_x``) and ranks by share of the peak;
* ``fleet_summary(p) -> Results`` (optional): the run as the summary reads it (the model cards and
  whatever ``fleet_columns`` reads), made by the chapter's own analysis without the parts a summary
  does not show (charts, what-if, sentences); without it a row runs the whole analysis.

:func:`summary_frame`, :func:`write_csv` and :func:`write_page` run in the client.
"""

from __future__ import annotations

import html
import math
import warnings

#: Every row has these columns first, in this order.
BASE_COLUMNS = ["id", "chapter", "data", "status", "reason", "series", "model", "flags"]
#: Generic fit columns, after the parameters.
FIT_COLUMNS = ["mape_pct", "df_resid", "exactly_identified", "at_bound", "peak_n", "peak_x"]
#: Digits the CSV keeps (the model cards' rule): equal on every machine, finer than any page shows.
CSV_DIGITS = 6

OK, BAD, FAILED = "ok", "bad input", "failed"


# -- in the worker -------------------------------------------------------------------------

def warm(chapters: list[str]) -> list[str]:
    """Import what every run of ``chapters`` needs, once per worker process (``client.run``)."""
    from mqperf import chapters as chapter_modules
    from mqperf.publish import engine

    exec(engine.PRELOAD, {})  # what a warm kernel imports: the same set, the same cost, once
    done = []
    for name in chapters:
        chapter_modules.module(name)
        done.append(name)
    return done


def run_row(chapter: str, data: str, params: dict, report_to: str | None = None) -> dict:
    """Run ``chapter`` on ``data`` (absolute path) with ``params``; never raises.

    With ``report_to`` (``--reports``), the chapter's notebook runs the analysis instead, in this
    worker's warm kernel, and writes the report (notebook, HTML, cards) into that folder; the
    summary rows are then read from the notebook's own results.

    Returns
    -------
    dict
        ``status`` (``"ok"``, ``"bad input"`` or ``"failed"``), ``reason`` (one line, empty when
        ok) and ``rows``: one plain dict per model card (see :func:`card_rows`).
    """
    from mqperf import chapters, parameters
    from mqperf.errors import DataError, ModelError, ParameterError

    if report_to:
        return _row_with_report(chapter, data, params, report_to)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            summary = _declared(chapter, "fleet_summary")
            if summary is None:
                r = chapters.preflight(chapter, data, params)
                return _outcome(OK, rows=card_rows(chapter, _values(chapter, data, params), r))
            values = _values(chapter, data, params)
            parameters.validate(chapter, {k: v for k, v in values.items() if k != "cards_dir"})
            return _outcome(OK, rows=card_rows(chapter, values, summary(values)))
    except (DataError, ModelError, ParameterError) as exc:
        return _outcome(BAD, str(exc))
    except Exception as exc:  # a defect of ours, or a library's: this row says so, the others go on
        return _outcome(FAILED, f"{type(exc).__name__}: {exc}")


def _row_with_report(chapter: str, data: str, params: dict, report_to: str) -> dict:
    """``--reports``: the notebook runs the analysis (once), the summary rows come from its results."""
    from pathlib import Path

    from mqperf import parameters
    from mqperf.errors import DataError, ModelError, ParameterError
    from mqperf.publish import fleet_reports, runner

    try:
        values = _values(chapter, data, params)
        parameters.validate(chapter, {k: v for k, v in values.items() if k != "cards_dir"})
        rows = fleet_reports.make(chapter, data, values, Path(report_to))
    except (DataError, ModelError, ParameterError) as exc:
        return _outcome(BAD, str(exc))
    except runner.ChapterFailed as failure:
        if failure.bad_input:  # the chapter refused the data, as `mqperf run` would say
            return _outcome(BAD, failure.evalue)
        return _outcome(FAILED, f"the report failed: {failure}")
    except Exception as exc:  # a defect of ours, or a library's: this row says so, the others go on
        return _outcome(FAILED, f"{type(exc).__name__}: {exc}")
    return _outcome(OK, rows=rows)


def _outcome(status: str, reason: str = "", rows: list | None = None) -> dict:
    """What a worker sends back for one row: its status, a one-line reason, its summary rows."""
    from mqperf.errors import shorten

    return {"status": status, "reason": shorten(" ".join(reason.split()), 300) if reason else "", "rows": rows or []}


def _values(chapter: str, data: str, params: dict) -> dict:
    from mqperf import parameters

    return parameters.effective(chapter, data, params).values


def card_rows(chapter: str, p: dict, r) -> list[dict]:
    """One dict per model card of ``r``, plus the chapter's own columns (``fleet_columns``)."""
    columns = _declared(chapter, "fleet_columns")
    extra = columns(p, r) if columns is not None else {}
    rows = []
    for name, card in r.cards:
        row = {"series": series_label(chapter, card, name), "model": card.get("model", "")}
        flags = []
        at_bound = False
        for pname, par in card.get("parameters", {}).items():
            lo, hi = (list(par.get("ci95") or []) + [None, None])[:2]
            row[pname] = _float(par.get("estimate"))
            row[f"{pname}_lower"] = _float(lo)
            row[f"{pname}_upper"] = _float(hi)
            at_bound = at_bound or bool(par.get("at_bound"))
        fit = card.get("fit", {})
        row["mape_pct"] = _float(fit.get("mape_pct"))
        row["df_resid"] = fit.get("df_resid")
        row["exactly_identified"] = bool(fit.get("exactly_identified"))
        row["at_bound"] = at_bound
        for key, value in card.get("derived", {}).items():
            row[key] = _float(value)
        row.update(extra.get(name, {}))
        if row["exactly_identified"]:
            flags.append("exactly identified")
        if row.get("extrapolated"):
            flags.append("extrapolated")
        if at_bound:
            flags.append("at bound")
        row["flags"] = "; ".join(flags)
        rows.append(row)
    cards = {name for name, _ in r.cards}
    for key, value in extra.items():
        if key not in cards:  # a series the chapter could not fit
            rows.append({"series": value.get("series", key), "model": "", "flags": "fit failed",
                         "reason": value.get("reason", "")})
    if not rows:
        rows.append({"series": "", "model": "", "flags": "fit failed",
                     "reason": "the chapter fitted no model to this data, so there is nothing to summarise"})
    return rows


def series_label(chapter: str, card: dict, name: str) -> str:
    """The series a card describes: its name without the "<chapter>: " the cards begin with."""
    label = str(card.get("name", name))
    return label.split(": ", 1)[1] if label.startswith(f"{chapter}: ") else label


def _float(value):
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# -- in the client ---------------------------------------------------------------------------

def summary_rows(job: dict, result: dict) -> list[dict]:
    """The summary rows of one (dataset, chapter): its card rows, or one row saying why there are none."""
    base = {"id": job["id"], "chapter": job["chapter"], "data": job["data"], "status": result["status"],
            "reason": result["reason"]}
    if result["status"] != OK:
        return [{**base, "series": "", "model": "", "flags": result["status"]}]
    return [{**base, **{k: v for k, v in row.items() if k != "reason"},
             "reason": row.get("reason", base["reason"])} for row in result["rows"]]


def summary_frame(rows: list[dict]):
    """All rows as a frame: sorted by id, chapter and series, columns in a stable order.

    Order: :data:`BASE_COLUMNS`, then each parameter with its interval (in the order the
    chapters' cards give them), :data:`FIT_COLUMNS`, then the chapters' own columns sorted by
    name (:func:`with_use_of_peak` appends ``peak_used_pct`` after them).
    """
    import pandas as pd

    rows = sorted(rows, key=lambda r: (str(r["id"]), str(r["chapter"]), str(r.get("series", ""))))
    seen = []
    for row in rows:
        for key in row:
            if key not in seen:
                seen.append(key)
    params = [k for k in seen if f"{k}_lower" in seen and f"{k}_upper" in seen]
    fixed = set(BASE_COLUMNS) | set(FIT_COLUMNS)
    param_cols = [c for p in params for c in (p, f"{p}_lower", f"{p}_upper")]
    rest = sorted(k for k in seen if k not in fixed and k not in param_cols)
    columns = BASE_COLUMNS + param_cols + [c for c in FIT_COLUMNS if c in seen] + rest
    frame = pd.DataFrame(rows, columns=columns)
    for col in columns:
        values = [row[col] for row in rows if row.get(col) is not None]
        # Counts stay counts in the CSV ("3", not "3.0") even where some rows have none.
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            frame[col] = frame[col].astype("Int64")
    return frame


def _nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def write_csv(frame, path) -> None:
    """``summary.csv``: numbers at :data:`CSV_DIGITS` significant digits by the display rule."""
    from mqperf import numbers

    out = frame.copy()
    for col in out.columns:
        if out[col].dtype.kind == "f":
            out[col] = [numbers.round_sig(v, CSV_DIGITS) if v is not None and not _nan(v) else v for v in out[col]]
    out.to_csv(path, index=False, lineterminator="\n")


# -- the page --------------------------------------------------------------------------------

def _declared(chapter: str, part: str):
    """A part the chapter's package declares (``fleet_columns``, ``CURRENT_COLUMN``...), or None."""
    from mqperf import chapters as chapter_modules

    return getattr(chapter_modules.module(chapter), part, None)


def _current(chapters: list[str]) -> tuple[str | None, str]:
    for chapter in chapters:
        current = _declared(chapter, "CURRENT_COLUMN")
        if current:
            return current, _declared(chapter, "UNIT") or ""
    return None, ""


def with_use_of_peak(frame, chapters: list[str]):
    """``frame`` plus ``peak_used_pct`` (current / modelled peak, in %) where a chapter gives a current rate."""
    current, _ = _current(chapters)
    if current is None or current not in frame or "peak_x" not in frame:
        return frame
    import numpy as np

    peak = frame["peak_x"].astype(float)
    used = frame[current].astype(float) / peak * 100
    return frame.assign(peak_used_pct=used.where(np.isfinite(peak) & (peak > 0)))


def paragraph(frame, chapters: list[str], datasets: int) -> str:
    """The page's computed opening: counts, bad and failed datasets, and who is nearest the limit."""
    from mqperf.present import prose

    per = frame.drop_duplicates(["id", "chapter"])
    bad = per[per["status"] == BAD]
    failed = per[per["status"] == FAILED]
    fitted = frame[(frame["status"] == OK) & (frame["model"].fillna("") != "")]
    out = [f"{prose.count(datasets, 'dataset').capitalize()} ran through {prose.listing(chapters)}: "
           f"{prose.count(len(fitted), 'series', 'series')} fitted, {prose.count(len(bad), 'dataset')} with bad input and "
           f"{prose.count(len(failed), 'dataset')} failed."]
    if len(bad):
        ids = prose.listing(prose.quoted(i, markdown=False) for i in bad["id"].head(5))
        more = f" and {len(bad) - 5:,} more" if len(bad) > 5 else ""
        out.append(f"Bad input: {ids}{more}; the table gives each one's reason.")
    if "peak_used_pct" in frame and frame["peak_used_pct"].notna().any():
        top = frame.dropna(subset=["peak_used_pct"]).sort_values("peak_used_pct", ascending=False).head(3)
        near = prose.listing(f"{prose.quoted(t['id'], markdown=False)} ({prose.quoted(t['series'], markdown=False)}) at {prose.pct(t['peak_used_pct'])}"
                             for t in top.to_dict("records"))
        out.append(f"Nearest their modelled limit, by the best measured rate as a share of the peak: {near}.")
    extrap = int((fitted["flags"].fillna("").str.contains("extrapolated")).sum()) if len(fitted) else 0
    if extrap:
        out.append(f"For {prose.count(extrap, 'series', 'series')} the modelled peak or the planning answer lies beyond "
                   "the largest measured concurrency: an extrapolation of the fitted model.")
    return " ".join(out)


def _table_frame(frame, chapters: list[str]):
    """The page's table: the columns a reader scans, nearest the limit first, with units in the headers."""
    current, unit = _current(chapters)
    unit = f" ({unit})" if unit else ""
    cols = {"id": "id", "chapter": "chapter", "series": "series", "status": "status", "flags": "flags",
            "model": "model", "peak_x": f"peak{unit}", "peak_n": "at (N)",
            current: f"best measured{unit}", "peak_used_pct": "of peak (%)",
            "peak_over_target": "peak / target", "planning_model": "planning model",
            "tasks_for_target": "tasks for the target", "tasks_for_target_note": "about the tasks for the target",
            "mape_pct": "error (%)", "reason": "reason"}
    shown = frame
    if "peak_used_pct" in frame:
        shown = frame.sort_values(["peak_used_pct", "id"], ascending=[False, True], na_position="last")
    if len(chapters) == 1:
        cols.pop("chapter")  # the page's title names it
    shown = shown[[c for c in cols if c in shown]].rename(columns=cols)
    return shown.reset_index(drop=True)


def chart(frame, chapters: list[str]):
    """Each series' modelled peak against its best measured rate, coloured by flag; None without both."""
    current, unit = _current(chapters)
    if current is None or current not in frame or "peak_x" not in frame:
        return None
    import altair as alt
    import numpy as np
    import pandas as pd

    from mqperf.present import charts

    data = frame[["id", "series", "flags", current, "peak_x"]].copy()
    data = data[np.isfinite(data["peak_x"].astype(float)) & data[current].notna()]
    if data.empty:
        return None
    data["flag"] = data["flags"].fillna("").replace("", "none")
    total = len(data)
    data = charts.sampled(data.sort_values(["id", "series"]))  # a fleet of 10,000 series still draws
    title = "Modelled peak against the best measured rate (on the line: at the limit)"
    if len(data) < total:
        title += f"; {len(data):,} of {total:,} series, evenly spaced by id"
    data = charts.rounded(data.rename(columns={current: "current", "peak_x": "peak"}),
                          columns=["id", "series", "flag", "current", "peak"])
    top = float(max(data["current"].max(), data["peak"].max()))
    diagonal = pd.DataFrame({"current": [0.0, top], "peak": [0.0, top]})
    points = alt.Chart(data).mark_point(filled=True).encode(**charts.channels(
        x=alt.X("current:Q", title=f"best measured rate ({unit})"),
        y=alt.Y("peak:Q", title=f"modelled peak ({unit})"),
        color=alt.Color("flag:N", title="flags"),
        tooltip=[alt.Tooltip("id:N", title="id"), alt.Tooltip("series:N", title="series"),
                 alt.Tooltip("current:Q", title=f"best measured ({unit})"),
                 alt.Tooltip("peak:Q", title=f"modelled peak ({unit})"), alt.Tooltip("flag:N", title="flags")]))
    line = (alt.Chart(diagonal).mark_line(strokeDash=[4, 4], color="#999")
            .encode(**charts.channels(x="current:Q", y="peak:Q")))
    return (line + points).properties(title=title)


def write_page(frame, path, *, chapters: list[str], datasets: int, title: str) -> None:
    """``index.html``: standalone and offline (the vega bundle inlined, no external URL)."""
    from mqperf.present import charts, tables
    from mqperf.publish import report

    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(paragraph(frame, chapters, datasets))}</p>"]
    fig = chart(frame, chapters)
    if fig is not None:
        body.append(charts.render(fig.to_dict())["text/html"])
    else:
        body.append("<p>No chapter here gives a current rate and a modelled peak, so there is no fleet chart.</p>")
    table = _table_frame(frame, chapters)
    body.append(tables.show(table, digits=4, caption="One row per dataset and fitted series, nearest the limit first",
                            max_rows=max(len(table), 1))._repr_html_())
    path.write_text(report.standalone(title, body), encoding="utf-8")
