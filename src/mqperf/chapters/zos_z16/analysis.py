"""z/OS on z16: everything the chapter shows, in the order the notebook shows it.

Orchestration only: the data through :func:`mqperf.data.views.open`, the fits, comparisons and
planning from :mod:`.fits`, the sentences from :mod:`.text`, the charts from
:mod:`mqperf.present.charts`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.chapters.zos_z16 import CHAPTER, COST, CPUS, EXAMPLE, LSPR_FROM, LSPR_TO, NAMED, X
from mqperf.chapters.zos_z16 import fits as f
from mqperf.chapters.zos_z16 import text
from mqperf.data import aggregate, views
from mqperf.present import cards, charts, prose
from mqperf.present.charts import capacity
from mqperf.present.results import Results

USL_CURVE = "USL fit"


def analyse(p: dict) -> Results:
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    src = views.describe(p["data"], CHAPTER)
    opened = views.open(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.setup.update(opened.attrs.get("setup", {}))
    r.answers = "CPUs for the target rate on the machine moved to, the modelled peaks, and the change in rate at the plan's CPUs"
    pts = f.prepare(opened)
    r.points = pts
    target, at = float(p["target_rate_msg_s"]), int(p["plan_cpus"])
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"

    r.about("about", text.ABOUT_SYSTEM)
    r.about("about_errata", text.ABOUT_ERRATA, title=False)
    if src.book_data:  # the report's printed peaks, beside the passages that quote them
        from mqperf.data.views import zos_z16 as view

        r.table("printed_peaks", view.published_peaks(),
                caption="The peak rates the report prints (scalability text and generation table)", digits=7)
        r.table("machines", view.machine_comparison(), caption="The report's comparison of the two machines (page 9), "
                "as printed")
    else:
        r.items["printed_peaks"] = r.items["machines"] = None
    r.about("machines_about", text.ABOUT_MACHINES, title=False)
    r.text("read", text.read(pts, example), aggregate.note(pts, per="workload, machine and CPU count", value=X))
    r.table("points", f.points_table(pts), caption="The points: peak rate and CPU per transaction by machine and CPUs")
    chart_n = int((pts["basis"] == "chart").sum())
    r.checked("Chart readings", f"{chart_n:,} of {len(pts):,} rates are readings off a chart (basis chart); the fits "
                                "use them with the printed or measured ones, and the points table marks each"
              if chart_n else "no rate is marked as read off a chart")

    # -- scaling with CPUs: the USL per workload and machine ------------------------------------------
    fits = f.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    r.fit_results = dict(fits.results)
    r.table("fits", f.fits_table(fits), caption="Peak rate against CPUs: the USL fitted per workload and machine")
    r.text("identification", prose.identification(fits.results) if fits.results else
           "No series has two or more CPU counts, so no scaling curve can be fitted.")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, CPUS].max()),
                                   unit="msg/s"))
        for name, res in list(fits.results.items())[:NAMED]))
    top = int(max(pts[CPUS].max(), at))
    grid = np.unique(np.round(np.linspace(1, top, 60)).astype(int))
    lines = fits.curves(grid, band=False, x=CPUS, y=X).assign(curve=USL_CURVE) if fits.results else None
    r.chart("rate_chart", None if lines is None else capacity.models_and_points(
        pts, lines, x=CPUS, y=X, x_title="CPUs", y_title="peak messages per second",
        title="Peak rate against CPUs, with the USL fits", curve_order=[USL_CURVE]),
        missing="no series could be fitted, so there is no curve to draw")
    costs = f.cost_points(pts)
    r.chart("cost_chart", None if costs is None else charts.lines(
        costs, x=CPUS, y=COST, colour="series", x_title="CPUs", y_title="CPU per transaction (µs)",
        title="CPU per transaction at the peak rate, against CPUs"),
        missing="the data have no CPU per transaction (cpu_us_per_tx)")
    loo = f.validation(fits, pts, data_name=src.name, data_hash=src.sha256) if fits.results else None
    r.table("validation", loo, caption="Each point predicted by its series' fit without it (leave-one-out)",
            missing="no series was fitted, so no point can be predicted")
    r.text("validation_text", text.validation_reading(loo) if loo is not None else "")

    # -- the two machines compared --------------------------------------------------------------------
    a, b, how = f.machines(pts, p)
    qa, qb = (prose.quoted(a), prose.quoted(b)) if a else (None, None)
    r.checked("Machines compared", how)
    table = f.compare(pts, a, b) if a else pd.DataFrame()
    none = (f"the data have no CPU count measured on both {qa} and {qb}" if a else prose.not_supported(how))
    r.table("compare", table if len(table) else None, caption=f"{qa} against {qb} at the CPU counts both measured"
            if a else "The machines compared", missing=none)
    summ = f.summary(table) if len(table) else pd.DataFrame()
    r.table("compare_summary", summ if len(summ) else None, caption="The change across the CPU counts",
            missing=none)
    r.text("compare_text", prose.bullets(text.comparison_reading(summ, table, a, b)) if len(summ) else "",
           (text.REPEATED_RUNS if aggregate.aggregated(pts) else text.SINGLE_RUNS) if len(summ) else "")

    # -- expected (LSPR) against measured -------------------------------------------------------------
    lspr = views.open(p["lspr"], CHAPTER, "lspr")
    r.table("lspr_table", lspr[["cpus", "rni", "expected_improvement_pct"]].rename(
        columns={"cpus": "CPUs", "rni": "RNI", "expected_improvement_pct": "expected improvement %"}),
        caption="IBM's LSPR: expected improvement in capacity of z16 over z15, by CPUs and workload nest intensity")
    pair = a is not None and LSPR_FROM in str(a).lower() and LSPR_TO in str(b).lower()
    held = f.lspr_compare(table, lspr) if pair and len(table) else pd.DataFrame()
    why = (f"the LSPR table projects z15 to z16, and the machines compared here are {qa} and {qb}" if a and not pair else
           "the data have no CPU per transaction on both machines, so there is no measured change in transactions per "
           "CPU second to set beside the LSPR" if a else prose.not_supported(how))
    r.table("lspr", held if len(held) else None, caption="Measured change in transactions per CPU second (ITR = "
            "cost before / cost after − 1) against the LSPR expectation", missing=why)
    r.text("lspr_text", prose.bullets(text.lspr_reading(held, a, b)) if len(held) else "")

    # -- other costs that moved (IBM's published figures) ------------------------------------------------
    ams = views.open(p["ams"], CHAPTER, "ams")
    key = views.open(p["tls_key"], CHAPTER, "tls_key")
    r.table("ams", f.ams_table(ams), caption="IBM's AMS measurements: change from z15 to z16 by message size and "
            "policy (as printed; negative = lower on z16)")
    r.table("tls_key", f.tls_key_table(key), caption="IBM's measurements: CPU per TLS secret key negotiation in the "
            "channel initiator (change = z16 / z15 − 1)")
    r.text("moved_text", prose.bullets(text.moved_reading(f.ams_table(ams), f.tls_key_table(key))))
    r.about("moved_about", text.ABOUT_MOVED, title=False)

    # -- planning --------------------------------------------------------------------------------------
    plan = f.plan(fits, pts, table, a, b, target, at) if b else pd.DataFrame()
    r.table("plan", plan if len(plan) else None, caption=f"Moving to {qb}: CPUs for {prose.given(target)} msg/s, and the "
            f"change at {prose.given(at)} CPUs and at the peak" if b else "Planning",
            missing=f"no fit of {qb} to plan with" if b else prose.not_supported(how))
    for row in plan.to_dict("records"):
        if row["target: extrapolated"]:
            r.extrapolated(f"{prose.quoted(row['workload'], markdown=False)}: CPUs on {prose.quoted(b, markdown=False)} for {prose.given(target)} msg/s ({row['CPUs for the target']:,}, "
                           f"measured {row['measured CPUs']})")
        if row["peak: extrapolated"]:
            r.extrapolated(f"{prose.quoted(row['workload'], markdown=False)}: the modelled peak on {prose.quoted(b, markdown=False)} lies outside the measured CPUs ({row['measured CPUs']})")
        if row.get("rate at plan CPUs: extrapolated"):
            r.extrapolated(f"{prose.quoted(row['workload'], markdown=False)}: the rate change at {prose.given(at)} CPUs lies outside the CPUs both measured")
    r.text("plan_text", prose.bullets(text.plan_reading(plan, a, b, target, at)) if len(plan) else "")

    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)
    return r
