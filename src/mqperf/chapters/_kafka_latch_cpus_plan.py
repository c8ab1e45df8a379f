"""Planning CPUs for a target share of time with sufficient CPUs (kafka_latch_cpus).

The plan comes from the measured relation (RMF's share against per-CPU busy, a line through
the runs), not from M/M/c: the chapter shows M/M/c missing RMF on the same runs, so its
answer is shown beside the plan with that error, never as the plan.
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


def plan(r, p: dict, runs: pd.DataFrame, mmc: pd.DataFrame, factors: dict, source) -> None:
    target, max_cpus = float(p["target_sufficient_pct"]), int(p["max_cpus"])
    try:
        relation, reason = calc.fit_relation(runs), None
    except ModelError as exc:
        relation, reason = None, str(exc)
    if relation is not None:
        r.fit_results["measured relation"] = relation
        ci = relation.conf_int()
        r.table("relation", pd.DataFrame({
            "parameter": ["a (share at 0 % busy)", "b (change per busy %)"], "unit": ["%", "points per %"],
            "estimate": relation.params.to_numpy(), "lower (95 %)": ci["lower"].to_numpy(),
            "upper (95 %)": ci["upper"].to_numpy()}), digits=4,
            caption="Measured relation: time with sufficient CPUs (%) = a + b × busy (%)")
        r.text("relation_text", prose.identification({"measured relation": relation}))
        r.card(card_name(CHAPTER, "measured relation"),
               relation.to_card(name=f"{CHAPTER}: RMF share against busy", dataset=source.name), relation)
        grid = np.linspace(0, 100, 51)
        curve = relation.bands(grid).assign(series="measured relation")
        pts = pd.DataFrame({"x": runs["busy_pct"], "y": runs["sufficient_pct"], "series": "measured relation",
                            "basis": "measured"})
        r.chart("relation_chart", charts.measured_vs_fitted(
            pts, curve.assign(fit=curve["fit"].clip(0, 100)), x="x", y="y", x_title="busy per CPU (%)",
            y_title="time with sufficient CPUs (%)", title="RMF's share against busy: the runs and the line through them"))
    else:
        r.missing("relation", f"{reason}: your file has one, so there is no measured relation to plan from")
        r.items["relation_text"] = None
        r.items["relation_chart"] = None

    limit = calc.busy_limit_pct(relation, target) if relation is not None else math.nan
    work = demands(p, runs)
    k_name = runs.iloc[-1]["label"] if runs.iloc[-1]["label"] in factors else None
    rows = []
    for name, busy in work.items():
        row = {"work to carry": name, "busy CPUs": busy, "CPUs, measured relation": calc.cpus_from_relation(busy, limit)}
        need = calc.cpus_for_share(target, busy, max_cpus=max_cpus)
        row["CPUs, M/M/c"] = float(need) if need is not None else math.nan
        if k_name is not None:
            need = calc.cpus_for_share(target, busy, load_factor=factors[k_name], max_cpus=max_cpus)
            row[f"CPUs, M/M/c at k from {k_name}"] = float(need) if need is not None else math.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    table = table[[c for c in table.columns if not table[c].isna().all()]]
    cap = f"CPUs for at least {prose.num(target)} % of the time with sufficient CPUs"
    if math.isfinite(limit):
        cap += f"; the measured relation allows at most {prose.num(limit, 4)} % busy per CPU"
    r.table("plan", table, digits=4, caption=cap + f" (M/M/c searched up to {max_cpus} CPUs; – beyond)")
    r.text("plan_text", _answer(p, runs, mmc, relation, reason, limit, target, table, k_name))
    r.chart("plan_chart", _chart(work, relation, target, max_cpus))


def _answer(p, runs, mmc, relation, reason, limit, target, table, k_name) -> str:
    # The answer the reader asked for: the target rate or the parameter's work when given (the
    # last rows), else the work of the run with most CPUs.
    asked = bool(p.get("target_rate_msg_s") or p.get("plan_busy_cpus"))
    own = table[table["work to carry"] == f"{runs.iloc[-1]['label']} work"]
    main = table.iloc[-1] if asked or own.empty else own.iloc[-1]
    err = mmc["error_pts"].abs()
    miss = (f"by {prose.num(err.min())} to {prose.num(err.max())} points" if len(err) > 1
            else f"by {prose.num(err.iloc[0])} points")
    mmc_need = main.get("CPUs, M/M/c", math.nan)
    mmc_says = (f"M/M/c, which missed RMF {miss} on these runs, would say {prose.num(mmc_need)}"
                if pd.notna(mmc_need) else f"M/M/c, which missed RMF {miss} on these runs, finds no CPU count up to "
                                           f"{prose.num(p['max_cpus'])}")
    what = f"{prose.quoted(main['work to carry'])} ({prose.num(main['busy CPUs'])} busy CPUs)"
    parts = []
    if relation is None or not math.isfinite(limit):
        why = (reason if relation is None else
               "in your runs the share does not fall as busy rises, so the line gives no busy limit"
               if float(relation.params["b"]) >= 0 else
               f"the line reaches {prose.num(target)} % only at no load at all")
        basis = (f"M/M/c at k from {prose.quoted(k_name)}, calibrated on that run alone (exactly identified, so its "
                 "error elsewhere is unknown)" if k_name else "plain M/M/c, whose error on your data is unknown"
                 if len(runs) < 2 else "plain M/M/c")
        col = f"CPUs, M/M/c at k from {k_name}" if k_name else "CPUs, M/M/c"
        need = main.get(col, math.nan)
        parts.append(f"There is no measured relation to plan from ({why}). The fallback is {basis}: {what} needs "
                     + (f"{prose.num(need)} CPUs." if pd.notna(need) else
                        f"more than {prose.num(p['max_cpus'])} CPUs."))
        parts.append(f"{mmc_says} CPUs." if col != "CPUs, M/M/c" and pd.notna(mmc_need) else None)
        return prose.paragraph(*parts)
    parts.append(f"For at least {prose.num(target)} % of the time with sufficient CPUs, the measured relation allows "
                 f"a busy of at most {prose.num(limit, 4)} % per CPU, so {what} needs "
                 f"{prose.num(main['CPUs, measured relation'])} CPUs. The plan uses the measured relation; "
                 f"{mmc_says}{' CPUs' if pd.notna(mmc_need) else ''}.")
    hi, lo = runs["sufficient_pct"].max(), runs["sufficient_pct"].min()
    if target > hi:
        parts.append(prose.extrapolation(target, hi, "The target share")
                     + " The line is straight only where it was measured; read the answer as a rough guide.")
    elif target < lo:
        parts.append(f"The target share ({prose.num(target)}) lies below the smallest measured share "
                     f"({prose.num(lo)}): an extrapolation.")
    rate = p.get("target_rate_msg_s")
    if rate and runs["rate_msg_s"].notna().any():
        parts.append(prose.extrapolation(rate, runs["rate_msg_s"].max(), "The target rate"))
        parts.append("The rate row also assumes that the latches allow that rate and that the CPU per message stays "
                     "at the figure of the run with most CPUs.")
    return prose.paragraph(*parts)


def _chart(work: dict, relation, target: float, max_cpus: int):
    grid = np.arange(1, max_cpus + 1)
    parts = []
    for name, busy in list(work.items())[-4:]:
        parts.append(pd.DataFrame({"cpus": grid.astype(float), "sufficient_pct": [
            calc.mmc_share_pct(int(c), busy) for c in grid], "series": f"{name}, M/M/c"}))
        if relation is not None:
            parts.append(pd.DataFrame({"cpus": grid.astype(float),
                                       "sufficient_pct": calc.relation_share_pct(relation, busy, grid),
                                       "series": f"{name}, measured relation"}))
    return charts.lines(pd.concat(parts, ignore_index=True), x="cpus", y="sufficient_pct", colour="series",
                        x_title="CPUs", y_title="time with sufficient CPUs (%)",
                        title="Time with sufficient CPUs by CPU count, for the planned work")
