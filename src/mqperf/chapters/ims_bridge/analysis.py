"""The IMS bridge chapter's analysis: open the data, fit, validate, plan and size the coupling
facility, and put every table, chart, sentence and card on the Results in the notebook's order."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.ims_bridge import CHAPTER, HEADROOM, TARGET_DIGITS, fits as f, text, whatif
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.present import charts, overhead, prose
from mqperf.present.cards import card_name
from mqperf.present.charts import shares
from mqperf.present.results import Results

# -- columns for people --------------------------------------------------------------------------------

FITS_COLUMNS = {"series": "series", "model": "model", "points": "points", "lam": "λ (tx/s per CPU)",
                "sigma": "σ", "kappa": "κ", "x_max": "X_max (tx/s)", "limit": "limit or peak (tx/s)",
                "at_cpus": "knee or peak at CPUs", "df_resid": "residual df", "t95": "t (95 %)",
                "rmse": "RMSE (tx/s)", "identification": "identification"}
PARAMETER_COLUMNS = {"series": "series", "model": "model", "parameter": "parameter", "unit": "unit",
                     "estimate": "estimate", "std err": "std err", "lower": "95 % lower", "upper": "95 % upper",
                     "held at bound": "held at bound"}
HOLDOUT_COLUMNS = {"series": "series", "model": "model", "fitted_on": "fitted on CPUs", "cpus": "CPUs predicted",
                   "measured": "measured (tx/s)", "predicted": "predicted (tx/s)", "error_pct": "error (%)"}
LOO_COLUMNS = {"series": "series", "model": "model", "cpus": "CPUs left out", "measured": "measured (tx/s)",
               "predicted": "predicted (tx/s)", "error %": "error (%)"}
CF_COLUMNS = {"rate_tps": "rate (tx/s)", "cf_processors": "CF processors", "busy_pct": "CF busy (%)",
              "p_wait_pct": "requests that wait (%)", "wait": "mean wait (service times)", "stable": "stable",
              "within_max": "within the limit"}


def plan_columns(target, n_max):
    return {"series": "series", "model": "model", "cpus": "CPUs for the target",
            "limit": "model's limit or peak (tx/s)", "reachable": "reachable",
            "within": f"within max_cpus ({n_max:,})", "verdict": "the data",
            "extrapolated": "extrapolated", "accepted": "accepted"}


def analyse(p: dict) -> Results:
    """See :func:`mqperf.chapters.ims_bridge.analyse`."""
    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    pts = f.points(views.open(p["data"], CHAPTER))
    r.points = pts
    n_max, most = int(p["max_cpus"]), float(p["cf_max_util"])
    given_target = p.get("target_tps") is not None
    target = float(p["target_tps"]) if given_target else HEADROOM * float(pts["rate_tps"].max())
    r.answers = "CPUs for the target rate, the modelled limits and peaks, and CF processors for the target"

    text.system(r, pts)
    tuning = views.open(p["tuning"], CHAPTER, "tuning") if p.get("tuning") else None
    r.table("tuning", tuning, caption="The tuning steps, in the article's order",
            missing="The tuning steps are the article's (parameter tuning); your file records no settings, so "
                    "there is nothing to lay side by side")
    text.tuning(r)

    r.text("aggregation", aggregate.note(pts, per="series and CPU count", value="the rate"))
    r.table("rates", _rates_shown(pts), caption="Transaction rate by run")
    frame = pts.assign(run=pts["series"] + " (" + pts["cpu_config"].astype(str) + ")")
    r.chart("rates_chart", shares.horizontal_bars(
        frame, label="run", value="rate_tps", colour="basis", value_title="transactions per second (tx/s)",
        colour_title="basis", title="Transaction rates by run"))
    text.rates(r)

    fits = f.fit_all(pts, src)
    res = f.results(fits)
    if not res:
        raise ModelError(f"{src.name}: no series has 2 distinct CPU counts, so no model can be fitted (column cpus)")
    r.fit_results = {f"{s}, {prose.model_name(m)}": v for (s, m), v in res.items()}
    table = f.fits_table(fits)
    r.table("fits", _fits_shown(table), caption="Rate against CPUs: what the points identify")
    r.text("identification", prose.identification(r.fit_results), text.few_df(table), text.unfitted(f.unfitted(fits)))
    r.table("parameters", f.parameter_table(fits).rename(columns=PARAMETER_COLUMNS),
            caption="Parameters with standard errors and 95 % intervals (none where a parameter is held at a bound)")
    tops = {s: float(pts.loc[pts["series"] == s, "cpus"].max()) for s, _ in res}
    usl_read = [line for (series, model), v in res.items() if model == "usl"
                for line in prose.usl_reading(series, v, measured_max_n=tops[series], unit="tx/s")]
    ranking = f.rank(fits, pts)
    r.text("usl_reading", " ".join(usl_read) or None, text.disagreement(r, table, res, tops))
    top_n = float(pts.loc[pts["series"].isin({s for s, _ in res}), "cpus"].max())
    curve = f.curves(fits, n_max=max(12.0, top_n * 1.4))
    measured = pts[pts["series"].isin({s for s, _ in res})]
    r.chart("curves", charts.measured_vs_fitted(
        measured.assign(series=measured["series"] + ": measured"), curve, x="cpus", y="rate_tps",
        x_title="CPUs of the LPAR varied", y_title="transactions per second (tx/s)",
        title="Rate against CPUs: measured, and the fits"))
    usl_fits = {s: v for (s, m), v in res.items() if m == "usl"}
    overhead.show(r, usl_fits, {s: tops[s] for s in usl_fits},
                  n_max=max(12.0, top_n * 1.4), x_title="CPUs of the LPAR",
                  missing="no series has three distinct CPU counts, so there is no USL fit and no coherency part "
                          "to set against contention; Amdahl's law assumes none")

    _validation(r, pts, fits)
    plan = f.cpus_for_rate(fits, target, n_max, ranking, tops)
    shown = plan.assign(extrapolated=plan["extrapolated"].map({True: "yes", False: "no"})).drop(columns="accepted")
    r.table("plan", shown.rename(columns=plan_columns(target, n_max)),
            caption=f"CPUs each fit says reach {prose.num(target, TARGET_DIGITS)} tx/s ("
                    + ("" if given_target else f"no target was given: {HEADROOM:g} × the largest measured rate, "
                                               f"{prose.num(float(pts['rate_tps'].max()), TARGET_DIGITS)} tx/s; ")
                    + "– where a fit never reaches it); the plan uses the fits the data do not reject (column: the data)")
    r.text("plan_reading", text.plan_reading(r, plan, ranking, pts, target, n_max, given_target))
    text.plan(r)

    _cf(r, f.cf_point(pts), target, most)
    text.cf(r)

    for (series, model), v in res.items():
        label = model if len({s for s, _ in res}) == 1 else f"{model} {series}"
        r.card(card_name(CHAPTER, label), v.to_card(
            name=f"{CHAPTER}: {prose.model_name(model)} ({series}, rate against CPUs)", dataset=src.name), v)
    text.errata(r)
    return r


def _validation(r, pts, fits) -> None:
    hold = f.holdout_largest(pts)
    # Four digits, not the three a share (%) gets: errors of a few percent are compared between the fits.
    r.table("holdout", hold.rename(columns=HOLDOUT_COLUMNS), digits=4,
            caption="Each series' largest CPU count predicted from the smaller ones (an extrapolation)",
            missing="No series has three distinct CPU counts, so none can be fitted on the smaller ones and checked "
                    "on the largest")
    loo = f.leave_one_out(pts, fits)
    # Four digits, as the holdout table: errors of a few percent are compared between the fits.
    r.table("leave_one_out", loo.rename(columns=LOO_COLUMNS), digits=4,
            caption="Each point predicted by the fits to the other points",
            missing="No series has three distinct CPU counts, so no point can be left out and predicted")
    r.text("validation", text.validation(hold, loo))


def _cf(r, cf: dict | None, target: float, most: float) -> None:
    """The coupling facility at its measured point, its M/M/c headroom by size, and the what-if."""
    if cf is None:
        for key in ("cf", "cf_headroom", "cf_chart"):
            r.missing(key, "Your file has no coupling-facility busy share (columns cf_busy_pct and cf_processors), "
                           "so there is no CF headroom" if key == "cf" else "No CF figures, so no CF table or chart")
        r.text("cf_reading", None)
        whatif.missing(r)
        return
    need = f.cf_processors_needed(cf, target, most)
    r.table("cf", _cf_shown(cf, f.cf_time_per_transaction_us(cf), target, most, need),
            caption="The coupling facility at its measured point, and what the target needs")
    # A few sizes from the measured one up, plus the sizes the sentences name: a CF that needs
    # hundreds of processors for the target must not make the table hundreds of rows long.
    need_now = f.cf_processors_needed(cf, cf["rate_tps"], most)
    procs = sorted(set(range(cf["processors"], cf["processors"] + 6)) | {need_now, need})
    head = f.cf_headroom(cf, sorted({cf["rate_tps"], target}), processors=procs, max_utilisation=most)
    # Four digits, not the three a share (%) gets: the busy and waiting shares of neighbouring CF sizes
    # and rates differ in their last digits.
    r.table("cf_headroom", head.rename(columns=CF_COLUMNS), digits=4,
            caption="CF queueing (M/M/c) at the measured rate and the target, by CF size")
    grid = np.linspace(cf["rate_tps"] * 0.3, max(target, cf["rate_tps"]) * 1.2, 60)
    sweep = f.cf_headroom(cf, grid, processors=range(cf["processors"], cf["processors"] + 4), max_utilisation=most)
    r.chart("cf_chart", _headroom_chart(sweep))
    r.text("cf_reading", text.cf_reading(r, cf, head, target, most, need))
    whatif.add(r, cf, sweep, target, need)


def _rates_shown(pts):
    cols = {"series": "series", "cpu_config": "CPU configuration", "cpus": "CPUs varied", "rate_tps": "rate (tx/s)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column("rate_tps"): "rate sd (tx/s)", "basis": "basis",
            "cf_busy_pct": "CF busy (%)", "cf_processors": "CF processors"}
    shown = pts[[c for c in cols if c in pts and pts[c].notna().any()]]
    if (shown["cpu_config"] == shown["cpus"].map(lambda c: f"{int(c)} CPUs")).all():
        shown = shown.drop(columns="cpu_config")  # the label was made from cpus: nothing new to show
    return shown.rename(columns=cols)


def _fits_shown(table):
    table = table.replace([np.inf, -np.inf], np.nan)
    keep = [c for c in FITS_COLUMNS if c in table and table[c].notna().any()]
    return table[keep].rename(columns=FITS_COLUMNS)


def _cf_shown(cf, us, target, most, need):
    return pd.DataFrame([{"series": cf["series"], "rate (tx/s)": cf["rate_tps"], "CF busy (%)": cf["busy_pct"],
                          "CF processors": cf["processors"], "CF time per transaction (µs)": us,
                          "target (tx/s)": target, "CF busy at most (%)": most * 100,
                          "CF processors for the target": need}])


def _headroom_chart(table, cap: float = 3.0):
    frame = table[np.isfinite(table["wait"]) & (table["wait"] <= cap)].copy()
    frame["cf_processors"] = frame["cf_processors"].astype(str) + " CF processors"
    return charts.lines(frame, x="rate_tps", y="wait", colour="cf_processors", points=False,
                        x_title="transactions per second (tx/s)", y_title="mean CF queueing (service times)",
                        title=f"Coupling facility queueing as the rate grows (M/M/c, shown up to {cap:g} service times)")
