"""The share of time with sufficient CPUs, and processor headroom: M/M/c and what corrects it.

RMF's CPU Activity report gives the share of time with no ready work waiting for a CPU; M/M/c
(Erlang C, :func:`mqperf.models.queueing.share_time_sufficient_servers`) gives it from the CPUs
``c`` and their load ``A`` (the busy CPUs). Three models of that share, each a function of both
the CPUs and their load:

* M/M/c at the measured load (no parameter): :func:`share_pct`;
* M/M/c at a load factor ``k`` (offered load k·A, the simplest stand-in for burstiness):
  calibrated exactly on one run (:func:`calibrate_load_factor`, :func:`load_factor_fit`) or
  fitted by least squares to several (:func:`load_factor_all`);
* the measured relation, a straight line in per-CPU busy through the runs, which ignores the CPU
  count (:func:`fit_line`), and the CPUs it plans (:func:`busy_limit_pct`, :func:`cpus_from_line`).

And for a processor pool measured at one point (a coupling facility's busy share at a rate): its
processor time per unit of work, the processors a rate needs at a utilisation limit, and M/M/c
queueing by pool size (:func:`headroom`).

No I/O and no wording: arrays and numbers in, numbers and fits out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import queueing
from mqperf.models._base import FitResult, covariance, jacobian

#: The most CPUs a planning answer searches (a z/OS LPAR has far fewer; an answer beyond says so).
PLAN_LIMIT = 1024

_FORMULA = "sufficient_pct(c, A) = 100 * (1 - (k*A/c) * ErlangC(c, k*A))"
_K_UNIT = {"k": "1 (multiplies the busy CPUs)"}


def share_pct(cpus: int, busy_cpus: float, load_factor: float = 1.0) -> float:
    """Percent of time with no work waiting for a CPU in M/M/c with offered load k·A."""
    return queueing.share_time_sufficient_servers(int(cpus), busy_cpus * load_factor) * 100


def wait_bursts(cpus: int, busy_cpus: float) -> float:
    """M/M/c mean wait for a CPU in CPU bursts: W_q·μ = C(c, A) / (c − A) (infinite when saturated)."""
    return queueing.erlang_c(cpus, busy_cpus) / (cpus - busy_cpus) if busy_cpus < cpus else math.inf


def scaled_share(x, k) -> np.ndarray:
    """M/M/c share (%) at rows (CPUs, busy CPUs), with the load multiplied by ``k``.

    ``k`` may be an array of shape (m, 1): the shares for m load factors at once, shape (m, rows).
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    return queueing.share_time_sufficient_servers_array(x[:, 0], x[:, 1] * np.asarray(k, dtype=float)) * 100


def calibrate_load_factor(cpus: int, busy_cpus: float, sufficient_pct: float) -> float:
    """The k with M/M/c share at offered load k·A equal to the measured share.

    k > 1: the work queues for CPUs as if it were k times the measured load. ModelError for a
    share of 0 or 100 %, which no finite k gives.
    """
    from scipy.optimize import brentq

    c, a, s = int(cpus), float(busy_cpus), float(sufficient_pct) / 100
    if not 0 < s < 1:
        raise ModelError(f"a sufficient share of {sufficient_pct:g} % cannot be calibrated (needs 0 < share < 100)")
    if a <= 0:
        raise ModelError("busy CPUs must be greater than zero to calibrate a load factor")
    # The share falls from 1 (A = 0) to 0 (A = c): solve on the offered load, then divide.
    load = brentq(lambda x: queueing.share_time_sufficient_servers(c, x) - s, 1e-12, c * (1 - 1e-12), xtol=1e-12)
    return load / a


def load_factor_fit(cpus: int, busy_cpus: float, sufficient_pct: float, label: str) -> FitResult:
    """The calibrated k as a fit (one run, one parameter: exactly identified); ``label`` names the run."""
    k = calibrate_load_factor(cpus, busy_cpus, sufficient_pct)
    return FitResult(
        model="mmc_scaled_load", formula=_FORMULA, params=pd.Series([k], index=["k"], dtype=float), cov=None,
        x=np.array([[float(cpus), float(busy_cpus)]]), y=np.array([float(sufficient_pct)]),
        fn=scaled_share, units=dict(_K_UNIT),
        notes=(f"calibrated on {label}", "x is (CPUs, busy CPUs); A = busy CPUs"),
    )


def load_factor_all(cpus, busy_cpus, sufficient_pct) -> FitResult:
    """One load factor k for every run: M/M/c at k·A fitted by least squares to the runs' shares.

    One run gives k exactly (no residual degree of freedom); two or more give the k that misses
    them least, with a Wald interval from the misses.

    Raises
    ------
    ModelError
        No run with some busy CPUs, or every share 0 or 100 % (no finite k describes them).
    """
    from scipy.optimize import minimize_scalar

    c = np.asarray(cpus, dtype=float)
    a = np.asarray(busy_cpus, dtype=float)
    y = np.asarray(sufficient_pct, dtype=float)
    if not (a > 0).any():
        raise ModelError("no run has busy CPUs, so no load factor can be fitted")
    if ((y <= 0) | (y >= 100)).all():
        raise ModelError("every run's share is 0 or 100 %, which no finite load factor gives")
    x = np.column_stack([c, a])
    if len(y) == 1:
        k = calibrate_load_factor(c[0], a[0], y[0])
    else:
        top = float(np.min(np.where(a > 0, c / np.maximum(a, 1e-12), np.inf))) * (1 - 1e-9)
        res = minimize_scalar(lambda lk: float(np.sum((scaled_share(x, math.exp(lk)) - y) ** 2)),
                              bounds=(math.log(1e-3), math.log(top)), method="bounded", options={"xatol": 1e-10})
        k = math.exp(res.x)
    df = len(y) - 1
    cov = None
    if df > 0:
        jac = jacobian(lambda th: scaled_share(x, th[0]) - y, np.array([k]))
        cov = covariance(jac, scaled_share(x, k) - y, df, ["k"])
    return FitResult(
        model="mmc_scaled_load_all", formula=_FORMULA, params=pd.Series([k], index=["k"], dtype=float), cov=cov,
        x=x, y=y, fn=scaled_share, units=dict(_K_UNIT),
        notes=("least squares over every run", "x is (CPUs, busy CPUs); A = busy CPUs"))


def cpus_for_share(target_pct: float, busy_cpus: float, *, load_factor: float = 1.0, max_cpus: int = PLAN_LIMIT):
    """Fewest CPUs whose M/M/c share (at load k·A) reaches ``target_pct``; None beyond max_cpus.

    A loop that stops at the answer rather than :func:`mqperf.models.planning.first_reaching`:
    Erlang C at a thousand servers costs a thousand terms, so evaluating every count is slow."""
    for c in range(max(1, math.floor(busy_cpus * load_factor) + 1), max_cpus + 1):
        if share_pct(c, busy_cpus, load_factor) >= target_pct:
            return c
    return None


# -- the measured relation: a line in per-CPU busy ----------------------------------------------

def _line(x, a, b):
    return a + b * np.asarray(x, dtype=float)


def fit_line(busy_pct, sufficient_pct) -> FitResult:
    """RMF's share against per-CPU busy, a straight line through the runs (least squares).

    Raises
    ------
    ModelError
        Fewer than two distinct busy percentages: no line to draw.
    """
    x = np.asarray(busy_pct, dtype=float)
    y = np.asarray(sufficient_pct, dtype=float)
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


def busy_limit_pct(line: FitResult, target_pct: float) -> float:
    """The per-CPU busy (%) at which the line reaches ``target_pct``.

    NaN when the line does not fall with busy (no limit it can give), or reaches the target only
    at a busy of 0 or less; capped at 100 %.
    """
    a, b = float(line.params["a"]), float(line.params["b"])
    if b >= 0:
        return math.nan
    u = (target_pct - a) / b
    return math.nan if u <= 0 else min(u, 100.0)


def cpus_from_line(busy_cpus: float, limit_pct: float) -> float:
    """Fewest CPUs keeping the per-CPU busy at or below ``limit_pct`` for ``busy_cpus`` of work."""
    if not math.isfinite(limit_pct) or limit_pct <= 0:
        return math.nan
    # The tiny tolerance keeps an exact multiple (3 busy CPUs at 50 %: 6) from rounding up.
    return float(max(1, math.ceil(busy_cpus * 100 / limit_pct - 1e-9)))


def line_share(line: FitResult, x) -> np.ndarray:
    """The line's share (%) at rows (CPUs, busy CPUs): at their per-CPU busy, clipped to 0–100 %."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    return np.clip(line.predict(100 * x[:, 1] / x[:, 0]), 0, 100)


# -- a processor pool measured at one point --------------------------------------------------

def time_per_unit_us(busy_pct: float, processors: int, rate: float) -> float:
    """Processor time per unit of work: busy share × processors / rate (µs)."""
    return busy_pct / 100 * processors / rate * 1e6


def processors_needed(rate: float, per_unit_us: float, max_utilisation: float) -> int:
    """Fewest processors keeping utilisation at or below ``max_utilisation`` at ``rate``."""
    return max(1, math.ceil(rate * per_unit_us / 1e6 / max_utilisation - 1e-12))


def headroom(per_unit_us: float, rates, *, processors, max_utilisation: float) -> pd.DataFrame:
    """Utilisation, Erlang C and mean queueing (in service times) at each rate and pool size.

    Assumes the processor time per unit stays what it was at the measured point. Columns
    ``rate``, ``processors``, ``busy_pct``, ``p_wait_pct``, ``wait``, ``stable``, ``within_max``.
    """
    if not 0 < max_utilisation < 1:
        raise ModelError("max_utilisation must be between 0 and 1")
    per_unit = per_unit_us / 1e6
    rows = []
    for rate in rates:
        load = rate * per_unit  # offered load in processors (erlangs)
        for c in processors:
            rho = load / c
            stable = rho < 1
            rows.append({"rate": float(rate), "processors": int(c), "busy_pct": 100 * rho,
                         "p_wait_pct": 100 * queueing.erlang_c(c, load) if stable else np.nan,
                         "wait": queueing.mmc_wait(load, 1.0, c) if stable else np.nan,
                         "stable": stable, "within_max": rho <= max_utilisation})
    return pd.DataFrame(rows)
