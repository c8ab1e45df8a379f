"""The zEDC compression chapter's analysis: every sentence, table and chart, in order.

Orchestration only: the Hill curves and the arithmetic are :mod:`.fits`, the sentences and
passages :mod:`.text`, the charts builders of :mod:`mqperf.present.charts`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from mqperf.chapters.zedc_compression import CHAPTER, FEATURE_MACHINES, METRICS, fits, text
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models.fitset import FitSet
from mqperf.present import prose
from mqperf.present.charts import storage as storage_charts
from mqperf.present.prose import num
from mqperf.present.results import Results

Y_TITLE = "increase with zEDC archives (%)"
X_TITLE = "message size (KB, log scale)"

# digits= where a table needs other digits than its columns' units give: effects in percent with four
# (the published 7 % to 100 % and the fits' 45.35 % plateau; the unit rule gives "%" three), and three
# for the planning answer, the recovery ratio and the capacity (counts of features, shares of one).


def analyse(p: dict) -> Results:
    """Load, fit and plan; every sentence, table and chart of the chapter, in order."""
    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = "each effect modelled at your message size"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        effects = fits.load_effects(p["data"])
        r.points = effects
        measured_section(r, effects)
        fitset = fit_section(r, effects)
        loo_section(r, effects)
        cpu_section(r, effects, fitset)
        at_size_section(r, fitset, p["message_size_kb"])
        recovery_section(r, p)
        capacity_section(r, p)
    for metric, res in fitset.results.items():
        r.card(f"{CHAPTER}__{metric}", res.to_card(name=f"{CHAPTER}: {METRICS[metric]}", dataset=source.name), res)
    text.errata(r)
    return r


def measured_section(r, effects) -> None:
    text.system(r)
    env = views.open("test_environments", CHAPTER, "environment") if r.book_data else None
    if env is not None:
        r.table("environment", env, caption="The measured system (seed 004)")
    else:
        r.text("environment")
    text.tests(r)
    if not r.book_data:
        r.text("measured_text", text.measured(effects))
    else:
        r.text("measured_text")
    table = effects.rename(columns={"size_kb": "message size (KB)", "pct": "increase (%)",
                                    aggregate.sd_column("pct"): "sd (%)"}).drop(columns="metric")
    rows = int(effects.groupby("metric")[aggregate.COUNT].sum().max()) if aggregate.aggregated(effects) else 0
    note = aggregate.note(effects, per="effect and message size", value="increase", rows=rows) if rows else ""
    r.text("aggregation", note)
    caption = (f"Effect of compressed archives by message size: means of {rows:,} rows" if rows
               else "Effect of compressed archives by message size")
    r.table("effects", table, caption=caption, digits=4)
    text.dfwbp(r)


def fit_section(r, effects) -> FitSet:
    fitset = FitSet.fit(effects, "metric", fits.hill)
    if not fitset.results:
        raise ModelError("no effect has enough message sizes for the Hill curve: it needs at least 3 distinct sizes")
    r.text("fit_text", text.fitted(fitset))
    r.table("fits", fits.fit_table(fitset), caption="Hill curve per effect", digits=4)
    params = fitset.parameters(group="effect")
    params["effect"] = params["effect"].map(METRICS)
    r.table("parameters", params.rename(columns={"std err": "std err", "lower": "95 % lower", "upper": "95 % upper"}),
            caption="Parameters (ln_s50 is ln of the size in KB)")
    r.chart("chart", curves_chart(effects, fitset))
    resid = [{"effect": METRICS[m], "message size (KB)": x, "measured (%)": y, "fitted (%)": f,
              "residual (points)": y - f}
             for m, res in fitset.results.items() for x, y, f in zip(res.x, res.y, res.fittedvalues)]
    r.text("residual_text", text.residuals(fitset))
    r.table("residuals", pd.DataFrame(resid), caption=text.residuals_caption(fitset), digits=4)
    return fitset


def curves_chart(effects, fitset):
    """Each effect's Hill curve with its band, dashed beyond the sizes measured, and the values."""
    lo, hi = float(effects["size_kb"].min()) / 2, float(effects["size_kb"].max()) * 4
    curve = fitset.curves(np.geomspace(lo, hi, 61), y="fit", group="effect")
    measured = {m: (float(res.x.min()), float(res.x.max())) for m, res in fitset.results.items()}
    low, high = (curve["effect"].map({m: v[i] for m, v in measured.items()}) for i in (0, 1))
    curve = curve.reindex(columns=["x", "fit", "lower", "upper"]).assign(
        effect=curve["effect"].map(METRICS), beyond=(curve["x"] > high) | (curve["x"] < low))
    points = effects.rename(columns={"size_kb": "x"})[["x", "pct", "effect"]]
    return storage_charts.curves_beyond(curve, points, y="pct", series="effect", x_domain=(lo, hi), x_title=X_TITLE,
                                        y_title=Y_TITLE, title="zEDC archive compression: CPU cost and throughput "
                                                               "gain by message size")


def loo_section(r, effects) -> None:
    """Each size held out in turn: the Hill curve through the others predicts it (four sizes or more)."""
    table = fits.leave_one_out(effects)
    if table.empty:
        r.missing("loo", "Every effect has fewer than four message sizes, so no size can be held out while three "
                         "remain to fit the curve")
        r.text("loo_text")
        return
    r.table("loo", table, caption="Leave-one-out: each size predicted by the curve through the others", digits=4)
    r.text("loo_text", text.leave_one_out(table))


def cpu_section(r, effects, fitset) -> None:
    cpu = fits.per_message(effects, fitset)
    if cpu is None:
        r.missing("cpu", "Your data has no peak throughput gain at the sizes of the TCB increase, so CPU per "
                         "message cannot be separated from CPU per interval")
        r.text("cpu_text")
        return
    r.text("cpu_text", text.per_message(cpu))
    r.table("cpu", cpu["table"], caption="Change in CPU per message under both readings of the TCB figures",
            digits=4)


def at_size_section(r, fitset, size_kb: float) -> None:
    """The planning answer: each fitted effect at the reader's size, labelled when beyond the sizes measured."""
    answers = fits.at_size(fitset, size_kb)
    for _, row in answers[answers["extrapolated"]].iterrows():
        r.extrapolated(f"the {row['effect']} at {text.kb(size_kb)} KB{text.where(row)}")
    r.text("at_size_text", text.at_size(answers, size_kb))
    r.table("at_size", answers.drop(columns=["side", "edge (KB)"]),
            caption=f"The fitted effects at {text.kb(size_kb)} KB", digits=3)


def recovery_section(r, p) -> None:
    plan = fits.recovery(views.open(p["recovery"], CHAPTER, "recovery"), p["recovery_gb"], p["cost_unit"],
                         p["recovery"])
    book = views.describe(p["recovery"]).book_data
    said = text.recovery(plan, p["recovery_gb"], p["cost_unit"], book_recovery=book, book_data=r.book_data)
    by = plan.set_index("archives")
    ratio = None
    if {"uncompressed", "zedc compressed"} <= set(by.index):
        u, c = by.loc["uncompressed"], by.loc["zedc compressed"]
        ratio = pd.DataFrame([{"compressed / uncompressed time": c["time (s)"] / u["time (s)"],
                               "compressed / uncompressed CPU": c["CPU (s)"] / u["CPU (s)"]}])
    if book:
        plan["possible on the measured 3 processors"] = plan["processors busy during recovery"] <= 3
    r.text("recovery_text", " ".join(said))
    r.table("recovery", plan, caption=f"RECOVER CFSTRUCT of {num(p['recovery_gb'])} GB by archive type")
    r.table("recovery_ratio", ratio, caption="Compressed over uncompressed", digits=3,
            missing="The recovery data lack an uncompressed or a zEDC-compressed row, so there is no ratio")
    frame = plan[["archives", "time (min)", "CPU (s)"]].rename(columns={"time (min)": "minutes", "CPU (s)": "cpu_s"})
    r.chart("recovery_chart", storage_charts.bars_side_by_side(
        frame, y="archives", panels=[("minutes", "time to recover (min)"), ("cpu_s", "CPU used (s)")],
        title=f"RECOVER CFSTRUCT of {prose.given(p['recovery_gb'])} GB: time and CPU"))


def capacity_section(r, p) -> None:
    machine = p["machine"]
    if machine not in FEATURE_MACHINES:
        r.text("capacity_text")
        r.missing("capacity", f"On a {machine}, zEDC compression runs on the Integrated Accelerator for zEDC on each "
                              "processor chip, not on zEDC Express PCIe features, so there are no features to count; "
                              "the utilisation one z13 feature showed says nothing about the on-chip accelerator's "
                              "headroom (counting features applies to z13 and z14 only)")
        return
    proc = views.open(p["processor"], CHAPTER, "processor")
    limits = proc[proc["kind"] == "limit"].set_index("messages")["value"]
    table, needs = fits.capacity(proc, p["queue_managers"], p["archive_rate_share"], p["zedc_max_util"])
    r.text("capacity_text", text.capacity(needs, p, r.book_data))
    r.table("capacity", table, caption=text.capacity_caption(limits, p), digits=3)

