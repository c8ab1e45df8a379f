"""The result object every model's ``fit`` returns.

Follows statsmodels' naming: ``params``, ``bse``, ``conf_int(alpha)``, ``fittedvalues``,
``resid``, ``df_resid``, ``summary()``, ``predict()``; plus ``to_card()`` for the JSON
model card a chapter writes under ``models/``.

Intervals are Wald intervals from the curvature of the least-squares surface:
``cov = s² (JᵀJ)⁻¹`` with ``s² = SSR / df_resid`` and a two-sided Student-t quantile on
``df_resid`` degrees of freedom. When ``df_resid == 0`` the data identify the parameters
exactly: there is no estimate of the noise, so ``bse`` and the intervals are NaN and
``exactly_identified`` is True, rather than a fake interval.

A parameter that ends on a bound it is pressed against (``active_bounds``: the data want
it past the bound) is not estimated, it is fixed by the bound. It takes no degree of
freedom (``df_resid = nobs + n_constraints − (k − active)``), gets no interval, and the
other parameters' intervals come from the covariance of the free parameters alone. Those
intervals are conditional on the active set: they ignore the uncertainty in whether the
bound is active at all, so near the bound they are somewhat too narrow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf import numbers
from mqperf.models import pvalues


#: Significant digits kept in summaries and model cards: enough for any planning use, few
#: enough that the last float digit never differs between machines (nbval compares them).
DIGITS = numbers.CARD_DIGITS

#: Residuals whose sum of squares is below this share of Σy² are float noise: the curve
#: passes through the points (an exact fit leaves ~1e-30; a real misfit is many orders above).
NOISE_SSR = 1e-18


def round_sig(value, digits: int = DIGITS, *, scale: float | None = None):
    """Round to ``digits`` significant digits by the book's one display rule.

    See :func:`mqperf.numbers.round_sig`: float noise (below 1e-12, or within 1e-9
    of ``scale``) is 0, ties are decided on the 12-digit value; NaN, inf and None pass through.
    """
    return numbers.round_sig(value, digits, scale=scale)


def as_positive_array(values, name: str) -> np.ndarray:
    """A 1-D float array of finite, strictly positive values, or a ModelError saying why not."""
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise ModelError(f"{name}: no values")
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{name}: contains a missing or infinite value")
    if np.any(arr <= 0):
        raise ModelError(f"{name}: values must be greater than zero (found {arr.min():g})")
    return arr


@dataclass(frozen=True)
class FitResult:
    """A fitted model: parameters, their uncertainty, and the fit's statistics."""

    model: str
    formula: str
    params: pd.Series
    cov: pd.DataFrame | None
    x: np.ndarray
    y: np.ndarray
    fn: Callable = field(repr=False)
    units: dict = field(default_factory=dict)
    at_bound: tuple = ()
    #: Parameters pressed against their bound (a subset of ``at_bound``): fixed, not estimated.
    active_bounds: tuple = ()
    notes: tuple = ()
    n_constraints: int = 0
    data_name: str | None = None
    data_hash: str | None = None
    #: The box the fit solved in, (lower, upper) per parameter; the bootstrap's refits solve in
    #: it too. None: a parameter non-negative in the fit stays non-negative, the rest are free.
    bounds: tuple | None = field(default=None, repr=False)

    # -- sizes -------------------------------------------------------------------------
    @property
    def nobs(self) -> int:
        """Number of observations used by the fit."""
        return int(self.y.size)

    @property
    def df_model(self) -> int:
        """Number of estimated parameters: those not fixed by an active bound."""
        return int(self.params.size) - len(self.active_bounds)

    @property
    def df_resid(self) -> int:
        """Residual degrees of freedom: observations plus equality constraints minus estimated parameters."""
        return self.nobs + self.n_constraints - self.df_model

    @property
    def resid_at_noise_level(self) -> bool:
        """True when the curve passes through the points up to float noise."""
        return self.ssr <= NOISE_SSR * (float(np.sum(self.y**2)) or 1.0)

    @property
    def exactly_identified(self) -> bool:
        """True when no degree of freedom is left and the curve passes through the points.

        A fit with no degree of freedom that still misses its points is not exactly
        identified: something (a local minimum, an undetected bound) is wrong with it.
        """
        return self.df_resid <= 0 and self.resid_at_noise_level

    # -- fit -----------------------------------------------------------------------------
    @property
    def identification(self) -> str:
        """What the fit can claim about its parameters, in words (for tables and cards).

        One of: "exactly identified", "on a bound, with N residual degrees of freedom",
        "no residual degrees of freedom, yet the curve misses the points", or an ordinary fit
        with 1 or more residual degrees of freedom.
        """
        if self.exactly_identified:
            return "exactly identified: no intervals"
        if self.df_resid <= 0:
            return "no residual degrees of freedom, yet the curve misses the points: no intervals"
        dof = f"{self.df_resid} residual degree{'s' if self.df_resid != 1 else ''} of freedom"
        if self.active_bounds:
            fixed = ", ".join(self.active_bounds)
            free = [p for p in self.params.index if p not in self.active_bounds]
            others = f"intervals for {', '.join(free)} only" if free else "no intervals"
            return f"on a bound ({fixed} fixed at it), with {dof}: {others}"
        if self.df_resid == 1:
            return "1 residual degree of freedom: intervals exist but are wide"
        return "fitted with intervals"

    @property
    def fittedvalues(self) -> np.ndarray:
        return self.fn(self.x, *self.params.to_numpy())

    @property
    def resid(self) -> np.ndarray:
        return self.y - self.fittedvalues

    @property
    def ssr(self) -> float:
        """Sum of squared residuals."""
        return float(np.sum(self.resid**2))

    @property
    def rmse(self) -> float:
        """Residual standard error sqrt(SSR / df_resid); NaN without residual degrees of freedom."""
        return math.sqrt(self.ssr / self.df_resid) if self.df_resid > 0 else math.nan

    @property
    def r2(self) -> float:
        """Share of the variance in y around its mean that the model explains."""
        tss = float(np.sum((self.y - self.y.mean()) ** 2))
        return 1.0 - self.ssr / tss if tss > 0 else math.nan

    @property
    def mape(self) -> float:
        """Mean absolute percentage error of the fitted values, in percent; NaN (undefined) when a
        measured value is 0, since no percentage of 0 exists."""
        if np.any(self.y == 0):
            return math.nan
        return float(np.mean(np.abs(self.resid / self.y)) * 100)

    # -- uncertainty -----------------------------------------------------------------------
    @property
    def bse(self) -> pd.Series:
        """Standard errors of the parameters (NaN when not identified by the data or fixed by a bound)."""
        return self._bse.copy()  # each caller its own: the fit is read many times (intervals, cards, compare)

    @cached_property
    def _bse(self) -> pd.Series:
        if self.cov is None or self.df_resid <= 0:
            return pd.Series(np.nan, index=self.params.index)
        se = pd.Series(np.sqrt(np.clip(np.diag(self.cov.to_numpy()), 0, None)), index=self.params.index)
        return se.where(~se.index.isin(self.active_bounds))

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Two-sided Wald intervals with a Student-t quantile on ``df_resid`` degrees of freedom.

        Notes
        -----
        A parameter pressed against its bound (``active_bounds``) is fixed there and has no
        interval (NaN); the others' intervals are conditional on that: they ignore the
        uncertainty in the bound being active, so they are somewhat too narrow near it.
        A parameter that merely sits on a bound the data do not press it against keeps the
        Wald interval, which can reach past the bound: read it as "the data cannot tell
        this parameter from the bound", not as a range of plausible values.
        """
        if self.df_resid > 0 and not self.residual_checks.passed:
            return self._bootstrap(alpha)
        return self._wald(alpha)

    def _wald(self, alpha: float) -> pd.DataFrame:
        """The Student-t Wald intervals (NaN without residual degrees of freedom), computed once
        per level; each caller gets a copy."""
        cache = self.__dict__.setdefault("_wald_cache", {})
        if alpha not in cache:
            if self.df_resid <= 0:
                lower = upper = pd.Series(np.nan, index=self.params.index)
            else:
                q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
                lower, upper = self.params - q * self._bse, self.params + q * self._bse
            cache[alpha] = pd.DataFrame({"lower": lower, "upper": upper})
        return cache[alpha].copy()

    @cached_property
    def residual_checks(self):
        """Normality and even spread of the residuals (:mod:`mqperf.models.diagnostics`), checked
        before any interval is given: when either fails, :meth:`conf_int` is a bootstrap."""
        from mqperf.models.diagnostics import residual_checks

        return residual_checks(self)

    @property
    def interval_method(self) -> str:
        """How :meth:`conf_int` is made for this fit, in words."""
        if self.df_resid <= 0:
            return "none: no residual degrees of freedom"
        if not self.residual_checks.passed:
            return (f"residual bootstrap, {self.refits_words()}, percentile 95 %, widened where narrower to the t "
                    "interval (the residuals fail the normality or even-spread check)")
        return "Wald, Student-t on df_resid, 95 %"

    def refits_words(self, alpha: float = 0.05) -> str:
        """How many refits the bootstrap interval rests on (:func:`mqperf.models.diagnostics.refits_words`)."""
        from mqperf.models.diagnostics import refits_words

        self._bootstrap(alpha)
        return refits_words(*self.__dict__["_bootstrap_refits"][alpha])

    #: ``gradient(x, *θ)`` = ∂fn/∂θ when the model knows it: the Jacobian of a bootstrap refit that
    #: the batched solver hands to ``least_squares`` (:func:`mqperf.models.refits.refit_all`).
    _refit_gradient = None

    def _bootstrap_interval(self, alpha: float) -> pd.DataFrame:
        """The bootstrap's own percentile interval (columns lower, upper; ``attrs["refits"]``)."""
        from mqperf.models.diagnostics import bootstrap_conf_int

        ci = bootstrap_conf_int(self, alpha=alpha, gradient=self._refit_gradient)
        out = pd.DataFrame({"lower": ci[0].astype(float), "upper": ci[1].astype(float)})
        out.attrs["refits"] = ci.attrs["refits"]
        return out

    def _bootstrap(self, alpha: float) -> pd.DataFrame:
        cache = self.__dict__.setdefault("_bootstrap_cache", {})
        if alpha not in cache:
            boot = self._bootstrap_interval(alpha)
            self.__dict__.setdefault("_bootstrap_refits", {})[alpha] = boot.attrs["refits"]
            # A parameter the refits barely move gets a bootstrap interval of almost no width,
            # which would read as "known"; the reported interval covers the t interval too.
            wald = self._wald(alpha)
            boot["lower"] = np.fmin(boot["lower"], wald["lower"])
            boot["upper"] = np.fmax(boot["upper"], wald["upper"])
            cache[alpha] = boot
        return cache[alpha].copy()

    # -- output ------------------------------------------------------------------------------
    def predict(self, x) -> np.ndarray:
        """Model values at ``x`` with the fitted parameters."""
        return self.fn(np.asarray(x, dtype=float), *self.params.to_numpy())

    def conf_band(self, x, alpha: float = 0.05) -> pd.DataFrame:
        """Pointwise confidence band for the mean curve at ``x`` (delta method).

        Notes
        -----
        ``var f(x) = g(x)ᵀ Σ g(x)`` with ``g`` the gradient of the model in its parameters
        (central differences) and ``Σ`` the parameter covariance; the band uses the same
        Student-t quantile as :meth:`conf_int`. It is the uncertainty of the curve, not of a
        new measurement (which adds the residual variance: :meth:`pred_band`). NaN without residual degrees
        of freedom. A parameter fixed by an active bound contributes no variance.
        """
        x = np.asarray(x, dtype=float)
        fit = self.predict(x)
        if self.cov is None or self.df_resid <= 0:
            nan = np.full_like(fit, np.nan)
            return pd.DataFrame({"x": x, "fit": fit, "lower": nan, "upper": nan})
        theta = self.params.to_numpy()
        grad = np.empty((x.size, theta.size))
        for j in range(theta.size):
            h = 1e-6 * max(abs(theta[j]), 1e-8)
            up, down = theta.copy(), theta.copy()
            up[j] += h
            down[j] -= h
            grad[:, j] = (self.fn(x, *up) - self.fn(x, *down)) / (2 * h)
        fixed = self.params.index.isin(self.active_bounds)
        cov = self.cov.to_numpy().copy()
        cov[fixed, :] = 0.0
        cov[:, fixed] = 0.0
        se = np.sqrt(np.einsum("ij,jk,ik->i", grad, cov, grad))
        q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
        return pd.DataFrame({"x": x, "fit": fit, "lower": fit - q * se, "upper": fit + q * se})

    def pred_band(self, x, alpha: float = 0.05) -> pd.DataFrame:
        """Pointwise prediction band: where a new measurement at ``x`` should fall.

        Notes
        -----
        ``fit ± t · sqrt(se_curve(x)² + s²)``, with ``se_curve`` the standard error of the
        curve behind :meth:`conf_band`, ``s²`` the variance of a new measurement
        (:meth:`new_measurement_var`: the residual variance ``rmse²`` for an unweighted fit) and
        ``t`` the two-sided Student-t quantile on ``df_resid`` degrees of freedom. It covers a
        new measurement of the kind the fit used (a single row, or a mean of as many rows as
        each fitted point) with probability 1 − alpha, if the scatter is independent, normal and
        of the size the fit assumed at every x; the confidence band covers only the curve, so
        the prediction band is always the wider. NaN without residual degrees of freedom (no ``s``
        to add) or where the confidence band is NaN. Works for any subclass whose
        :meth:`conf_band` returns ``fit``, ``lower`` and ``upper``: the curve's standard error is
        read back from that band.
        """
        band = self.conf_band(x, alpha)
        lower, upper = self._prediction_from(band, alpha)
        return band.assign(lower=lower, upper=upper)

    def _prediction_from(self, band: pd.DataFrame, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """The prediction band's bounds from the confidence band ``band`` (see :meth:`pred_band`)."""
        fit = band["fit"].to_numpy(dtype=float)
        if self.df_resid <= 0:
            nan = np.full_like(fit, np.nan)
            return nan, nan
        q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
        se_curve = (band["upper"].to_numpy(dtype=float) - fit) / q
        half = q * np.sqrt(se_curve**2 + self.new_measurement_var(fit))
        return fit - half, fit + half

    def new_measurement_var(self, fit: np.ndarray) -> np.ndarray:
        """Variance of one new measurement where the curve is ``fit``: ``rmse²`` everywhere, the
        unweighted least-squares assumption (weighted fits override it)."""
        return np.full_like(np.asarray(fit, dtype=float), self.rmse**2)

    def bands(self, x, alpha: float = 0.05) -> pd.DataFrame:
        """The curve at ``x`` with both bands: ``lower``/``upper`` the confidence band (the
        curve's range), ``pred_lower``/``pred_upper`` the prediction band (a new measurement's
        range); see :meth:`conf_band` and :meth:`pred_band`."""
        conf = self.conf_band(x, alpha)  # once: the prediction band is read from it
        lower, upper = self._prediction_from(conf, alpha)
        return conf.assign(pred_lower=lower, pred_upper=upper)

    def summary(self, alpha: float = 0.05) -> pd.DataFrame:
        """One row per parameter: estimate, standard error, interval, unit, bound flag."""
        ci = self.conf_int(alpha)
        level = round((1 - alpha) * 100)
        table = pd.DataFrame(
            {
                "estimate": self.params.map(round_sig),
                "std_err": self.bse.map(round_sig),
                f"ci{level}_lower": ci["lower"].map(round_sig),
                f"ci{level}_upper": ci["upper"].map(round_sig),
                "unit": [self.units.get(p, "") for p in self.params.index],
                "at_bound": [p in self.at_bound for p in self.params.index],
            }
        )
        table.index.name = "parameter"
        return table

    def fit_stats(self) -> dict:
        """Fit statistics for cards; residuals at rounding-noise level are reported as 0.

        An exactly identified fit leaves residuals of ~1e-12 relative to the data, whose
        exact value depends on the machine's floating point: printing them would make the
        cards differ between machines and suggest a misfit that is not there.
        """
        noise = self.resid_at_noise_level
        return {
            "nobs": self.nobs,
            "n_constraints": self.n_constraints,
            "df_resid": self.df_resid,
            "exactly_identified": self.exactly_identified,
            "identification": self.identification,
            "ssr": 0.0 if noise else round_sig(self.ssr),
            "rmse": None if math.isnan(self.rmse) else (0.0 if noise else round_sig(self.rmse)),
            "r2": None if math.isnan(self.r2) else (1.0 if noise else round_sig(self.r2)),
            "mape_pct": 0.0 if noise else round_sig(self.mape, 4),
        }

    def derived(self) -> dict:
        """Derived quantities worth recording on the card (overridden by model families)."""
        return {}

    def to_card(self, *, name: str | None = None, dataset: str | None = None, **extra) -> dict:
        """The JSON model card: model, formula, parameters with units and intervals, fit, data."""
        from mqperf import __version__

        ci = self.conf_int()
        params = {}
        for p in self.params.index:
            params[p] = {
                "estimate": round_sig(self.params[p]),
                "std_err": _none_if_nan(round_sig(self.bse[p])),
                "ci95": [_none_if_nan(round_sig(ci.loc[p, "lower"])), _none_if_nan(round_sig(ci.loc[p, "upper"]))],
                "unit": self.units.get(p, ""),
                "at_bound": p in self.at_bound,
                "fixed_by_bound": p in self.active_bounds,
            }
        card = {
            "name": name or self.model,
            "model": self.model,
            "formula": self.formula,
            "parameters": params,
            "interval_method": (self.interval_method + "; none when exactly identified or for a parameter fixed "
                                "by its bound (the others' are then conditional on it)"),
            "residual_checks": self.residual_checks.words(),
            "fit": self.fit_stats(),
            "derived": {k: _none_if_nan(round_sig(v)) for k, v in self.derived().items()},
            "notes": list(self.notes),
            "data": {"dataset": dataset or self.data_name, "sha256": self.data_hash, "nobs": self.nobs},
            "mqperf_version": __version__,
        }
        card.update(extra)
        return card


def _none_if_nan(value):
    if value is None:
        return None
    return None if (isinstance(value, float) and math.isnan(value)) else value


def jacobian(residuals, theta: np.ndarray, *, floor: float = 1e-9) -> np.ndarray:
    """Central-difference Jacobian of the residual vector at ``theta``: the one every fit uses.

    The step is 1e-6 of each parameter's size, and at least 1e-6 × ``floor`` (a parameter
    at 0 still gets a step the residuals can feel).
    """
    cols = []
    for j in range(theta.size):
        h = 1e-6 * max(abs(theta[j]), floor)
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        cols.append((residuals(up) - residuals(down)) / (2 * h))
    return np.column_stack(cols)


def covariance(jacobian: np.ndarray, resid: np.ndarray, df_resid: int, names, fixed=()) -> pd.DataFrame | None:
    """s² (JᵀJ)⁻¹ over the free parameters; None when JᵀJ is singular or df_resid <= 0.

    ``fixed`` names parameters held on an active bound: their Jacobian columns are dropped
    and their rows and columns of the result are NaN. With nothing fixed this is the R
    ``usl`` package's covariance, so standard errors stay comparable with published ones.
    """
    names = list(names)
    cov = covariance_array(jacobian, resid, df_resid, names, fixed)
    return None if cov is None else pd.DataFrame(cov, index=names, columns=names)


def covariance_array(jacobian: np.ndarray, resid: np.ndarray, df_resid: int, names, fixed=()) -> np.ndarray | None:
    """:func:`covariance` as an array, rows and columns in the order of ``names`` (a fit computes
    it on every refit, where a DataFrame's construction cost more than the algebra)."""
    names = list(names)
    if df_resid <= 0:
        return None
    keep = [i for i, p in enumerate(names) if p not in fixed]
    out = np.full((len(names), len(names)), np.nan)
    if not keep:
        return out
    jac = jacobian[:, keep]
    jtj = jac.T @ jac
    if np.linalg.matrix_rank(jtj) < jtj.shape[0]:
        return None
    s2 = float(resid @ resid) / df_resid
    out[np.ix_(keep, keep)] = np.linalg.inv(jtj) * s2
    return out
