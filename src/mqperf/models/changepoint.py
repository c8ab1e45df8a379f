"""Where in a series of runs did a fitted parameter move? Change points with a check.

Each run of a chapter gives an estimate ``y_i`` of a parameter with a standard error
``s_i`` estimated on ``ν_i`` residual degrees of freedom. Candidate change points are the
exact optimal partition of the sequence under the l2 cost (a shift in the mean) with the
penalty ``2 s̄² ln n``, the Bayesian information criterion for a Gaussian sequence of noise
variance ``s̄²`` (the mean of the runs' ``s_i²``): the partition ruptures' PELT finds
(PELT is exact; ``tests/models/test_changepoint.py`` checks the two agree), computed here
by dynamic programming over many sequences at once so the check below costs milliseconds.

The search alone marks shifts that the runs' own uncertainty explains, and a test at a point
the search picked is biased towards a change. So the whole procedure is calibrated: its
statistic is the largest ``|z|`` over the points the search picks, each ``z`` the difference
of the inverse-variance weighted means of the segments on either side over its standard
error; its distribution with no change is simulated (:data:`SIMULATIONS` sequences, a fixed
seed, so every machine gives the same answer) and a point is reported when its ``|z|``
exceeds that distribution's 1 − α quantile. The shift's interval uses the same critical value.

The simulated runs carry the same kind of uncertainty as the real ones. A standard error
estimated from a fit with five residual degrees of freedom is itself uncertain (it can be
half or twice the truth), and a run whose error happens to come out small pulls the weighted
means and inflates ``z``. Treating the ``s_i`` as known let 42 % of series of six unchanged
runs show a change. So each simulated run draws its value from ``N(0, s_i²)`` *and* its
standard error as ``s_i·√(χ²_ν/ν)`` (the law of an estimated standard error on ``ν`` degrees
of freedom under normal noise), and the search and the ``z`` use the drawn errors, as they
use the estimated ones on the real runs (a parametric bootstrap of the whole procedure).
Measured in ``benchmarks/compare_error_rates.py``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from mqperf.errors import ModelError
from mqperf.numbers import ABSOLUTE_NOISE, COLUMN_NOISE


@dataclass(frozen=True)
class Change:
    """A confirmed change: the first run of the new level, and the two levels with the shift's interval."""

    index: int          # position of the first run after the change
    before: float       # weighted mean of the segment before
    after: float        # weighted mean of the segment after
    lower: float        # interval of after − before
    upper: float


#: Null sequences simulated to calibrate :func:`detect` (its p-values are multiples of 1/1000).
SIMULATIONS = 999


def detect(estimates, std_errors, *, df=None, alpha: float = 0.05) -> list[Change]:
    """Confirmed change points in a sequence of estimates (oldest first).

    Parameters
    ----------
    estimates, std_errors
        One estimate and its standard error per run, oldest first.
    df
        The residual degrees of freedom each standard error rests on (one number for all
        runs, or one per run); ``None`` or ``inf``: the errors are known exactly.
    alpha
        The chance of reporting a change in a sequence with none.

    Raises
    ------
    ModelError
        Fewer than three runs, or a run without a finite, positive standard error (its fit
        had no residual degrees of freedom): without the runs' uncertainty no shift can be
        told from noise.
    """
    y = np.asarray(estimates, dtype=float)
    s = np.asarray(std_errors, dtype=float)
    if y.size < 3:
        raise ModelError(f"a change point needs three or more runs (have {y.size})")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(s)) and np.all(s > 0)):
        raise ModelError("a run's fit gives no standard error for this parameter, so a shift cannot be told from noise")
    nu = _dofs(df, y.size)
    m = moderated(s[None, :], nu)[0]
    found = _scan(y, m)
    if not found:
        return []
    critical = _critical(tuple((m / m.max()).round(12).tolist()), tuple(nu.tolist()), alpha)
    return [Change(index=cut, before=m1, after=m2, lower=m2 - m1 - critical * se, upper=m2 - m1 + critical * se)
            for cut, z, m1, m2, se in found if abs(z) > critical]


def _dofs(df, n: int) -> np.ndarray:
    nu = np.broadcast_to(np.asarray(np.inf if df is None else df, dtype=float), (n,)).copy()
    nu[~np.isfinite(nu)] = np.inf
    if np.any(nu <= 0):
        raise ModelError("a run's fit has no residual degrees of freedom, so a shift cannot be told from noise")
    return nu


def moderated(s: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """The runs' standard errors (rows of ``s``) shrunk towards their common size as far as their
    scatter is what estimation alone gives (empirical Bayes, as James and Stein; as limma's
    moderated t).

    On the log scale an error estimated on ν degrees of freedom scatters about the truth with
    the known mean and variance of ln(χ²_ν/ν) (ψ(ν/2) − ln(ν/2) and ψ′(ν/2)). Each row's
    bias-corrected log variances are shrunk towards their mean by the share of their spread
    that this sampling variance explains: runs whose errors differ no more than estimation
    explains share one error, estimated from all their degrees of freedom together; runs that
    differ by more keep most of their difference. A run whose error came out small by chance
    then no longer dominates the weighted means. Known errors (ν = ∞) are used as they are.
    """
    from scipy.special import polygamma, psi

    s = np.atleast_2d(np.asarray(s, dtype=float))
    finite = np.isfinite(nu)
    if finite.sum() < 2:
        return s
    half = nu[finite] / 2
    logs = np.log(s[:, finite] ** 2) - (psi(half) - np.log(half))
    centre = logs.mean(axis=1, keepdims=True)
    spread = logs.var(axis=1, ddof=1, keepdims=True)
    sampling = float(np.mean(polygamma(1, half)))
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(spread > 0, np.clip(1.0 - sampling / spread, 0.0, 1.0), 0.0)
    out = s.copy()
    out[:, finite] = np.exp((centre + keep * (logs - centre)) / 2)
    return out


def penalty(s: np.ndarray) -> np.ndarray:
    """The search's penalty per sequence (rows of ``s``): 2 s̄² ln n."""
    s = np.atleast_2d(s)
    return 2.0 * np.mean(s**2, axis=1) * math.log(s.shape[1])


def partition(y: np.ndarray, pen: np.ndarray) -> np.ndarray:
    """The optimal partition of each row of ``y`` under the l2 cost plus ``pen`` per segment.

    Returns, per row and end position ``t``, the start of the last segment ending at ``t``
    (backtrack with :func:`cuts`). Optimal partitioning (Jackson et al. 2005), the problem
    PELT solves exactly; O(n²) steps, each over all rows at once.
    """
    y = np.atleast_2d(y)
    rows, n = y.shape
    c1 = np.concatenate([np.zeros((rows, 1)), np.cumsum(y, axis=1)], axis=1)
    c2 = np.concatenate([np.zeros((rows, 1)), np.cumsum(y**2, axis=1)], axis=1)
    best = np.zeros((rows, n + 1))
    best[:, 0] = -pen
    last = np.zeros((rows, n + 1), dtype=int)
    every = np.arange(rows)
    for t in range(1, n + 1):
        start = np.arange(t)
        cost = (c2[:, t, None] - c2[:, start]) - (c1[:, t, None] - c1[:, start]) ** 2 / (t - start)
        total = best[:, start] + cost + pen[:, None]
        # Starts whose totals are equal but for float noise tie, and the earliest wins: which of two
        # equally good partitions is reported must not follow the CPU (numbers.COLUMN_NOISE).
        slack = np.maximum(np.abs(total).max(axis=1, keepdims=True) * COLUMN_NOISE, ABSOLUTE_NOISE)
        j = np.argmax(total <= total.min(axis=1, keepdims=True) + slack, axis=1)
        best[:, t], last[:, t] = total[every, j], j
    return last


def cuts(last: np.ndarray) -> list[int]:
    """The change points (first index of each new segment) of one row of :func:`partition`."""
    out, t = [], last.size - 1
    while t > 0:
        t = int(last[t])
        if t > 0:
            out.append(t)
    return out[::-1]


def _scan(y: np.ndarray, s: np.ndarray) -> list[tuple]:
    """The search's change points, each with (index, z, mean before, mean after, standard error of the shift)."""
    last = partition(y[None, :], penalty(s[None, :]))[0]
    return _shifts(y, s, cuts(last))


def _shifts(y: np.ndarray, s: np.ndarray, found: list[int]) -> list[tuple]:
    w = 1.0 / s**2
    cw, cwy = np.concatenate([[0.0], np.cumsum(w)]), np.concatenate([[0.0], np.cumsum(w * y)])
    bounds = [0, *found, y.size]
    out = []
    for i, cut in enumerate(found):
        a, b, c = bounds[i], cut, bounds[i + 2]
        w1, w2 = cw[b] - cw[a], cw[c] - cw[b]
        m1, m2 = (cwy[b] - cwy[a]) / w1, (cwy[c] - cwy[b]) / w2
        se = math.sqrt(1.0 / w1 + 1.0 / w2)
        out.append((int(cut), float((m2 - m1) / se), float(m1), float(m2), se))
    return out


@functools.lru_cache(maxsize=1024)
def _critical(errors: tuple, dofs: tuple, alpha: float) -> float:
    """The 1 − α quantile of the largest |z| the procedure finds in sequences with no change.

    Each simulated run: a value from N(0, s_i²) and, when its error was estimated on ν_i
    degrees of freedom, an error drawn as s_i·√(χ²_ν/ν), moderated and used by the search
    and the z as the estimated errors are on the real runs; ``s`` are the real runs'
    moderated errors. (The statistic does not depend on the errors' common scale, so the key
    is the errors relative to their largest.)
    """
    s, nu = np.asarray(errors), np.asarray(dofs)
    rng = np.random.default_rng(0)
    y = rng.normal(0.0, 1.0, (SIMULATIONS, s.size)) * s
    known = np.isinf(nu)
    scale = np.ones((SIMULATIONS, s.size))
    if not known.all():
        nu_f = np.where(known, 1.0, nu)
        scale = np.where(known, 1.0, np.sqrt(rng.chisquare(nu_f, (SIMULATIONS, s.size)) / nu_f))
    s_hat = moderated(s * scale, nu)
    last = partition(y, penalty(s_hat))
    stats = np.array([max((abs(z) for _, z, *_ in _shifts(y[i], s_hat[i], cuts(last[i]))), default=0.0)
                      for i in range(SIMULATIONS)])
    return float(np.quantile(stats, 1 - alpha, method="higher"))
