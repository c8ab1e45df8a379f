"""The bootstrap's batched refits (mqperf.models.refits) against one ``least_squares`` per refit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import least_squares

from mqperf.models import refits, saturation, usl


def _usl_problem(seed: int, rows: int = 60, noise: float = 0.03):
    rng = np.random.default_rng(seed)
    lam, sigma, kappa = rng.uniform(2000, 30000), rng.uniform(0.0, 0.15), rng.uniform(0.0, 0.006)
    n = np.array([1, 2, 3, 4, 6, 8, 12, 16], dtype=float)
    truth = usl.throughput(n, lam, sigma, kappa)
    ys = truth * (1 + rng.normal(0, noise, (rows, n.size)))
    return n, ys, np.array([lam, sigma, kappa])


def _tight(fn, x, y, scale, theta0, free, lower, upper, start):
    """The same refit by least_squares at tolerances far below the defaults: the reference minimum."""
    def residuals(th):
        theta = theta0.copy()
        theta[free] = th
        return scale * (fn(x, *theta) - y)

    sol = least_squares(residuals, start, bounds=(lower, upper), method="trf", x_scale="jac",
                        ftol=1e-15, xtol=1e-15, gtol=1e-15, max_nfev=20000)
    theta = theta0.copy()
    theta[free] = sol.x
    return theta, float(np.sum(residuals(sol.x) ** 2))


def _cost(fn, x, y, scale, theta):
    return float(np.sum((scale * (fn(x, *theta) - y)) ** 2))


@pytest.mark.parametrize("seed", range(6))
def test_batched_refits_reach_the_reference_minimum(seed):
    n, ys, theta0 = _usl_problem(seed)
    lower, upper = np.zeros(3), np.array([np.inf, 1.0, 1.0])
    start = np.clip(theta0, lower + 1e-12, upper - 1e-12)
    solved, ok = refits._batched(usl.throughput, n, ys, 1.0 / ys, theta0, [0, 1, 2], lower, upper, start)
    assert ok.mean() > 0.9  # the fast path takes almost all of them
    for b in np.flatnonzero(ok):
        ref, ref_cost = _tight(usl.throughput, n, ys[b], 1.0 / ys[b], theta0, [0, 1, 2], lower, upper, start)
        got = _cost(usl.throughput, n, ys[b], 1.0 / ys[b], solved[b])
        assert got <= ref_cost * (1 + 1e-7) + 1e-25, (b, solved[b], ref)
        inside = (ref > 1e-6 * np.maximum(theta0, 1e-3)) & (ref < upper - 1e-9)
        # Where the minimum is inside the box it is one point: both solvers find it.
        assert np.allclose(solved[b][inside], ref[inside], rtol=1e-5), (b, solved[b], ref)


def test_a_parameter_the_data_push_past_its_bound_is_held_on_it():
    # A falling line fitted with a slope bounded below by 0: the minimum is on the bound.
    x = np.arange(1.0, 9.0)
    rng = np.random.default_rng(3)
    ys = 100 - 2 * x + rng.normal(0, 0.5, (40, x.size))

    def line(x, a, b):
        return a + b * x

    theta0 = np.array([90.0, 0.5])
    solved, ok = refits._batched(line, x, ys, np.ones(x.size), theta0, [0, 1], np.array([-np.inf, 0.0]),
                                 np.array([np.inf, np.inf]), theta0.copy())
    assert ok.all()
    assert np.all(solved[:, 1] == 0.0)
    assert np.allclose(solved[:, 0], ys.mean(axis=1), rtol=1e-9)  # with b held at 0, a is the mean


def test_a_curve_written_for_one_parameter_vector_is_refitted_one_at_a_time():
    n, ys, theta0 = _usl_problem(11, rows=8)

    def scalar_only(x, lam, sigma, kappa):
        return np.array([lam * v / (1 + sigma * (v - 1) + kappa * v * (v - 1)) for v in x]) + 0 * float(lam)

    lower, upper = np.zeros(3), np.array([np.inf, 1.0, 1.0])
    start = np.clip(theta0, lower + 1e-12, upper - 1e-12)
    assert not refits._vectorises(scalar_only, n, theta0, [0, 1, 2], start, n.size)
    got = refits.refit_all(scalar_only, n, ys, 1.0 / ys, theta0, [0, 1, 2], lower, upper, start, x_scale_jac=True)
    one = [refits._one(scalar_only, n, ys[b], 1.0 / ys[b], theta0, [0, 1, 2], lower, upper, start, True)
           for b in range(len(ys))]
    assert all(np.array_equal(a, b) for a, b in zip(got, one))


def test_a_refit_that_does_not_converge_in_time_goes_to_least_squares(monkeypatch):
    n, ys, theta0 = _usl_problem(5, rows=10)
    lower, upper = np.zeros(3), np.array([np.inf, 1.0, 1.0])
    start = np.clip(theta0 * 1.5, lower + 1e-12, upper - 1e-12)
    monkeypatch.setattr(refits, "MAX_ITER", 1)
    _, ok = refits._batched(usl.throughput, n, ys, 1.0 / ys, theta0, [0, 1, 2], lower, upper, start)
    assert not ok.any()
    got = refits.refit_all(usl.throughput, n, ys, 1.0 / ys, theta0, [0, 1, 2], lower, upper, start, x_scale_jac=True)
    one = [refits._one(usl.throughput, n, ys[b], 1.0 / ys[b], theta0, [0, 1, 2], lower, upper, start, True)
           for b in range(len(ys))]
    assert all(np.array_equal(a, b) for a, b in zip(got, one))


def test_fixed_parameters_stay_where_the_fit_put_them():
    n, ys, theta0 = _usl_problem(7, rows=20)
    lower, upper = np.zeros(2), np.array([np.inf, 1.0])
    got = refits.refit_all(usl.throughput, n, ys, 1.0 / ys, theta0, [0, 1], lower, upper,
                           np.clip(theta0[:2], 1e-12, None), x_scale_jac=True)
    assert all(theta is not None and theta[2] == theta0[2] for theta in got)


def test_an_unusable_refit_is_dropped_not_invented():
    x = np.arange(1.0, 7.0)
    ys = np.vstack([np.full(x.size, math.nan), 3 + 2 * x])

    def line(x, a, b):
        return a + b * x

    got = refits.refit_all(line, x, ys, np.ones(x.size), np.array([1.0, 1.0]), [0, 1], np.full(2, -np.inf),
                           np.full(2, np.inf), np.array([1.0, 1.0]))
    assert got[0] is None
    assert np.allclose(got[1], [3.0, 2.0])


def _one_at_a_time(rows, residuals, starts, *_):
    """``_nls._batched_starts`` as without ``rows``: every start to least_squares."""
    return [None] * len(starts)


def test_starts_solved_together_reach_the_fit_one_start_at_a_time_reaches(monkeypatch):
    """The USL gives the solver its residual rows, so its starts are solved in one batch; the winner is
    the same minimum as with every start solved by least_squares."""
    from mqperf.models import _nls

    for seed in range(5):
        n, ys, _ = _usl_problem(seed, rows=1, noise=0.03)
        batched = usl.fit(n, ys[0])
        real = _nls._batched_starts
        monkeypatch.setattr(_nls, "_batched_starts", _one_at_a_time)
        single = usl.fit(n, ys[0])
        monkeypatch.setattr(_nls, "_batched_starts", real)
        cost = [float(np.sum((usl.throughput(n, *r.params) - ys[0]) ** 2)) for r in (batched, single)]
        assert cost[0] <= cost[1] * (1 + 1e-9)
        assert np.allclose(batched.params, single.params, rtol=1e-6, atol=1e-12)


def test_a_curve_whose_rows_disagree_is_solved_one_start_at_a_time():
    from mqperf.models import _nls

    def residuals(theta):
        return np.array([theta[0] - 1.0, theta[1] - 2.0])

    def wrong_rows(thetas):
        return np.zeros((thetas.shape[0], 2))

    starts = [np.array([0.5, 0.5]), np.array([3.0, 3.0])]
    box = np.full(2, -np.inf), np.full(2, np.inf)
    assert _nls._batched_starts(wrong_rows, residuals, starts, *box, 0.0) == [None, None]
    assert _nls._batched_starts(None, residuals, starts, *box, 0.0) == [None, None]
    good = _nls._batched_starts(lambda t: t - np.array([1.0, 2.0]), residuals, starts, *box, 0.0)
    assert all(s is not None and np.allclose(s.x, [1.0, 2.0]) and s.cost < 1e-20 for s in good)


def _hill_problem(seed: int, sizes: int, noise: float):
    rng = np.random.default_rng(seed)
    size = np.geomspace(1, 1000, sizes)
    y_max, ln_s50, h = rng.uniform(20, 120), rng.uniform(1, 6), rng.uniform(0.6, 2.5)
    return size, saturation.hill(size, y_max, ln_s50, h) * (1 + noise * rng.standard_normal(sizes))


@pytest.mark.parametrize("sizes,noise", [(3, 0.0), (4, 0.05), (6, 0.02), (8, 0.1)])
def test_hill_starts_solved_together_reach_what_one_at_a_time_reaches(monkeypatch, sizes, noise):
    """The Hill curve's 16 starts are solved as one batch (``nls(batch=True)``): on exactly identified
    (three sizes), noisy and sparse problems the fit is the one least_squares reaches start by start."""
    from mqperf.models import _nls

    for seed in range(3):
        size, y = _hill_problem(seed, sizes, noise)
        batched = saturation.fit(size, y)
        real = _nls._batched_starts
        monkeypatch.setattr(_nls, "_batched_starts", _one_at_a_time)
        single = saturation.fit(size, y)
        monkeypatch.setattr(_nls, "_batched_starts", real)
        cost = [float(np.sum((saturation.hill(size, *r.params) - y) ** 2)) for r in (batched, single)]
        floor = 1e-20 * float(y @ y)
        assert cost[0] <= cost[1] * (1 + 1e-9) + floor and cost[1] <= cost[0] * (1 + 1e-9) + floor
        assert np.allclose(saturation.hill(size, *batched.params), saturation.hill(size, *single.params), rtol=1e-6)
        # Where the data leave a direction flat (a step between two sizes: any steep h fits, and the fit
        # has no standard errors) the two may stop at different points of it; elsewhere they agree to a
        # hundredth of a standard error.
        se = single.bse.to_numpy()
        apart = np.abs(batched.params.to_numpy() - single.params.to_numpy())
        known = np.isfinite(se)
        assert np.all(apart[known] <= 1e-5 * np.abs(single.params.to_numpy()[known]) + 0.01 * se[known]), \
            (seed, batched.params.to_dict(), single.params.to_dict(), single.bse.to_dict())


def test_a_row_through_the_points_counts_as_converged():
    """An exactly identified fit ends with residuals of float noise, whose direction the stationarity
    test cannot judge: below ``exact_cost`` the row is converged, not handed to least_squares."""
    target = np.array([1.0, 2.0])

    def rows(t):
        return (t - target) * np.array([1.0, 1e-3]) + 1e-16 * np.sin(1e6 * t)

    starts = np.array([[0.5, 0.5], [3.0, 3.0]])
    lower, upper = np.full(2, -np.inf), np.full(2, np.inf)
    _, cost, strict = refits.minimise_rows(rows, starts.copy(), lower, upper)
    _, _, lenient = refits.minimise_rows(rows, starts.copy(), lower, upper, exact_cost=1e-20)
    assert np.all(cost < 1e-20) and lenient.all()
    assert not strict.all()  # the noise alone fails the cosine test: the floor is what accepts it


def test_starts_creeping_along_one_valley_are_carried_on_once(monkeypatch):
    """Four sizes with a step between 4 and 256 KB: any steep enough Hill curve fits, and the cost falls
    ever more slowly as h grows, so no start reaches a stationary point. Starts whose costs tie with the
    batch's least (``VALLEY_TIE``) are one valley: only the best is carried on (the polish), not each to
    least_squares' evaluation cap. The fit costs the same and has the same values at the sizes; between
    4 and 256 KB both are steep curves the data cannot choose among (h is not identified)."""
    from mqperf.models import _nls

    kb = np.array([1.0, 4.0, 256.0, 1024.0])
    y = np.array([0.16, -0.02, 58.15, 121.3])
    calls = []
    real_ls = _nls.least_squares

    def counted(*args, **kwargs):
        calls.append(1)
        return real_ls(*args, **kwargs)

    monkeypatch.setattr(_nls, "least_squares", counted)
    carried = saturation.fit(kb, y)
    carried_calls = len(calls)
    real = _nls._batched_starts
    monkeypatch.setattr(_nls, "_batched_starts", _one_at_a_time)
    calls.clear()
    each = saturation.fit(kb, y)
    monkeypatch.setattr(_nls, "_batched_starts", real)
    assert carried_calls == 1 and len(calls) == 17  # the polish alone, against 16 starts and the polish
    cost = [float(np.sum((saturation.hill(kb, *r.params) - y) ** 2)) for r in (carried, each)]
    assert abs(cost[0] - cost[1]) <= 1e-6 * cost[1]
    assert np.allclose(saturation.hill(kb, *carried.params), saturation.hill(kb, *each.params), rtol=0, atol=1e-3)


def test_a_start_above_the_valley_tie_still_gets_its_own_solve(monkeypatch):
    """Only ties are carried on together: a stalled start whose cost is clearly above the batch's least
    goes to least_squares (it may be on its way to a lower minimum), as does every start when none
    has a finite cost; a converged start is taken as solved."""
    from mqperf.models import _nls

    def residuals(theta):
        return np.asarray(theta, dtype=float)

    def rows(thetas):
        return np.asarray(thetas, dtype=float)

    starts = [np.array([1.0]), np.array([2.0]), np.array([3.0]), np.array([4.0])]
    box = np.array([-10.0]), np.array([10.0])
    costs = np.array([1.0, 1.0 + 0.5 * _nls.VALLEY_TIE, 1.0 + 2 * _nls.VALLEY_TIE, 0.5])
    converged = np.array([False, False, False, True])
    monkeypatch.setattr(refits, "minimise_rows", lambda *a, **k: (np.vstack(starts), costs, converged))
    taken = _nls._batched_starts(rows, residuals, starts, *box, 0.0)
    assert [s is not None for s in taken] == [False, False, False, True]  # the least is the converged 0.5
    assert taken[3].cost == 0.5
    costs[3], converged[3] = 1.0 + 5 * _nls.VALLEY_TIE, False
    taken = _nls._batched_starts(rows, residuals, starts, *box, 0.0)
    assert [s is not None for s in taken] == [True, True, False, False]
    assert [s.cost for s in taken[:2]] == list(costs[:2])
    costs[:] = np.inf
    assert _nls._batched_starts(rows, residuals, starts, *box, 0.0) == [None] * 4


def test_the_jacobian_is_one_call_of_the_curve_with_each_columns_central_difference():
    # What one call per column computed (central differences, steps 1e-6·|θ|), to the bit, and in
    # the same memory layout (the solver's sums read it in that order).
    n, ys, truth = _usl_problem(5, rows=7)
    th = truth * np.random.default_rng(1).uniform(0.5, 1.5, (7, 3))
    th[2, 1] = 0.0  # a parameter on its bound: the step floor
    idx = np.arange(7)
    calls = []

    def resid(t, rows):
        calls.append(t.shape[0])
        return usl.throughput(n, t[:, [0]], t[:, [1]], t[:, [2]]) - ys[rows]

    got = refits._jacobian(resid, th, idx)
    assert calls == [2 * 3 * 7]
    want = []
    for k in range(3):
        h = 1e-6 * np.maximum(np.abs(th[:, k]), 1e-9)
        up, down = th.copy(), th.copy()
        up[:, k] += h
        down[:, k] -= h
        want.append((resid(up, idx) - resid(down, idx)) / (2 * h)[:, None])
    want = np.stack(want, axis=2)
    assert got.shape == (7, n.size, 3) and got.flags.c_contiguous
    assert np.array_equal(got, want)
