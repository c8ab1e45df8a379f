"""Residual checks before intervals, and the bootstrap interval when they fail.

A fit's Student-t intervals assume errors that are normal and equally spread. Before a report
shows them it checks both on the residuals:

- **normality**: Shapiro-Wilk on the residuals;
- **even spread**: Spearman's rank correlation between the absolute residuals and the fitted
  values (a spread that grows with the rate, as proportional noise does, correlates).

Either failing at the 5 % level makes the interval a residual bootstrap instead
(:func:`bootstrap_conf_int`: the fit's own curve refitted to its fitted values plus resampled,
rescaled residuals, percentile intervals), and the report says which was used. With fewer than
:data:`MIN_RESIDUALS` residuals or :data:`MIN_DF` residual degrees of freedom the checks have no
power: the report says they could not be made.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.numbers import tie_noise

#: Fewest residuals and residual degrees of freedom the checks are run on.
MIN_RESIDUALS = 5
MIN_DF = 3
ALPHA = 0.05
#: Bootstrap refits (a fixed seed keeps the intervals the same on every run).
REFITS = 199
SEED = 20261125


@dataclass(frozen=True)
class Checks:
    """The outcome of the residual checks of one fit."""

    made: bool
    normal_p: float = math.nan
    spread_p: float = math.nan

    @property
    def passed(self) -> bool:
        return (not self.made) or (self.normal_p >= ALPHA and self.spread_p >= ALPHA)

    def words(self) -> str:
        if not self.made:
            return (f"too few residuals to check (at least {MIN_RESIDUALS} and {MIN_DF} residual degrees of freedom "
                    "are needed): the t intervals assume normal, evenly spread errors")
        verdict = "pass" if self.passed else "fail"
        return (f"normality (Shapiro-Wilk p = {_p(self.normal_p)}) and even spread against the fitted values "
                f"(Spearman p = {_p(self.spread_p)}): {verdict}")


def _p(value: float) -> str:
    if not math.isfinite(value):
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.2g}" if value < 0.01 else f"{value:.2f}"


def _root_weights(result) -> np.ndarray:
    """√wᵢ of a weighted fit's points (ones for an unweighted fit)."""
    w = getattr(result, "weights", None)
    if w is None:
        return np.ones(len(np.asarray(result.resid)))
    return np.sqrt(np.asarray(w, dtype=float))


def residual_checks(result) -> Checks:
    """Shapiro-Wilk on the residuals and Spearman of |residual| against the fitted values."""
    from mqperf.models import pvalues

    # A weighted fit assumes the weighted residuals √wᵢ·rᵢ share one distribution (relative errors for
    # weights 1/y²): those are what its checks must test, not the raw ones.
    resid = np.asarray(result.resid, dtype=float) * _root_weights(result)
    if resid.size < MIN_RESIDUALS or result.df_resid < MIN_DF or result.resid_at_noise_level:
        return Checks(False)
    # Ranked below: values equal but for float noise must tie on every CPU (numbers.tie_noise).
    fitted = tie_noise(np.asarray(result.fittedvalues, dtype=float))
    normal = pvalues.shapiro(resid)[1] if np.ptp(resid) > 0 else 1.0
    absolute = tie_noise(np.abs(resid))
    if np.ptp(absolute) == 0 or np.ptp(fitted) == 0:
        spread = 1.0
    else:
        spread = pvalues.spearman(absolute, fitted)[1]
    return Checks(True, normal, spread if math.isfinite(spread) else 1.0)


def refits_words(converged: int, made: int) -> str:
    """How many bootstrap refits an interval rests on, in words: all of them, or how many converged
    (an interval from the refits that converged is not the interval of all of them, so it is said)."""
    if converged >= made:
        return f"{made} refits"
    if converged < made / 2:
        return f"{made} refits, of which only {converged:,} converged: too few, so the t interval is given"
    return f"{made} refits, of which {converged:,} converged (the others are left out)"


def refit_box(result, free: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The bounds a bootstrap refit of ``result`` solves within, for the parameters ``free``.

    The box the fit itself solved in (``result.bounds``): a refit solves the same problem, not a
    looser one. A refit let past the fit's bounds drew intervals over values the model excludes,
    and, along a valley the box closes (the TLS model's s0 → 0), crept for its full iteration
    budget and was dropped. A fit that states no box: parameters non-negative in the fit (σ, κ,
    costs) stay non-negative.
    """
    theta0 = result.params.to_numpy(dtype=float)[free]
    bounds = getattr(result, "bounds", None)
    if bounds is None:
        return np.where(theta0 >= 0, 0.0, -np.inf), np.full(len(free), np.inf)
    lower, upper = (np.asarray(b, dtype=float)[free] for b in bounds)
    return lower, upper


def bootstrap_conf_int(result, *, alpha: float = 0.05, refits: int = REFITS, seed: int = SEED,
                       gradient=None) -> pd.DataFrame:
    """Percentile intervals from a residual bootstrap of ``result``'s own curve.

    Each refit solves ``y* = fitted + e*`` for the curve ``result.fn`` from the fitted
    parameters, where ``e*`` resamples the residuals rescaled by √(n / df_resid) (so their
    spread matches the error variance the fit estimates). Parameters the fit holds on a bound
    stay there. Refits that fail to converge are dropped; fewer than half converging gives
    NaN intervals. ``attrs["refits"]`` of the result is (refits that converged, refits made), for
    :func:`refits_words`. ``gradient``: ∂fn/∂θ, for a refit solved one at a time.
    """
    from mqperf.models.refits import refit_all

    x, fitted = np.asarray(result.x, dtype=float), np.asarray(result.fittedvalues, dtype=float)
    sw = _root_weights(result)
    # Weighted fits resample their weighted residuals and refit with the same weights.
    resid = np.asarray(result.resid, dtype=float) * sw * math.sqrt(result.nobs / max(result.df_resid, 1))
    names = list(result.params.index)
    free = [i for i, n in enumerate(names) if n not in result.active_bounds]
    theta0 = result.params.to_numpy(dtype=float)
    lower, upper = refit_box(result, free)
    rng = np.random.default_rng(seed)
    ys = np.array([fitted + rng.choice(resid, size=resid.size, replace=True) / sw for _ in range(refits)])
    ys = ys.reshape(refits, fitted.size)
    solved = refit_all(result.fn, x, ys, sw, theta0, free, lower, upper, np.clip(theta0[free], lower, upper),
                       gradient=gradient)
    draws = [theta for theta in solved if theta is not None]
    out = pd.DataFrame(np.nan, index=names, columns=[0, 1])
    out.attrs["refits"] = (len(draws), refits)
    if len(draws) < refits / 2:
        return out
    draws = np.array(draws)
    lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    for i in free:
        out.iloc[i] = [lo[i], hi[i]]
    return out
