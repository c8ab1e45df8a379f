"""The numbers of the latch and CPU chapter: frames in, frames and fits out (no wording).

Latches: each latch's wait growth between task counts, normalised by throughput where the
runs' rates are known, beside the USL coherency term N(N − 1). Under the USL the coherency
delay per unit of work grows like N(N − 1), so the *total* wait over a run of fixed length
grows like N(N − 1)·X(N): comparing total waits with N(N − 1) alone silently assumes the
throughput X did not change.

CPUs: RMF's share of time with sufficient CPUs beside M/M/c (Erlang C), the load-factor
correction calibrated on one run and tested on the others, and the three models the plan
weighs, each a function of both the CPUs and their load: M/M/c, M/M/c at a load factor k
fitted to every run, and the measured relation (share against per-CPU busy, a straight line
through the runs, which ignores the CPU count). :func:`rank_models` ranks them by AICc where
the runs allow it; the plan answers from the models the data do not set apart.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import contention, queueing
from mqperf.models._base import FitResult, covariance, jacobian


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
            pred = mmc_share_pct(other.gp_cpus, other.busy_cpus, k)
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
            k2 = calibrate_load_factor(b["gp_cpus"], b["busy_cpus"], b["sufficient_pct"] + step)
        except ModelError:
            continue
        carried = mmc_share_pct(o["gp_cpus"], o["busy_cpus"], k2) - row["predicted_pct"]
        verdict = against(row["predicted_pct"], row["rmf_pct"], math.hypot(carried, se_o), min(nb, no) - 1,
                          alpha=0.05 / len(out), what="the error")
        out.loc[i, "test"] = verdict.test
        out.loc[i, "beyond"] = bool(verdict.holds)
    return out


#: The most CPUs a planning answer searches (a z/OS LPAR has far fewer; an answer beyond says so).
PLAN_LIMIT = 1024


def cpus_for_share(target_pct: float, busy_cpus: float, *, load_factor: float = 1.0, max_cpus: int = PLAN_LIMIT):
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


# -- the models the plan weighs ---------------------------------------------------------------

def load_factor_all(runs: pd.DataFrame) -> FitResult:
    """One load factor k for every run: M/M/c at k·A fitted by least squares to the runs' shares.

    One run gives k exactly (no residual degree of freedom); two or more give the k that
    misses them least, with a Wald interval from the misses.

    Raises
    ------
    ModelError
        No run with some busy CPUs, or every share 0 or 100 % (no finite k describes them).
    """
    from scipy.optimize import minimize_scalar

    c = runs["gp_cpus"].to_numpy(float)
    a = runs["busy_cpus"].to_numpy(float)
    y = runs["sufficient_pct"].to_numpy(float)
    if not (a > 0).any():
        raise ModelError("no run has busy CPUs, so no load factor can be fitted")
    if ((y <= 0) | (y >= 100)).all():
        raise ModelError("every run's share is 0 or 100 %, which no finite load factor gives")
    if len(runs) == 1:
        k = calibrate_load_factor(c[0], a[0], y[0])
    else:
        top = float(np.min(np.where(a > 0, c / np.maximum(a, 1e-12), np.inf))) * (1 - 1e-9)
        res = minimize_scalar(lambda lk: float(np.sum((_scaled_share(np.column_stack([c, a]), math.exp(lk)) - y) ** 2)),
                              bounds=(math.log(1e-3), math.log(top)), method="bounded", options={"xatol": 1e-10})
        k = math.exp(res.x)
    x = np.column_stack([c, a])
    df = len(runs) - 1
    cov = None
    if df > 0:
        jac = jacobian(lambda th: _scaled_share(x, th[0]) - y, np.array([k]))
        cov = covariance(jac, _scaled_share(x, k) - y, df, ["k"])
    return FitResult(
        model="mmc_scaled_load_all", formula="sufficient_pct(c, A) = 100 * (1 - (k*A/c) * ErlangC(c, k*A))",
        params=pd.Series([k], index=["k"], dtype=float), cov=cov, x=x, y=y, fn=_scaled_share,
        units={"k": "1 (multiplies the busy CPUs)"},
        notes=("least squares over every run", "x is (CPUs, busy CPUs); A = busy CPUs"))


#: A model is set apart by AICc when it trails the best by more than this (Burnham and Anderson
#: 2002, §2.6: within 2, substantial support; 4 to 7 behind, considerably less). Plans leave the
#: runs, where the models part most, so a model stays in the range until it trails by more than 4.
SET_APART = 4.0

#: The plan's models, in the order tables and sentences give them.
MODELS = ("M/M/c", "M/M/c at k·A", "line in per-CPU busy")


def model_shares(name: str, fit, x: np.ndarray) -> np.ndarray:
    """A model's share (%) at rows (CPUs, busy CPUs)."""
    if name == "M/M/c":
        return _scaled_share(x, 1.0)
    if name == "M/M/c at k·A":
        return _scaled_share(x, float(fit.params["k"]))
    return np.clip(fit.predict(100 * x[:, 1] / x[:, 0]), 0, 100)


def rank_models(runs: pd.DataFrame, fits: dict) -> pd.DataFrame:
    """The plan's models on the runs: SSR, AICc and whether the data set each apart.

    ``fits`` maps a model name to its fit (None for M/M/c, which has no parameter; missing
    when it could not be fitted). AICc = n ln(SSR/n) + 2K + 2K(K+1)/(n − K − 1) over the runs
    (K = parameters + 1, the noise; Burnham & Anderson 2002): it needs n > K + 1 and some miss.
    ``accepted``: the lowest AICc and any within :data:`SET_APART` of it, plus every model the runs cannot rank
    (the data do not set it apart); ``why`` says, for the rest, by how much they trail.
    """
    x = runs[["gp_cpus", "busy_cpus"]].to_numpy(float)
    y = runs["sufficient_pct"].to_numpy(float)
    n = len(runs)
    rows = []
    for name in MODELS:
        if name not in fits:
            continue
        k = {"M/M/c": 0, "M/M/c at k·A": 1, "line in per-CPU busy": 2}[name]
        big_k = k + 1
        ssr = float(np.sum((model_shares(name, fits[name], x) - y) ** 2))
        aicc = math.nan
        if n > big_k + 1 and ssr > 0:
            aicc = n * math.log(ssr / n) + 2 * big_k + 2 * big_k * (big_k + 1) / (n - big_k - 1)
        fit_test = _lack_of_fit(runs, model_shares(name, fits[name], x), k, name)
        rows.append({"model": name, "parameters": k, "runs": n, "ssr": ssr, "rmse_pts": math.sqrt(ssr / n),
                     "aicc": aicc, "needs_runs": big_k + 2, "misses": bool(fit_test.holds),
                     "fit_test": fit_test.test})
    table = pd.DataFrame(rows)
    ranked = table["aicc"].notna()
    best = table.loc[ranked, "aicc"].min() if ranked.any() else math.nan
    table["delta"] = table["aicc"] - best
    # Two or more ranked models are needed for a ranking to set any apart.
    can_rank = ranked.sum() >= 2
    table["accepted"] = (~ranked | ~can_rank | (table["delta"] <= SET_APART)) & ~table["misses"]
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
    to :data:`PLAN_LIMIT`, or the line gives no busy limit)."""
    if name == "line in per-CPU busy":
        return cpus_from_relation(busy_cpus, busy_limit_pct(fit, target_pct))
    k = 1.0 if name == "M/M/c" else float(fit.params["k"])
    need = cpus_for_share(target_pct, busy_cpus, load_factor=k)
    return float(need) if need is not None else math.nan
