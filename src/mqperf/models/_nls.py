"""Bounded (weighted) nonlinear least squares shared by the small curve models.

One solver for every family, so that all of them compute standard errors, bound flags and
the exactly-identified case the same way as :mod:`mqperf.models.usl` does:

* residuals ``rᵢ = √wᵢ (yᵢ − f(xᵢ; θ))``, minimised by scipy's trust-region reflective
  method from several starts (these curves have flat valleys, one start is not enough);
* ``cov = s² (JᵀJ)⁻¹`` with ``J`` the Jacobian of the *weighted* residuals and
  ``s² = Σ rᵢ² / df_resid`` (see :func:`mqperf.models._base.covariance`);
* a parameter within a relative 1e-7 of a bound is reported in ``at_bound``; one the data
  press against its bound (see :func:`pressed_bounds`) is also in ``active_bounds``: it is
  fixed there, takes no degree of freedom, and the covariance is that of the other
  parameters (its Jacobian column dropped).

Weights follow the weighted-least-squares convention: ``wᵢ`` is proportional to
``1 / Var(yᵢ)``. ``"relative"`` means ``wᵢ = 1 / yᵢ²``: every point is assumed to carry
the same *relative* error, which suits throughputs that span an order of magnitude (an
unweighted fit would be decided by the largest rates alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from mqperf.errors import ModelError
from mqperf.models._base import NOISE_SSR, FitResult, covariance_array, jacobian


def resolve_weights(weights, y: np.ndarray) -> tuple[np.ndarray, str]:
    """Weights as an array plus a one-line description for the model card."""
    if weights is None or (isinstance(weights, str) and weights == "none"):
        return np.ones_like(y), "unweighted least squares"
    if isinstance(weights, str) and weights == "relative":
        return 1.0 / y**2, "weighted least squares, weights 1/y² (equal relative errors)"
    if isinstance(weights, str):
        raise ModelError(f"weights must be 'relative', 'none' or an array, not {weights!r}")
    w = np.asarray(weights, dtype=float).ravel()
    if w.size != y.size:
        raise ModelError(f"weights has {w.size} values but there are {y.size} observations")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ModelError("weights must be finite and greater than zero")
    return w, "weighted least squares, user weights (proportional to 1/variance)"


@dataclass(frozen=True)
class NLSFit:
    theta: np.ndarray
    cov: pd.DataFrame | None
    at_bound: tuple
    df_resid: int
    active_bounds: tuple = ()


def nls(
    fn: Callable,
    x: np.ndarray,
    y: np.ndarray,
    *,
    names: Sequence[str],
    starts: Sequence[Sequence[float]],
    lower: Sequence[float],
    upper: Sequence[float],
    weights: np.ndarray | None = None,
    label: str = "the model",
    gradient: Callable | None = None,
    batch: bool = False,
) -> NLSFit:
    """Fit ``y ≈ fn(x, *θ)`` within ``lower ≤ θ ≤ upper``; the best of several starts wins.

    ``gradient(x, *θ)``, when the curve knows it, is ∂fn/∂θ (rows as points, columns as
    parameters): the solver and the covariance use it instead of finite differences.
    ``batch``: the starts are solved together (:func:`solve`'s ``rows``), for a curve that
    broadcasts columns of parameters over ``x``. Off by default: solved together, the MVA's flat
    valley ended at points whose residual checks differed between BLAS kernels (the determinism
    test's Prescott pass); a curve is batched only where that test shows its fits do not move.
    """
    sw = np.sqrt(np.ones_like(y) if weights is None else weights)

    def residuals(theta):
        return sw * (fn(x, *theta) - y)

    def rows(thetas):
        return sw * (fn(x, *(thetas[:, [k]] for k in range(thetas.shape[1]))) - y)

    jac = None if gradient is None else (lambda theta: sw[:, None] * gradient(x, *theta))
    return solve(residuals, names=names, starts=starts, lower=lower, upper=upper, equations=y.size,
                 scale=float(np.sum((sw * y) ** 2)), label=label, jac=jac, rows=rows if batch else None)


def solve(
    residuals: Callable,
    *,
    names: Sequence[str],
    starts: Sequence[Sequence[float]],
    lower: Sequence[float],
    upper: Sequence[float],
    equations: int,
    scale: float,
    label: str = "the model",
    tol: float = 1e-14,
    max_nfev: int = 500,
    jac_floor: float = 1e-9,
    jac: Callable | None = None,
    rows: Callable | None = None,
) -> NLSFit:
    """Minimise ``Σ residuals(θ)²`` within ``lower ≤ θ ≤ upper``: THE least-squares solver.

    Every fitted curve of the book goes through here (:func:`nls` for ``y ≈ f(x; θ)``, the
    USL with its constraint equations directly), so starts, the choice among near-equal
    minima, bound flags, degrees of freedom and covariance are computed one way.

    Parameters
    ----------
    residuals
        θ -> residual vector (weighted, constraint equations appended).
    equations
        Rows of that vector: observations plus equality constraints.
    scale
        Σ (weighted y)²: what "noise" in the residual sum is relative to.
    tol, max_nfev
        Solver tolerances (ftol = xtol = gtol) and evaluation cap per start.
    jac_floor
        Smallest magnitude the Jacobian's finite-difference step is relative to.
    jac
        θ -> the Jacobian of ``residuals`` (rows as residuals, columns as parameters), when the
        model knows it in closed form: the solver and the covariance then use it instead of
        finite differences (faster, and exact).
    rows
        Rows of θ -> their residuals at once, when the curve evaluates arrays of parameters: the
        starts are then solved together (:func:`mqperf.models.refits.minimise_rows`), and a start
        that does not reach a stationary point there is solved by ``least_squares`` as every start
        otherwise is. The winner is polished by ``least_squares`` either way (:func:`polish`).
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    solutions = []
    options = dict(ftol=tol, xtol=tol, gtol=tol, max_nfev=max_nfev, jac=jac if jac is not None else "2-point")
    with np.errstate(all="ignore"):
        inside = [_inside(start, lower, upper) for start in start_order(starts)]
        # Below this cost a start went through the points (:func:`pick_best`'s floor for an exact fit).
        batched = _batched_starts(rows, residuals, inside, lower, upper, 1e-20 * max(scale, 0.0))
        for theta0, done in zip(inside, batched):
            if done is not None:
                solutions.append(done)
                continue
            try:
                # The evaluation cap keeps a start that wanders along a flat valley (an exactly
                # identified curve whose plateau runs off to its bound) from taking minutes.
                sol = least_squares(residuals, theta0, bounds=(lower, upper), method="trf", x_scale="jac",
                                    **options)
            except (ValueError, FloatingPointError):
                continue
            if np.all(np.isfinite(sol.x)) and np.isfinite(sol.cost):
                solutions.append(sol)
        if not solutions:
            raise ModelError(f"{label}: the least-squares fit did not converge")
        best = polish(residuals, pick_best(solutions, scale=scale), lower, upper, scale=scale, **options)
    theta = best.x
    bound_tol = 1e-7
    at_bound = tuple(
        p for p, v, lo, hi in zip(names, theta, lower, upper)
        if (np.isfinite(lo) and v <= lo + bound_tol * max(1.0, abs(lo)))
        or (np.isfinite(hi) and v >= hi - bound_tol * max(1.0, abs(hi)))
    )
    # Snap a parameter that sits on its (finite) lower bound onto it: reports say 0, not 1e-17.
    snap = np.isfinite(lower) & (np.abs(theta - lower) <= 1e-12 * np.maximum(1.0, np.abs(lower)))
    theta = np.where(snap, lower, theta)
    matrix = np.asarray(jac(theta), dtype=float) if jac is not None else jacobian(residuals, theta, floor=jac_floor)
    resid = residuals(theta)
    active = pressed_bounds(matrix, resid, theta, lower, upper, names, at_bound, scale=scale)
    df_resid = equations - len(names) + len(active)
    cov = scaled_covariance(matrix, resid, df_resid, list(names), fixed=active)
    return NLSFit(theta=theta, cov=cov, at_bound=at_bound, df_resid=df_resid, active_bounds=active)


def _inside(start, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """A start clipped strictly inside the box: TRF refuses a start on a bound."""
    theta0 = np.clip(np.asarray(start, dtype=float), lower, upper)
    span = np.where(np.isfinite(upper - lower), upper - lower, np.abs(theta0) + 1.0)
    return np.clip(theta0, lower + 1e-9 * span, upper - 1e-9 * span)


@dataclass(frozen=True)
class _Solved:
    """A start solved in the batch: what :func:`pick_best` and :func:`polish` read of a solution."""

    x: np.ndarray
    cost: float


#: Batched starts that stopped short of a stationary point with a cost within this fraction of
#: the batch's least are in the valley the best one is in: only the best is carried on (polished).
VALLEY_TIE = 1e-4


def _batched_starts(rows, residuals, starts: list, lower: np.ndarray, upper: np.ndarray, exact_cost: float) -> list:
    """Per start, its batched solution, or None where ``least_squares`` must solve it (no ``rows``,
    a curve whose rows disagree with ``residuals``, or a start that did not converge).

    A start that stalled with a cost tied with the batch's least (:data:`VALLEY_TIE`) is still
    creeping along the best one's flat valley: it is taken as it is, since the polish carries the
    best on and 500 more evaluations of its own would only creep further.
    """
    if rows is None or len(starts) < 2:
        return [None] * len(starts)
    from mqperf.models.refits import minimise_rows, rows_agree

    if not rows_agree(rows, residuals, np.vstack(starts[:2])):
        return [None] * len(starts)
    theta, cost, ok = minimise_rows(rows, np.vstack(starts), lower, upper, exact_cost=exact_cost)
    finite = np.isfinite(cost) & np.all(np.isfinite(theta), axis=1)
    least = float(np.min(cost[finite])) if finite.any() else np.inf
    taken = ok | (finite & (cost <= least * (1 + VALLEY_TIE)))
    return [_Solved(theta[i].copy(), float(cost[i])) if taken[i] else None for i in range(len(starts))]


def pressed_bounds(jac: np.ndarray, resid: np.ndarray, theta, lower, upper, names, at_bound, *,
                   scale: float) -> tuple:
    """The parameters in ``at_bound`` that the data press against their bound.

    At a bound the gradient of the cost ½‖r‖², ``g = Jᵀr``, says which way the data pull:
    g > 0 at a lower bound (or g < 0 at an upper one) means the cost would fall past the
    bound, so the bound is active and holds the parameter. The test is on the cosine between
    r and the parameter's Jacobian column (above 1e-6), so it does not depend on units. When
    the residuals are float noise (``‖r‖² ≤ NOISE_SSR · scale``) nothing is pressed: the
    curve goes through the points and a parameter on its bound is simply estimated there.
    """
    rr = float(resid @ resid)
    if rr <= NOISE_SSR * (scale or 1.0):
        return ()
    grad = jac.T @ resid
    norms = np.linalg.norm(jac, axis=0) * math.sqrt(rr)
    out = []
    for j, p in enumerate(names):
        if p not in at_bound or not norms[j] > 0:
            continue
        cos = grad[j] / norms[j]
        near_lower = np.isfinite(lower[j]) and abs(theta[j] - lower[j]) <= abs(theta[j] - upper[j])
        if (near_lower and cos > 1e-6) or (not near_lower and cos < -1e-6):
            out.append(p)
    return tuple(out)


#: Whether multi-start fits try their starts in reverse: the determinism test sets it (through
#: :func:`reverse_starts`) to prove the book does not depend on the order. Never read from the
#: environment: a test or a kernel's preload sets it explicitly.
REVERSED = False


def reverse_starts(on: bool = True) -> None:
    """Try every multi-start fit's starts in reverse (``on``) or as given: the determinism test's switch."""
    global REVERSED
    REVERSED = bool(on)


def start_order(starts: Sequence) -> list:
    """The starts in the order to try them: as given, reversed after :func:`reverse_starts`.

    The result must never depend on this order (:func:`pick_best` decides by a fixed rule);
    the switch exists so that a test can prove it.
    """
    starts = list(starts)
    return starts[::-1] if REVERSED else starts


def pick_best(solutions: Sequence, *, scale: float) -> object:
    """The solution with the least cost; near-ties decided by the parameters, not start order.

    Costs within 1e-9 of each other (relative), or all below 1e-20 of ``scale`` (an exact
    fit: what is left is float noise), are ties. Among ties the one whose parameters,
    rounded to 9 significant digits, sort first wins: a fixed rule, so the choice does not
    change with the order the starts ran in or with the last bits of the costs.
    """
    from mqperf.numbers import round_sig

    floor = 1e-20 * max(scale, 0.0)
    least = min(float(s.cost) for s in solutions)
    ties = [s for s in solutions if float(s.cost) <= least * (1 + 1e-9) + floor]
    return min(ties, key=lambda s: tuple(round_sig(v, 9) for v in s.x))


def polish(residuals: Callable, best, lower: np.ndarray, upper: np.ndarray, *, scale: float, **options):
    """Re-solve from ``best``'s parameters rounded to 9 significant digits; the result if no worse.

    Starts that reach the same minimum stop a few ulps apart, and which of them wins can
    depend on start order or thread count. Every such winner rounds to the same 9-digit
    point, and one more solve from there gives the same bits on every run; it also finishes
    a winner that stopped at its evaluation cap.
    """
    from mqperf.numbers import round_sig

    theta0 = np.array([round_sig(v, 9) for v in best.x], dtype=float)
    span = np.where(np.isfinite(upper - lower), upper - lower, np.abs(theta0) + 1.0)
    theta0 = np.clip(theta0, lower + 1e-12 * span, upper - 1e-12 * span)
    try:
        with np.errstate(all="ignore"):
            sol = least_squares(residuals, theta0, bounds=(lower, upper), method="trf", x_scale="jac", **options)
    except (ValueError, FloatingPointError):
        return best
    ok = np.all(np.isfinite(sol.x)) and float(sol.cost) <= float(best.cost) * (1 + 1e-9) + 1e-20 * max(scale, 0.0)
    return sol if ok else best


def scaled_covariance(jac: np.ndarray, resid: np.ndarray, df_resid: int, names, fixed=()) -> pd.DataFrame | None:
    """:func:`mqperf.models._base.covariance` on column-scaled J, then scaled back.

    Parameters of very different sizes (a fixed time of 3e-5 s beside a bandwidth of
    1e8 B/s) make JᵀJ look singular to a rank test although it is not; scaling each
    column to unit length first makes the test about the shape of the problem only.
    """
    norms = np.linalg.norm(jac, axis=0)
    free = np.array([p not in fixed for p in names])
    if np.any(norms[free] == 0) or not np.all(np.isfinite(norms[free])):
        return None
    norms = np.where(free, norms, 1.0)  # a fixed column is dropped: its scale does not matter
    cov = covariance_array(jac / norms, resid, df_resid, names, fixed=fixed)
    if cov is None:
        return None
    return pd.DataFrame(cov / np.outer(norms, norms), index=list(names), columns=list(names))


def check_pairs(x, y, xname: str, yname: str, *, k: int, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate two positive arrays of equal length with at least ``k`` distinct x values."""
    from mqperf.models._base import as_positive_array

    x = as_positive_array(x, xname)
    y = as_positive_array(y, yname)
    if x.size != y.size:
        raise ModelError(f"{xname} has {x.size} values but {yname} has {y.size}")
    distinct = np.unique(x).size
    if distinct < k:
        raise ModelError(
            f"{label} has {k} parameters: it needs at least {k} distinct values of {xname}; got {distinct}"
        )
    return x, y


@dataclass(frozen=True)
class WeightedFitResult(FitResult):
    """A FitResult from a weighted fit: ``ssr``/``rmse`` stay unweighted (in y's units);
    ``wssr`` and ``wrmse`` are on the scale the fit minimised (relative for 1/y² weights)."""

    weights: np.ndarray | None = None

    @property
    def wssr(self) -> float:
        """Weighted sum of squared residuals Σ wᵢ rᵢ², the quantity the fit minimised."""
        w = np.ones_like(self.y) if self.weights is None else self.weights
        return float(np.sum(w * self.resid**2))

    @property
    def wrmse(self) -> float:
        """sqrt(wssr / df_resid); with weights 1/y² the typical relative error. NaN without residual df."""
        return math.sqrt(self.wssr / self.df_resid) if self.df_resid > 0 else math.nan

    def new_measurement_var(self, fit: np.ndarray) -> np.ndarray:
        """Variance of one new measurement where the curve is ``fit``, for the prediction band.

        wᵢ ∝ 1/Var(yᵢ), so a new point's variance is ``wrmse² / w(x)``: ``wrmse²`` with equal
        weights, ``wrmse² · fit²`` with 1/y² weights (equal relative errors). Weights given point
        by point say nothing about a new x: NaN there (no prediction band rather than a made-up one).
        """
        fit = np.asarray(fit, dtype=float)
        w = np.ones_like(self.y) if self.weights is None else np.asarray(self.weights, dtype=float)
        if np.allclose(w, w[0], rtol=1e-12, atol=0):
            return np.full_like(fit, self.wrmse**2 / w[0])
        if np.allclose(w * self.y**2, 1.0, rtol=1e-9, atol=0):
            return self.wrmse**2 * fit**2
        return np.full_like(fit, np.nan)

    def fit_stats(self) -> dict:
        from mqperf.models._base import round_sig

        stats = super().fit_stats()
        if isinstance(stats["mape_pct"], float) and math.isnan(stats["mape_pct"]):
            stats["mape_pct"] = None  # a zero observation has no percentage error; JSON has no NaN
        stats["wssr"] = round_sig(self.wssr)
        stats["wrmse"] = None if math.isnan(self.wrmse) else round_sig(self.wrmse)
        return stats
