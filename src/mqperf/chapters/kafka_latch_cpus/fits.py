"""The latch and CPU chapter's choices: frames in, frames and fits out (no wording).

Latches: each latch's wait growth between task counts, normalised by throughput where the
runs' rates are known, beside the USL coherency term N(N − 1). Under the USL the coherency
delay per unit of work grows like N(N − 1), so the *total* wait over a run of fixed length
grows like N(N − 1)·X(N): comparing total waits with N(N − 1) alone silently assumes the
throughput X did not change.

CPUs: RMF's share of time with sufficient CPUs beside M/M/c (Erlang C), the load-factor
correction calibrated on one run and tested on the others, and the three models the plan
weighs (:mod:`mqperf.models.cpu_share`). :func:`rank_models` ranks them by AICc
(:func:`mqperf.models.selection.rank`) where the runs allow it; the plan answers from the
models the data do not set apart.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_latch_cpus import MODELS, SET_APART
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import contention, cpu_share, queueing, selection


# -- latches --------------------------------------------------------------------------------

def latch_points(frame: pd.DataFrame, run_s: float | None) -> pd.DataFrame:
    """One row per latch series and task count: mean latch_s (and rate, run length).

    Rows at a CPU count other than the file's most common one form their own series, named
    "<latch> (<c> CPUs)", so a repeat on more CPUs is not read as more tasks.
    """
    frame = frame.copy()
    frame["latch"] = frame["latch"].astype("string").fillna("your latch").astype(str) if "latch" in frame \
        else "your latch"
    if "gp_cpus" in frame and frame["gp_cpus"].notna().any():
        base = frame["gp_cpus"].mode().iloc[0]
        other = frame["gp_cpus"].notna() & (frame["gp_cpus"] != base)
        frame.loc[other, "latch"] = (frame.loc[other, "latch"] + " ("
                                     + frame.loc[other, "gp_cpus"].astype("int64").astype(str) + " CPUs)")
    values = [c for c in ("latch_s", "rate_msg_s", "run_s") if c in frame]
    points = aggregate.means(frame, ["latch", "tasks"], values).copy()
    for col in ("rate_msg_s", "run_s"):
        if col not in points:
            points[col] = np.nan
        points[col] = points[col].astype(float)
    if run_s:
        points["run_s"] = float(run_s)
    points["tasks"] = points["tasks"].astype("int64")
    points["latch_s"] = points["latch_s"].astype(float)
    # Per message: the total wait over the run divided by the messages the run carried.
    points["wait_per_msg_us"] = points["latch_s"] / (points["rate_msg_s"] * points["run_s"]) * 1e6
    return points.sort_values(["latch", "tasks"], kind="stable").reset_index(drop=True)


def verdict(test, slope: float) -> str:
    """A growth against N(N − 1) in words, as its test decides it (``test``: a Verdict or None)."""
    if test is None or "one measurement" in test.test:
        return "untested: one measurement per task count"
    if not test.holds:
        return "within the replicates' scatter of N(N−1)"
    return "faster than pairwise" if slope > 0 else "slower than pairwise"


def _growth_test(a, b, x_ratio: float, coh: float):
    """t-test of the log growth (per message where both rates are known) against N(N − 1)'s, on
    the replicates' scatter; None when a task count has one measurement."""
    from mqperf.models.differences import against

    sd = aggregate.sd_column("latch_s")
    na, nb = int(a.get(aggregate.COUNT, 1) or 1), int(b.get(aggregate.COUNT, 1) or 1)
    if sd not in a or na < 2 or nb < 2 or not (np.isfinite(a[sd]) and np.isfinite(b[sd])) or not coh > 0:
        return None
    ra, rb = float(a[sd]) / float(a["latch_s"]), float(b[sd]) / float(b["latch_s"])  # relative scatter
    va, vb = ra**2 / na, rb**2 / nb
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1)) if va + vb > 0 else math.inf
    grew = math.log(float(b["latch_s"]) / float(a["latch_s"])) - (math.log(x_ratio) if math.isfinite(x_ratio) else 0)
    return against(grew, math.log(coh), math.sqrt(va + vb), df,
                   what="the log growth against the pairwise growth") , grew - math.log(coh)


def growth(points: pd.DataFrame) -> pd.DataFrame:
    """Growth between consecutive task counts of each latch, beside N(N − 1) and N.

    ``per_msg_pct`` (the wait per message) is compared with N(N − 1) where both runs have a
    rate; otherwise the total wait is, which is right only if throughput did not change, and
    ``x_change_for_pairwise_pct`` says how much the throughput would have had to change for
    the total to grow exactly like N(N − 1)·X. ``verdict`` is decided by a t-test of the log
    growth against N(N − 1)'s on the replicates' scatter (``test``); with one measurement per
    task count nothing is claimed.
    """
    rows = []
    for name, g in points.groupby("latch", sort=False):
        g = g.drop_duplicates("tasks")
        for (_, a), (_, b) in zip(g.iterrows(), list(g.iterrows())[1:]):
            n0, n1 = int(a["tasks"]), int(b["tasks"])
            total = b["latch_s"] / a["latch_s"]
            x_ratio = b["rate_msg_s"] / a["rate_msg_s"]
            normalised = math.isfinite(x_ratio)
            ratio = total / x_ratio if normalised else total
            coh = float(contention.coherency_growth(n0, n1)) if n0 > 1 else math.nan
            b_coh = math.log(coh) / math.log(n1 / n0) if n0 > 1 else math.nan
            b_exp = contention.exponent_from_ratio(ratio, n0, n1)
            tested = _growth_test(a, b, x_ratio, coh) if n0 > 1 else None
            test, slope = tested if tested is not None else (None, 0.0)
            rows.append({
                "latch": name, "tasks_from": n0, "tasks_to": n1,
                "total_pct": (total - 1) * 100,
                "x_change_pct": (x_ratio - 1) * 100 if normalised else math.nan,
                "per_msg_pct": (ratio - 1) * 100 if normalised else math.nan,
                "coherency_pct": (coh - 1) * 100,
                "proportional_pct": (n1 / n0 - 1) * 100,
                "x_change_for_pairwise_pct": (total / coh - 1) * 100 if n0 > 1 else math.nan,
                "b": b_exp, "b_coherency": b_coh, "normalised": normalised,
                "verdict": verdict(test, slope) if n0 > 1 else "no N(N−1) at one task",
                "test": test.test if test is not None else "",
            })
    return pd.DataFrame(rows)


def power_law_frame(points: pd.DataFrame) -> pd.DataFrame:
    """The points each latch's power law is fitted to: wait per message where every point of
    the latch has one (throughput-normalised), else the total wait."""
    parts = []
    for name, g in points.groupby("latch", sort=False):
        g = g.copy()
        per_msg = bool(g["wait_per_msg_us"].notna().all())
        g["y"] = g["wait_per_msg_us"] if per_msg else g["latch_s"]
        g["fitted_to"] = "wait per message (µs)" if per_msg else "total wait (s)"
        parts.append(g)
    return pd.concat(parts, ignore_index=True) if parts else points.assign(y=[], fitted_to=[])


def fit_power_law(rows: pd.DataFrame):
    return contention.fit(rows["tasks"].astype(float), rows["y"].astype(float))


# -- CPUs -----------------------------------------------------------------------------------

def cpu_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per run (label, or CPU count): means of the interval rows, busy CPUs and CPU/msg."""
    frame = frame.copy()
    if "label" in frame:
        frame["label"] = frame["label"].astype("string")
        fill = pd.Series([f"{c} CPUs" for c in frame["gp_cpus"]], index=frame.index, dtype="string")
        frame["label"] = frame["label"].fillna(fill).astype(str)
    else:
        frame["label"] = [f"{c} CPUs" for c in frame["gp_cpus"]]
    if "rate_msg_s" in frame:  # each interval's own CPU per message: its scatter tests a change between runs
        frame["cpu_us_row"] = frame["gp_cpus"] * frame["busy_pct"] / 100 / frame["rate_msg_s"] * 1e6
    values = [c for c in ("busy_pct", "sufficient_pct", "rate_msg_s", "cpu_us_row") if c in frame]
    runs = aggregate.means(frame, ["label", "gp_cpus"], values).copy()
    if "rate_msg_s" not in runs:
        runs["rate_msg_s"] = np.nan
    runs = runs.astype({"gp_cpus": "int64", "busy_pct": float, "sufficient_pct": float, "rate_msg_s": float})
    # One label at several CPU counts is several runs: each keeps the label, with its CPU count added.
    twice = runs["label"].duplicated(keep=False)
    runs.loc[twice, "label"] = runs.loc[twice, "label"] + " (" + runs.loc[twice, "gp_cpus"].astype(str) + " CPUs)"
    runs["busy_cpus"] = runs["gp_cpus"] * runs["busy_pct"] / 100
    # A run's CPU per message is its busy CPU time over its messages (means of equal intervals).
    runs["cpu_us_per_msg"] = runs["busy_cpus"] / runs["rate_msg_s"] * 1e6
    return runs.sort_values(["gp_cpus", "busy_pct"], kind="stable").reset_index(drop=True)


def mmc_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in runs.itertuples():
        c, a = int(r.gp_cpus), float(r.busy_cpus)
        model = cpu_share.share_pct(c, a)
        rows.append({"run": r.label, "cpus": c, "busy_cpus": a, "rmf_pct": r.sufficient_pct, "mmc_pct": model,
                     "error_pts": model - r.sufficient_pct, "prob_wait": queueing.erlang_c(c, a),
                     "wait_bursts": cpu_share.wait_bursts(c, a)})
    return pd.DataFrame(rows)


def cross_calibration(runs: pd.DataFrame, factors: dict, *, tested: bool = False) -> pd.DataFrame:
    """Each run's k predicting every other run: the correction's only test.

    With ``tested``, each error is tested against the two runs' scatter (``test``, ``beyond``):
    the predicted run's share has its replicates' standard error, and the calibrating run's
    carries into the prediction through k (the prediction moved by one standard error of the
    calibrating share). The level is 5 % over the number of predictions (Bonferroni). Runs
    with one measurement, and runs whose share sits at 0 or 100 % (a bound, not a scatter),
    are not tested: ``test`` is empty.
    """
    from mqperf.models.differences import against

    rows = []
    sd = aggregate.sd_column("sufficient_pct")
    by_label = runs.set_index("label")
    for base, k in factors.items():
        for other in runs.itertuples():
            if other.label == base:
                continue
            pred = cpu_share.share_pct(other.gp_cpus, other.busy_cpus, k)
            rows.append({"calibrated_on": base, "k": k, "predicting": other.label, "rmf_pct": other.sufficient_pct,
                         "predicted_pct": pred, "error_pts": pred - other.sufficient_pct, "test": "", "beyond": False})
    out = pd.DataFrame(rows)
    if not tested or out.empty or sd not in runs or aggregate.COUNT not in runs:
        return out
    for i, row in out.iterrows():
        b, o = by_label.loc[row["calibrated_on"]], by_label.loc[row["predicting"]]
        nb, no = int(b[aggregate.COUNT]), int(o[aggregate.COUNT])
        if nb < 2 or no < 2 or not (np.isfinite(b[sd]) and np.isfinite(o[sd])):
            continue
        if not 0 < o["sufficient_pct"] < 100:  # a share at RMF's bound has no scatter to test against
            continue
        se_b, se_o = float(b[sd]) / math.sqrt(nb), float(o[sd]) / math.sqrt(no)
        step = se_b if b["sufficient_pct"] + se_b < 100 else -se_b
        try:
            k2 = cpu_share.calibrate_load_factor(b["gp_cpus"], b["busy_cpus"], b["sufficient_pct"] + step)
        except ModelError:
            continue
        carried = cpu_share.share_pct(o["gp_cpus"], o["busy_cpus"], k2) - row["predicted_pct"]
        verdict = against(row["predicted_pct"], row["rmf_pct"], math.hypot(carried, se_o), min(nb, no) - 1,
                          alpha=0.05 / len(out), what="the error")
        out.loc[i, "test"] = verdict.test
        out.loc[i, "beyond"] = bool(verdict.holds)
    return out


# -- the models the plan weighs ---------------------------------------------------------------

def model_shares(name: str, fit, x: np.ndarray) -> np.ndarray:
    """A model's share (%) at rows (CPUs, busy CPUs)."""
    if name == "M/M/c":
        return cpu_share.scaled_share(x, 1.0)
    if name == "M/M/c at k·A":
        return cpu_share.scaled_share(x, float(fit.params["k"]))
    return cpu_share.line_share(fit, x)


def line_fit(runs: pd.DataFrame):
    """The measured relation through the runs (ModelError: fewer than two busy percentages)."""
    return cpu_share.fit_line(runs["busy_pct"], runs["sufficient_pct"])


def load_factor_fit(run):
    """One run's load factor k as an exactly identified fit (ModelError at a share of 0 or 100 %)."""
    return cpu_share.load_factor_fit(run["gp_cpus"], run["busy_cpus"], run["sufficient_pct"], run["label"])


def load_factor_all(runs: pd.DataFrame):
    """One load factor k fitted to every run."""
    return cpu_share.load_factor_all(runs["gp_cpus"], runs["busy_cpus"], runs["sufficient_pct"])


#: Parameters each model estimates (the noise not counted).
PARAMETER_COUNT = {"M/M/c": 0, "M/M/c at k·A": 1, "line in per-CPU busy": 2}


def rank_models(runs: pd.DataFrame, fits: dict) -> pd.DataFrame:
    """The plan's models on the runs: SSR, AICc and whether the data set each apart.

    ``fits`` maps a model name to its fit (None for M/M/c, which has no parameter; missing
    when it could not be fitted). AICc over the runs (:func:`mqperf.models.selection.gaussian_aicc`)
    needs n > K + 1 (K = parameters + 1, the noise) and some miss; the models that have one are
    ranked by :func:`mqperf.models.selection.rank` with the threshold :data:`SET_APART`.
    ``accepted``: the models the ranking keeps, plus every model the runs cannot rank (the data do
    not set it apart), less any whose lack of fit the runs' replicates reject.
    """
    x = runs[["gp_cpus", "busy_cpus"]].to_numpy(float)
    y = runs["sufficient_pct"].to_numpy(float)
    n = len(runs)
    rows = []
    for name in MODELS:
        if name not in fits:
            continue
        k = PARAMETER_COUNT[name]
        shares = model_shares(name, fits[name], x)
        ssr = float(np.sum((shares - y) ** 2))
        aicc = selection.gaussian_aicc(ssr, n, k) if ssr > 0 else math.nan
        fit_test = _lack_of_fit(runs, shares, k, name)
        rows.append({"model": name, "parameters": k, "runs": n, "ssr": ssr, "rmse_pts": math.sqrt(ssr / n),
                     "aicc": aicc, "needs_runs": k + 3, "misses": bool(fit_test.holds),
                     "fit_test": fit_test.test})
    table = pd.DataFrame(rows)
    ranked = table["aicc"].notna()
    # Two or more ranked models are needed for a ranking to set any apart.
    kept = set(table["model"])
    if ranked.sum() >= 2:
        ranking = selection.rank({row.model: (row.ssr, n, row.parameters) for row in table[ranked].itertuples()},
                                 threshold=SET_APART)
        kept = set(table.loc[~ranked, "model"]) | set(ranking.accepted)
    table["delta"] = table["aicc"] - (table.loc[ranked, "aicc"].min() if ranked.any() else math.nan)
    table["accepted"] = table["model"].isin(kept) & ~table["misses"]
    if not table["accepted"].any():  # every model misses the runs: none is set apart from the others
        table["accepted"] = True
    return table


def _lack_of_fit(runs: pd.DataFrame, predicted: np.ndarray, k: int, name: str):
    """The model's lack of fit against the runs' replicates (F-test), or why there is none."""
    from mqperf.models.differences import lack_of_fit

    sd = aggregate.sd_column("sufficient_pct")
    count = runs[aggregate.COUNT].to_numpy(float) if aggregate.COUNT in runs else np.ones(len(runs))
    spread = runs[sd].fillna(0.0).to_numpy(float) if sd in runs else np.zeros(len(runs))
    df_pure = int(np.sum(count - 1))
    ss_pure = float(np.sum((count - 1) * spread**2))
    ss_lack = float(np.sum(count * (runs["sufficient_pct"].to_numpy(float) - predicted) ** 2))
    return lack_of_fit(ss_lack, len(runs) - k, ss_pure, df_pure, what=name)


def plan_cpus(name: str, fit, busy_cpus: float, target_pct: float) -> float:
    """The fewest CPUs the model says reach ``target_pct`` with ``busy_cpus`` of work (NaN: none up
    to :data:`mqperf.models.cpu_share.PLAN_LIMIT`, or the line gives no busy limit)."""
    if name == "line in per-CPU busy":
        return cpu_share.cpus_from_line(busy_cpus, cpu_share.busy_limit_pct(fit, target_pct))
    k = 1.0 if name == "M/M/c" else float(fit.params["k"])
    need = cpu_share.cpus_for_share(target_pct, busy_cpus, load_factor=k)
    return float(need) if need is not None else math.nan
