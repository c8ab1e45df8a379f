"""Request/reply: everything the chapter shows, in the order the notebook shows it.

Orchestration only: the data comes through :func:`mqperf.data.views.open`, the models and their
ranking from :mod:`.fits` (and :mod:`mqperf.models.closed_loop`), the sentences from
:mod:`.text`, the charts from :mod:`mqperf.present.charts.capacity`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.chapters.request_reply import (BOUND_CURVE, CHAPTER, EXAMPLE, FIGURES_CURVE, FITTED, NAMED, USL_CURVE,
                                           N, R, X)
from mqperf.chapters.request_reply import fits as f
from mqperf.chapters.request_reply import text
from mqperf.data import aggregate, views
from mqperf.data.views import request_reply as book_view
from mqperf.errors import ModelError
from mqperf.models import closed_loop
from mqperf.present import cards, prose
from mqperf.present.cards import card_name
from mqperf.present.charts import capacity
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    src = views.describe(p["data"], CHAPTER)
    opened = views.open(p["data"], CHAPTER)
    rows = f.prepare(opened)
    tolerance, target, limit = float(p["tolerance"]), float(p["target_rate_msg_s"]), float(p["max_response_ms"])
    r = Results(book_data=src.book_data, source=src.name)
    r.setup.update(opened.attrs.get("setup", {}))  # what a tool's files state (cphtestp)
    r.answers = "clients for the target rate and clients within the response-time limit, per series"
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.read(rows, example))
    charted = src.book_data and "chart_uncertainty" in opened
    r.about("about_data", text.about_book(src.name, rows, opened)) if charted else r.text("about_data", "")
    r.table("chart_readings", f.readings_table(opened) if charted else None, caption="The chart readings, by figure "
            "and curve: client counts, rates and the reading's uncertainty (two pixels)",
            missing="These are not chart readings: the points table below holds the file's values as given.")

    # -- Little's law, before any fit ---------------------------------------------------------
    checked = f.little(rows, tolerance)
    summary = f.little_summary(checked, tolerance)
    r.table("little", summary, caption="Little's law, N = X·(R + Z), checked on every row")
    r.text("little_text", text.little_reading(checked, summary, tolerance, int(p["messages_per_request"])))
    r.table("flagged", f.flagged_table(checked), caption=f"Rows further than {prose.pct(100 * tolerance)} from "
            "Little's law", missing="no row disagrees with Little's law beyond the tolerance")
    pts = f.points(checked)
    r.points = pts
    r.text("aggregation", aggregate.note(pts, per="series and client count", value="rate_msg_s"))
    # Five digits, not the four a rate's unit gives: a mean of several rows keeps one more (1,171.9 requests/s).
    r.table("points", f.points_table(pts), caption="The points the fits use", digits=5)

    # -- the USL fit and the response time it implies --------------------------------------------
    fits = f.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    peaks = book_view.peaks() if src.book_data else None
    against = f.peaks_against_fits(peaks, opened.attrs.get("chart_keys", {}), fits) if peaks is not None else None
    r.table("peaks", f.peaks_table(peaks) if peaks is not None else None, caption="The report's printed peaks: "
            "rate, CPU and clients at each message size (one run each), with the response time N / X and the CPU "
            "per 100,000 requests/s", missing="Only the book's V9.3 data carry printed peak tables; a reader's "
            "file gives its curves alone.")
    r.table("peaks_check", against, caption="Printed peaks against the USL fitted to the chart readings (values the "
            "fit did not use)", missing="No printed peak matches a fitted series.")
    r.text("peaks_text", text.peaks_reading(f.peaks_table(peaks), against) if peaks is not None else "")
    r.fit_results = dict(fits.results)
    r.table("fits", f.fits_table(fits), caption="Throughput against clients: one fit per series")
    r.text("identification", prose.identification(fits.results) if fits.results else
           "No series has two or more client counts, so no scaling curve can be fitted.")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, N].max()),
                                   unit="requests/s"))
        for name, res in list(fits.results.items())[:NAMED]))
    implied = f.implied_response(fits, pts) if fits.results else None
    r.table("implied", implied, caption="Response time: measured, and implied by the throughput fit (N / X(N) − Z)",
            missing="without a throughput fit there is no implied response time")
    r.text("implied_text", text.implied_reading(implied, pts, tolerance) if implied is not None else "")

    # -- the MVA the measurements calibrate (read after the ranking below) ------------------------------
    cal = f.calibrate(pts, data_name=src.name, data_hash=src.sha256)
    r.fit_results.update({f"{s} (MVA fitted)": res for s, res in cal.results.items()})
    r.table("calibrated", f.calibrated_table(cal),
            caption="The one-queue MVA fitted to each series' rates: the bottleneck's demand D_q and the delay D_d")

    # -- MVA from the demand figures ------------------------------------------------------------
    figures = {k: views.open(p[k], CHAPTER, k) for k in ("cpu_costs", "log_bytes", "log_disk", "network")}
    d = f.resolve(p, figures)
    # Five digits: the sources' figures as printed (mqldt's 22.322 MB/s, 713.83 µs); low/high name no unit.
    r.table("figures", f.figures_table(figures, p), caption="The book's figures the default demands come from",
            digits=5)
    r.text("demands_text", prose.bullets(text.figures_said(p, figures, d)), f"A request is "
           f"{prose.count(d.messages, 'message')}, each put and got once, so its demand at each resource is that many "
           "times a message's.")
    r.table("demands", f.demands_table(d), caption="Service demands per request, and whose figures they are")
    top = max(int(p["max_clients"]), int(pts[N].max()))
    grid = np.unique(np.round(np.linspace(1, top, 60)).astype(int))
    try:
        solved = f.solve_all(d, pts, top)
    except ModelError:
        solved = {}
    nothing = "no resource that queues has a demand above 0 (CPU and log are both 0), so there is no MVA"
    summary = f.summary_table(solved, pts) if solved else None
    compare = f.compare_table(solved, pts) if solved else None
    r.table("mva_summary", summary, caption=f"MVA from {d.attribution()}, by series: bottleneck, ceiling and where "
            "the bounds meet", missing=nothing)
    r.table("mva", compare, caption="MVA from the figures beside the measurements", missing=nothing)
    r.text("mva_text", text.mva_reading(summary, compare, d, example, src.book_data) if solved else "")
    # Three digits: utilisations in percent (their column names say "%" without parentheses).
    r.table("utilisation", f.utilisation_table(solved, pts) if solved else None, digits=3,
            caption="Where a request spends its time, by the MVA from the figures", missing=nothing)
    implied_d = f.implied_table(solved, pts) if solved else None
    r.table("implied_demands", implied_d, caption="What the measurements alone say about the figures' demands",
            missing=nothing)
    r.text("implied_demands_text", text.implied_demands_reading(implied_d, tolerance) if solved else "")

    # -- which model: AICc -------------------------------------------------------------------------
    cands = f.candidates(pts, fits, cal, solved, d.attribution())
    ranking, accepted, how = f.rank(cands, d.all_yours)
    r.table("ranking", ranking, caption="The models of the rate, ranked per series (lowest criterion accepted)",
            missing="no series has a model to rank")
    r.text("ranking_text", prose.bullets(text.ranking_reading(ranking, accepted, how, example)[:NAMED]))
    r.text("calibrated_text", text.calibrated_identification(cal),
           prose.bullets(text.calibrated_reading(cal, pts, ranking, accepted)[:NAMED]))
    r.checked("Model choice", "; ".join(f"{prose.quoted(s, markdown=False)}: {how[s]}" + (
        f" ({accepted[s].model})" if s in accepted else "") for s in list(how)[:NAMED]) or "no series")

    lines = _curves(fits, cal, solved, pts, grid)
    measured = pts.rename(columns={X: "rate", R: "response_ms"})
    for key, y, y_title, title in (("rate_chart", "rate", "requests per second", "Throughput against clients"),
                                   ("response_chart", "response_ms", "response time (ms)", "Response time against clients")):
        r.chart(key, None if lines is None else capacity.models_and_points(
            measured, lines, x=N, y=y, x_title="clients", y_title=y_title, title=title,
            curve_order=[USL_CURVE, FITTED, FIGURES_CURVE, BOUND_CURVE]),
            missing="there is neither a fitted model nor an MVA from the figures to draw")

    # -- planning, with the accepted model ------------------------------------------------------------
    plan = f.plan(accepted, target, limit, top) if accepted else None
    r.table("plan", plan, caption=f"Clients for {prose.given(target)} requests/s, and within "
            f"{prose.given(limit)} ms, by each series' accepted model (planning range 1 to {top:,} clients)",
            missing="no model answers for any series (see the ranking above)")
    if plan is not None:
        for row in plan.to_dict("records"):
            name = prose.quoted(row["series"], markdown=False)
            if row["target: extrapolated"]:
                r.extrapolated(f"{name}: clients for {prose.given(target)} requests/s "
                               f"({row['clients for the target']:,}, measured from {row['fewest measured (clients)']:,} to "
                               f"{row['largest measured (clients)']:,})")
            if row["limit: extrapolated"]:
                r.extrapolated(f"{name}: clients within {prose.given(limit)} ms "
                               f"({row['most clients within the limit']}, measured from {row['fewest measured (clients)']:,} to "
                               f"{row['largest measured (clients)']:,})")
    r.text("plan_text", prose.bullets(text.plan_reading(plan, target, limit, top)[: 2 * NAMED])
           if plan is not None else "")

    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)
    for s, res in cal.results.items():
        r.card(card_name(CHAPTER, f"{s} mva"), res.to_card(name=f"{CHAPTER}: {s}, MVA fitted", dataset=src.name), res)
    return r


def _curves(fits, cal, solved: dict, pts: pd.DataFrame, grid: np.ndarray) -> pd.DataFrame | None:
    """Every model's rate and response time on the client grid, per series (None: nothing to draw)."""
    def closed(frame: pd.DataFrame, curve: str) -> pd.DataFrame:
        frame = frame.astype({N: int})
        z = frame["series"].map({s: f.think_s(pts, s) for s in frame["series"].unique()})
        return frame.assign(curve=curve, response_ms=closed_loop.response_ms(frame[N], frame["rate"], z))[
            ["series", N, "curve", "rate", "response_ms"]]

    frames = [closed(fs.curves(grid, band=False, x=N, y="rate"), curve)
              for fs, curve in ((fits, USL_CURVE), (cal, FITTED)) if fs.results]
    for s, res in solved.items():
        t = res.table.set_index("clients").loc[grid]
        b = res.bounds(grid)
        frames.append(pd.DataFrame({"series": s, N: grid, "curve": FIGURES_CURVE, "rate": t["throughput"].to_numpy(),
                                    "response_ms": t["response_s"].to_numpy() * 1e3}))
        frames.append(pd.DataFrame({"series": s, N: grid, "curve": BOUND_CURVE, "rate": b["throughput_bound"].to_numpy(),
                                    "response_ms": b["response_bound_s"].to_numpy() * 1e3}))
    return pd.concat(frames, ignore_index=True) if frames else None
