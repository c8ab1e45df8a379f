"""IMS bridge tuning: throughput against CPUs, what three readings of it say, and CF headroom.

:func:`analyse` fits Amdahl's law, the bottleneck model and the USL per series (where the
points identify them), predicts points the fits did not use, answers the planning question
(CPUs for a target rate) and, when the file has the coupling facility's busy share, asks
M/M/c what a higher rate would do to it. The fits are in :mod:`mqperf.chapters._ims_bridge_fits`;
the passages about the published measurements in :mod:`mqperf.chapters._ims_bridge_about`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="transaction rate against CPUs: a CSV with cpus, rate_tps [, series, cf_busy_pct, "
                          "cf_processors], or a book dataset", contract="ims_bridge"),
    "tuning": DataFile(help='the tuning steps with settings before and after; "" to skip',
                       contract="ims_bridge_tuning", files=False, optional=True),
    "target_tps": Number(help="planning: the transaction rate to plan for; none plans for 1.25 times the "
                              "largest measured rate", unit="tx/s", minimum=0, exclusive_minimum=True, maximum=1e8,
                         optional=True),
    "cf_max_util": Number(help="planning: the busiest you let the CF run (the article calls 75 % too high)",
                          minimum=0.01, maximum=1),
    # A z/OS LPAR has at most a few hundred processors.
    "max_cpus": Integer(help="planning: the most CPUs the tables consider", unit="CPUs", minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "ims_bridge"
# The book's 30,000 tx/s is a target for the article's system: on a reader's data the plan asks
# for 25 % more than their own largest rate unless -p target_tps sets one.
READER_DEFAULTS = {"target_tps": None}
#: With no target given, the plan asks for this multiple of the largest measured rate.
HEADROOM = 1.25


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
    n_max, most = int(p["max_cpus"]), float(p["cf_max_util"])
    given_target = p.get("target_tps") is not None
    target = float(p["target_tps"]) if given_target else HEADROOM * float(pts["rate_tps"].max())
    r.answers = "CPUs for the target rate, the modelled limits and peaks, and CF processors for the target"

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
    r.fit_results = {f"{s}, {f.MODELS[m]}": v for (s, m), v in res.items()}
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
    ranking = f.rank(fits, pts)
    tops = {s: float(pts.loc[pts["series"] == s, "cpus"].max()) for s, _ in res}
    r.text("usl_reading", " ".join(usl_read) or None, _disagreement(r, table, res, tops))
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

    plan = f.cpus_for_rate(fits, target, n_max, ranking, tops)
    shown = plan.assign(extrapolated=plan["extrapolated"].map({True: "yes", False: "no"})).drop(columns="accepted")
    r.table("plan", shown.rename(columns=plan_columns(target, n_max)), digits=4,
            caption=f"CPUs each fit says reach {prose.num(target, 6)} tx/s ("
                    + ("" if given_target else f"no target was given: {HEADROOM:g} × the largest measured rate, "
                                               f"{prose.num(float(pts['rate_tps'].max()), 6)} tx/s; ")
                    + "– where a fit never reaches it); the plan uses the fits the data do not reject (column: the data)")
    r.text("plan_reading", _plan_reading(r, plan, ranking, pts, target, n_max, given_target))
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
        r.text("cf_reading", _cf_reading(r, cf, head, target, most, need))
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
    return {"series": "series", "model": "model", "cpus": "CPUs for the target",
            "limit": "model's limit or peak (tx/s)", "reachable": "reachable",
            "within": f"within max_cpus ({n_max:,})", "verdict": "the data",
            "extrapolated": "extrapolated", "accepted": "accepted"}


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


def _disagreement(r, table, res, tops) -> str | None:
    """Where the fits of one series agree (the points) and where they part (beyond them).

    A limit or peak is a number only when its parameters identify it (λ/σ needs σ's interval
    clear of 0 by less than a factor 10 end to end), and beyond the measured CPUs it is
    labelled an extrapolation and recorded.
    """
    import math

    from mqperf.models import evidence
    from mqperf.present import prose

    out = []
    for series, g in table.groupby("series", sort=False):
        if len(g) < 2:
            continue
        worst = g["rmse"].max()
        parts = []
        past = False
        for row in g.itertuples():
            fit = res[(series, {"Amdahl's law": "amdahl", "bottleneck model": "bottleneck", "USL": "usl"}[row.model])]
            if row.model == "bottleneck model":
                parts.append(f"the bottleneck model stops at {prose.num(row.limit)} tx/s")
                past |= math.isfinite(row.at_cpus) and row.at_cpus > tops[series]
            elif row.model == "Amdahl's law":
                ci = fit.conf_int().loc["sigma"] if fit.df_resid > 0 else None
                known = ci is not None and bool(evidence.identified(float(ci["lower"]), float(ci["upper"])))
                if not math.isfinite(row.limit):
                    parts.append("Amdahl's law keeps rising without limit")
                elif known:
                    parts.append(f"Amdahl's law keeps rising towards {prose.num(row.limit)} tx/s")
                    past = True
                else:
                    parts.append("Amdahl's law keeps rising, towards a limit λ/σ the data cannot tell (σ's 95 % "
                                 "interval reaches 0 or spans more than a factor 10)")
            elif math.isfinite(row.at_cpus):
                parts.append(f"the USL's modelled peak is {prose.num(row.limit)} tx/s at {prose.num(row.at_cpus)} CPUs")
                past |= row.at_cpus > tops[series]
            else:
                parts.append("the USL has no peak")
        close = (f"the fits pass within {prose.num(worst)} tx/s (RMSE) of the points" if math.isfinite(worst) else
                 "the fits leave no residual degrees of freedom to measure their scatter by")
        text = f"In {prose.quoted(series)} {close}, and disagree about what comes next: {prose.listing(parts)}"
        if past:
            r.extrapolated(f"{series}: the modelled limits and peaks past the measured {prose.num(tops[series])} CPUs")
            text += f" (extrapolated: past the {prose.num(tops[series])} CPUs measured)"
        out.append(text + ".")
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


def _plan_reading(r, plan, ranking, pts, target, n_max, given_target) -> str:
    """Per series, the plan from the fits the data accept: one answer when the ranking prefers
    one fit, else the range of the fits it cannot set apart, said as what the data cannot decide."""
    import math

    from mqperf.present import prose

    out = []
    if not given_target:
        out.append(f"No target was given (`-p target_tps`), so the plan asks for {HEADROOM:g} times the largest "
                   f"measured rate: {prose.num(target, 6)} tx/s.")
    for series, g in plan.groupby("series", sort=False):
        top = int(pts.loc[pts["series"] == series, "cpus"].max())
        rk = ranking[ranking["series"] == series]
        ok = g[g["accepted"]]
        head = f"For {prose.quoted(series)}"
        if (rk["verdict"] == "preferred").any():
            best = rk[rk["verdict"] == "preferred"].iloc[0]
            trail = rk[~rk["accepted"]]
            head += (f", by AICc over its {prose.count(int(best['points']), 'point')} the data prefer "
                     f"{_the(best['model'])}" + (" (" + prose.listing(
                         f"{_the(m)} {'misses the replicates' if miss else 'trails by ' + prose.num(d)}"
                         for m, miss, d in zip(trail["model"], trail["misses"], trail["delta"])) + ")"
                                              if len(trail) else "") + ":")
        else:
            unranked = rk[rk["aicc"].isna()]
            why = []
            if len(unranked):
                needs = sorted(set(int(v) for v in unranked["needs"]))
                why.append(f"{prose.count(int(rk['points'].max()), 'point')} rank "
                           + ("none of them" if len(unranked) == len(rk) else prose.listing(
                               _the(m) for m in unranked["model"]))
                           + f", as AICc needs at least {prose.listing(prose.num(v) for v in needs)}")
            rejected = rk[~rk["accepted"]]
            if len(rejected):
                why.append(prose.listing(f"{_the(m)} {'misses the replicates' if miss else 'trails by ' + prose.num(d)}"
                                         for m, miss, d in zip(rejected["model"], rejected["misses"], rejected["delta"])))
            head += (f" the data cannot decide between {prose.listing(_the(m) for m in ok['model'])}"
                     + (f" ({'; '.join(why)})" if why else "") + ":" if len(ok) > 1 else
                     f" {'; '.join(why)}, which leaves {_the(ok['model'].iloc[0])}:")
        said = []
        for row in ok.itertuples():
            if row.reachable:
                said.append(f"{_the(row.model)} says {prose.extrapolated(f'{int(row.cpus):,} CPUs', row.extrapolated)}"
                            + ("" if row.within else f", more than the {n_max:,} the plan allows (max_cpus)"))
            else:
                said.append(f"{_the(row.model)} never reaches {prose.num(target, 6)} tx/s"
                            + (f" (its limit, {prose.num(row.limit)} tx/s, is below it)"
                               if math.isfinite(row.limit) and row.limit < target else ""))
        text = head + " " + "; ".join(said) + "."
        beyond = [int(c) for c, e in zip(ok["cpus"], ok["extrapolated"]) if e]
        if beyond:
            r.extrapolated(f"{series}: {prose.listing(f'{c:,}' for c in beyond)} CPUs for {prose.num(target, 6)} tx/s, "
                           f"past the {top:,} CPUs measured")
        out.append(text)
    return " ".join(out)


def _cf_reading(r, cf, head, target, most, need) -> str:
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
        past = target > cf["rate_tps"]
        state = ("would be overloaded" if not now["stable"] else f"would be {prose.num(now['busy_pct'])} % busy")
        text += f" At {prose.num(target, 6)} tx/s, {cf['processors']:,} processors {state}"
        text += f", and staying at or below {prose.num(most * 100)} % busy needs {prose.extrapolated(f'{need:,}', past)}."
        if past:
            r.extrapolated(f"{need:,} CF processors for {prose.num(target, 6)} tx/s, past the measured "
                           f"{prose.num(cf['rate_tps'], 6)} tx/s")
    else:
        text += f" Staying at or below {prose.num(most * 100)} % busy needs {need:,} processors."
    return text + (" This rests on one measured point: the CF cost per transaction cannot be checked against a "
                   "second.")
