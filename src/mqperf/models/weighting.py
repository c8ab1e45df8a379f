"""A scaling fit's weights, chosen from its residuals: equal absolute errors or equal relative errors.

An unweighted least-squares fit assumes every point scatters by the same amount in msg/s.
Throughput measured across concurrencies often scatters in proportion to the rate instead (a
2 % run-to-run spread is 20 msg/s at 1,000 msg/s and 200 msg/s at 10,000); then the largest
rates decide the fit and its bands are too narrow where the rate is high
(``benchmarks/usl_weighting.py`` measures the coverage of both).

The rule (:func:`choose`): fit both ways, unweighted and with weights 1/y² (equal relative errors,
:func:`fit_usl` with ``weights="relative"``), and ask which error model describes the residuals
better. The two have the same parameters, so their likelihoods compare directly (AIC with equal
K): relative weights are chosen when they are better by 2 or more, the same margin the chapter's
model comparison uses. Too few residuals to judge the spread (the thresholds of the residual
checks in :mod:`mqperf.models.diagnostics`): unweighted, and said so. The report states the
choice with its test (:attr:`Weighting.words`).

Why not the even-spread check alone (Spearman's rank correlation of |residual| with the fitted
value)? With ten points it finds 3 % proportional noise in about a quarter of datasets, so the
bands stayed too narrow at high N: ``benchmarks/usl_weighting.py`` (400 datasets per kind) gives
a 95 % confidence band that covers the true curve at N = 16 in 80 % of datasets unweighted, 83 %
with the spread check, 89.5 % with this rule (which weights 76 % of them). Under additive noise
the rule weights 6.5 % of datasets, and the band at N = 2 covers 87 % instead of 90 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import bottleneck, usl
from mqperf.models._base import NOISE_SSR, as_positive_array
from mqperf.models._nls import solve

NONE, RELATIVE = "none", "relative"


@dataclass(frozen=True)
class Weighting:
    """The weights a fit uses and why, in words."""

    kind: str  # NONE or RELATIVE
    test: str
    #: −2 log-likelihood of equal absolute errors minus that of equal relative errors (NaN: not judged).
    delta: float = math.nan

    @property
    def words(self) -> str:
        what = ("weights 1/y² (equal relative errors)" if self.kind == RELATIVE
                else "unweighted (equal absolute errors)")
        return f"{what}: {self.test}"


#: How much better (in AIC, i.e. −2 log-likelihood: both error models have the same parameters) equal
#: relative errors must describe the residuals before a fit is weighted: Burnham & Anderson's 2.
DECISIVE = 2.0


def log_likelihoods(plain, relative) -> tuple[float, float]:
    """−2 log-likelihood (up to a common constant) of the points under each error model, at its own fit.

    Equal absolute errors: n ln(SSR/n). Equal relative errors (sd ∝ y): n ln(Σ(r/y)²/n) + 2 Σ ln y,
    the last term the Jacobian of measuring each point's error relative to its rate.
    """
    y = np.asarray(plain.y, dtype=float)
    nobs = y.size
    absolute = nobs * math.log(plain.ssr / nobs)
    rel = nobs * math.log(weighted_ssr(relative, RELATIVE) / nobs) + 2 * float(np.sum(np.log(y)))
    return absolute, rel


def choose(plain, relative=None) -> Weighting:
    """Relative weights when equal relative errors describe the unweighted fit's residuals better.

    ``plain`` is the unweighted fit, ``relative`` the same model fitted with weights 1/y². The two
    error models have the same parameters, so their −2 log-likelihoods compare directly
    (:func:`log_likelihoods`); relative weights are chosen when they are lower by
    :data:`DECISIVE` or more. With fewer residuals than the residual checks need
    (:mod:`mqperf.models.diagnostics`) the spread cannot be judged: unweighted, said so.
    """
    from mqperf.models import diagnostics

    if (plain.nobs < diagnostics.MIN_RESIDUALS or plain.df_resid < diagnostics.MIN_DF
            or plain.resid_at_noise_level or relative is None):
        return Weighting(NONE, f"too few residuals to judge the spread (at least {diagnostics.MIN_RESIDUALS} points "
                               f"and {diagnostics.MIN_DF} residual degrees of freedom are needed)")
    absolute, rel = log_likelihoods(plain, relative)
    delta = absolute - rel
    test = (f"−2 log-likelihood of equal absolute errors minus that of equal relative errors = {delta:.2f}; "
            f"relative weights need {DECISIVE:g} or more")
    if delta >= DECISIVE:
        return Weighting(RELATIVE, f"the spread grows with the rate ({test})", delta)
    return Weighting(NONE, f"the spread does not grow with the rate ({test})", delta)


def _p(value: float) -> str:
    return "p < 0.001" if value < 0.001 else f"p = {value:.2g}" if value < 0.01 else f"p = {value:.2f}"


# -- the relatively weighted USL -------------------------------------------------------------------

class _Pearson:
    """The residuals as a weighted fit sees them, for :func:`mqperf.models.diagnostics.residual_checks`."""

    def __init__(self, result):
        sw = np.sqrt(result.weights)
        self.resid = result.resid * sw
        self.fittedvalues = result.fittedvalues
        self.df_resid = result.df_resid
        self.resid_at_noise_level = result.resid_at_noise_level


class _RelativeErrors:
    """What a fit with weights 1/y² checks and resamples: relative errors, not raw ones.

    The residual checks run on the Pearson residuals (each residual divided by its point's
    rate, as the fit weighs it), and when they fail the interval is a bootstrap that resamples
    those relative errors and refits with the same weights (:func:`relative_bootstrap`), widened
    where narrower to the t interval by :meth:`FitResult._bootstrap`, as every bootstrap here is.
    """

    @cached_property
    def residual_checks(self):
        from mqperf.models.diagnostics import residual_checks

        return residual_checks(_Pearson(self))

    def _bootstrap_interval(self, alpha: float) -> pd.DataFrame:
        return relative_bootstrap(self, alpha=alpha)

    @property
    def interval_method(self) -> str:
        if self.df_resid <= 0 or self.residual_checks.passed:
            return super().interval_method
        return (f"bootstrap of the relative errors (weights 1/y²), {self.refits_words()}, percentile 95 %, widened "
                "where narrower to the t interval (the Pearson residuals fail the normality or even-spread check)")


@dataclass(frozen=True)
class RelativeUSLResult(_RelativeErrors, usl.USLResult):
    """A USL (or Amdahl) fit with weights 1/y²: every point carries the same relative error."""

    weights: np.ndarray | None = None

    @property
    def wssr(self) -> float:
        return float(np.sum(self.weights * self.resid**2))

    @property
    def wrmse(self) -> float:
        """The typical relative error of a point: sqrt(Σ (r/y)² / df)."""
        return math.sqrt(self.wssr / self.df_resid) if self.df_resid > 0 else math.nan

    def new_measurement_var(self, fit: np.ndarray) -> np.ndarray:
        """A new point's variance is proportional to the curve there: wrmse² · fit²."""
        return self.wrmse**2 * np.asarray(fit, dtype=float) ** 2

    def fit_stats(self) -> dict:
        from mqperf.models._base import round_sig

        stats = super().fit_stats()
        stats["wssr"] = round_sig(self.wssr)
        stats["wrmse"] = None if math.isnan(self.wrmse) else round_sig(self.wrmse)
        return stats


_CHECKED: dict = {}


def relatively_checked(result):
    """``result`` (any fit with weights 1/y², e.g. :func:`mqperf.models.latency_bandwidth.fit`'s) with
    its residual checks and bootstrap on relative errors (:class:`_RelativeErrors`); unchanged when its
    weights are not 1/y².

    The shared :class:`~mqperf.models._nls.WeightedFitResult` checks raw residuals, which under
    equal relative errors grow with the rate by design, so the even-spread check fails and the
    bootstrap resamples raw residuals onto every size: this keeps a chapter's relatively weighted
    fit from that until the shared class does the same.
    """
    from dataclasses import fields

    w = getattr(result, "weights", None)
    if w is None or not np.allclose(np.asarray(w) * np.asarray(result.y) ** 2, 1.0, rtol=1e-9, atol=0):
        return result
    cls = type(result)
    if isinstance(result, _RelativeErrors):
        return result
    sub = _CHECKED.get(cls)
    if sub is None:
        sub = _CHECKED[cls] = type(f"Relatively{cls.__name__}", (_RelativeErrors, cls), {"__module__": __name__})
    return sub(**{f.name: getattr(result, f.name) for f in fields(result)})


def fit_usl(n, x, *, weights: str = NONE, constraints=(), amdahl_only: bool = False,
            data_name: str | None = None, data_hash: str | None = None, plain=None) -> usl.USLResult:
    """:func:`mqperf.models.usl.fit`, or the same fit with weights 1/y² (``weights="relative"``).

    The relative fit minimises Σ ((X(Nᵢ) − xᵢ)/xᵢ)² plus each "no gain" statement's residual
    X(b) − r·X(a) divided by the rate measured nearest to ``a`` (a statement is as precise, in
    relative terms, as the points it summarises). Bounds, starts, degrees of freedom and notes
    are :func:`mqperf.models.usl.fit`'s. ``plain``: the unweighted fit of the same points, when the
    caller has it (it is the first start; otherwise it is fitted here).
    """
    if weights == NONE:
        return usl.fit(n, x, constraints=constraints, amdahl_only=amdahl_only, data_name=data_name,
                       data_hash=data_hash)
    if weights != RELATIVE:
        raise ModelError(f"weights must be 'none' or 'relative', not {weights!r}")
    base = plain if plain is not None else usl.fit(n, x, constraints=constraints, amdahl_only=amdahl_only)
    n, x = as_positive_array(n, "concurrency N"), as_positive_array(x, "throughput X")
    names = usl.NAMES[:2] if amdahl_only else usl.NAMES
    k = len(names)
    constraints = tuple(constraints)
    w = 1.0 / x**2
    sw = np.sqrt(w)
    near = [float(x[np.argmin(np.abs(n - c.a))]) for c in constraints]

    def model(nn, *theta):
        return usl.amdahl(nn, *theta) if amdahl_only else usl.throughput(nn, *theta)

    def residuals(theta):
        r = sw * (model(n, *theta) - x)
        extra = [(model(c.b, *theta) - c.ratio * model(c.a, *theta)) / s for c, s in zip(constraints, near)]
        return np.concatenate([r, np.asarray(extra, dtype=float)])

    def residual_rows(thetas):
        cols = [thetas[:, j:j + 1] for j in range(k)]
        extra = [(model(c.b, *cols) - c.ratio * model(c.a, *cols)) / s for c, s in zip(constraints, near)]
        return np.hstack([sw * (model(n, *cols) - x), *[np.reshape(e, (-1, 1)) for e in extra]])

    # Relative weights move the optimum a little from the unweighted one: start there, and from one
    # generic start in case they move it to another valley.
    starts = [tuple(base.params.to_numpy()), (float(np.max(x / n)), 0.1, 0.01)]
    lower, upper = usl.box(k)
    sol = solve(residuals, names=names, starts=[s[:k] for s in starts], lower=lower,
                upper=upper, equations=n.size + len(constraints),
                scale=float(n.size + len(constraints)), label="the relatively weighted USL", tol=1e-15,
                max_nfev=20000, jac_floor=1e-6, rows=residual_rows)
    theta = sol.theta
    notes = ["weighted least squares, weights 1/y² (equal relative errors)"]
    notes += [note for note in base.notes if not note.startswith(("sigma", "kappa"))]
    if "kappa" in sol.at_bound:
        notes.append("kappa is on its bound 0: no coherency cost detectable (Amdahl behaviour)")
    if "sigma" in sol.at_bound:
        notes.append(f"sigma is on its bound {theta[1]:g}")
    return RelativeUSLResult(
        model=base.model, formula=base.formula, params=pd.Series(theta, index=list(names), dtype=float),
        cov=sol.cov, x=n, y=x, fn=model, units=base.units, at_bound=sol.at_bound,
        active_bounds=sol.active_bounds, bounds=(lower, upper), notes=tuple(notes), n_constraints=len(constraints),
        data_name=data_name, data_hash=data_hash, weights=w)


def relative_bootstrap(result, *, alpha: float = 0.05, refits: int | None = None, seed: int | None = None):
    """Percentile intervals from a bootstrap of relative errors: y* = fitted · (1 + e*), refitted
    with weights 1/y*², where e* resamples the Pearson residuals rescaled by √(n / df); each refit
    within the fit's own box (:func:`mqperf.models.diagnostics.refit_box`)."""
    from mqperf.models import diagnostics
    from mqperf.models.refits import refit_all

    refits = diagnostics.REFITS if refits is None else refits
    rng = np.random.default_rng(diagnostics.SEED if seed is None else seed)
    x, fitted = np.asarray(result.x, float), np.asarray(result.fittedvalues, float)
    rel = (np.asarray(result.resid, float) / np.asarray(result.y, float)) * math.sqrt(
        result.nobs / max(result.df_resid, 1))
    names = list(result.params.index)
    free = [i for i, p in enumerate(names) if p not in result.active_bounds]
    theta0 = result.params.to_numpy(dtype=float)
    lower, upper = diagnostics.refit_box(result, free)
    ys = np.array([fitted * (1 + rng.choice(rel, size=rel.size, replace=True)) for _ in range(refits)])
    ys = ys.reshape(refits, fitted.size)
    # A resample with a rate at or below 0 has no relative error to weigh by: it is not refitted.
    ys = ys[np.all(ys > 0, axis=1)]
    solved = refit_all(result.fn, x, ys, 1.0 / ys, theta0, free, lower, upper,
                       np.clip(theta0[free], lower + 1e-12, upper - 1e-12), x_scale_jac=True)
    draws = [theta for theta in solved if theta is not None]
    out = pd.DataFrame({"lower": np.nan, "upper": np.nan}, index=names)
    out.attrs["refits"] = (len(draws), refits)
    if len(draws) < refits / 2:
        return out
    lo, hi = np.quantile(np.array(draws), [alpha / 2, 1 - alpha / 2], axis=0)
    for i in free:
        out.iloc[i] = [lo[i], hi[i]]
    return out


# -- the bottleneck with the same weights, and the criterion ----------------------------------------

def fit_bottleneck(n, x, *, weights: str = NONE, constraints=()):
    """:func:`mqperf.models.bottleneck.fit`; with ``weights="relative"`` the same exact search over
    the knee, each candidate solved by weighted least squares (weights 1/y²).

    The relative result keeps the unweighted fit's bound flags and notes (whether the data show a
    plateau does not depend on the weights) and has no covariance: it is used to rank and to plan,
    not for intervals.
    """
    plain = bottleneck.fit(n, x, constraints=constraints)
    if weights == NONE:
        return plain
    n, x = np.asarray(plain.x, float), np.asarray(plain.y, float)
    w = 1.0 / x**2
    kmax = min((min(c.a, c.b) for c in constraints), default=math.inf)
    levels = np.unique(n)
    best = None

    def consider(lam, x_max):
        nonlocal best
        if lam > 0 and x_max > 0:
            wssr = float(np.sum(w * (bottleneck.throughput(n, lam, x_max) - x) ** 2))
            if best is None or wssr < best[0] * (1 - 1e-12):
                best = (wssr, lam, x_max)

    for lo, hi in zip(levels[:-1], levels[1:]):
        left, right = n <= lo, n >= hi
        lam = float(np.sum(w[left] * n[left] * x[left]) / np.sum(w[left] * n[left] ** 2))
        x_max = float(np.sum(w[right] * x[right]) / np.sum(w[right]))
        if lo <= x_max / lam <= min(hi, kmax):
            consider(lam, x_max)
    for t in [*levels[levels <= kmax], *([kmax] if math.isfinite(kmax) else [])]:
        m = np.minimum(n, t)
        lam = float(np.sum(w * m * x) / np.sum(w * m**2))
        consider(lam, lam * t)
    if best is None:
        return plain
    _, lam, x_max = best
    return bottleneck.BottleneckResult(
        model="bottleneck", formula=bottleneck.FORMULA, params=pd.Series([lam, x_max], index=list(bottleneck.NAMES)),
        cov=None, x=n, y=x, fn=bottleneck.throughput, units=plain.units, at_bound=plain.at_bound,
        notes=("weighted least squares, weights 1/y² (equal relative errors)",) + tuple(plain.notes))


def weighted_ssr(result, weights: str) -> float:
    """The sum of squares a fit with these weights minimises, over the measured points."""
    resid = np.asarray(result.resid, float)
    if weights == RELATIVE:
        resid = resid / np.asarray(result.y, float)
    return float(np.sum(resid**2))


def aicc(result, weights: str = NONE) -> float:
    """AICc = n ln(SSR/n) + 2K + 2K(K+1)/(n−K−1), K = estimated parameters + 1 (Burnham & Anderson
    2002, eqs. 2.1, 2.14), over the measured points, with SSR weighted as the fit was; NaN when
    the fit leaves no residual or n ≤ K + 1. Comparable between two fits with the same weights
    (the weights' own term in the likelihood is the same for both and cancels)."""
    nobs, k = int(np.size(result.y)), int(result.df_model) + 1
    ssr = weighted_ssr(result, weights)
    if not (ssr > NOISE_SSR * max(float(np.sum(np.asarray(result.y, float) ** 2)), 1.0) if weights == NONE
            else ssr > NOISE_SSR * nobs) or nobs <= k + 1:
        return math.nan
    return nobs * math.log(ssr / nobs) + 2 * k + 2 * k * (k + 1) / (nobs - k - 1)
