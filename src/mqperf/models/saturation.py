"""Saturating effects of message size (zEDC archive compression) and recovery time.

Hill curve, i.e. a logistic curve in ln(size):

    y(s) = y_max / (1 + (s50/s)^h) = y_max / (1 + exp(−h (ln s − ln s50)))

``y`` is an effect that grows with message size and levels off: seed 004's increase in
queue-manager TCB cost with zEDC-compressed archives (+7 % at 4 KB … +100 % at 4 MB) or the
gain in peak throughput (1 % … 45 %). ``y_max`` is the plateau, ``s50`` the size at half of
it, ``h`` the steepness in ln(size). The fitted parameter is ``ln_s50``, the logistic's
location on the ln(size) axis: its Wald interval is symmetric there, and exponentiated
(:meth:`HillResult.s50_conf_int`) it stays positive, where a symmetric interval on s50
itself would reach below zero. Reference: A. V. Hill,
J. Physiol. 40 (1910) iv–vii; the logistic-in-log form is the usual dose–response curve.

The fit is unweighted least squares by default: the published percentages are rounded to
whole points, an absolute error that is the same for every point. With four sizes and
three parameters there is one residual degree of freedom; if s50 lies beyond the largest
size measured, the plateau is an extrapolation and the notes say so. A parameter the data
press against its bound (s50 at the edge of its search range, y_max on its cap, h on 0 or
its cap) is fixed there and takes no degree of freedom (see :mod:`mqperf.models._base`):
three sizes with s50 at the edge leave one residual degree of freedom, not an exact fit.

Whether a fit shows a Hill curve at all: :func:`slope_test` (t-test of the effect's slope against
ln size), :func:`rise_test` (F-test of the curve against a constant) and :func:`bend_test` (F-test
of the curve against a straight line in ln size, i.e. whether the data show it levelling off).

Recovery time from rates: time = amount / rate (seed 004: 4 GB recovered at 88 MB/s
uncompressed against 27 MB/s from zEDC-compressed archives), and CPU = amount × cost per unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import pvalues
from mqperf.models._base import NOISE_SSR
from mqperf.models._nls import WeightedFitResult, check_pairs, nls, resolve_weights

FORMULA = "y(s) = y_max / (1 + exp(-h*(ln(s) - ln_s50)))"
NAMES = ("y_max", "ln_s50", "h")
H_MAX = 20.0  # steeper than this is a step: the data cannot tell the difference
LN_S50_REACH = 5.0  # s50 within a factor e^5 ≈ 150 of the smallest and largest sizes


def hill(size, y_max: float, ln_s50: float, h: float):
    """y(s) = y_max / (1 + exp(−h(ln s − ln s50))) = y_max / (1 + (s50/s)^h)."""
    z = h * (np.log(np.asarray(size, dtype=float)) - ln_s50)
    return y_max * np.exp(-np.logaddexp(0.0, -z))


def hill_gradient(size, y_max: float, ln_s50: float, h: float) -> np.ndarray:
    """∂y/∂(y_max, ln_s50, h) of :func:`hill`: columns σ, −y_max·σ(1−σ)·h and y_max·σ(1−σ)·(ln s − ln_s50),
    with σ = 1/(1 + e^−z), z = h(ln s − ln_s50)."""
    d = np.log(np.asarray(size, dtype=float)) - ln_s50
    z = h * d
    sig, rest = np.exp(-np.logaddexp(0.0, -z)), np.exp(-np.logaddexp(0.0, z))
    slope = y_max * sig * rest
    return np.column_stack([sig, -slope * h, slope * d])


def size_for_level(level: float, y_max: float, s50: float, h: float) -> float:
    """Size at which y reaches ``level`` (0 < level < y_max): s = s50·(level/(y_max − level))^(1/h)."""
    if not 0 < level < y_max:
        raise ModelError(f"level must be between 0 and y_max = {y_max:g}, not {level:g}")
    return s50 * (level / (y_max - level)) ** (1 / h)


@dataclass(frozen=True)
class HillResult(WeightedFitResult):
    """A fitted Hill curve; derived quantities accept what-if overrides."""

    @property
    def y_max(self) -> float:
        """y_max: the plateau."""
        return float(self.params["y_max"])

    @property
    def s50(self) -> float:
        """s50 = exp(ln_s50): the size at half of the plateau."""
        return float(np.exp(self.params["ln_s50"]))

    def s50_conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Interval for s50: the Wald interval of ln_s50, exponentiated (NaN if exact)."""
        lo, hi = self.conf_int(alpha).loc["ln_s50"]
        return float(np.exp(lo)), float(np.exp(hi))

    @property
    def h(self) -> float:
        """h: the Hill coefficient (steepness in ln size)."""
        return float(self.params["h"])

    def size_for_level(self, level: float, **overrides) -> float:
        """Size at which the effect reaches ``level``; y_max, s50, h may be overridden."""
        p = {"y_max": self.y_max, "s50": self.s50, "h": self.h, **overrides}
        return size_for_level(level, p["y_max"], p["s50"], p["h"])

    @property
    def mape(self) -> float:
        """Mean absolute percentage error; NaN when an effect is 0 (it has no percentage error)."""
        if np.any(self.y == 0):
            return float("nan")
        return super().mape

    def derived(self) -> dict:
        return {"s50": self.s50}


def fit(size, effect, *, weights="none", y_max_upper: float = np.inf,
        data_name: str | None = None, data_hash: str | None = None) -> HillResult:
    """Fit y(s) = y_max/(1 + (s50/s)^h) to an effect measured at several sizes.

    Parameters
    ----------
    size, effect
        Message sizes (> 0) and the effect (e.g. percent increase; finite, some > 0).
    y_max_upper
        Optional cap on the plateau (e.g. 100 for a share that cannot pass 100 %); a fit
        that ends on it reports ``y_max`` in ``at_bound``.

    Raises
    ------
    ModelError
        Fewer than three distinct sizes, a size ≤ 0, no positive effect, or no convergence.
    """
    # Sizes must be > 0 (ln s); effects only finite: a small effect measured with noise can
    # come out at or below zero, and an unweighted fit has no reason to refuse it.
    y = np.asarray(effect, dtype=float).ravel()
    if y.size == 0 or not np.all(np.isfinite(y)):
        raise ModelError("effect: missing, empty or infinite values")
    if y.max() <= 0:
        raise ModelError("effect: no value greater than zero, so there is no rising curve to fit")
    size, _ = check_pairs(size, np.ones_like(y), "size", "effect", k=3, label="the Hill curve")
    if weights == "relative" and np.any(y <= 0):
        raise ModelError("effect: relative weights need every value greater than zero")
    w, how = resolve_weights(weights, y)
    if y_max_upper <= y.max() * 0.5:
        raise ModelError(f"y_max_upper = {y_max_upper:g} is below half the largest effect measured")
    grid = np.linspace(np.log(size.min()), np.log(size.max()) + 1.0, 4)
    starts = [(min(f * y.max(), 0.999 * y_max_upper), loc, h)
              for f in (1.1, 2.0) for loc in grid for h in (0.7, 2.0)]
    # s50 is searched within e^±LN_S50_REACH of the sizes measured: beyond that the data say
    # nothing about it, and an unbounded search wanders off to s50 → ∞ (y_max → ∞) for minutes.
    ln_lo, ln_hi = np.log(size.min()) - LN_S50_REACH, np.log(size.max()) + LN_S50_REACH
    box = ([0, ln_lo, 0], [y_max_upper, ln_hi, H_MAX])
    res = nls(hill, size, y, names=NAMES, starts=starts, lower=box[0], upper=box[1],
              weights=w, label="the Hill curve", gradient=hill_gradient, batch=True)
    notes = [how]
    exact = float(np.sum((hill(size, *res.theta) - y) ** 2)) <= NOISE_SSR * (float(y @ y) or 1.0)
    if res.df_resid == 0:
        notes.append("exactly identified: three sizes for three parameters, so no standard errors or intervals"
                     if exact else "no residual degrees of freedom, yet the curve misses the points: no intervals")
    if res.active_bounds:
        dof = f"{res.df_resid} residual degree{'s' if res.df_resid != 1 else ''} of freedom"
        free = [p for p in NAMES if p not in res.active_bounds]
        one = len(res.active_bounds) == 1
        notes.append(f"{', '.join(res.active_bounds)} held at {'its bound' if one else 'their bounds'}, which the data "
                     f"press against; "
                     + (f"{', '.join(free)} estimated with {dof}, intervals conditional on that" if free
                        else "nothing left to estimate"))
    if res.theta[1] > np.log(size.max()):
        notes.append("s50 lies beyond the largest size measured: the plateau y_max is an extrapolation")
    if "ln_s50" in res.at_bound:
        notes.append(f"ln_s50 is at the edge of its search range (sizes × e^±{LN_S50_REACH:g}): "
                     "the data do not locate the curve's midpoint, so y_max and s50 are not identified")
    if "h" in res.at_bound:
        notes.append(f"h reached its cap {H_MAX:g}: the data show a step, not a curve")
    if "y_max" in res.at_bound:
        notes.append("y_max is on its upper limit: the data want a higher plateau")
    return HillResult(
        model="hill", formula=FORMULA, params=pd.Series(res.theta, index=list(NAMES), dtype=float),
        cov=res.cov, x=size, y=y, fn=hill, units={"y_max": "effect units", "ln_s50": "ln(size units)", "h": "1"},
        at_bound=res.at_bound, active_bounds=res.active_bounds, bounds=box, notes=tuple(notes), data_name=data_name,
        data_hash=data_hash, weights=w,
    )


def recovery_time(amount, rate):
    """Time to recover ``amount`` at ``rate`` (same units: MB and MB/s give seconds)."""
    amount, rate = np.asarray(amount, dtype=float), np.asarray(rate, dtype=float)
    if np.any(amount < 0) or np.any(rate <= 0) or not np.all(np.isfinite(rate)):
        raise ModelError("amount must be ≥ 0 and rate greater than zero")
    return amount / rate


def recovery_cpu(amount, cpu_per_unit):
    """CPU to recover ``amount`` at ``cpu_per_unit`` (e.g. MB × CPU ms per MB = CPU ms)."""
    amount, cost = np.asarray(amount, dtype=float), np.asarray(cpu_per_unit, dtype=float)
    if np.any(amount < 0) or np.any(cost <= 0):
        raise ModelError("amount must be ≥ 0 and the cost per unit greater than zero")
    return amount * cost


# -- what a Hill fit shows: tests against simpler shapes -------------------------------------------
#
# Each returns the p-value and the test in words (named with its statistic), or None where the data
# leave no degrees of freedom to test with; the chapter decides what a curve may say from them.

def slope_test(size, effect):
    """The least-squares slope of an effect against ln(size) and its two-sided t-test:
    (slope, p, words), or None with fewer than three sizes.

    Points that lie exactly on a line (no scatter) make any slope real.
    """
    from mqperf.models.evidence import _p

    x, y = np.log(np.asarray(size, dtype=float)), np.asarray(effect, dtype=float)
    n = x.size
    if n < 3 or np.ptp(x) == 0:
        return None
    xc = x - x.mean()
    slope = float(xc @ (y - y.mean()) / (xc @ xc))
    resid = y - y.mean() - slope * xc
    ss = float(resid @ resid)
    if ss <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if abs(slope) > 1e-12 * max(float(np.abs(y).max()), 1.0) else 1.0
        return slope, p, ("t-test of the slope against log size: the points lie exactly on a line, so "
                          + ("any slope is real" if p == 0 else "there is no slope"))
    se = math.sqrt(ss / (n - 2) / float(xc @ xc))
    t = slope / se
    p = pvalues.t_two_sided(t, n - 2)
    return slope, p, f"t-test of the slope against log size: t = {t:.2f} on {n - 2} df, {_p(p)}"


def rise_test(res):
    """Does the Hill curve beat a constant effect by more than its scatter? (p, words), or None.

    The extra-sum-of-squares F-test of the Hill fit against the mean of the points: the fall in
    the residual sum of squares per parameter beyond the mean, over the Hill fit's residual
    variance. A Hill curve only rises, so a significant F is evidence of a rise. It needs
    residual degrees of freedom; a fit that passes through its points makes any gain real.
    """
    from mqperf.models.evidence import _p

    y = np.asarray(res.y, dtype=float)
    ss0 = float(((y - y.mean()) ** 2).sum())
    ss1 = float(((y - np.asarray(res.fittedvalues, dtype=float)) ** 2).sum())
    df1 = int(res.df_resid)
    k = (y.size - 1) - df1
    if df1 <= 0 or k <= 0:
        return None
    if ss0 <= 1e-24 * max(float(y @ y), 1.0):
        return 1.0, "F-test of the Hill curve against a constant effect: the effect is the same at every size"
    if ss1 <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if ss0 > 0 else 1.0
        return p, "F-test of the Hill curve against a constant effect: the curve passes through the points"
    f = max(((ss0 - ss1) / k) / (ss1 / df1), 0.0)
    p = pvalues.f_sf(f, k, df1)
    return p, f"F-test of the Hill curve against a constant effect: F = {f:.2f} on {k} and {df1} df, {_p(p)}"


def bend_test(res):
    """Does the Hill curve beat a straight line in log size by more than its scatter? (p, words), or None.

    A plateau is a bend: an effect that keeps rising in proportion to log size has none, yet a Hill
    curve with a shallow slope fits such a line with a plateau and a half-way size whose intervals
    look tight (they assume the curve is right). The extra-sum-of-squares F-test of the Hill fit
    (three parameters) against the least-squares line in ln(size) (two) decides whether the data
    show the levelling off; it needs residual degrees of freedom.
    """
    from mqperf.models.evidence import _p

    x, y = np.log(np.asarray(res.x, dtype=float)), np.asarray(res.y, dtype=float)
    df1 = int(res.df_resid)
    if df1 <= 0 or x.size < 3:
        return None
    slope, icpt = np.polyfit(x, y, 1)
    ss_line = float(((y - (icpt + slope * x)) ** 2).sum())
    ss_hill = float(((y - np.asarray(res.fittedvalues, dtype=float)) ** 2).sum())
    k = (x.size - 2) - df1
    if k <= 0:
        return None
    if ss_hill <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if ss_line > 1e-24 * max(float(y @ y), 1.0) else 1.0
        return p, ("F-test of the Hill curve against a straight line in log size: the curve passes through the "
                   "points" + ("" if p == 0 else ", and so does the line"))
    # A Hill fit can miss a straight line by more than the line does (F < 0): no gain at all, F = 0.
    f = max(((ss_line - ss_hill) / k) / (ss_hill / df1), 0.0)
    p = pvalues.f_sf(f, k, df1)
    return p, f"F-test of the Hill curve against a straight line in log size: F = {f:.2f} on {k} and {df1} df, {_p(p)}"
