"""Planning CPUs for a target share of time with sufficient CPUs (kafka_latch_cpus).

Three models give the share from both the CPUs and their load: M/M/c, M/M/c at a load
factor k fitted to every run, and the measured relation (a straight line in per-CPU busy
through the runs, which ignores the CPU count). Two runs at different CPU counts rank none of
them (AICc needs three, four and five runs), and they part widely once the plan leaves the
runs: the book's two runs give 6, 7 and 13 CPUs for its target. So the plan is the range of
the models the data do not set apart, said as what the data cannot decide, and one model's
answer only when the runs rank it ahead of the others by AICc (by more than 4). Every answer
past the measured CPUs, shares or work is labelled extrapolated.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters import _kafka_latch_cpus_calc as calc
from mqperf.errors import ModelError
from mqperf.present import charts, prose
from mqperf.present.cards import card_name

CHAPTER = "kafka_latch_cpus"
#: What a model is called in tables and sentences.
WORDS = {"M/M/c": "M/M/c", "M/M/c at k·A": "M/M/c at k·A", "line in per-CPU busy": "the line in per-CPU busy"}


def demands(p: dict, runs: pd.DataFrame) -> dict[str, float]:
    """The work to plan for, in busy CPUs: each run's, the target rate's and the parameter's."""
    out = {f"{row.label} work": float(row.busy_cpus) for row in runs.head(12).itertuples()}
    largest = runs.iloc[-1]
    if p.get("target_rate_msg_s") and pd.notna(largest["cpu_us_per_msg"]):
        out[f"{prose.num(p['target_rate_msg_s'])} msg/s at {prose.num(largest['cpu_us_per_msg'])} µs/msg"] = \
            p["target_rate_msg_s"] * largest["cpu_us_per_msg"] / 1e6
    if p.get("plan_busy_cpus"):
        out[f"{prose.num(p['plan_busy_cpus'])} busy CPUs (parameter)"] = float(p["plan_busy_cpus"])
    return {k: v for k, v in out.items() if v > 0}


def _relation(r, runs, source):
    try:
        relation, reason = calc.fit_relation(runs), None
    except ModelError as exc:
        return None, str(exc)
    r.fit_results["measured relation"] = relation
    ci = relation.conf_int()
    r.table("relation", pd.DataFrame({
        "parameter": ["a (share at 0 % busy)", "b (change per busy %)"], "unit": ["%", "points per %"],
        "estimate": relation.params.to_numpy(), "lower (95 %)": ci["lower"].to_numpy(),
        "upper (95 %)": ci["upper"].to_numpy()}), digits=4,
        caption="Measured relation: time with sufficient CPUs (%) = a + b × busy (%)")
    r.text("relation_text", "The line has two parameters; " + (
        "two runs fix it exactly, so it has no interval and nothing tests it but a third run."
        if relation.df_resid <= 0 else f"{prose.count(relation.df_resid, 'residual degree')} of freedom give its "
                                       "intervals."))
    r.card(card_name(CHAPTER, "measured relation"),
           relation.to_card(name=f"{CHAPTER}: RMF share against busy", dataset=source.name), relation)
    grid = np.linspace(0, 100, 51)
    curve = relation.bands(grid).assign(series="measured relation")
    pts = pd.DataFrame({"x": runs["busy_pct"], "y": runs["sufficient_pct"], "series": "measured relation",
                        "basis": "measured"})
    r.chart("relation_chart", charts.measured_vs_fitted(
        pts, curve.assign(fit=curve["fit"].clip(0, 100)), x="x", y="y", x_title="busy per CPU (%)",
        y_title="time with sufficient CPUs (%)", title="RMF's share against busy: the runs and the line through them"))
    return relation, None


def plan(r, p: dict, runs: pd.DataFrame, mmc: pd.DataFrame, factors: dict, source) -> None:
    target, max_cpus = float(p["target_sufficient_pct"]), int(p["max_cpus"])
    r.answers = "CPUs for the target share of time with sufficient CPUs"
    relation, reason = _relation(r, runs, source)
    if relation is None:
        r.missing("relation", f"{reason}: your file has one, so there is no measured relation to plan from")
        r.items["relation_text"] = None
        r.items["relation_chart"] = None
    fits, failed = {"M/M/c": None}, {"line in per-CPU busy": reason} if relation is None else {}
    try:
        fits["M/M/c at k·A"] = calc.load_factor_all(runs)
        r.fit_results["load factor, all runs"] = fits["M/M/c at k·A"]
        r.card(card_name(CHAPTER, "load factor, all runs"),
               fits["M/M/c at k·A"].to_card(name=f"{CHAPTER}: M/M/c load factor fitted to every run",
                                            dataset=source.name), fits["M/M/c at k·A"])
    except ModelError as exc:
        failed["M/M/c at k·A"] = str(exc)
    if relation is not None:
        fits["line in per-CPU busy"] = relation
    ranking = calc.rank_models(runs, fits)
    _ranking_table(r, ranking, fits)

    work = demands(p, runs)
    most_cpus, most_share = int(runs["gp_cpus"].max()), float(runs["sufficient_pct"].max())
    most_work = float(runs["busy_cpus"].max())
    accepted = list(ranking.loc[ranking["accepted"], "model"])
    rows = []
    for name, busy in work.items():
        row = {"work to carry": name, "busy CPUs": busy}
        for model in fits:
            row[_column(model, fits)] = calc.plan_cpus(model, fits[model], busy, target)
        answers = [row[_column(m, fits)] for m in accepted if math.isfinite(row[_column(m, fits)])]
        lo, hi = (min(answers), max(answers)) if answers else (math.nan, math.nan)
        row["plan (CPUs)"] = (f"none up to {calc.PLAN_LIMIT:,}" if not answers else
                              prose.num(lo) if lo == hi else f"{prose.num(lo)} to {prose.num(hi)}")
        beyond = _beyond(hi, target, busy, most_cpus, most_share, most_work)
        row["extrapolated"] = "yes: " + beyond if beyond else "no"
        row["_lo"], row["_hi"] = lo, hi
        if beyond:
            r.extrapolated(f"{name}: {row['plan (CPUs)']} CPUs for {prose.num(target)} % sufficient, {beyond}")
        rows.append(row)
    table = pd.DataFrame(rows)
    shown = table.drop(columns=["_lo", "_hi"])
    cap = (f"CPUs for at least {prose.num(target)} % of the time with sufficient CPUs, by each model (searched up "
           f"to {calc.PLAN_LIMIT:,} CPUs; – where a model reaches the target with none, or the line gives "
           "no busy limit); the plan is the range of the models the runs do not set apart")
    r.table("plan", shown, digits=4, caption=cap)
    r.text("plan_text", _answer(r, p, runs, table, ranking, fits, failed, accepted, target))
    r.chart("plan_chart", _chart(work, fits, target, max_cpus))


def _semicolons(items: list[str]) -> str:
    """A list whose items hold commas: "a; b; and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return "; ".join(items[:-1]) + "; and " + items[-1]


def _column(model: str, fits: dict) -> str:
    if model == "M/M/c at k·A":
        return f"CPUs, M/M/c at k = {prose.num(float(fits[model].params['k']))}"
    return f"CPUs, {model}"


def _beyond(hi, target, busy, most_cpus, most_share, most_work) -> str:
    """Why an answer leaves the measured runs, or "" when it does not."""
    why = []
    if math.isfinite(hi) and hi > most_cpus:
        why.append(f"past the most CPUs measured ({prose.num(most_cpus)})")
    if target > most_share:
        why.append(f"a share past the largest measured ({prose.num(most_share)} %)")
    if busy > most_work * (1 + 1e-9):
        why.append(f"more work than any run carried ({prose.num(most_work)} busy CPUs)")
    return "; ".join(why)


def _ranking_table(r, ranking: pd.DataFrame, fits: dict) -> None:
    shown = pd.DataFrame({
        "model": [_column(m, fits).removeprefix("CPUs, ") for m in ranking["model"]],
        "parameters": ranking["parameters"], "RMSE against RMF (points)": ranking["rmse_pts"],
        "AICc": ranking["aicc"], "ΔAICc": ranking["delta"],
        "runs AICc needs": ranking["needs_runs"],
        "set apart by the data": ranking["accepted"].map({True: "no", False: "yes: it trails"})})
    r.table("models", shown, digits=4,
            caption="The plan's models on the runs: how far each misses RMF's shares, and their AICc where the runs "
                    "allow one (– where they do not)")


def _answer(r, p, runs, table, ranking, fits, failed, accepted, target) -> str:
    # The answer the reader asked for: the target rate or the parameter's work when given (the
    # last rows), else the work of the run with most CPUs.
    asked = bool(p.get("target_rate_msg_s") or p.get("plan_busy_cpus"))
    own = table[table["work to carry"] == f"{runs.iloc[-1]['label']} work"]
    main = table.iloc[-1] if asked or own.empty else own.iloc[-1]
    n = len(runs)
    ranked = ranking[ranking["aicc"].notna()]
    models = [m for m in calc.MODELS if m in fits]
    intro = {"M/M/c": "M/M/c", "M/M/c at k·A": (
        f"M/M/c at k·A, with one load factor k = {prose.num(float(fits['M/M/c at k·A'].params['k']))} fitted to "
        + ("every run" if n > 1 else "the one run") if "M/M/c at k·A" in fits else ""), "line in per-CPU busy": "the line in per-CPU busy through the runs "
                                                                          "(which ignores the CPU count)"}
    parts = [f"{prose.count(len(models), 'model').capitalize()} give the share from the CPUs and their load: "
             + _semicolons([intro[m] for m in models]) + "."]
    if len(ranked) >= 2 and len(accepted) == 1:
        trail = ranked[~ranked["accepted"]]
        unranked = ranking[ranking["aicc"].isna()]
        parts.append(f"By AICc over the {prose.count(n, 'run')} the data prefer {WORDS[accepted[0]]}: "
                     + prose.listing(f"{WORDS[m]} trails by {prose.num(d)}" for m, d in zip(trail["model"],
                                                                                          trail["delta"]))
                     + ("" if unranked.empty else "; " + prose.listing(
                         f"{WORDS[m]} is not ranked (AICc needs at least {prose.num(k)} runs for it)"
                         for m, k in zip(unranked["model"], unranked["needs_runs"]))) + ".")
    else:
        unranked = ranking[ranking["aicc"].isna()]
        why = []
        if len(unranked):
            why.append(f"{prose.count(n, 'run')} rank{'s' if n == 1 else ''} "
                       + ("none of them" if len(unranked) == len(ranking) else prose.listing(
                           WORDS[m] for m in unranked["model"]))
                       + " (AICc needs at least " + prose.listing(
                           f"{prose.num(k)} for {WORDS[m]}" for m, k in zip(unranked["model"], unranked["needs_runs"]))
                       + ")")
        close = ranked[ranked["accepted"]]
        if len(close) >= 2:
            why.append(f"AICc sets {prose.listing(WORDS[m] for m in close['model'])} less than {prose.num(calc.SET_APART)} apart")
        parts.append(f"The data cannot decide between {prose.listing(WORDS[m] for m in accepted)}: "
                     + "; ".join(why) + ".")
    for m, why in failed.items():
        parts.append(f"{WORDS[m][0].upper() + WORDS[m][1:]} is not fitted: {why}.")
    if "line in per-CPU busy" in fits and not math.isfinite(calc.busy_limit_pct(fits["line in per-CPU busy"], target)):
        line = fits["line in per-CPU busy"]
        parts.append("The line in per-CPU busy gives no busy limit: " + (
            "in your runs the share does not fall as busy rises." if float(line.params["b"]) >= 0 else
            f"it reaches {prose.num(target)} % only at no load at all."))
    what = f"{prose.quoted(main['work to carry'])} ({prose.num(main['busy CPUs'])} busy CPUs)"
    lo, hi = main["_lo"], main["_hi"]
    beyond = main["extrapolated"] != "no"
    if not math.isfinite(hi):
        parts.append(f"No model the data accept reaches {prose.num(target)} % of the time with sufficient CPUs for "
                     f"{what} with up to {calc.PLAN_LIMIT:,} CPUs.")
        return prose.paragraph(*parts)
    each = prose.listing(f"{WORDS[m]} says {prose.num(main[_column(m, fits)])}" for m in models
                         if math.isfinite(main[_column(m, fits)]))
    answer = (f"needs {prose.num(hi)} CPU{'' if hi == 1 else 's'}" if lo == hi else
              f"needs between {prose.num(lo)} and {prose.num(hi)} CPUs")
    parts.append(f"For at least {prose.num(target)} % of the time with sufficient CPUs, {what} "
                 + prose.extrapolated(answer, beyond) + f": {each}.")
    if lo != hi:
        parts.append("The spread is what these runs cannot decide: runs at more CPU counts and loads would rank the "
                     "models and narrow it.")
    if beyond:
        parts.append(f"The answer is extrapolated: {main['extrapolated'][5:]}.")
    rate = p.get("target_rate_msg_s")
    if rate and runs["rate_msg_s"].notna().any():
        if rate > runs["rate_msg_s"].max():
            r.extrapolated(f"the target rate {prose.num(rate)} msg/s, past the largest measured "
                           f"({prose.num(runs['rate_msg_s'].max())} msg/s)")
        parts.append("The rate row assumes that the latches allow that rate and that the CPU per message stays at the "
                     "figure of the run with most CPUs.")
    return prose.paragraph(*parts)


def _chart(work: dict, fits: dict, target: float, max_cpus: int):
    grid = np.arange(1, max_cpus + 1)
    parts = []
    for name, busy in list(work.items())[-4:]:
        x = np.column_stack([grid.astype(float), np.full(grid.size, busy)])
        for model in fits:  # a saturated M/M/c (load at or past the CPUs) has no time with enough CPUs
            parts.append(pd.DataFrame({"cpus": grid.astype(float),
                                       "sufficient_pct": calc.model_shares(model, fits[model], x),
                                       "series": f"{name}, {model}"}))
    return charts.lines(pd.concat(parts, ignore_index=True), x="cpus", y="sufficient_pct", colour="series",
                        x_title="CPUs", y_title="time with sufficient CPUs (%)",
                        title=f"Time with sufficient CPUs by CPU count, for the planned work (target "
                              f"{prose.num(target)} %)")
