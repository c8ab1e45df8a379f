"""Task scaling's report: load, fit, rank, plan, and add every table, chart and sentence to the Results."""

from __future__ import annotations

from types import SimpleNamespace

from mqperf.chapters.kafka_task_scaling import CHAPTER, NAMED, fits as k, text as t, whatif
from mqperf.data import aggregate, views
from mqperf.present import cards, charts, overhead, prose, text
from mqperf.present.results import Results


def fitted(p: dict) -> SimpleNamespace:
    """The data, the fits and their rankings: what every result of the chapter (and a fleet's summary
    row, :func:`.fleet.summary`) is made from."""
    src = views.describe(p["data"])
    raw = views.open(p["data"], CHAPTER)
    pts = k.points(raw)
    known = k.statements(views.open(p["constraints"], CHAPTER, "constraints") if p.get("constraints") else None,
                         pts, k.base_cpus(raw))
    choices: dict = {}
    fits = k.fit_all(pts, known, p["model"], choices=choices, data_name=src.name, data_hash=src.sha256)
    ranks = k.rankings(fits, pts, known, choices)
    return SimpleNamespace(src=src, pts=pts, known=known, choices=choices, fits=fits, ranks=ranks,
                           target=float(p["target_rate_msg_s"]))


def results(f: SimpleNamespace) -> Results:
    """A report's Results with the points and fits of ``f`` on it, before any item."""
    r = Results(book_data=f.src.book_data, source=f.src.name)
    r.points, r.fit_results = f.pts, dict(f.fits.results)
    return r


def analyse(p: dict) -> Results:
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    f = fitted(p)
    src, pts, known, choices, fits, ranks, target = f.src, f.pts, f.known, f.choices, f.fits, f.ranks, f.target
    max_tasks = int(p["max_tasks"])
    top = int(pts["tasks"].max())
    span = k.span(ranks, pts, max_tasks)
    r = results(f)
    r.answers = ("tasks for the target, the last task adding at least 5 %, the modelled peak or ceiling, "
                 "the CPU at the target rate")

    # -- what was measured -------------------------------------------------------------------
    r.about("about_measured", t.ABOUT_MEASURED)
    r.text("aggregation", aggregate.note(pts, per="series and tasks value", value="rate_msg_s"))
    rows = f": means of {int(pts[aggregate.COUNT].sum()):,} rows" if aggregate.aggregated(pts) else ""
    # Five digits: the published rates are printed to the message (61,588), one more than rates' four.
    r.table("points", _points_table(pts), caption=f"Rates by tasks.max{rows}", digits=5)
    shown = known.assign(relation=known["relation"].map({"no_gain": "no gain", "decrease": "decrease"}))
    r.table("statements", shown.rename(columns={"tasks_from": "from (tasks)", "tasks_to": "to (tasks)"}),
            caption="Statements that are not points",
            missing="no statements that are not points were given, so every series rests on its points alone")
    r.about("about_statements", t.ABOUT_STATEMENTS)

    # -- fits ----------------------------------------------------------------------------------
    r.table("fits", k.fits_table(fits, choices), caption="One fit per series")
    r.text("identification", prose.identification(fits.results), t.unfitted(fits), t.weights_text(choices))
    r.table("parameters", k.parameter_table(fits) if fits.any_intervals else None,
            caption="Estimates, standard errors and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no standard errors or intervals; "
                    "the estimates are in the table above")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, "tasks"].max())))
        for name, res in list(fits.results.items())[:NAMED]), t.more(len(fits.results), "fitted series"))
    _about(r, "about_readings", t.about_readings(fits) if src.book_data else "")

    curve = k.curves(fits, pts, known, max(max_tasks, top))
    drawn = set(curve["series"]) if len(curve) else set()
    rejected = sum(1 for s in drawn if all(x.model == "bottleneck" for x in ranks[s].accepted))
    r.chart("curves", _curves_chart(pts, curve, rejected) if len(curve) else None,
            missing="no series has three or more equations (distinct tasks values plus 'no gain' statements), "
                    "so there is no USL curve to draw")
    band = k.sensitivity_table(fits, pts, known)
    r.table("sensitivity", band, caption="The modelled peak with each 'no gain' statement read within ±3 %",
            missing="your file has no 'no gain' statements, so there is no sensitivity band"
            if known.empty else "no USL fit rests on a 'no gain' statement, so there is no sensitivity band")
    r.text("sensitivity_text", t.sensitivity_text(band))
    # The what-if chart spans the data (and max_tasks): its controls move the curve, not the planning range.
    whatif.add(r, fits, curve, known, target, max(max_tasks, top), ranks)
    usl_fits = {s: res for s, res in fits.results.items() if res.model == "usl"}
    overhead.show(r, usl_fits, {s: float(pts.loc[pts["series"] == s, "tasks"].max()) for s in usl_fits},
                  n_max=span, x_title="connector tasks (tasks.max)", limit=NAMED,
                  missing="no series has a USL fit (it needs three or more equations), so there is no coherency "
                          "part to set against contention; Amdahl's law assumes none")

    # -- other readings and checks -------------------------------------------------------------
    r.table("bottleneck", k.bottleneck_table(ranks), caption="Bottleneck model X = min(λN, X_max) per series",
            missing="no series could be fitted with the bottleneck model")
    r.text("bottleneck_text", t.bottleneck_text(ranks, pts, r))
    r.about("about_bottleneck", t.ABOUT_BOTTLENECK)
    loo = k.leave_one_out(fits, pts, known)
    r.table("loo", loo, caption="Leave one out: each point predicted by a fit without it",
            missing="no series has three or more distinct tasks values, so no point can be left out and still "
                    "leave a fit to predict it")
    r.text("loo_text", t.loo_text(loo))
    cross = k.cpu_variants(fits, pts)
    r.table("cross", cross, caption="Predicting the same workload at another CPU count",
            missing="your data has no series measured at another CPU count (gp_cpus) than a fitted series of the "
                    "same workload, so no fit can be checked against another configuration")
    r.text("cross_text", t.cross_text(cross))
    _about(r, "about_cross", t.about_cross(fits, pts) if src.book_data else "")

    # -- planning --------------------------------------------------------------------------------
    answers = k.plan_table(ranks, pts, target)
    r.table("plan", answers, caption=f"Tasks for {prose.given(target)} msg/s, from the readings the comparison "
            "accepts (no cap: each answer follows its model)")
    r.text("plan_text", t.plan_text(ranks, answers, target, r))
    gains = k.gains(ranks, span)
    r.chart("gains", _gains_chart(gains, span, max_tasks, top) if len(gains) else None,
            missing="no series has a fit to read the marginal gain per task from")
    costs = views.open(p["costs"], CHAPTER, "costs") if p.get("costs") else None
    cpu = k.cpu_at_rate(costs, ranks, pts, target) if costs is not None else None
    # Three digits: the published CPU costs are printed to two or three (1.5 µs; 0.5 to 1.7 µs).
    r.table("cpu", cpu, digits=3,
            caption=f"General-purpose CPU at {prose.given(target)} msg/s, or at the most a reading reaches",
            missing="no CPU costs were given (costs is empty), so the target rate is not priced in CPU"
            if costs is None else "no fitted series matches the series the CPU costs were measured on")
    r.text("cpu_text", t.cpu_text(cpu, target, r))
    r.about("about_cpu", t.ABOUT_CPU)
    r.checked("Planning model", t.planning_check(ranks))
    r.checked("Planning range", f"answers follow each model without a cap; the tables and charts run to {span:,} tasks "
                                f"(the largest of max_tasks, {max_tasks:,}, the largest measured count, "
                                f"{top:,}, and the task after the last that adds 5 %)")
    r.checked("Weights", "; ".join(f"{text.visible(s)}: {w.words}" for s, w in list(choices.items())[:NAMED])
              + (f"; and {len(choices) - NAMED:,} more series" if len(choices) > NAMED else ""))

    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)
    return r


def _about(r, key: str, passage: str) -> None:
    """An about-passage, or nothing when the published series it speaks of are absent."""
    if passage:
        r.about(key, passage)
    else:
        r.text(key)


def _points_table(pts):
    cols = {"series": "series", "tasks": "tasks", "gp_cpus": "CPUs", "rate_msg_s": "rate (msg/s)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column("rate_msg_s"): "sd (msg/s)", "basis": "basis"}
    return pts[[c for c in cols if c in pts]].rename(columns=cols)


def _curves_chart(pts, curve, rejected: int = 0):
    """The USL curves; ``rejected``: how many of the drawn series' comparisons prefer the bottleneck."""
    shown = pts[pts["series"].isin(set(curve["series"]))]
    title = "Measured rates and USL fits"
    if rejected:
        title += (f"; for {rejected:,} of these series AICc prefers the bottleneck reading, which the planning "
                  "uses (see below)")
    return charts.measured_vs_fitted(shown, curve, x="tasks", y="rate_msg_s", x_title="connector tasks (tasks.max)",
                                     y_title="rate (msg/s)", title=title)


def _gains_chart(frame, span: int, max_tasks: int, top: int):
    frame = frame.rename(columns={"added by this task (%)": "gain_pct"})
    why = ("" if span == max_tasks else
           f" (to {span:,}: past max_tasks, {max_tasks:,}, where the data or the last task adding 5 % go further)")
    return charts.bars(frame, x="tasks", y="gain_pct", colour="series", x_title="the task added (tasks.max)",
                       y_title="throughput added by that task (%)",
                       title=f"What one more task adds, by the readings the planning uses{why}; measured up to "
                             f"{top:,} tasks")
