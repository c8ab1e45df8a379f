"""The numbers of the latch and CPU chapter: frames in, frames and fits out (no wording).

Latches: each latch's wait growth between task counts, normalised by throughput where the
runs' rates are known, beside the USL coherency term N(N − 1). Under the USL the coherency
delay per unit of work grows like N(N − 1), so the *total* wait over a run of fixed length
grows like N(N − 1)·X(N): comparing total waits with N(N − 1) alone silently assumes the
throughput X did not change.

CPUs: RMF's share of time with sufficient CPUs beside M/M/c (Erlang C), the load-factor
correction calibrated on one run and tested on the others, and the measured relation
(share against per-CPU busy, a straight line through the runs) the plan uses.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import contention, queueing
from mqperf.models._base import FitResult, covariance


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


def verdict(b: float, b_coherency: float) -> str:
    """Growth exponent b against the local exponent of N(N − 1)."""
    if not math.isfinite(b_coherency):
        return "–"
    if b < 1.5:
        return "slower than pairwise"
    if b <= b_coherency * 1.1:
        return "about pairwise"
    return "faster than pairwise"


def growth(points: pd.DataFrame) -> pd.DataFrame:
    """Growth between consecutive task counts of each latch, beside N(N − 1) and N.

    ``per_msg_pct`` (the wait per message) is compared with N(N − 1) where both runs have a
    rate; otherwise the total wait is, which is right only if throughput did not change, and
    ``x_change_for_pairwise_pct`` says how much the throughput would have had to change for
    the total to grow exactly like N(N − 1)·X.
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
            rows.append({
                "latch": name, "tasks_from": n0, "tasks_to": n1,
                "total_pct": (total - 1) * 100,
                "x_change_pct": (x_ratio - 1) * 100 if normalised else math.nan,
                "per_msg_pct": (ratio - 1) * 100 if normalised else math.nan,
                "coherency_pct": (coh - 1) * 100,
                "proportional_pct": (n1 / n0 - 1) * 100,
                "x_change_for_pairwise_pct": (total / coh - 1) * 100 if n0 > 1 else math.nan,
                "b": b_exp, "b_coherency": b_coh, "normalised": normalised,
                "verdict": verdict(b_exp, b_coh),
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
    values = [c for c in ("busy_pct", "sufficient_pct", "rate_msg_s") if c in frame]
    runs = aggregate.means(frame, ["label", "gp_cpus"], values).copy()
    if "rate_msg_s" not in runs:
        runs["rate_msg_s"] = np.nan
    runs = runs.astype({"gp_cpus": "int64", "busy_pct": float, "sufficient_pct": float, "rate_msg_s": float})
    runs["busy_cpus"] = runs["gp_cpus"] * runs["busy_pct"] / 100
    runs["cpu_us_per_msg"] = runs["busy_cpus"] / runs["rate_msg_s"] * 1e6
    return runs.sort_values(["gp_cpus", "busy_pct"], kind="stable").reset_index(drop=True)


def mmc_share_pct(cpus: int, busy_cpus: float, load_factor: float = 1.0) -> float:
    """Percent of time with no work waiting for a CPU in M/M/c with offered load k·A."""
    return queueing.share_time_sufficient_servers(int(cpus), busy_cpus * load_factor) * 100


def mmc_wait_bursts(cpus: int, busy_cpus: float) -> float:
    """M/M/c mean wait for a CPU in CPU bursts: W_q·μ = C(c, A) / (c − A)."""
    return queueing.erlang_c(cpus, busy_cpus) / (cpus - busy_cpus) if busy_cpus < cpus else math.inf


def mmc_comparison(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in runs.itertuples():
        c, a = int(r.gp_cpus), float(r.busy_cpus)
        model = mmc_share_pct(c, a)
        rows.append({"run": r.label, "cpus": c, "busy_cpus": a, "rmf_pct": r.sufficient_pct, "mmc_pct": model,
                     "error_pts": model - r.sufficient_pct, "prob_wait": queueing.erlang_c(c, a),
                     "wait_bursts": mmc_wait_bursts(c, a)})
    return pd.DataFrame(rows)


def calibrate_load_factor(cpus: int, busy_cpus: float, sufficient_pct: float) -> float:
    """The k with M/M/c share at offered load k·A equal to the measured share.

    k > 1: the work queues for CPUs as if it were k times the measured load, the simplest
    stand-in for burstiness. ModelError for a share of 0 or 100 %, which no finite k gives.
    """
    c, a, s = int(cpus), float(busy_cpus), float(sufficient_pct) / 100
    if not 0 < s < 1:
        raise ModelError(f"a sufficient share of {sufficient_pct:g} % cannot be calibrated (needs 0 < share < 100)")
    if a <= 0:
        raise ModelError("busy CPUs must be greater than zero to calibrate a load factor")
    # The share falls from 1 (A = 0) to 0 (A = c): solve on the offered load, then divide.
    load = brentq(lambda x: queueing.share_time_sufficient_servers(c, x) - s, 1e-12, c * (1 - 1e-12), xtol=1e-12)
    return load / a


def _scaled_share(x, k):
    x = np.atleast_2d(np.asarray(x, dtype=float))
    return np.array([mmc_share_pct(int(c), a, k) for c, a in x])


def load_factor_fit(run) -> FitResult:
    """The calibrated k as a fit (one run, one parameter: exactly identified)."""
    k = calibrate_load_factor(run["gp_cpus"], run["busy_cpus"], run["sufficient_pct"])
    return FitResult(
        model="mmc_scaled_load", formula="sufficient_pct(c, A) = 100 * (1 - (k*A/c) * ErlangC(c, k*A))",
        params=pd.Series([k], index=["k"], dtype=float), cov=None,
        x=np.array([[float(run["gp_cpus"]), float(run["busy_cpus"])]]), y=np.array([float(run["sufficient_pct"])]),
        fn=_scaled_share, units={"k": "1 (multiplies the busy CPUs)"},
        notes=(f"calibrated on {run['label']}", "x is (CPUs, busy CPUs); A = busy CPUs"),
    )


def cross_calibration(runs: pd.DataFrame, factors: dict) -> pd.DataFrame:
    """Each run's k predicting every other run: the correction's only test."""
    rows = []
    for base, k in factors.items():
        for other in runs.itertuples():
            if other.label == base:
                continue
            pred = mmc_share_pct(other.gp_cpus, other.busy_cpus, k)
            rows.append({"calibrated_on": base, "k": k, "predicting": other.label, "rmf_pct": other.sufficient_pct,
                         "predicted_pct": pred, "error_pts": pred - other.sufficient_pct})
    return pd.DataFrame(rows)


def cpus_for_share(target_pct: float, busy_cpus: float, *, load_factor: float = 1.0, max_cpus: int = 64):
    """Fewest CPUs whose M/M/c share (at load k·A) reaches ``target_pct``; None beyond max_cpus."""
    for c in range(max(1, math.floor(busy_cpus * load_factor) + 1), max_cpus + 1):
        if mmc_share_pct(c, busy_cpus, load_factor) >= target_pct:
            return c
    return None


# -- the measured relation ------------------------------------------------------------------

def _line(x, a, b):
    return a + b * np.asarray(x, dtype=float)


def fit_relation(runs: pd.DataFrame) -> FitResult:
    """RMF's share against per-CPU busy, a straight line through the runs (least squares).

    Raises
    ------
    ModelError
        Fewer than two distinct busy percentages: no line to draw.
    """
    x = runs["busy_pct"].to_numpy(float)
    y = runs["sufficient_pct"].to_numpy(float)
    if np.unique(x).size < 2:
        raise ModelError("the measured relation needs runs at two or more busy percentages")
    design = np.column_stack([np.ones_like(x), x])
    theta, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ theta
    df = x.size - 2
    return FitResult(
        model="rmf_share_line", formula="sufficient_pct = a + b * busy_pct",
        params=pd.Series(theta, index=["a", "b"], dtype=float), cov=covariance(design, resid, df, ["a", "b"]),
        x=x, y=y, fn=_line, units={"a": "%", "b": "% per busy %"},
        notes=("least squares through the runs' RMF figures; holds only between the measured busy percentages",),
    )


def busy_limit_pct(relation: FitResult, target_pct: float) -> float:
    """The per-CPU busy (%) at which the measured relation reaches ``target_pct``.

    NaN when the line does not fall with busy (no limit it can give), or reaches the target
    only at a busy of 0 or less; capped at 100 %.
    """
    a, b = float(relation.params["a"]), float(relation.params["b"])
    if b >= 0:
        return math.nan
    u = (target_pct - a) / b
    return math.nan if u <= 0 else min(u, 100.0)


def cpus_from_relation(busy_cpus: float, limit_pct: float) -> float:
    """Fewest CPUs keeping the per-CPU busy at or below ``limit_pct`` for ``busy_cpus`` of work."""
    if not math.isfinite(limit_pct) or limit_pct <= 0:
        return math.nan
    # The tiny tolerance keeps an exact multiple (3 busy CPUs at 50 %: 6) from rounding up.
    return float(max(1, math.ceil(busy_cpus * 100 / limit_pct - 1e-9)))


def relation_share_pct(relation: FitResult, busy_cpus: float, cpus) -> np.ndarray:
    """The relation's share at ``cpus`` CPUs carrying ``busy_cpus`` of work, clipped to 0–100 %."""
    cpus = np.asarray(cpus, dtype=float)
    return np.clip(relation.predict(100 * busy_cpus / cpus), 0, 100)
