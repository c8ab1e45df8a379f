"""Latch contention and more CPUs: latch-wait growth against the USL coherency term, and
the share of time with sufficient CPUs against M/M/c (Erlang C).

Two questions from seed 000's sink-connector workload with MQGET×100/commit getters:

* **Latches.** How fast does the total time spent waiting for a latch grow with the number
  of tasks? The USL's coherency term says total waits grow like N(N − 1) (every task meets
  every other); :mod:`mqperf.models.contention` fits w(N) = a·N^b and compares.
* **CPUs.** RMF's "Distribution of in-ready work unit queue" gives the share of samples in
  which every ready work unit had a processor. M/M/c gives the same quantity for Poisson
  work, P(N ≤ c) = 1 − ρ·C(c, A), from the CPU count and the average busy alone
  (:func:`mqperf.models.queueing.share_time_sufficient_servers`). Where the two disagree
  the work is burstier than Poisson; a one-parameter correction (scale the offered load by
  ``k``) is calibrated on one run and tested on the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import ModelError
from mqperf.models import contention, queueing
from mqperf.models._base import FitResult, round_sig
from mqperf.models.validation import leave_one_out
from mqperf.data import is_path as _is_path
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)

BOOK_CPU_DATA = "kafka_cpu_experiment"
BOOK_LATCH_DATA = "kafka_latch_contention"
BOOK_RATES = "kafka_task_scaling"
BOOK_SERIES = "persistent_get100_commit"


# -- CPU runs -------------------------------------------------------------------------------

def load_cpu_runs(source: str) -> pd.DataFrame:
    """One row per run: label, gp_cpus, busy_pct, sufficient_pct, busy_cpus, rate and CPU per message.

    ``source`` is the book's ``kafka_cpu_experiment`` (long format, one metric per row;
    the rates come from ``kafka_task_scaling``) or a reader's CSV checked against the
    ``cpu_sufficiency`` contract.

    A reader's file may hold one row per RMF interval: rows with the same label (or, with
    no label, the same CPU count) are one run, averaged with ``n`` and the standard
    deviations kept (:func:`mqperf.data.aggregate.means`). M/M/c and the load factor are then
    evaluated on the run's average busy and sufficient shares, as RMF reports a run; the
    per-run calibration stays exactly identified (one run, one parameter).
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="kafka_latch_cpus")
        keys = [c for c in ("label", "gp_cpus") if c in frame]
        runs = aggregate.means(frame, keys, ["busy_pct", "sufficient_pct", "rate_msg_s"]).copy()
        if "label" not in runs:
            runs["label"] = [f"{c} CPUs" for c in runs["gp_cpus"]]
        runs["label"] = runs["label"].fillna(pd.Series([f"{c} CPUs" for c in runs["gp_cpus"]], index=runs.index))
        if "rate_msg_s" not in runs:
            runs["rate_msg_s"] = np.nan
    elif source == BOOK_CPU_DATA:
        runs = _book_cpu_runs(mqdata.load(source))
    else:
        raise ModelError(f"{source!r}: give the book's {BOOK_CPU_DATA!r} or a CSV with gp_cpus, busy_pct, sufficient_pct")
    runs = runs.astype({"gp_cpus": "int64"})
    runs["busy_pct"] = runs["busy_pct"].astype(float)
    runs["sufficient_pct"] = runs["sufficient_pct"].astype(float)
    runs["rate_msg_s"] = runs["rate_msg_s"].astype(float)
    runs["busy_cpus"] = runs["gp_cpus"] * runs["busy_pct"] / 100
    runs["cpu_us_per_msg"] = runs["busy_cpus"] / runs["rate_msg_s"] * 1e6
    cols = ["label", "gp_cpus", "busy_pct", "busy_cpus", "sufficient_pct", "rate_msg_s", "cpu_us_per_msg"]
    cols += [c for c in (aggregate.COUNT, aggregate.sd_column("busy_pct"), aggregate.sd_column("sufficient_pct")) if c in runs]
    return runs[cols].sort_values(["gp_cpus", "busy_pct"]).reset_index(drop=True)


def aggregation_note(frame: pd.DataFrame) -> aggregate.AggregationNote:
    """How many interval rows were averaged into how many runs (or latch times); nothing if none were."""
    if "latch_s" in frame:
        return aggregate.AggregationNote(aggregate.note(frame, per="latch, CPU count and tasks value", value="latch_s"))
    return aggregate.AggregationNote(aggregate.note(frame, per="run (label, or CPU count)", value="busy_pct and sufficient_pct"))


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs as a chapter shows them: numbers rounded for reading."""
    out = runs.copy()
    for col, digits in (("busy_cpus", 4), ("rate_msg_s", 6), ("cpu_us_per_msg", 4)):
        out[col] = [round_sig(v, digits) if pd.notna(v) else v for v in out[col]]
    return out


def _book_cpu_runs(frame: pd.DataFrame) -> pd.DataFrame:
    wide = (
        frame[frame["metric"].isin(["cpu_busy", "sufficient_cpu"])]
        .pivot_table(index=["tasks", "gp_cpus"], columns="metric", values="pct", aggfunc="first")
        .reset_index()
        .rename(columns={"cpu_busy": "busy_pct", "sufficient_cpu": "sufficient_pct"})
    )
    rates = mqdata.load(BOOK_RATES)
    rates = rates[(rates["connector"] == "sink") & (rates["series"] == BOOK_SERIES)][["tasks", "gp_cpus", "rate_msg_s"]]
    wide = wide.merge(rates, on=["tasks", "gp_cpus"], how="left")
    wide["label"] = [f"{c} CPUs, tasks.max={t}" for c, t in zip(wide["gp_cpus"], wide["tasks"])]
    return wide


def mmc_share_pct(cpus: int, busy_cpus: float, load_factor: float = 1.0) -> float:
    """Percent of time with no work waiting for a CPU in M/M/c with offered load k·A."""
    return queueing.share_time_sufficient_servers(int(cpus), busy_cpus * load_factor) * 100


def mmc_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    """M/M/c with c = the CPUs and A = the busy CPUs, against RMF's measured share.

    Also the Erlang C probability that a CPU request waits, and the M/M/c mean wait for a
    CPU in units of one CPU burst (W_q·μ = C / (c − A)).
    """
    rows = []
    for r in runs.itertuples():
        c, a = int(r.gp_cpus), float(r.busy_cpus)
        erlang = queueing.erlang_c(c, a)
        model = mmc_share_pct(c, a)
        rows.append({
            "run": r.label, "cpus": c, "busy_cpus": round_sig(a, 4),
            "measured_sufficient_pct": r.sufficient_pct,
            "mmc_sufficient_pct": round_sig(model, 3),
            "difference_pts": round_sig(model - r.sufficient_pct, 3),
            "mmc_prob_wait": round_sig(erlang, 3),
            "mmc_wait_in_bursts": round_sig(erlang / (c - a), 3) if a < c else math.inf,
        })
    return pd.DataFrame(rows)


def calibrate_load_factor(cpus: int, busy_cpus: float, sufficient_pct: float) -> float:
    """The k with M/M/c share at offered load k·A equal to the measured share.

    k > 1 means the work queues for CPUs as if it were k times the measured load: the
    simplest stand-in for burstiness. Raises ModelError for a share of 0 or 100 %, which
    no finite k reproduces.
    """
    c, a, s = int(cpus), float(busy_cpus), float(sufficient_pct) / 100
    if not 0 < s < 1:
        raise ModelError(f"a sufficient share of {sufficient_pct} % cannot be calibrated (needs 0 < share < 100)")
    if a <= 0:
        raise ModelError("busy CPUs must be greater than zero to calibrate a load factor")
    # share falls from 1 (A = 0) to 0 (A = c); solve on the offered load, then divide.
    load = brentq(lambda x: queueing.share_time_sufficient_servers(c, x) - s, 1e-12, c * (1 - 1e-12), xtol=1e-12)
    return load / a


def _scaled_share(x, k):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    return np.array([queueing.share_time_sufficient_servers(int(c), a * k) * 100 for c, a in x])


def load_factor_fit(run: pd.Series, *, data_name: str | None = None, data_hash: str | None = None) -> FitResult:
    """The calibrated k as a result object (one run, one parameter: exactly identified)."""
    k = calibrate_load_factor(run["gp_cpus"], run["busy_cpus"], run["sufficient_pct"])
    return FitResult(
        model="mmc_scaled_load",
        formula="sufficient_pct(c, A) = 100 * (1 - (k*A/c) * ErlangC(c, k*A))",
        params=pd.Series([k], index=["k"], dtype=float), cov=None,
        x=np.array([[float(run["gp_cpus"]), float(run["busy_cpus"])]]), y=np.array([float(run["sufficient_pct"])]),
        fn=_scaled_share, units={"k": "1 (multiplies the busy CPUs)"},
        notes=(f"calibrated on {run['label']}", "exactly identified: one run for one parameter, so no interval",
               "x is (CPUs, busy CPUs); A = busy CPUs"),
        data_name=data_name, data_hash=data_hash,
    )


def cross_calibration(runs: pd.DataFrame) -> pd.DataFrame:
    """Calibrate k on each run, predict every other run: the validation of the correction."""
    rows = []
    for i, base in runs.iterrows():
        try:
            k = calibrate_load_factor(base["gp_cpus"], base["busy_cpus"], base["sufficient_pct"])
        except ModelError:
            continue
        for j, other in runs.iterrows():
            if i == j:
                continue
            pred = mmc_share_pct(other["gp_cpus"], other["busy_cpus"], k)
            rows.append({
                "calibrated_on": base["label"], "k": round_sig(k, 4), "predicting": other["label"],
                "measured_pct": other["sufficient_pct"], "predicted_pct": round_sig(pred, 3),
                "error_pts": round_sig(pred - other["sufficient_pct"], 3),
            })
    return pd.DataFrame(rows, columns=["calibrated_on", "k", "predicting", "measured_pct", "predicted_pct", "error_pts"])


def share_curves(loads: dict[str, float], *, max_cpus: int, load_factor: float = 1.0) -> pd.DataFrame:
    """M/M/c share (%) against CPUs 1..max_cpus for each named load (busy CPUs), for charts."""
    parts = []
    for name, busy in loads.items():
        c = np.arange(1, max_cpus + 1)
        share = [mmc_share_pct(int(n), busy, load_factor) for n in c]
        parts.append(pd.DataFrame({"x": c.astype(float), "fit": share, "lower": np.nan, "upper": np.nan, "series": name}))
    return pd.concat(parts, ignore_index=True)


def cpus_for_share(target_pct: float, busy_cpus: float, *, load_factor: float = 1.0, max_cpus: int = 64) -> int | None:
    """Fewest CPUs whose M/M/c share (at load k·A) reaches ``target_pct``; None beyond max_cpus."""
    if not 0 < target_pct < 100:
        raise ModelError(f"target share must be between 0 and 100 %, not {target_pct}")
    if busy_cpus <= 0:
        raise ModelError("busy CPUs to plan for must be greater than zero")
    for c in range(1, max_cpus + 1):
        if mmc_share_pct(c, busy_cpus, load_factor) >= target_pct:
            return c
    return None


def plan(target_pct: float, demands: dict[str, float], factors: dict[str, float], *, max_cpus: int) -> pd.DataFrame:
    """CPUs for the target share, per demand (busy CPUs) and per model (load factor k)."""
    rows = []
    for demand, busy in demands.items():
        row = {"work to carry": demand, "busy_cpus": round_sig(busy, 4)}
        for model, k in factors.items():
            need = cpus_for_share(target_pct, busy, load_factor=k, max_cpus=max_cpus)
            row[model] = need if need is not None else f"> {max_cpus}"
        rows.append(row)
    return pd.DataFrame(rows)


def more_cpus_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The run with fewest CPUs against the one with most: what changed and by how much."""
    if len(runs) < 2:
        return pd.DataFrame(columns=["quantity", "before", "after", "change_pct"])
    a, b = runs.iloc[0], runs.iloc[-1]
    ca, cb = int(a["gp_cpus"]), int(b["gp_cpus"])
    wa = queueing.erlang_c(ca, a["busy_cpus"]) / (ca - a["busy_cpus"]) if a["busy_cpus"] < ca else math.inf
    wb = queueing.erlang_c(cb, b["busy_cpus"]) / (cb - b["busy_cpus"]) if b["busy_cpus"] < cb else math.inf
    items = [
        ("CPUs", ca, cb),
        ("throughput (msg/s)", a["rate_msg_s"], b["rate_msg_s"]),
        ("busy CPUs", a["busy_cpus"], b["busy_cpus"]),
        ("CPU per message (us)", a["cpu_us_per_msg"], b["cpu_us_per_msg"]),
        ("time with sufficient CPUs, RMF (%)", a["sufficient_pct"], b["sufficient_pct"]),
        ("time with sufficient CPUs, M/M/c (%)", mmc_share_pct(ca, a["busy_cpus"]), mmc_share_pct(cb, b["busy_cpus"])),
        ("M/M/c mean wait for a CPU (CPU bursts)", wa, wb),
    ]
    rows = []
    for name, before, after in items:
        change = (after - before) / before * 100 if before and np.isfinite(before) and np.isfinite(after) else np.nan
        rows.append({"quantity": name, "before": round_sig(before, 5), "after": round_sig(after, 5),
                     "change_pct": round_sig(change, 3)})
    return pd.DataFrame(rows)


# -- latches --------------------------------------------------------------------------------

@dataclass(frozen=True)
class LatchData:
    """Latch wait times (absolute), stated growths between task counts, and CPU effects."""

    times: pd.DataFrame  # latch, tasks, gp_cpus, latch_s, basis
    growth: pd.DataFrame  # latch, n_from, n_to, printed_pct
    cpu_effect: pd.DataFrame  # what, tasks, cpus_from, cpus_to, decrease_pct (low/high)
    run_s: float | None


def load_latches(source: str | None) -> LatchData:
    """The book's ``kafka_latch_contention`` or a reader's CSV (``latch_contention`` contract).

    An empty ``source`` gives empty tables (the chapter then says there is no latch data).
    """
    empty_t = pd.DataFrame(columns=["latch", "tasks", "gp_cpus", "latch_s", "basis"])
    empty_g = pd.DataFrame(columns=["latch", "n_from", "n_to", "printed_pct"])
    empty_c = pd.DataFrame(columns=["latches", "tasks", "cpus_from", "cpus_to", "statistic", "decrease_low_pct", "decrease_high_pct"])
    if not source:
        return LatchData(empty_t, empty_g, empty_c, None)
    if _is_path(source):
        frame = mqdata.load(source, contract="kafka_latch_cpus.latch_data")
        # One mean wait per latch, CPU count and tasks value, as for the CPU runs above.
        keys = [c for c in ("latch", "gp_cpus", "basis", "tasks") if c in frame]
        times = aggregate.means(frame, keys, ["latch_s"]).copy()
        if "latch" not in times:
            times["latch"] = "your latch"
        times["latch"] = times["latch"].fillna("your latch").astype(str)
        if "gp_cpus" in times:
            base = int(times["gp_cpus"].mode().iloc[0])
            other = times["gp_cpus"].notna() & (times["gp_cpus"] != base)
            times.loc[other, "latch"] = times.loc[other, "latch"] + " (" + times.loc[other, "gp_cpus"].astype(str) + " CPUs)"
        else:
            times["gp_cpus"] = pd.NA
        times["basis"] = times["basis"].fillna("measured") if "basis" in times else "measured"
        spread = [c for c in (aggregate.COUNT, aggregate.sd_column("latch_s")) if c in times]
        return LatchData(times[[*empty_t.columns, *spread]].reset_index(drop=True), empty_g, empty_c, None)
    if source != BOOK_LATCH_DATA:
        raise ModelError(f"{source!r}: give the book's {BOOK_LATCH_DATA!r} or a CSV with tasks, latch_s")
    frame = mqdata.load(source)
    lat = frame[frame["metric"] == "total_latch_time"].copy()
    lat["latch"] = "latch " + lat["latch"].astype(str) + " " + lat["latch_names"].astype(str)
    times = lat[lat["latch_s"].notna() & lat["base_tasks"].isna()][["latch", "tasks", "gp_cpus", "latch_s", "basis"]]
    inc = lat[(lat["direction"] == "increase") & lat["pct"].notna()]
    growth = pd.DataFrame({"latch": inc["latch"], "n_from": inc["base_tasks"].astype(int), "n_to": inc["tasks"].astype(int),
                           "printed_pct": inc["pct"]})
    dec = frame[(frame["direction"] == "decrease") & frame["pct"].notna()]
    effects = []
    for (metric, latch, names), g in dec.groupby(["metric", "latch", "latch_names"], dropna=False, sort=False):
        stats = dict(zip(g["statistic"], g["pct"]))
        if metric == "avg_latch_time":
            what = "average time per latch wait (latches not stated)"
        else:
            what = f"latch {latch} ({names})" if " " not in str(latch) else f"latches {', '.join(str(latch).split())} together"
        effects.append({"latches": what, "tasks": int(g["tasks"].iloc[0]), "cpus_from": int(g["base_gp_cpus"].iloc[0]),
                        "cpus_to": int(g["gp_cpus"].iloc[0]), "statistic": str(metric).replace("_", " "),
                        "decrease_low_pct": stats.get("low", stats.get("value")),
                        "decrease_high_pct": stats.get("high", stats.get("value"))})
    run = frame.loc[frame["metric"] == "run_length", "run_min"].dropna()
    run_s = float(run.iloc[0]) * 60 if len(run) else None
    return LatchData(times.reset_index(drop=True), growth.reset_index(drop=True), pd.DataFrame(effects, columns=empty_c.columns), run_s)


def growth_table(latches: LatchData) -> pd.DataFrame:
    """Growth of each latch's total wait between task counts, beside N(N − 1) and N.

    The measured ratio comes from the absolute times where both are given (the book then
    shows the printed percentage beside it, see erratum E002), else from the printed
    percentage; for a reader's file, from consecutive task counts of each latch.
    """
    rows = []
    seen = set()
    by_latch = {name: g.sort_values("tasks") for name, g in latches.times.groupby("latch", sort=False)}
    for g in latches.growth.itertuples():
        times = by_latch.get(g.latch)
        ratio, source = 1 + g.printed_pct / 100, "printed %"
        if times is not None and {g.n_from, g.n_to} <= set(times["tasks"]):
            w = dict(zip(times["tasks"], times["latch_s"]))
            ratio, source = w[g.n_to] / w[g.n_from], "seconds"
        seen.add((g.latch, g.n_from, g.n_to))
        rows.append(_growth_row(g.latch, g.n_from, g.n_to, ratio, source, g.printed_pct))
    for name, times in by_latch.items():
        t = times.drop_duplicates("tasks")
        for (n0, w0), (n1, w1) in zip(zip(t["tasks"], t["latch_s"]), list(zip(t["tasks"], t["latch_s"]))[1:]):
            if (name, n0, n1) not in seen:
                rows.append(_growth_row(name, int(n0), int(n1), w1 / w0, "seconds", np.nan))
    return pd.DataFrame(rows)


def _growth_row(latch, n_from, n_to, ratio, source, printed):
    coh = float(contention.coherency_growth(n_from, n_to)) if n_from > 1 else np.nan
    return {
        "latch": latch, "tasks_from": int(n_from), "tasks_to": int(n_to),
        "printed_pct": printed, "measured_pct": round_sig((ratio - 1) * 100, 3), "from": source,
        "exponent_b": round_sig(contention.exponent_from_ratio(ratio, n_from, n_to), 4),
        "coherency_pct": round_sig((coh - 1) * 100, 3),
        "coherency_b": round_sig(math.log(coh) / math.log(n_to / n_from), 4) if n_from > 1 else np.nan,
        "proportional_pct": round_sig((n_to / n_from - 1) * 100, 3),
    }


def coherency_check(growth: pd.DataFrame) -> pd.DataFrame:
    """The parameter-free USL coherency prediction N(N − 1) against each measured growth.

    Nothing is fitted: the predicted ratio follows from the task counts alone, so every
    measured growth is a point the prediction did not use.
    """
    rows = []
    for g in growth.itertuples():
        if not np.isfinite(g.coherency_pct):
            continue
        measured = 1 + g.measured_pct / 100
        predicted = 1 + g.coherency_pct / 100
        rows.append({"latch": g.latch, "tasks": f"{g.tasks_from} → {g.tasks_to}",
                     "measured_ratio": round_sig(measured, 4), "coherency_ratio": round_sig(predicted, 4),
                     "error_pct": round_sig((predicted - measured) / measured * 100, 3),
                     "verdict": _verdict(g.exponent_b, g.coherency_b)})
    return pd.DataFrame(rows)


def _verdict(b: float, b_coh: float) -> str:
    if b < 1.5:
        return "slower than pairwise: closer to proportional to N"
    if b <= b_coh * 1.1:
        return "about pairwise (coherency)"
    return "faster than pairwise"


def fit_power_laws(latches: LatchData, *, data_name: str | None = None, data_hash: str | None = None) -> dict:
    """w(N) = a·N^b per latch with at least two task counts (from absolute times only)."""
    fits = {}
    for name, g in latches.times.groupby("latch", sort=False):
        if g["tasks"].nunique() < 2:
            continue
        fits[name] = contention.fit(g["tasks"].astype(float), g["latch_s"].astype(float), data_name=data_name, data_hash=data_hash)
    return fits


def power_law_table(fits: dict) -> pd.DataFrame:
    rows = []
    for name, r in fits.items():
        ci = r.conf_int().loc["b"]
        rows.append({"latch": name, "points": r.nobs, "a_s": round_sig(r.a, 4), "b": round_sig(r.b, 4),
                     "b_ci95_lower": round_sig(ci["lower"], 4), "b_ci95_upper": round_sig(ci["upper"], 4),
                     "status": "exactly identified: no interval" if r.exactly_identified else "fitted with intervals"})
    return pd.DataFrame(rows)


def power_law_loo(latches: LatchData) -> pd.DataFrame:
    """Leave-one-out for latches with three or more task counts; empty otherwise."""
    parts = []
    for name, g in latches.times.groupby("latch", sort=False):
        if g["tasks"].nunique() < 3:
            continue
        table = leave_one_out(contention.fit, g["tasks"].astype(float), g["latch_s"].astype(float))
        table.insert(0, "latch", name)
        parts.append(table)
    if not parts:
        return pd.DataFrame(columns=["latch", "x", "measured", "predicted", "error_pct", "note"])
    out = pd.concat(parts, ignore_index=True)
    out["predicted"] = out["predicted"].map(lambda v: round_sig(v, 4))
    out["error_pct"] = out["error_pct"].map(lambda v: round_sig(v, 3))
    return out.rename(columns={"x": "tasks", "measured": "measured_s", "predicted": "predicted_s"})


def waiters(latches: LatchData, run_s: float | None) -> pd.DataFrame:
    """Little's law: mean number of tasks waiting for the latch = total wait / run length.

    L = λW with λ the latch waits per second and W the mean wait; λ·W·T is the total wait
    over a run of T seconds, so L = total wait / T, whatever the number of waits.
    """
    if latches.times.empty or not run_s:
        return pd.DataFrame(columns=["latch", "tasks", "latch_s", "mean_waiting", "share_of_tasks_pct"])
    t = latches.times.copy()
    t["mean_waiting"] = [round_sig(w / run_s, 3) for w in t["latch_s"]]
    t["share_of_tasks_pct"] = [round_sig(m / n * 100, 3) for m, n in zip(t["mean_waiting"], t["tasks"])]
    return t[["latch", "tasks", "latch_s", "mean_waiting", "share_of_tasks_pct"]].reset_index(drop=True)


def growth_chart_frame(growth: pd.DataFrame) -> pd.DataFrame:
    """Long frame for a bar chart: measured growth beside N(N − 1) and N, per latch."""
    rows = []
    for g in growth.itertuples():
        label = f"{g.latch.split(' ')[0]} {g.latch.split(' ')[1]}" if g.latch.startswith("latch ") else g.latch
        rows.append({"latch": label, "growth": "measured", "growth_pct": g.measured_pct})
        if np.isfinite(g.coherency_pct):
            rows.append({"latch": label, "growth": "USL coherency N(N-1)", "growth_pct": g.coherency_pct})
        rows.append({"latch": label, "growth": "proportional to N", "growth_pct": g.proportional_pct})
    return pd.DataFrame(rows)


