"""Latch contention and more CPUs: what this chapter takes, and what it finds in the data."""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="share of time with sufficient CPUs: a CSV with gp_cpus, busy_pct, sufficient_pct "
                          "[, rate_msg_s, label], or a book dataset", contract="kafka_latch_cpus"),
    "latch_data": DataFile(help='latch wait times: a CSV with tasks, latch_s [, latch, rate_msg_s, run_s]; "" for none',
                           contract="kafka_latch_cpus.latch_data", optional=True),
    "run_s": Number(help="seconds the latch times cover; none takes it from the data", unit="s",
                    minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    # 100 % is only reached with infinitely many CPUs.
    "target_sufficient_pct": Number(help="planning question: CPUs for this % of time with sufficient CPUs",
                                    unit="%", minimum=0, maximum=100, exclusive_minimum=True,
                                    exclusive_maximum=True),
    "target_rate_msg_s": Number(help="planning: the rate to carry at the CPU per message of the run with most "
                                     "CPUs; 0 to skip", unit="msg/s", minimum=0, maximum=1e9),
    "plan_busy_cpus": Number(help="planning: or CPUs' worth of work to carry directly (busy % x CPUs / 100); "
                                  "none to skip", unit="CPUs", minimum=0, maximum=1024, optional=True),
    # Erlang C is evaluated for every CPU count up to this, per planned load and chart series.
    "max_cpus": Integer(help="the largest CPU count the charts show (the plan searches up to 1,024)", unit="CPUs",
                        minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

# On a reader's file the book's target rate means nothing: plan from their own runs unless -p sets one.
READER_DEFAULTS = {"target_rate_msg_s": 0}

CHAPTER = "kafka_latch_cpus"
#: Runs calibrated and cross-predicted (each pair is a prediction).
CROSS = 12


def analyse(p: dict):
    """Load, fit and plan: every sentence, table and chart the notebook shows.

    Returns
    -------
    mqperf.present.results.Results
        Items in display order (the notebook shows them one per cell); ``fit_results`` maps
        every fit's name to its FitResult, for the identification checks.
    """
    from mqperf.data import views
    from mqperf.present.results import Results

    source = views.describe(p["data"], CHAPTER)
    r = Results(book_data=source.book_data, source=source.name)
    r.fit_results = {}
    _latches(r, p, views.describe(p["latch_data"], CHAPTER))
    _cpus(r, p, source)
    latch_source = views.describe(p["latch_data"], CHAPTER)
    _about_latches(r, latch_source, "errata", lambda: (
        "Errata: {ref}`E002 <errata-e002>`: latch 19's growth is printed as 50 % but its two times give 53 %; the "
        "growth table and the comparison with N(N−1) use the times."))
    return r


def _about_latches(r, latch_source, key: str, markdown) -> None:
    """An about-passage on the latch statements (``markdown()`` makes it): only when the latch
    data are the book's."""
    if latch_source.book_data and r.book_data:
        r.about(key, markdown())
    else:
        r.items[key] = None


def _system(r) -> None:
    from mqperf.data import views

    env = views.system("kafka_zos")
    env = env[env["attribute"].isin(["hardware", "gp_cpus", "ziips", "os",
                                                                        "mq_version"])]
    v = dict(zip(env["attribute"], env["value"]))
    r.about("system", (
        "The system is the one of the {doc}`Kafka connector task scaling <kafka_task_scaling>` chapter: "
        f"{v.get('mq_version')} on an {v.get('hardware')} LPAR with {v.get('gp_cpus')} and {v.get('ziips')} "
        f"({v.get('os')}); the Kafka broker on an IBM z15. The sink connector puts persistent 1KB messages to a "
        "queue from which batch applications on z/OS get them, committing every 100 gets. MQ's class(3) accounting "
        "gave the time every task spent waiting for each latch over 3-minute runs; RMF's CPU Activity report "
        "gave the CPUs' busy and the \"Distribution of in-ready work unit queue\". The repeat on 6 CPUs kept "
        "`tasks.max=4`. The article prints the times of one latch only (19, at 4 and 5 tasks) and, for the "
        "other three hot latches, growth percentages; the CPU experiment is four RMF figures and two rates "
        "({ref}`Data catalog <data-catalog>`)."))


def _latches(r, p: dict, latch_source) -> None:
    import math

    import pandas as pd

    from mqperf.chapters import _kafka_latch_cpus_calc as calc
    from mqperf.data import aggregate, views
    from mqperf.models.fitset import FitSet
    from mqperf.present import charts, prose
    from mqperf.present.cards import card_name

    r.about("intro", (
        "With persistent messages and getters that commit every 100 MQGETs, the *MQ as a sink* connector "
        "\"peaked at 35,056 messages per second with tasks.max=2 yet decreased with additional tasks\". The article "
        "traces this to tasks waiting for MQ latches and to too few general-purpose CPUs, although the 3 CPUs were "
        "on average 75 % busy."))
    _system(r)
    none = "no latch data was given (`-p latch_data FILE` adds it), so there is no latch section"
    if not p.get("latch_data"):
        for key in ("latch_note", "latch_times", "growth_text", "growth", "growth_about", "growth_chart",
                    "power_law_text", "power_law", "loo", "waiters_text", "waiters", "waiters_about"):
            r.items[key] = None
        r.missing("latch_times", none)
        return
    points = calc.latch_points(views.open(p["latch_data"], CHAPTER, "latch_data"), p.get("run_s"))
    r.items["latch_note"] = aggregate.AggregationNote(
        aggregate.note(points, per="latch and tasks value", value="latch_s")) or None
    cols = {"latch": "latch", "tasks": "tasks", "latch_s": "total wait (s)", aggregate.COUNT: "n",
            aggregate.sd_column("latch_s"): "total wait sd (s)", "rate_msg_s": "rate (msg/s)", "run_s": "run (s)",
            "wait_per_msg_us": "wait per message (µs)"}
    shown = points[[c for c in cols if c in points and not points[c].isna().all()]].rename(columns=cols)
    r.table("latch_times", shown, digits=5, caption="Latch wait times, one row per latch and task count")

    g = calc.growth(points)
    if len(g):
        any_norm = bool(g["normalised"].any())
        table = g.assign(tasks=[f"{a} → {b}" for a, b in zip(g["tasks_from"], g["tasks_to"])])
        cols = {"latch": "latch", "tasks": "tasks", "total_pct": "total wait growth (%)"}
        if any_norm:
            cols.update({"x_change_pct": "throughput change (%)", "per_msg_pct": "wait per message growth (%)"})
        cols.update({"coherency_pct": "N(N−1) growth (%)", "proportional_pct": "N growth (%)",
                     "x_change_for_pairwise_pct": "throughput change for N(N−1)·X (%)",
                     "b": "exponent b", "b_coherency": "N(N−1) exponent", "verdict": "against N(N−1)"})
        r.table("growth", table[list(cols)].rename(columns=cols), digits=3,
                caption="Growth of each latch's wait between task counts, beside N(N−1) and N")
        r.text("growth_text", *_growth_sentences(g))
        chart_rows = []
        for row in g.itertuples():
            label = f"{row.latch}, {row.tasks_from} → {row.tasks_to}"
            chart_rows.append({"latch": label, "growth": "measured" + (" per message" if row.normalised else ", total"),
                               "growth_pct": row.per_msg_pct if row.normalised else row.total_pct})
            if math.isfinite(row.coherency_pct):
                chart_rows.append({"latch": label, "growth": "N(N−1)", "growth_pct": row.coherency_pct})
            chart_rows.append({"latch": label, "growth": "N", "growth_pct": row.proportional_pct})
        r.chart("growth_chart", charts.bars(pd.DataFrame(chart_rows[:60]), x="latch", y="growth_pct", colour="growth",
                                            x_title="latch and task counts", y_title="growth of the wait (%)",
                                            title="Growth of latch waits against N(N−1) and N"))
    else:
        why = "every latch in your file has one task count, so there is no growth to compare with N(N−1)"
        r.missing("growth", why)
        r.items["growth_text"] = None
        r.items["growth_chart"] = None
    _about_latches(r, latch_source, "growth_about", lambda: _published_growth(g))

    frame = calc.power_law_frame(points)
    frame = frame[frame.groupby("latch")["tasks"].transform("nunique") >= 2]
    fits = FitSet.fit(frame, "latch", calc.fit_power_law) if len(frame) else FitSet([])
    results = fits.results
    r.fit_results.update({f"{k} power law": v for k, v in results.items()})
    rows = []
    for name, res in results.items():
        ci = res.conf_int().loc["b"]
        rows.append({"latch": name, "fitted to": frame.loc[frame["latch"] == name, "fitted_to"].iloc[0],
                     "points": res.nobs, "a": res.a, "b": res.b, "b lower (95 %)": ci["lower"],
                     "b upper (95 %)": ci["upper"], "identification": res.identification})
    r.table("power_law", pd.DataFrame(rows), digits=4, caption="Power law w(N) = a·N^b per latch",
            missing="no latch has two or more task counts, so there is no power law to fit")
    r.text("power_law_text", prose.identification({k: v for k, v in results.items()}) if results else None)
    loo_rows = frame[frame.groupby("latch")["tasks"].transform("nunique") >= 3]
    loo = fits.leave_one_out(loo_rows, "latch", "tasks", "y", calc.fit_power_law, group="latch") \
        if len(loo_rows) else None
    if loo is not None:
        loo = loo.rename(columns={"measured": "measured", "predicted": "predicted", "error %": "error (%)"})
    r.table("loo", loo, digits=3, caption="Leave-one-out: each point predicted by the power law fitted without it",
            missing="leave-one-out needs three or more task counts per latch; "
                    + ("no latch has them" if results else "there is no power law"))
    for name, res in results.items():
        r.card(card_name(CHAPTER, f"{name} power law"),
               res.to_card(name=f"{CHAPTER}: {name} power law", dataset=latch_source.name), res)

    run_known = points["run_s"].notna()
    if run_known.any():
        w = points[run_known].assign(mean_waiting=lambda f: f["latch_s"] / f["run_s"])
        w["share"] = w["mean_waiting"] / w["tasks"] * 100
        r.table("waiters", w[["latch", "tasks", "latch_s", "run_s", "mean_waiting", "share"]].rename(columns={
            "latch_s": "total wait (s)", "run_s": "run (s)", "mean_waiting": "mean tasks waiting",
            "share": "share of tasks (%)"}), digits=3, caption="Little's law: mean number waiting = total wait / run")
        top = w.loc[w["mean_waiting"].idxmax()]
        over = w[w["share"] > 100]
        r.text("waiters_text", prose.paragraph(
            f"The most: on average {prose.num(top['mean_waiting'])} tasks waiting for {prose.quoted(top['latch'])} "
            f"with {prose.num(top['tasks'])} tasks, {prose.pct(top['share'])} of them.",
            (f"In {prose.count(len(over), 'row')} more tasks wait than there are: the latch times include other "
             "work than the tasks counted (other applications, MQ's own tasks).") if len(over) else None))
        _about_latches(r, latch_source, "waiters_about", lambda: (
            "The article says the times are for \"all tasks\", which may include the getting applications, so the "
            "share of connector tasks is an upper bound on what it would be if only they waited."))
    else:
        r.items["waiters_about"] = None
        r.missing("waiters", "the latch data give no run length (a `run_s` column or `-p run_s`), so Little's "
                             "law cannot turn total waits into a number of waiting tasks")
        r.items["waiters_text"] = None


def _growth_sentences(g) -> list[str]:
    """What the growth table says, latch by latch."""
    import math

    from mqperf.present import prose

    out = []
    for row in g.itertuples():
        name = f"{prose.quoted(row.latch)} from {row.tasks_from} to {row.tasks_to} tasks"
        if not math.isfinite(row.coherency_pct):
            out.append(f"{name}: the total wait grew {prose.pct(row.total_pct)}; N(N−1) is zero at one task, so "
                       "there is no pairwise growth to compare with.")
            continue
        found = _growth_verdict(row)
        if row.normalised:
            s = (f"{name}: the wait per message grew {prose.pct(row.per_msg_pct)} (total {prose.pct(row.total_pct)}, "
                 f"throughput {prose.pct(row.x_change_pct)}), against {prose.pct(row.coherency_pct)} for N(N−1): "
                 f"{found}.")
        else:
            s = (f"{name}: the total wait grew {prose.pct(row.total_pct)}, against {prose.pct(row.coherency_pct)} "
                 f"for N(N−1) (with no rate for both runs, as if throughput did not change); {found}. "
                 f"Total waits grow like N(N−1)·X, so the growth matches N(N−1) exactly if throughput "
                 f"{_change(row.x_change_for_pairwise_pct)}.")
        out.append(s)
    if len(out) > 8:  # a long file: the table has every row, the text the first few and a count
        out = out[:6] + [f"… and {prose.count(len(out) - 6, 'more pair')} of task counts in the table."]
    return [prose.bullets(out)]


def _growth_verdict(row) -> str:
    """The growth against N(N−1), with the test that decided it (or why there is none)."""
    if row.verdict.startswith("untested"):
        return "with one measurement per task count there is no scatter to test this difference against"
    if row.verdict.startswith("within"):
        return f"the data cannot tell this growth from N(N−1)'s ({row.test})"
    return f"{row.verdict} ({row.test})"


def _published_growth(g) -> str:
    """The article's four hot latches, in its order, beside N(N−1) (book data only)."""
    from mqperf.data.views import kafka_latch_cpus as view
    from mqperf.models import contention
    from mqperf.present import prose

    pub = view.published()
    growth = pub["growth"]
    coh = (float(contention.coherency_growth(4, 5)) - 1) * 100
    lines = []
    for row in growth.itertuples():
        timed = g[g["latch"].str.startswith(f"latch {row.latch} ")] if len(g) else g
        grew = float(timed["total_pct"].iloc[0]) if len(timed) else row.printed_pct
        need = ((1 + grew / 100) / (1 + coh / 100) - 1) * 100
        lines.append(f"{int(row.rank)}. latch {row.latch} ({row.names}): printed +{prose.num(row.printed_pct)} %"
                     + (f", +{prose.num(grew)} % from its times" if len(timed) else "") + "; "
                     + (f"N(N−1)·X matches it if throughput fell {prose.num(-need)} % from 4 to 5 tasks"
                        if need < 0 else
                        f"faster than N(N−1) even at constant throughput (it would need a throughput gain of "
                        f"{prose.num(need)} %, and the article says throughput fell)"))
    l19 = g[g["latch"].str.startswith("latch 19")] if len(g) else g
    e002 = (f"Latch 19 (BMXL3) is printed as \"increased 50 % from 293 seconds to 449 seconds\"; the two times give "
            f"+{prose.num(l19['total_pct'].iloc[0])} % ({{ref}}`erratum E002 <errata-e002>`), which the tables use. "
            if len(l19) else "")
    return (
        e002 + "The article lists the four hot latches \"in order of highest latch times\" with their growth from "
        "4 to 5 tasks; only latch 19 has times, the other three only printed percentages, which may carry the "
        "same kind of slip. It prints no rate at 5 tasks, but says the rate \"decreased with additional tasks\" "
        "past two, so X(5) ≤ X(4) and each latch's wait per message grew at least as much as its total. In the "
        "article's order:\n\n" + "\n".join(lines) + "\n\nSo latches 24 and 12 grow faster than pairwise whatever "
        "the throughput did; latches 19 and 31 fit N(N−1)·X if throughput fell by the amounts above, which the "
        "article does not print. A latch whose hold time lengthens as it gets hotter, or a holder waiting for a "
        "CPU while it holds the latch, grows faster than pairwise.")


def _cpus(r, p: dict, source) -> None:
    import math

    import pandas as pd

    from mqperf.chapters import _kafka_latch_cpus_calc as calc
    from mqperf.data import aggregate, views
    from mqperf.errors import ModelError
    from mqperf.present import charts, prose
    from mqperf.present.cards import card_name

    runs = calc.cpu_runs(views.open(p["data"], CHAPTER))
    r.points = runs
    r.about("runs_about", (
        "The article's figures: 3 CPUs, 75 % busy, sufficient 45 % of the time (so some ready work waited 55 % of "
        "the time, close to the 60 % IBM's reading of the report takes as CPU contention); 6 CPUs, 47 % busy, "
        "sufficient 65 %, with \"the throughput achieved increased 37%\". The distribution does not separate CPs "
        "from zIIPs, and the connector's work is mostly zIIP-eligible while the busy figures are the "
        "general-purpose CPUs' alone."))
    r.items["runs_note"] = aggregate.AggregationNote(
        aggregate.note(runs, per="run (label, or CPU count)", value="busy_pct and sufficient_pct")) or None
    cols = {"label": "run", "gp_cpus": "CPUs", "busy_pct": "busy (%)", "busy_cpus": "busy CPUs",
            "sufficient_pct": "time with sufficient CPUs (%)", "rate_msg_s": "rate (msg/s)",
            "cpu_us_per_msg": "CPU per message (µs)", aggregate.COUNT: "n",
            aggregate.sd_column("busy_pct"): "busy sd (%)", aggregate.sd_column("sufficient_pct"): "sufficient sd (%)"}
    shown = runs[[c for c in cols if c in runs and not runs[c].isna().all()]].rename(columns=cols)
    r.table("runs", shown, digits=5, caption="The runs: RMF's CPU figures and the rates")

    mmc = calc.mmc_comparison(runs)
    r.table("mmc", mmc.rename(columns={
        "run": "run", "cpus": "CPUs", "busy_cpus": "busy CPUs (A)", "rmf_pct": "RMF sufficient (%)",
        "mmc_pct": "M/M/c sufficient (%)", "error_pts": "M/M/c − RMF (points)", "prob_wait": "M/M/c P(wait)",
        "wait_bursts": "M/M/c mean wait (CPU bursts)"}), digits=3,
        caption="M/M/c with c = the CPUs and A = the busy CPUs, against RMF")
    err = mmc["error_pts"]
    n = len(mmc)
    if (err > 0).all():
        side = "more time with sufficient CPUs than RMF saw"
    elif (err < 0).all():
        side = "less time with sufficient CPUs than RMF saw"
    else:
        side = "more time with sufficient CPUs than RMF saw in some runs and less in others"
    span = (f"by {prose.num(err.abs().min())} to {prose.num(err.abs().max())} points"
            if n > 1 else f"by {prose.num(abs(err.iloc[0]))} points")
    r.text("mmc_text", prose.paragraph(
        f"M/M/c expects {side} ({'in ' + prose.count(n, 'run') if n > 1 else 'in the one run'}), {span}.",
        "Work burstier than Poisson (a commit or a latch release readying several tasks at once) has less time "
        "with sufficient CPUs at the same load; a closed population of tasks waiting for each other usually has "
        "more." if err.abs().max() > 5 else "Within 5 points: at these loads a Poisson model describes RMF's share."))
    loads = {f"M/M/c at {row.label} load": row.busy_cpus for row in runs.head(12).itertuples()}
    grid = range(1, int(p["max_cpus"]) + 1)
    curves = pd.DataFrame([{"x": float(c), "fit": calc.mmc_share_pct(c, busy), "lower": math.nan,
                            "upper": math.nan, "series": name} for name, busy in loads.items() for c in grid])
    measured = pd.DataFrame({"x": runs["gp_cpus"].head(12).astype(float), "y": runs["sufficient_pct"].head(12),
                             "series": list(loads), "basis": "measured"})
    r.chart("mmc_chart", charts.measured_vs_fitted(
        measured, curves, x="x", y="y", x_title="CPUs (servers)", y_title="time with sufficient CPUs (%)",
        title="Time with sufficient CPUs: M/M/c (lines) against RMF (points)"))

    # The load-factor correction: one k per run, each tested on the others (the first CROSS runs:
    # every pair is a prediction, so a file of thousands of runs would give millions of them).
    factors, refused = {}, []
    for _, run in runs.head(CROSS).iterrows():
        try:
            res = calc.load_factor_fit(run)
        except ModelError:
            refused.append(run["label"])
            continue
        factors[run["label"]] = float(res.params["k"])
        r.fit_results[f"load factor from {run['label']}"] = res
        r.card(card_name(CHAPTER, f"load factor from {run['label']}"),
               res.to_card(name=f"{CHAPTER}: M/M/c load factor from {run['label']}", dataset=source.name), res)
    cross = calc.cross_calibration(runs.head(CROSS), factors, tested=True)
    shown = cross.drop(columns=["test", "beyond"]) if len(cross) and (cross["test"] == "").all() else cross
    r.table("cross", shown.rename(columns={
        "calibrated_on": "calibrated on", "k": "k", "predicting": "predicting", "rmf_pct": "RMF (%)",
        "predicted_pct": "predicted (%)", "error_pts": "error (points)", "test": "test against the runs' scatter",
        "beyond": "beyond the scatter"}), digits=3,
        caption="M/M/c at k·A, k calibrated on one run, predicting the others"
                + (f" (the first {CROSS} of the {len(runs):,} runs)" if len(runs) > CROSS else ""),
        missing=("one run only: a load factor calibrated on it has no other run to be tested on" if len(runs) < 2
                 else "no run could be calibrated (shares of 0 or 100 % have no load factor)"))
    r.text("cross_text", _cross_sentences(cross, factors, refused))

    _more_cpus(r, runs, mmc)
    from mqperf.chapters import _kafka_latch_cpus_plan as plan

    plan.plan(r, p, runs, mmc, factors, source)


def _cross_sentences(cross, factors, refused) -> str:
    from mqperf.present import prose

    parts = []
    if factors:
        parts.append(f"Each k is exactly identified (one run for one parameter): "
                     f"{'the other runs are its only test' if len(cross) else 'with no other run, it is not tested'}.")
    if len(cross):
        worst = cross.loc[cross["error_pts"].abs().idxmax()]
        parts.append(f"Across {prose.count(len(cross), 'prediction')}, the errors run from "
                     f"{prose.num(cross['error_pts'].min())} to {prose.num(cross['error_pts'].max())} points; the worst, "
                     f"k = {prose.num(worst['k'])} from {prose.quoted(worst['calibrated_on'])} predicting "
                     f"{prose.quoted(worst['predicting'])}, gives {prose.pct(worst['predicted_pct'])} against "
                     f"{prose.pct(worst['rmf_pct'])}.")
        tested = cross[cross["test"] != ""]
        if tested.empty:
            parts.append("With one measurement per run there is no scatter to test these errors against, so the data "
                         "cannot tell whether one load factor holds across the runs.")
        else:
            missed = tested[tested["beyond"]]
            row = (missed if len(missed) else tested).iloc[0]
            if len(missed):
                parts.append(f"One load factor does not carry from one run to another: k from "
                             f"{prose.quoted(row['calibrated_on'])} misses {prose.quoted(row['predicting'])} by more "
                             f"than the runs' scatter ({row['test']}; each of the {prose.count(len(tested), 'prediction')} "
                             "tested at 5 % over their number).")
            else:
                parts.append("Every error is within the runs' scatter, so one load factor may hold across these runs "
                             f"(the largest: {row['test']}).")
    if refused:
        parts.append(f"{prose.listing(prose.quoted(x) for x in refused)}: a share of 0 or 100 % has no load factor.")
    return prose.paragraph(*parts)


def _moved(name: str, a, b, column: str, unit: str, *, sd: str | None = None, scale=(1.0, 1.0)):
    """How a run quantity moved from run ``a`` to run ``b``, and whether a Welch t-test decided it.

    ``sd`` names the column whose scatter (times ``scale``) tests it; returns (words, tested)."""
    import pandas as pd

    from mqperf.data import aggregate
    from mqperf.models.differences import welch
    from mqperf.present import prose

    x, y = float(a[column]), float(b[column])
    col = aggregate.sd_column(sd or column)
    na, nb = int(a.get(aggregate.COUNT, 1) or 1), int(b.get(aggregate.COUNT, 1) or 1)
    sa = float(a[col]) * scale[0] if col in a and pd.notna(a[col]) else None
    sb = float(b[col]) * scale[1] if col in b and pd.notna(b[col]) else None
    test = welch(x, sa, na, y, sb, nb, what=f"the change in {name.removeprefix('the ')}")
    unit = f" {unit}" if unit else ""
    tested = "one measurement" not in test.test
    if tested and test.holds and x:
        return f"{name} {_change((y - x) / x * 100)} ({test.test})", True
    if tested:
        return (f"{name} went from {prose.num(x)} to {prose.num(y)}{unit}, a change within the runs' scatter "
                f"({test.test})"), True
    return f"{name} went from {prose.num(x)} to {prose.num(y)}{unit}", False


def _change(pct: float) -> str:
    from mqperf.present import prose

    return f"{'rose' if pct >= 0 else 'fell'} by {prose.pct(abs(pct))}"


def _more_cpus(r, runs, mmc) -> None:
    import pandas as pd

    from mqperf.present import prose

    if runs["gp_cpus"].nunique() < 2:
        r.missing("more_cpus", "every run has the same CPU count, so there is no before and after for more CPUs")
        r.items["more_cpus_text"] = None
        r.items["cpu_effect_about"] = None
        return
    a, b = runs.iloc[0], runs.iloc[-1]
    ma, mb = mmc.iloc[0], mmc.iloc[-1]
    items = [("CPUs", a["gp_cpus"], b["gp_cpus"]), ("rate (msg/s)", a["rate_msg_s"], b["rate_msg_s"]),
             ("busy CPUs", a["busy_cpus"], b["busy_cpus"]),
             ("CPU per message (µs)", a["cpu_us_per_msg"], b["cpu_us_per_msg"]),
             ("time with sufficient CPUs, RMF (%)", a["sufficient_pct"], b["sufficient_pct"]),
             ("time with sufficient CPUs, M/M/c (%)", ma["mmc_pct"], mb["mmc_pct"]),
             ("M/M/c mean wait for a CPU (CPU bursts)", ma["wait_bursts"], mb["wait_bursts"])]
    rows = [{"quantity": q, "fewest CPUs": float(x), "most CPUs": float(y),
             "change (%)": (y - x) / x * 100 if x and pd.notna(x) and pd.notna(y) and abs(x) != float("inf")
             and abs(y) != float("inf") else float("nan")} for q, x, y in items]
    table = pd.DataFrame(rows)
    table = table[table[["fewest CPUs", "most CPUs"]].notna().any(axis=1)]
    r.table("more_cpus", table, digits=5, caption=f"{a['label']} against {b['label']}")
    parts = [f"From {prose.quoted(a['label'])} to {prose.quoted(b['label'])}:"]
    moves = []
    if pd.notna(a["rate_msg_s"]) and pd.notna(b["rate_msg_s"]):
        moves.append(_moved("the rate", a, b, "rate_msg_s", "msg/s"))
        moves.append(_moved("the CPU per message", a, b, "cpu_us_per_msg", "µs", sd="cpu_us_row"))
    moves.append(_moved("the busy CPUs", a, b, "busy_cpus", "", sd="busy_pct", scale=(a["gp_cpus"] / 100,
                                                                                      b["gp_cpus"] / 100)))
    parts.append("; ".join(words for words, _ in moves) + ";")
    parts.append(f"RMF's time with sufficient CPUs went from {prose.pct(a['sufficient_pct'])} to "
                 f"{prose.pct(b['sufficient_pct'])}, and M/M/c's mean wait for a CPU from "
                 f"{prose.num(ma['wait_bursts'])} to {prose.num(mb['wait_bursts'])} CPU bursts.")
    if not any(tested for _, tested in moves):
        parts.append("With one measurement per run these differences are not tested against any scatter.")
    r.text("more_cpus_text", " ".join(parts))
    r.about("cpu_effect_about", (
        "The article adds what the latches did from 3 to 6 CPUs: \"the average latch times are 75-90% less\"; "
        "\"latch 19 on the 6 CPU configuration spends 10% less time but makes many more requests of that type\"; "
        "latches \"12, 24 and 31 spend 40 to 70% less time waiting for the latch\". When a task that holds a latch "
        "waits to be dispatched, every task queued on the latch waits too, so a CPU shortage turns into latch "
        "waits: the direction the latches moved, not a prediction of their 75–90 %. The latches remain a limit "
        "with 6 CPUs: more CPUs shorten the waits, they do not remove the contention on one queue."))
