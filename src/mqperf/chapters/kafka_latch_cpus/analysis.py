"""The latch and CPU chapter's analysis: open the data, fit, plan, and put every table, chart,
sentence and card on the Results in the order the notebook shows them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_latch_cpus import CHAPTER, CROSS, SHOWN, fits, text
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import cpu_share
from mqperf.models.fitset import FitSet
from mqperf.present import charts, prose
from mqperf.present.cards import card_name
from mqperf.present.results import Results

#: The latch items, in the notebook's order (none of them without latch data).
LATCH_ITEMS = ("latch_note", "latch_times", "growth_text", "growth", "growth_about", "growth_chart",
               "power_law_text", "power_law", "loo", "waiters_text", "waiters", "waiters_about")


def analyse(p: dict) -> Results:
    """See :func:`mqperf.chapters.kafka_latch_cpus.analyse`."""
    source = views.describe(p["data"], CHAPTER)
    r = Results(book_data=source.book_data, source=source.name)
    r.fit_results = {}
    latch_source = views.describe(p["latch_data"], CHAPTER)
    text.intro(r)
    text.system(r)
    _latches(r, p, latch_source)
    _cpus(r, p, source)
    text.about_latches(r, latch_source, "errata", lambda: text.ERRATA)
    return r


# -- latches --------------------------------------------------------------------------------------

def _latches(r, p: dict, latch_source) -> None:
    if not p.get("latch_data"):
        for key in LATCH_ITEMS:
            r.items[key] = None
        r.missing("latch_times", "no latch data was given (`-p latch_data FILE` adds it), so there is no latch section")
        return
    points = fits.latch_points(views.open(p["latch_data"], CHAPTER, "latch_data"), p.get("run_s"))
    r.items["latch_note"] = aggregate.AggregationNote(
        aggregate.note(points, per="latch and tasks value", value="latch_s")) or None
    cols = {"latch": "latch", "tasks": "tasks", "latch_s": "total wait (s)", aggregate.COUNT: "n",
            aggregate.sd_column("latch_s"): "total wait sd (s)", "rate_msg_s": "rate (msg/s)", "run_s": "run (s)",
            "wait_per_msg_us": "wait per message (µs)"}
    shown = points[[c for c in cols if c in points and not points[c].isna().all()]].rename(columns=cols)
    # Five digits: a unit gives rates four, and the measured rates (30,592 msg/s) have five.
    r.table("latch_times", shown, digits=5, caption="Latch wait times, one row per latch and task count")

    g = fits.growth(points)
    _growth(r, g)
    text.about_latches(r, latch_source, "growth_about", lambda: text.published_growth(g))
    _power_law(r, points, latch_source)
    _waiters(r, points, latch_source)


def _growth(r, g) -> None:
    if not len(g):
        r.missing("growth", "every latch in your file has one task count, so there is no growth to compare with N(N−1)")
        r.items["growth_text"] = None
        r.items["growth_chart"] = None
        return
    table = g.assign(tasks=[f"{a} → {b}" for a, b in zip(g["tasks_from"], g["tasks_to"])])
    cols = {"latch": "latch", "tasks": "tasks", "total_pct": "total wait growth (%)"}
    if g["normalised"].any():
        cols.update({"x_change_pct": "throughput change (%)", "per_msg_pct": "wait per message growth (%)"})
    cols.update({"coherency_pct": "N(N−1) growth (%)", "proportional_pct": "N growth (%)",
                 "x_change_for_pairwise_pct": "throughput change for N(N−1)·X (%)",
                 "b": "exponent b", "b_coherency": "N(N−1) exponent", "verdict": "against N(N−1)"})
    # Three digits: the exponents have no unit, and are read beside the growth percentages.
    r.table("growth", table[list(cols)].rename(columns=cols), digits=3,
            caption="Growth of each latch's wait between task counts, beside N(N−1) and N")
    r.text("growth_text", *text.growth_sentences(g))
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


def _power_law(r, points, latch_source) -> None:
    frame = fits.power_law_frame(points)
    frame = frame[frame.groupby("latch")["tasks"].transform("nunique") >= 2]
    fitted = FitSet.fit(frame, "latch", fits.fit_power_law) if len(frame) else FitSet([])
    results = fitted.results
    r.fit_results.update({f"{k} power law": v for k, v in results.items()})
    rows = []
    for name, res in results.items():
        ci = res.conf_int().loc["b"]
        rows.append({"latch": name, "fitted to": frame.loc[frame["latch"] == name, "fitted_to"].iloc[0],
                     "points": res.nobs, "a": res.a, "b": res.b, "b lower (95 %)": ci["lower"],
                     "b upper (95 %)": ci["upper"], "identification": res.identification})
    r.table("power_law", pd.DataFrame(rows), caption="Power law w(N) = a·N^b per latch",
            missing="no latch has two or more task counts, so there is no power law to fit")
    r.text("power_law_text", prose.identification(dict(results)) if results else None)
    loo_rows = frame[frame.groupby("latch")["tasks"].transform("nunique") >= 3]
    loo = fitted.leave_one_out(loo_rows, "latch", "tasks", "y", fits.fit_power_law, group="latch") \
        if len(loo_rows) else None
    if loo is not None:
        loo = loo.rename(columns={"error %": "error (%)"})
    # Three digits: the points are in the fitted quantity (µs per message or s), which no column name can say.
    r.table("loo", loo, digits=3, caption="Leave-one-out: each point predicted by the power law fitted without it",
            missing="leave-one-out needs three or more task counts per latch; "
                    + ("no latch has them" if results else "there is no power law"))
    for name, res in results.items():
        r.card(card_name(CHAPTER, f"{name} power law"),
               res.to_card(name=f"{CHAPTER}: {name} power law", dataset=latch_source.name), res)


def _waiters(r, points, latch_source) -> None:
    run_known = points["run_s"].notna()
    if not run_known.any():
        r.items["waiters_about"] = None
        r.missing("waiters", "the latch data give no run length (a `run_s` column or `-p run_s`), so Little's "
                             "law cannot turn total waits into a number of waiting tasks")
        r.items["waiters_text"] = None
        return
    w = points[run_known].assign(mean_waiting=lambda f: f["latch_s"] / f["run_s"])
    w["share"] = w["mean_waiting"] / w["tasks"] * 100
    # Three digits: the mean number of tasks waiting has no unit, and is read beside the share.
    r.table("waiters", w[["latch", "tasks", "latch_s", "run_s", "mean_waiting", "share"]].rename(columns={
        "latch_s": "total wait (s)", "run_s": "run (s)", "mean_waiting": "mean tasks waiting",
        "share": "share of tasks (%)"}), digits=3, caption="Little's law: mean number waiting = total wait / run")
    r.text("waiters_text", text.waiters(w))
    text.about_latches(r, latch_source, "waiters_about", lambda: text.WAITERS)


# -- CPUs -----------------------------------------------------------------------------------------

def _cpus(r, p: dict, source) -> None:
    runs = fits.cpu_runs(views.open(p["data"], CHAPTER))
    r.points = runs
    r.about("runs_about", text.RUNS)
    r.items["runs_note"] = aggregate.AggregationNote(
        aggregate.note(runs, per="run (label, or CPU count)", value="busy_pct and sufficient_pct")) or None
    cols = {"label": "run", "gp_cpus": "CPUs", "busy_pct": "busy (%)", "busy_cpus": "busy CPUs",
            "sufficient_pct": "time with sufficient CPUs (%)", "rate_msg_s": "rate (msg/s)",
            "cpu_us_per_msg": "CPU per message (µs)", aggregate.COUNT: "n",
            aggregate.sd_column("busy_pct"): "busy sd (%)", aggregate.sd_column("sufficient_pct"): "sufficient sd (%)"}
    shown = runs[[c for c in cols if c in runs and not runs[c].isna().all()]].rename(columns=cols)
    # Five digits: a unit gives rates four, and the measured rates (30,592 msg/s) have five.
    r.table("runs", shown, digits=5, caption="The runs: RMF's CPU figures and the rates")

    mmc = fits.mmc_comparison(runs)
    # Three digits: probabilities, points and CPU bursts have no unit; they are read beside the shares (%).
    r.table("mmc", mmc.rename(columns={
        "run": "run", "cpus": "CPUs", "busy_cpus": "busy CPUs (A)", "rmf_pct": "RMF sufficient (%)",
        "mmc_pct": "M/M/c sufficient (%)", "error_pts": "M/M/c − RMF (points)", "prob_wait": "M/M/c P(wait)",
        "wait_bursts": "M/M/c mean wait (CPU bursts)"}), digits=3,
        caption="M/M/c with c = the CPUs and A = the busy CPUs, against RMF")
    r.text("mmc_text", text.mmc(mmc))
    loads = {f"M/M/c at {row.label} load": row.busy_cpus for row in runs.head(SHOWN).itertuples()}
    grid = range(1, int(p["max_cpus"]) + 1)
    curves = pd.DataFrame([{"x": float(c), "fit": cpu_share.share_pct(c, busy), "lower": math.nan,
                            "upper": math.nan, "series": name} for name, busy in loads.items() for c in grid])
    measured = pd.DataFrame({"x": runs["gp_cpus"].head(SHOWN).astype(float),
                             "y": runs["sufficient_pct"].head(SHOWN), "series": list(loads), "basis": "measured"})
    r.chart("mmc_chart", charts.measured_vs_fitted(
        measured, curves, x="x", y="y", x_title="CPUs (servers)", y_title="time with sufficient CPUs (%)",
        title="Time with sufficient CPUs: M/M/c (lines) against RMF (points)"))

    _cross(r, runs, source)
    _more_cpus(r, runs, mmc)
    _plan(r, p, runs, source)


def _cross(r, runs, source) -> None:
    """The load-factor correction: one k per run, each tested on the others (the first CROSS runs:
    every pair is a prediction, so a file of thousands of runs would give millions of them)."""
    factors, refused = {}, []
    for _, run in runs.head(CROSS).iterrows():
        try:
            res = fits.load_factor_fit(run)
        except ModelError:
            refused.append(run["label"])
            continue
        factors[run["label"]] = float(res.params["k"])
        r.fit_results[f"load factor from {run['label']}"] = res
        r.card(card_name(CHAPTER, f"load factor from {run['label']}"),
               res.to_card(name=f"{CHAPTER}: M/M/c load factor from {run['label']}", dataset=source.name), res)
    cross = fits.cross_calibration(runs.head(CROSS), factors, tested=True)
    shown = cross.drop(columns=["test", "beyond"]) if len(cross) and (cross["test"] == "").all() else cross
    # Three digits: k and the errors in points have no unit; they are read beside the shares (%).
    r.table("cross", shown.rename(columns={
        "calibrated_on": "calibrated on", "k": "k", "predicting": "predicting", "rmf_pct": "RMF (%)",
        "predicted_pct": "predicted (%)", "error_pts": "error (points)", "test": "test against the runs' scatter",
        "beyond": "beyond the scatter"}), digits=3,
        caption="M/M/c at k·A, k calibrated on one run, predicting the others"
                + (f" (the first {CROSS} of the {len(runs):,} runs)" if len(runs) > CROSS else ""),
        missing=("one run only: a load factor calibrated on it has no other run to be tested on" if len(runs) < 2
                 else "no run could be calibrated (shares of 0 or 100 % have no load factor)"))
    r.text("cross_text", text.cross(cross, factors, refused))


def _more_cpus(r, runs, mmc) -> None:
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
    # Five digits: each row is another quantity, and the measured rates (30,592 msg/s) have five.
    r.table("more_cpus", table, digits=5, caption=f"{a['label']} against {b['label']}")
    r.text("more_cpus_text", text.more_cpus(a, b, ma, mb))
    r.about("cpu_effect_about", text.CPU_EFFECT)


# -- the plan -------------------------------------------------------------------------------------

def demands(p: dict, runs: pd.DataFrame) -> dict[str, float]:
    """The work to plan for, in busy CPUs: each run's, the target rate's and the parameter's."""
    out = {f"{row.label} work": float(row.busy_cpus) for row in runs.head(SHOWN).itertuples()}
    largest = runs.iloc[-1]
    if p.get("target_rate_msg_s") and pd.notna(largest["cpu_us_per_msg"]):
        out[f"{prose.num(p['target_rate_msg_s'])} msg/s at {prose.num(largest['cpu_us_per_msg'])} µs/msg"] = \
            p["target_rate_msg_s"] * largest["cpu_us_per_msg"] / 1e6
    if p.get("plan_busy_cpus"):
        out[f"{prose.num(p['plan_busy_cpus'])} busy CPUs (parameter)"] = float(p["plan_busy_cpus"])
    return {k: v for k, v in out.items() if v > 0}


def _line(r, runs, source):
    """The measured relation's table, sentence, card and chart; (None, why) when it cannot be fitted."""
    try:
        line = fits.line_fit(runs)
    except ModelError as exc:
        r.missing("relation", f"{exc}: your file has one, so there is no measured relation to plan from")
        r.items["relation_text"] = None
        r.items["relation_chart"] = None
        return None, str(exc)
    r.fit_results["measured relation"] = line
    ci = line.conf_int()
    r.table("relation", pd.DataFrame({
        "parameter": ["a (share at 0 % busy)", "b (change per busy %)"], "unit": ["%", "points per %"],
        "estimate": line.params.to_numpy(), "lower (95 %)": ci["lower"].to_numpy(),
        "upper (95 %)": ci["upper"].to_numpy()}),
        caption="Measured relation: time with sufficient CPUs (%) = a + b × busy (%)")
    r.text("relation_text", text.line(line))
    r.card(card_name(CHAPTER, "measured relation"),
           line.to_card(name=f"{CHAPTER}: RMF share against busy", dataset=source.name), line)
    curve = line.bands(np.linspace(0, 100, 51)).assign(series="measured relation")
    pts = pd.DataFrame({"x": runs["busy_pct"], "y": runs["sufficient_pct"], "series": "measured relation",
                        "basis": "measured"})
    r.chart("relation_chart", charts.measured_vs_fitted(
        pts, curve.assign(fit=curve["fit"].clip(0, 100)), x="x", y="y", x_title="busy per CPU (%)",
        y_title="time with sufficient CPUs (%)", title="RMF's share against busy: the runs and the line through them"))
    return line, None


def _plan(r, p: dict, runs: pd.DataFrame, source) -> None:
    target, max_cpus = float(p["target_sufficient_pct"]), int(p["max_cpus"])
    r.answers = "CPUs for the target share of time with sufficient CPUs"
    line, reason = _line(r, runs, source)
    models, failed = {"M/M/c": None}, {"line in per-CPU busy": reason} if line is None else {}
    try:
        models["M/M/c at k·A"] = fits.load_factor_all(runs)
        r.fit_results["load factor, all runs"] = models["M/M/c at k·A"]
        r.card(card_name(CHAPTER, "load factor, all runs"),
               models["M/M/c at k·A"].to_card(name=f"{CHAPTER}: M/M/c load factor fitted to every run",
                                              dataset=source.name), models["M/M/c at k·A"])
    except ModelError as exc:
        failed["M/M/c at k·A"] = str(exc)
    if line is not None:
        models["line in per-CPU busy"] = line
    ranking = fits.rank_models(runs, models)
    r.table("models", pd.DataFrame({
        "model": [text.column(m, models).removeprefix("CPUs, ") for m in ranking["model"]],
        "parameters": ranking["parameters"], "RMSE against RMF (points)": ranking["rmse_pts"],
        "AICc": ranking["aicc"], "ΔAICc": ranking["delta"], "runs AICc needs": ranking["needs_runs"],
        "set apart by the data": ranking["accepted"].map({True: "no", False: "yes: it trails"})}),
        caption="The plan's models on the runs: how far each misses RMF's shares, and their AICc where the runs "
                "allow one (– where they do not)")

    work = demands(p, runs)
    most_cpus, most_share = int(runs["gp_cpus"].max()), float(runs["sufficient_pct"].max())
    most_work = float(runs["busy_cpus"].max())
    accepted = list(ranking.loc[ranking["accepted"], "model"])
    rows = []
    for name, busy in work.items():
        row = {"work to carry": name, "busy CPUs": busy}
        for model in models:
            row[text.column(model, models)] = fits.plan_cpus(model, models[model], busy, target)
        answers = [row[text.column(m, models)] for m in accepted if math.isfinite(row[text.column(m, models)])]
        lo, hi = (min(answers), max(answers)) if answers else (math.nan, math.nan)
        row["plan (CPUs)"] = (f"none up to {cpu_share.PLAN_LIMIT:,}" if not answers else
                              prose.num(lo) if lo == hi else f"{prose.num(lo)} to {prose.num(hi)}")
        beyond = text.beyond(hi, target, busy, most_cpus, most_share, most_work)
        row["extrapolated"] = "yes: " + beyond if beyond else "no"
        row["_lo"], row["_hi"] = lo, hi
        if beyond:
            r.extrapolated(f"{name}: {row['plan (CPUs)']} CPUs for {prose.num(target)} % sufficient, {beyond}")
        rows.append(row)
    table = pd.DataFrame(rows)
    r.table("plan", table.drop(columns=["_lo", "_hi"]), caption=(
        f"CPUs for at least {prose.num(target)} % of the time with sufficient CPUs, by each model (searched up "
        f"to {cpu_share.PLAN_LIMIT:,} CPUs; – where a model reaches the target with none, or the line gives "
        "no busy limit); the plan is the range of the models the runs do not set apart"))
    r.text("plan_text", text.answer(r, p, runs, table, ranking, models, failed, accepted, target))
    grid = np.arange(1, max_cpus + 1)
    parts = []
    for name, busy in list(work.items())[-4:]:
        x = np.column_stack([grid.astype(float), np.full(grid.size, busy)])
        for model in models:  # a saturated M/M/c (load at or past the CPUs) has no time with enough CPUs
            parts.append(pd.DataFrame({"cpus": grid.astype(float),
                                       "sufficient_pct": fits.model_shares(model, models[model], x),
                                       "series": f"{name}, {model}"}))
    r.chart("plan_chart", charts.lines(
        pd.concat(parts, ignore_index=True), x="cpus", y="sufficient_pct", colour="series", x_title="CPUs",
        y_title="time with sufficient CPUs (%)",
        title=f"Time with sufficient CPUs by CPU count, for the planned work (target {prose.num(target)} %)"))
