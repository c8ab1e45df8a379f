"""CPU cost per operation against configuration factors, and a capacity calculator.

Regression of a cost (CPU microseconds per MQCONNX+MQDISC, say) on categorical factors by
ordinary least squares, with statsmodels' formulas and numbers (:mod:`mqperf.models.formula`):

    additive:      cost ~ C(sharecnv) + C(listener) + C(tls)
    interaction:   cost ~ C(sharecnv) * C(listener)

The additive model says each setting adds a fixed cost whatever the others are (seed 003's
table is written that way: "+380" for TLS); the interaction model lets an effect depend on
another setting (a shared listener costs more with SHARECNV(1) than with SHARECNV(0)).
With one measurement per combination the interaction model has as many parameters as cells:
it is exactly identified and reports no intervals. Intervals are statsmodels' OLS intervals
(Student-t on the residual df, non-robust covariance), i.e. the same Wald intervals as every
other model.

Capacity: ``rate × cost`` is CPU seconds per second, i.e. engines kept busy;
``cpu_seconds_per_hour`` and ``engines_needed`` turn a connection (or message) rate and a
cost per operation into what a capacity planner asks for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._base import FitResult


def additive_formula(response: str, factors) -> str:
    """``response ~ C(f1) + C(f2) + …``: each factor a categorical main effect."""
    return f"{response} ~ " + " + ".join(f"C({f})" for f in factors)


def interaction_formula(response: str, factors) -> str:
    """``response ~ C(f1) * C(f2) * …``: main effects and all their interactions."""
    return f"{response} ~ " + " * ".join(f"C({f})" for f in factors)


def _linear(exog, *beta):
    return np.asarray(exog, dtype=float) @ np.asarray(beta, dtype=float)


@dataclass(frozen=True)
class CostResult(FitResult):
    """A fitted cost regression: its design (formula and levels) and least-squares solution (``ols``)."""

    design: object = field(default=None, repr=False)
    ols: object = field(default=None, repr=False)

    def predict(self, x) -> np.ndarray:
        """Cost for new configurations: a DataFrame with the factor columns (or a design matrix)."""
        if isinstance(x, pd.DataFrame):
            return np.dot(self.design.matrix(x), np.asarray(self.params, dtype=float))
        return super().predict(x)

    def conf_band(self, x, alpha: float = 0.05) -> pd.DataFrame:
        """Mean cost with its confidence interval for each configuration in the DataFrame ``x``."""
        if not isinstance(x, pd.DataFrame):
            raise ModelError("conf_band of a cost regression needs a DataFrame of factor levels")
        fit = self.predict(x)
        if self.exactly_identified:
            nan = np.full_like(fit, np.nan)
            return x.assign(fit=fit, lower=nan, upper=nan)
        _, lower, upper = self.ols.mean_interval(self.design.matrix(x), alpha)
        return x.assign(fit=fit, lower=lower, upper=upper)

    def cost_for(self, **levels) -> float:
        """Modelled cost of one configuration, e.g. ``cost_for(sharecnv=0, listener="shared")``."""
        return float(self.predict(pd.DataFrame([levels]))[0])


def fit(data: pd.DataFrame, formula: str, *, data_name: str | None = None, data_hash: str | None = None) -> CostResult:
    """OLS of a cost on categorical factors, given as a formula.

    Parameters
    ----------
    data
        One row per measured configuration; the response column must be > 0.
    formula
        ``y ~ 1``, ``y ~ x``, or categorical factors as :func:`additive_formula` and
        :func:`interaction_formula` write them (:mod:`mqperf.models.formula`). Rows missing a
        factor are left out, as statsmodels leaves them out.

    Raises
    ------
    ModelError
        A missing column, a non-positive or missing cost, fewer rows than parameters, or a
        design the data cannot identify (an interaction needs every combination measured).
    """
    from mqperf.models import formula as formulas

    response = formula.split("~")[0].strip()
    if response not in data.columns:
        raise ModelError(f"response column {response!r} not in the data")
    y = pd.to_numeric(data[response], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(y)):
        raise ModelError(f"{response}: contains a missing or non-numeric value")
    if np.any(y <= 0):
        raise ModelError(f"{response}: costs must be greater than zero (found {y.min():g})")
    design = formulas.parse(formula, data)
    used = formulas.used_columns(design)
    data = data.loc[data[used].notna().all(axis=1)]
    y = pd.to_numeric(data[response], errors="coerce").to_numpy(dtype=float)
    exog = design.matrix(data)
    names = list(design.names)
    if exog.shape[0] < exog.shape[1]:
        raise ModelError(f"{formula!r} has {exog.shape[1]} parameters but only {exog.shape[0]} rows")
    rank = np.linalg.matrix_rank(exog)
    if rank < exog.shape[1]:
        raise ModelError(
            f"{formula!r} has {exog.shape[1]} parameters but the data identify only {rank}: "
            "some factor combination is missing (an interaction needs every combination measured)"
        )
    ols = formulas.OLS.fit(exog, y)
    df_resid = exog.shape[0] - exog.shape[1]
    cov = None if df_resid == 0 else pd.DataFrame(ols.cov_params(), index=names, columns=names)
    notes = ["ordinary least squares, categorical factors with treatment coding"]
    if df_resid == 0:
        notes.append("exactly identified: one parameter per measured cell, so no standard errors or intervals")
    return CostResult(
        model="cost_regression", formula=formula,
        params=pd.Series(np.asarray(ols.params, dtype=float), index=names), cov=cov, x=exog, y=y,
        fn=_linear, units={p: f"{response} units" for p in names}, notes=tuple(notes),
        data_name=data_name, data_hash=data_hash, design=design, ols=ols,
    )


def cpu_seconds_per_hour(rate_per_s, cost_us):
    """CPU seconds per hour = rate (per second) × cost (CPU µs) × 1e-6 × 3600."""
    rate, cost = _check_rate_cost(rate_per_s, cost_us)
    return rate * cost * 1e-6 * 3600


def engines_needed(rate_per_s, cost_us, *, max_utilisation: float = 1.0):
    """Engines (CPUs) to carry the work: busy engines = rate × cost × 1e-6, divided by the
    highest utilisation you accept, rounded up. Returns (busy_engines, engines).

    A planner usually keeps general-purpose engines below 70–85 % busy; seed 000 reports
    delays for want of CPUs at 75 %.
    """
    if not 0 < max_utilisation <= 1:
        raise ModelError(f"max_utilisation must be in (0, 1], not {max_utilisation}")
    rate, cost = _check_rate_cost(rate_per_s, cost_us)
    busy = rate * cost * 1e-6
    # Round before ceil so that 1.0000000000000002 engines is 1, not 2.
    return busy, np.ceil(np.round(busy / max_utilisation, 9)).astype(int)


def capacity_table(rates_per_s, cost_us, *, max_utilisation: float = 1.0) -> pd.DataFrame:
    """One row per rate: CPU seconds per hour, busy engines and engines needed."""
    rates = np.atleast_1d(np.asarray(rates_per_s, dtype=float))
    busy, engines = engines_needed(rates, cost_us, max_utilisation=max_utilisation)
    return pd.DataFrame({
        "rate_per_s": rates,
        "cpu_s_per_hour": cpu_seconds_per_hour(rates, cost_us),
        "busy_engines": busy,
        "engines_needed": engines,
    })


def _check_rate_cost(rate, cost):
    rate = np.asarray(rate, dtype=float)
    cost = np.asarray(cost, dtype=float)
    if not (np.all(np.isfinite(rate)) and np.all(np.isfinite(cost))):
        raise ModelError("rate and cost must be finite")
    if np.any(rate < 0):
        raise ModelError("rate must be ≥ 0")
    if np.any(cost <= 0):
        raise ModelError("cost per operation must be greater than zero")
    return rate, cost
