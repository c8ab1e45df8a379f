"""IMS bridge tuning: throughput against CPUs, what three readings of it say, and CF headroom.

:func:`analyse` fits Amdahl's law, the bottleneck model and the USL per series (where the
points identify them), predicts points the fits did not use, answers the planning question
(CPUs for a target rate) and, when the file has the coupling facility's busy share, asks
M/M/c what a higher rate would do to it. The fits are in :mod:`mqperf.chapters._ims_bridge_fits`;
the passages about the published measurements in :mod:`mqperf.chapters._ims_bridge_about`.
"""

from mqperf.parameters import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="transaction rate against CPUs: a CSV with cpus, rate_tps [, series, cf_busy_pct, "
                          "cf_processors], or a book dataset", contract="ims_bridge"),
    "tuning": DataFile(help='the tuning steps with settings before and after; "" to skip',
                       contract="ims_bridge_tuning", files=False, optional=True),
    "target_tps": Number(help="planning: the transaction rate to plan for", unit="tx/s", minimum=0,
                         exclusive_minimum=True, maximum=1e8),
    "cf_max_util": Number(help="planning: the busiest you let the CF run (the article calls 75 % too high)",
                          minimum=0.01, maximum=1),
    # A z/OS LPAR has at most a few hundred processors.
    "max_cpus": Integer(help="planning: the most CPUs the tables consider", unit="CPUs", minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "ims_bridge"


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    import numpy as np

    from mqperf.chapters import _ims_bridge_about as about
    from mqperf.chapters import _ims_bridge_fits as f
    from mqperf.data import aggregate, views
    from mqperf.errors import ModelError
    from mqperf.present import charts, overhead, prose
    from mqperf.present.cards import card_name
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    pts = f.points(views.open(p["data"], CHAPTER))
    r.points = pts
    target, n_max, most = float(p["target_tps"]), int(p["max_cpus"]), float(p["cf_max_util"])

    about.system(r, pts)
    tuning = views.open(p["tuning"], CHAPTER, "tuning") if p.get("tuning") else None
    r.table("tuning", tuning, caption="The tuning steps, in the article's order", digits=4,
            missing="The tuning steps are the article's (parameter tuning); your file records no settings, so "
                    "there is nothing to lay side by side")
    about.tuning(r)

    r.text("aggregation", aggregate.note(pts, per="series and CPU count", value="the rate"))
    r.table("rates", _rates_shown(pts), caption="Transaction rate by run", digits=5)
    r.chart("rates_chart", _rates_chart(pts))
    about.rates(r)

    fits = f.fit_all(pts, src)
    res = f.results(fits)
    if not res:
        raise ModelError(f"{src.name}: no series has 2 distinct CPU counts, so no model can be fitted (column cpus)")
    table = f.fits_table(fits)
    r.table("fits", _fits_shown(table), caption="Rate against CPUs: what the points identify", digits=4)
    r.text("identification", prose.identification({f"{s}, {f.MODELS[m]}": v for (s, m), v in res.items()}),
           _few_df(table), _unfitted_sentence(f.unfitted(fits)))
    r.table("parameters", f.parameter_table(fits).rename(columns=PARAMETER_COLUMNS), digits=4,
            caption="Parameters with standard errors and 95 % intervals (none where a parameter is held at a bound)")
    usl_read = []
    for (series, model), v in res.items():
        if model == "usl":
            top = float(pts.loc[pts["series"] == series, "cpus"].max())
            usl_read += prose.usl_reading(series, v, measured_max_n=top, unit="tx/s")
    r.text("usl_reading", " ".join(usl_read) or None, _disagreement(table))
    top_n = float(pts.loc[pts["series"].isin({s for s, _ in res}), "cpus"].max())
    curve = f.curves(fits, n_max=max(12.0, top_n * 1.4))
    measured = pts[pts["series"].isin({s for s, _ in res})]
    r.chart("curves", charts.measured_vs_fitted(
        measured.assign(series=measured["series"] + ": measured"), curve, x="cpus", y="rate_tps",
        x_title="CPUs of the LPAR varied", y_title="transactions per second (tx/s)",
        title="Rate against CPUs: measured, and the fits"))
    usl_fits = {s: v for (s, m), v in res.items() if m == "usl"}
    overhead.show(r, usl_fits, {s: float(pts.loc[pts["series"] == s, "cpus"].max()) for s in usl_fits},
                  n_max=max(12.0, top_n * 1.4), x_title="CPUs of the LPAR",
                  missing="no series has three distinct CPU counts, so there is no USL fit and no coherency part "
                          "to set against contention; Amdahl's law assumes none")

    hold = f.holdout_largest(pts)
    r.table("holdout", hold.rename(columns=HOLDOUT_COLUMNS), digits=4,
            caption="Each series' largest CPU count predicted from the smaller ones (an extrapolation)",
            missing="No series has three distinct CPU counts, so none can be fitted on the smaller ones and checked "
                    "on the largest")
    loo = f.leave_one_out(pts, fits)
    r.table("leave_one_out", loo.rename(columns=LOO_COLUMNS), digits=4,
            caption="Each point predicted by the fits to the other points",
            missing="No series has three distinct CPU counts, so no point can be left out and predicted")
    r.text("validation", _validation(hold, loo))

    plan = f.cpus_for_rate(fits, target, n_max)
    r.table("plan", plan.rename(columns=plan_columns(target, n_max)), digits=4,
            caption=f"CPUs each fit says reach {prose.num(target, 6)} tx/s, within {n_max:,}")
    r.text("plan_reading", _plan_reading(plan, pts, target, n_max))
    about.plan(r)

    from mqperf.chapters import _ims_bridge_whatif as cf_whatif

    cf = f.cf_point(pts)
    if cf is None:
        for key in ("cf", "cf_headroom", "cf_chart"):
            r.missing(key, "Your file has no coupling-facility busy share (columns cf_busy_pct and cf_processors), "
                           "so there is no CF headroom" if key == "cf" else "No CF figures, so no CF table or chart")
        r.text("cf_reading", None)
        cf_whatif.missing(r)
    else:
        need = f.cf_processors_needed(cf, target, most)
        r.table("cf", _cf_shown(cf, f.cf_time_per_transaction_us(cf), target, most, need), digits=4,
                caption="The coupling facility at its measured point, and what the target needs")
        # A few sizes from the measured one up, plus the sizes the sentences name: a CF that needs
        # hundreds of processors for the target must not make the table hundreds of rows long.
        need_now = f.cf_processors_needed(cf, cf["rate_tps"], most)
        procs = sorted(set(range(cf["processors"], cf["processors"] + 6)) | {need_now, need})
        head = f.cf_headroom(cf, sorted({cf["rate_tps"], target}), processors=procs, max_utilisation=most)
        r.table("cf_headroom", head.rename(columns=CF_COLUMNS), digits=4,
                caption="CF queueing (M/M/c) at the measured rate and the target, by CF size")
        grid = np.linspace(cf["rate_tps"] * 0.3, max(target, cf["rate_tps"]) * 1.2, 60)
        sweep = f.cf_headroom(cf, grid, processors=range(cf["processors"], cf["processors"] + 4),
                              max_utilisation=most)
        r.chart("cf_chart", _headroom_chart(sweep))
        r.text("cf_reading", _cf_reading(cf, head, target, most, need))
        cf_whatif.add(r, cf, sweep, target, need)
    about.cf(r)

    for (series, model), v in res.items():
        label = model if len({s for s, _ in res}) == 1 else f"{model} {series}"
        r.card(card_name(CHAPTER, label), v.to_card(name=f"{CHAPTER}: {f.MODELS[model]} ({series}, rate against CPUs)",
                                                    dataset=src.name), v)
    about.errata(r)
    return r


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
    return {"series": "series", "model": "model", "cpus": f"CPUs for the target (within {n_max:,})",
            "limit": "model's limit or peak (tx/s)", "reachable": "reachable"}


def _rates_shown(pts):
    from mqperf.data import aggregate

    cols = {"series": "series", "cpu_config": "CPU configuration", "cpus": "CPUs varied", "rate_tps": "rate (tx/s)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column("rate_tps"): "rate sd (tx/s)", "basis": "basis",
            "cf_busy_pct": "CF busy (%)", "cf_processors": "CF processors"}
    shown = pts[[c for c in cols if c in pts and pts[c].notna().any()]]
    if (shown["cpu_config"] == shown["cpus"].map(lambda c: f"{int(c)} CPUs")).all():
        shown = shown.drop(columns="cpu_config")  # the label was made from cpus: nothing new to show
    return shown.rename(columns=cols)


def _fits_shown(table):
    import numpy as np

    table = table.replace([np.inf, -np.inf], np.nan)
    keep = [c for c in FITS_COLUMNS if c in table and table[c].notna().any()]
    return table[keep].rename(columns=FITS_COLUMNS)


def _cf_shown(cf, us, target, most, need):
    import pandas as pd

    return pd.DataFrame([{"series": cf["series"], "rate (tx/s)": cf["rate_tps"], "CF busy (%)": cf["busy_pct"],
                          "CF processors": cf["processors"], "CF time per transaction (µs)": us,
                          "target (tx/s)": target, "CF busy at most (%)": most * 100,
                          "CF processors for the target": need}])


# -- charts ----------------------------------------------------------------------------------------------

def _rates_chart(pts):
    import altair as alt

    from mqperf.present import charts

    frame = pts.assign(run=pts["series"] + " (" + pts["cpu_config"].astype(str) + ")")
    return alt.Chart(charts.rounded(charts.sampled(frame), columns=["run", "rate_tps", "basis"])).mark_bar().encode(
        y=alt.Y("run:N", sort=None, title=None, axis=alt.Axis(labelLimit=300)),
        x=alt.X("rate_tps:Q", title="transactions per second (tx/s)"),
        color=alt.Color("basis:N", title="basis"),
        tooltip=["run:N", "rate_tps:Q", "basis:N"],
    ).properties(title="Transaction rates by run", height=max(160, 16 * min(len(frame), 60)))


def _headroom_chart(table, cap: float = 3.0):
    import numpy as np

    from mqperf.present import charts

    frame = table[np.isfinite(table["wait"]) & (table["wait"] <= cap)].copy()
    frame["cf_processors"] = frame["cf_processors"].astype(str) + " CF processors"
    return charts.lines(frame, x="rate_tps", y="wait", colour="cf_processors", points=False,
                        x_title="transactions per second (tx/s)", y_title="mean CF queueing (service times)",
                        title=f"Coupling facility queueing as the rate grows (M/M/c, shown up to {cap:g} service times)")


# -- sentences -------------------------------------------------------------------------------------------

def _the(model: str) -> str:
    return model if model.startswith("Amdahl") else f"the {model}"


def _few_df(table) -> str | None:
    """What a small residual df does to the intervals: the Student-t quantile they use."""
    from mqperf.present import prose

    few = table[(table["df_resid"] > 0) & (table["df_resid"] <= 2)]
    if few.empty:
        return None
    df = int(few["df_resid"].min())
    t = few.loc[few["df_resid"] == df, "t95"].iloc[0]
    return (f"With {prose.count(df, 'residual degree', 'residual degrees')} of freedom the 95 % intervals use a "
            f"Student-t quantile of {prose.num(t)}, so they span most of the possible range.")


def _unfitted_sentence(missing: dict) -> str | None:
    from mqperf.present import prose

    if not missing:
        return None
    names = prose.listing(prose.quoted(s) for s in missing)
    return (f"{names} {'has' if len(missing) == 1 else 'have'} fewer than two distinct CPU counts, so no model is "
            "fitted to " + ("it" if len(missing) == 1 else "them") + ": they are shown as measured.")


def _disagreement(table) -> str | None:
    """Where the fits of one series agree (the points) and where they part (beyond them)."""
    import math

    from mqperf.present import prose

    out = []
    for series, g in table.groupby("series", sort=False):
        if len(g) < 2:
            continue
        worst = g["rmse"].max()
        parts = []
        for row in g.itertuples():
            if row.model == "bottleneck model":
                parts.append(f"the bottleneck model stops at {prose.num(row.limit)} tx/s")
            elif row.model == "Amdahl's law":
                parts.append("Amdahl's law keeps rising" + (f" towards {prose.num(row.limit)} tx/s"
                                                             if math.isfinite(row.limit) else " without limit"))
            elif math.isfinite(row.at_cpus):
                parts.append(f"the USL peaks near {prose.num(row.limit)} tx/s at {prose.num(row.at_cpus)} CPUs")
            else:
                parts.append("the USL has no peak")
        out.append(f"In {prose.quoted(series)} the fits pass within {prose.num(worst)} tx/s (RMSE) of the points, "
                   f"and disagree about what comes next: {prose.listing(parts)}.")
    return " ".join(out) or None


def _validation(hold, loo) -> str | None:
    from mqperf.present import prose

    out = []
    for series, g in hold.groupby("series", sort=False) if len(hold) else []:
        said = []
        for row in g.itertuples():
            way = "over-predicts" if row.error_pct > 0 else "under-predicts"
            said.append(f"{_the(row.model)} {way} it by {prose.num(abs(row.error_pct))} %")
        out.append(f"From {prose.listing(g['fitted_on'].iloc[0].split(', '))} CPUs, predicting {prose.quoted(series)} at "
                   f"{int(g['cpus'].iloc[0]):,}: {prose.listing(said)}.")
    if len(loo):
        err = loo["error %"].abs()
        out.append(f"Leaving out each point in turn gives errors of {prose.num(err.min())} % to "
                   f"{prose.num(err.max())} %.")
    return " ".join(out) or None


def _plan_reading(plan, pts, target, n_max) -> str:
    from mqperf.present import prose

    out = []
    for series, g in plan.groupby("series", sort=False):
        top = int(pts.loc[pts["series"] == series, "cpus"].max())
        yes = g[g["reachable"]]
        if yes.empty:
            out.append(f"For {prose.quoted(series)} no fit reaches {prose.num(target, 6)} tx/s within {n_max:,} CPUs.")
            continue
        said = [f"{_the(row.model)} says {int(row.cpus):,} CPUs" for row in yes.itertuples()]
        no = g[~g["reachable"]]
        text = f"For {prose.quoted(series)} {prose.listing(said)}"
        if len(no):
            text += f"; {prose.listing(_the(m) for m in no['model'])} {'does' if len(no) == 1 else 'do'} not reach it"
        text += "."
        beyond = [int(c) for c in yes["cpus"] if c > top]
        if beyond:
            text += " " + prose.extrapolation(max(beyond), top, "The answer") + " The fits disagree most there."
        out.append(text)
    return " ".join(out)


def _cf_reading(cf, head, target, most, need) -> str:
    from mqperf.present import prose

    at = head[(head["rate_tps"] == cf["rate_tps"]) & (head["cf_processors"] == cf["processors"])].iloc[0]
    text = (f"At {prose.num(cf['rate_tps'])} tx/s the CF's {cf['processors']:,} processors were "
            f"{prose.num(cf['busy_pct'])} % busy: a CF request waits {prose.num(at['p_wait_pct'])} % of the time, "
            f"for {prose.num(at['wait'])} service times on average.")
    ok = head[(head["rate_tps"] == cf["rate_tps"]) & head["within_max"]]
    if len(ok):
        first = ok.iloc[0]
        text += (f" With {int(first['cf_processors']):,} processors the CF would be {prose.num(first['busy_pct'])} % "
                 f"busy and {prose.num(first['p_wait_pct'])} % of requests would wait.")
    now = head[(head["rate_tps"] == target) & (head["cf_processors"] == cf["processors"])].iloc[0]
    if target != cf["rate_tps"]:
        state = ("would be overloaded" if not now["stable"] else f"would be {prose.num(now['busy_pct'])} % busy")
        text += f" At {prose.num(target, 6)} tx/s, {cf['processors']:,} processors {state}"
        text += f", and staying at or below {prose.num(most * 100)} % busy needs {need:,}."
    else:
        text += f" Staying at or below {prose.num(most * 100)} % busy needs {need:,} processors."
    return text + (" This rests on one measured point: the CF cost per transaction cannot be checked against a "
                   "second.")
