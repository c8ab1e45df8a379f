"""Many small fits of one curve at once: the bootstrap's refits, and a multi-start fit's starts.

A bootstrap interval refits the fitted curve to 199 resampled datasets from the fitted
parameters. One :func:`scipy.optimize.least_squares` call per refit costs a few milliseconds of
Python for a problem of three parameters and a dozen points, so a bootstrap took a second and
was most of a fleet row's time. :func:`refit_all` solves all of them together: a
Levenberg-Marquardt iteration on arrays of shape (refits, points), with the parameters kept in
their box by an active set (a parameter on a bound that the gradient pushes outward is held
there, the others move).

Every refit is then checked: it counts only when it converged (relative decrease of the
cost below 1e-12 after an accepted step, or no step left that lowers it) with a finite
result. A refit that did not converge, and any when the curve cannot be evaluated on arrays of
refits (a curve written for one parameter vector), is solved by ``least_squares`` as before,
one at a time, so the answer never depends on whether the fast path applied. Both solve the
same problem from the same start; the batched solve goes to a tighter tolerance than
``least_squares``' defaults (which stop at a relative 1e-8 of the cost).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from mqperf.errors import ModelError

#: Iterations before a refit is handed to ``least_squares``.
MAX_ITER = 1000
#: Relative decrease of the cost below which an accepted step ends a refit.
FTOL = 1e-12


def refit_all(fn: Callable, x: np.ndarray, ys: np.ndarray, scales: np.ndarray, theta0: np.ndarray, free: list[int],
              lower: np.ndarray, upper: np.ndarray, start: np.ndarray, *, x_scale_jac: bool = False,
              gradient: Callable | None = None) -> list:
    """Minimise ``Σ (scales_b · (fn(x, θ) − ys_b))²`` for every row b, over ``θ[free]`` within
    ``[lower, upper]``, from ``start`` (the other parameters fixed at ``theta0``).

    Parameters
    ----------
    ys
        Shape (refits, points): the resampled responses.
    scales
        Shape (points,) or (refits, points): √weights of the residuals.
    x_scale_jac
        Passed on to the ``least_squares`` fallback as ``x_scale="jac"`` (what the caller used before).
    gradient
        ``gradient(x, *θ)`` = ∂fn/∂θ (rows as points), when the curve knows it: the fallback's Jacobian.

    Returns
    -------
    list
        Per row, the full parameter vector (``theta0`` with the free ones solved), or None when the
        refit failed (as a failed ``least_squares`` refit was dropped).
    """
    ys = np.asarray(ys, dtype=float)
    scales = np.broadcast_to(np.asarray(scales, dtype=float), ys.shape)
    solved, ok = _batched(fn, x, ys, scales, theta0, free, lower, upper, start)
    out = []
    for b in range(ys.shape[0]):
        if ok[b]:
            theta = theta0.copy()
            theta[free] = solved[b]
            out.append(theta)
        else:
            out.append(_one(fn, x, ys[b], scales[b], theta0, free, lower, upper, start, x_scale_jac, gradient))
    return out


def _one(fn, x, y, scale, theta0, free, lower, upper, start, x_scale_jac, gradient=None):
    """One refit by ``least_squares``: what every refit was before, and the fallback now."""
    from scipy.optimize import least_squares

    def full(th):
        theta = theta0.copy()
        theta[free] = th
        return theta

    def residuals(th):
        return scale * (fn(x, *full(th)) - y)

    def jac(th):
        return scale[:, None] * np.asarray(gradient(x, *full(th)), dtype=float)[:, free]

    try:
        sol = least_squares(residuals, start, bounds=(lower, upper), method="trf",
                            jac=jac if gradient is not None else "2-point",
                            **({"x_scale": "jac"} if x_scale_jac else {}))
    except (ValueError, np.linalg.LinAlgError):
        return None
    if sol.success and np.all(np.isfinite(sol.x)):
        theta = theta0.copy()
        theta[free] = sol.x
        return theta
    return None


def _curve(fn, x, theta0, free, th):
    """fn on every row's parameters at once: shape (rows, points); columns of θ broadcast over x."""
    cols = [np.full((th.shape[0], 1), v) for v in theta0]
    for k, i in enumerate(free):
        cols[i] = th[:, k:k + 1]
    return np.asarray(fn(x, *cols), dtype=float)


def rows_agree(rows: Callable, one: Callable, probe: np.ndarray) -> bool:
    """Whether ``rows(probe)`` gives, row for row, what ``one(θ)`` gives for each row θ of ``probe``:
    only then is a curve trusted with rows of parameters (one written for a single vector, or that
    broadcasts them another way, is solved one at a time)."""
    try:
        with np.errstate(all="ignore"):
            many = np.asarray(rows(probe), dtype=float)
            single = np.vstack([np.asarray(one(theta), dtype=float) for theta in probe])
    except Exception:  # noqa: BLE001 - a curve written for scalars: the one-at-a-time path
        return False
    return many.shape == single.shape and np.allclose(many, single, rtol=1e-12, atol=0, equal_nan=True)


def _vectorises(fn, x, theta0, free, start, points: int) -> bool:
    """Whether ``fn`` evaluates rows of parameters at once, to the same values as one at a time."""
    def one(row):
        theta = theta0.copy()
        theta[free] = row
        return fn(x, *theta)

    probe = np.vstack([start, start * (1 + 1e-3) + 1e-12])
    return rows_agree(lambda p: _curve(fn, x, theta0, free, p), one, probe) and np.shape(one(probe[0])) == (points,)


def _batched(fn, x, ys, scales, theta0, free, lower, upper, start):
    rows, points = ys.shape
    scales = np.broadcast_to(np.asarray(scales, dtype=float), ys.shape)
    q = len(free)
    ok = np.zeros(rows, dtype=bool)
    th = np.tile(np.asarray(start, dtype=float), (rows, 1))
    if q == 0 or not _vectorises(fn, x, theta0, free, th[0], points):
        return th, ok

    def resid(t, idx):
        return scales[idx] * (_curve(fn, x, theta0, free, t) - ys[idx])

    try:
        return _iterate(resid, rows, q, th, lower, upper)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError, ModelError):
        # The curve refused a trial point (a model's own domain check): one at a time, as before.
        return th, ok


def _iterate(resid, rows, q, th, lower, upper, exact_cost: float = 0.0):
    every = np.arange(rows)
    with np.errstate(all="ignore"):
        r = resid(th, every)
        cost = 0.5 * np.sum(r * r, axis=1)
        mu = np.full(rows, 1e-3)  # Marquardt's damping, relative to the diagonal of JᵀJ
        done = ~np.isfinite(cost)
        failed = done.copy()
        eye = np.eye(q)
        edges = _edges(lower, upper)  # once per solve, not per iteration
        for _ in range(MAX_ITER):
            idx = np.flatnonzero(~done)
            if idx.size == 0:
                break
            t, rl, c0, m = th[idx], r[idx], cost[idx], mu[idx]
            jac = _jacobian(resid, t, idx)
            grad = np.einsum("bnk,bn->bk", jac, rl)
            held = _held(t, grad, edges)
            a = np.einsum("bnk,bnl->bkl", jac, jac)
            diag = np.diagonal(a, axis1=1, axis2=2)
            system = a + m[:, None, None] * (eye * np.where(diag > 0, diag, 1.0)[:, None, :])
            moving = ~held
            if held.any():  # most iterations hold nothing on a bound: the system as it is
                system = np.where(moving[:, :, None] & moving[:, None, :], system, eye)
                rhs = np.where(moving, -grad, 0.0)
            else:
                rhs = -grad
            try:
                step = np.linalg.solve(system, rhs[..., None])[..., 0]
            except np.linalg.LinAlgError:
                break
            trial = np.clip(t + step, lower, upper)
            rt = resid(trial, idx)
            ct = 0.5 * np.sum(rt * rt, axis=1)
            better = np.isfinite(ct) & (ct < c0)
            acc = idx[better]
            th[acc], r[acc], cost[acc] = trial[better], rt[better], ct[better]
            m = np.where(better, m * 0.3, m * 10.0)
            mu[idx] = m
            finished = (better & (c0 - ct <= FTOL * c0)) | (~better & (m > 1e12)) | (c0 == 0) | ~moving.any(axis=1)
            done[idx[finished]] = True
        ok = done & ~failed & np.all(np.isfinite(th), axis=1)
        idx = np.flatnonzero(ok)
        if idx.size:
            ok[idx] = _stationary(resid, th[idx], r[idx], idx, lower, upper, exact_cost)
    return th, ok


def minimise_rows(resid_rows, starts: np.ndarray, lower: np.ndarray, upper: np.ndarray, *, exact_cost: float = 0.0):
    """Minimise ``Σ resid_rows(θ)²`` from each row of ``starts`` at once (a multi-start fit).

    ``resid_rows(T)`` gives the residuals of every row of parameters ``T`` (shape (rows, points)).
    Returns the solutions, their costs (½ Σ r², as ``least_squares`` reports) and which rows
    converged to a stationary point; the caller solves the others one at a time. A row whose cost
    is at most ``exact_cost`` went through the points (what is left is float noise, whose
    direction the stationarity test cannot judge): it counts as converged.
    """
    th = np.array(starts, dtype=float)
    rows = th.shape[0]
    try:
        th, ok = _iterate(lambda t, idx: resid_rows(t), rows, th.shape[1], th, lower, upper, exact_cost)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError, ModelError):
        return th, np.full(rows, np.inf), np.zeros(rows, dtype=bool)
    with np.errstate(all="ignore"):
        r = resid_rows(th)
        cost = 0.5 * np.sum(r * r, axis=1)
    return th, cost, ok & np.isfinite(cost)


def _held(t, grad, edges):
    """Parameters on a bound (``edges``: :func:`_edges`) that the gradient of the cost pushes outward."""
    lo_edge, hi_edge = edges
    return ((t <= lo_edge) & (grad > 0)) | ((t >= hi_edge) & (grad < 0))


def _edges(lower, upper):
    """Where a parameter counts as on its lower or upper bound (within 1e-15, relative beyond 1)."""
    return lower + 1e-15 * np.maximum(1, np.abs(lower)), upper - 1e-15 * np.maximum(1, np.abs(upper))


def _stationary(resid, t, r, idx, lower, upper, exact_cost: float = 0.0):
    """Rows where every parameter not held on a bound has a gradient the residuals are orthogonal
    to (cosine between r and its Jacobian column at most 1e-5; scale-free, as
    :func:`mqperf.models._nls.pressed_bounds` tests): a true minimum, not a stalled iteration."""
    jac = _jacobian(resid, t, idx)
    grad = np.einsum("bnk,bn->bk", jac, r)
    norms = np.linalg.norm(jac, axis=1) * np.linalg.norm(r, axis=1)[:, None]
    cos = np.where(norms > 0, np.abs(grad) / np.where(norms > 0, norms, 1.0), 0.0)
    exact = 0.5 * np.sum(r * r, axis=1) <= exact_cost
    return exact | np.all((cos <= 1e-5) | _held(t, grad, _edges(lower, upper)), axis=1)


def _jacobian(resid, th, idx):
    """Central differences per parameter column, all rows at once: shape (rows, points, params).

    The 2·params perturbed copies of every row go to the curve in one call (rows repeated in
    ``idx``): the same points as one call per column, but one pass of the curve's own loop (the
    MVA's recursion runs once per client count for the whole array, whatever its length)."""
    rows, q = th.shape
    h = 1e-6 * np.maximum(np.abs(th), 1e-9)
    own = np.eye(q, dtype=bool)[:, None, :]  # (column perturbed, 1, parameter)
    up = np.where(own, th + h, th)            # (q, rows, q): copy k has θ_k + h_k, the rest as they are
    down = np.where(own, th - h, th)
    r = resid(np.concatenate([up, down]).reshape(2 * q * rows, q), np.tile(idx, 2 * q))
    r = r.reshape(2, q, rows, -1)
    return np.ascontiguousarray(((r[0] - r[1]) / (2 * h.T)[:, :, None]).transpose(1, 2, 0))
