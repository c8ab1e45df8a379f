"""p-values and quantiles of the book's tests, without importing ``scipy.stats``.

``import scipy.stats`` costs 0.35 s beyond the scipy modules every chapter already loads (it
parses and rewrites hundreds of docstrings as it loads), in every kernel, CLI and worker process
that runs a chapter. The tests the models make need little of it: Student's t and Fisher's F,
which scipy.stats evaluates with the same ``scipy.special`` functions used here (the same bits),
Spearman's rank correlation and Welch's t-test (the same formulas), and Shapiro-Wilk, here
Royston's algorithm AS R94 as scipy runs it (coefficients from AS 111's normal quantiles, the
data first shifted by a middle value). ``tests/models/test_pvalues.py`` holds every function to
scipy.stats.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (``scipy.stats.t.sf``)."""
    return float(special.stdtr(df, -t))


def t_two_sided(t: float, df: float) -> float:
    """P(|T| > |t|), the two-sided p-value of a t statistic."""
    return 2.0 * t_sf(abs(t), df)


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t (``scipy.stats.t.ppf``)."""
    return float(special.stdtrit(df, q))


def f_sf(f: float, dfn: float, dfd: float) -> float:
    """P(F > f) for Fisher's F with (``dfn``, ``dfd``) degrees of freedom (``scipy.stats.f.sf``)."""
    return float(special.fdtrc(dfn, dfd, f))


def welch(a, b) -> tuple[float, float]:
    """Welch's unequal-variance t-test of two samples' means: (t, two-sided p), as
    ``scipy.stats.ttest_ind(a, b, equal_var=False)``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    vn1, vn2 = np.var(a, ddof=1) / a.size, np.var(b, ddof=1) / b.size
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (a.size - 1) + vn2 ** 2 / (b.size - 1))
        t = (np.mean(a) - np.mean(b)) / np.sqrt(vn1 + vn2)
    # No spread in either sample leaves df undefined; t is then ±inf or nan, and any df serves.
    df = 1.0 if math.isnan(df) else float(df)
    return float(t), t_two_sided(float(t), df)


def ranks(values) -> np.ndarray:
    """1-based ranks, ties given the mean of the ranks they share."""
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="mergesort")
    ordered = v[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], v.size]
    group = np.repeat(np.arange(starts.size), ends - starts)
    out = np.empty(v.size)
    out[order] = ((starts + 1 + ends) / 2.0)[group]
    return out


def spearman(x, y) -> tuple[float, float]:
    """Spearman's rank correlation and its two-sided p-value (t approximation), as
    ``scipy.stats.spearmanr``; nan for a constant sample."""
    rx, ry = ranks(x), ranks(y)
    if np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return math.nan, math.nan
    rho = float(np.corrcoef(np.vstack([rx, ry]))[1, 0])
    dof = rx.size - 2
    t = rho * math.sqrt(max(dof / ((rho + 1.0) * (1.0 - rho)), 0.0)) if abs(rho) < 1 else math.copysign(math.inf, rho)
    return rho, t_two_sided(t, dof)


# -- Shapiro-Wilk (Royston 1995, AS R94) ------------------------------------------------------

_C1 = (0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056)
_C2 = (0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633)
_C3 = (0.5440, -0.39978, 0.025054, -6.714e-4)
_C4 = (1.3822, -0.77857, 0.062767, -0.0020322)
_C5 = (-1.5861, -0.31082, -0.083751, 0.0038915)
_C6 = (-0.4803, -0.082676, 0.0030302)
_G = (-2.273, 0.459)


def _poly(c, x: float) -> float:
    """c[0] + c[1]·x + c[2]·x² + ..., evaluated as AS 181's POLY does (the same rounding)."""
    out = c[0]
    if len(c) > 1:
        p = x * c[-1]
        for coef in c[-2:0:-1]:
            p = (p + coef) * x
        out += p
    return out


def _normal_quantile(p: float) -> float:
    """The standard normal ``p`` quantile by AS 111 (Beasley and Springer), which AS R94 uses."""
    q = p - 0.5
    if abs(q) <= 0.42:
        r = q * q
        return q * (((-25.44106049637 * r + 41.39119773534) * r - 18.61500062529) * r + 2.50662823884) / \
            ((((3.13082909833 * r - 21.06224101826) * r + 23.08336743743) * r - 8.47351093090) * r + 1.0)
    r = math.sqrt(-math.log(p if q < 0 else 1.0 - p))
    v = (((2.32121276858 * r + 4.85014127135) * r - 2.29796479134) * r - 2.78718931138) / \
        ((1.63706781897 * r + 3.54388924762) * r + 1.0)
    return -v if q < 0 else v


def _coefficients(n: int) -> list[float]:
    """AS R94's a₁ … a_{n/2} (1-based: index 0 unused)."""
    half = n // 2
    a = [0.0] * (half + 1)
    if n == 3:
        a[1] = math.sqrt(0.5)
        return a
    m = [_normal_quantile((i - 0.375) / (n + 0.25)) for i in range(1, half + 1)]
    summ2 = 2.0 * sum(v * v for v in m)
    ssumm2 = math.sqrt(summ2)
    rsn = 1.0 / math.sqrt(n)
    a1 = _poly(_C1, rsn) - m[0] / ssumm2
    if n > 5:
        first = 3
        a2 = -m[1] / ssumm2 + _poly(_C2, rsn)
        fac = math.sqrt((summ2 - 2.0 * m[0] ** 2 - 2.0 * m[1] ** 2) / (1.0 - 2.0 * a1 ** 2 - 2.0 * a2 ** 2))
        a[2] = a2
    else:
        first = 2
        fac = math.sqrt((summ2 - 2.0 * m[0] ** 2) / (1.0 - 2.0 * a1 ** 2))
    a[1] = a1
    for i in range(first, half + 1):
        a[i] = -m[i - 1] / fac
    return a


def shapiro(values) -> tuple[float, float]:
    """Shapiro-Wilk's W and p-value for normality of ``values`` (3 or more, not all equal), as
    ``scipy.stats.shapiro``."""
    raw = np.asarray(values, dtype=float).ravel()
    n = raw.size
    if n < 3:
        raise ValueError("Shapiro-Wilk needs at least 3 values")
    # Shifted by a middle value first, as scipy does, so large offsets cost no precision.
    x = (np.sort(raw) - raw[n // 2]).tolist()
    spread = x[-1] - x[0]
    if not spread > 0:
        raise ValueError("Shapiro-Wilk needs values that are not all equal")
    a = _coefficients(n)
    sign = lambda d: 1.0 if d > 0 else -1.0  # noqa: E731 (Fortran's SIGN(1, i − j))
    # W as the squared correlation of the scaled data with the coefficients (AS R94).
    sx, sa = x[0] / spread, -a[1]
    j = n - 1
    for i in range(2, n + 1):
        sx += x[i - 1] / spread
        if i != j:
            sa += sign(i - j) * a[min(i, j)]
        j -= 1
    sa /= n
    sx /= n
    ssa = ssx = sax = 0.0
    j = n
    for i in range(1, n + 1):
        asa = (sign(i - j) * a[min(i, j)] - sa) if i != j else -sa
        xsx = x[i - 1] / spread - sx
        ssa += asa * asa
        ssx += xsx * xsx
        sax += asa * xsx
        j -= 1
    root = math.sqrt(ssa * ssx)
    w1 = (root - sax) * (root + sax) / (ssa * ssx)  # 1 − W, without cancellation near W = 1
    w = 1.0 - w1
    if n == 3:
        return w, max(6.0 / math.pi * (math.asin(math.sqrt(w)) - math.pi / 3.0), 0.0)
    y = math.log(w1)
    if n <= 11:
        gamma = _poly(_G, n)
        if y >= gamma:
            return w, 1e-99
        y = -math.log(gamma - y)
        mean, sd = _poly(_C3, n), math.exp(_poly(_C4, n))
    else:
        ln = math.log(n)
        mean, sd = _poly(_C5, ln), math.exp(_poly(_C6, ln))
    return w, float(special.ndtr(-(y - mean) / sd))
