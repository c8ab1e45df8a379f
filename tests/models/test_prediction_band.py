"""Prediction bands (a new measurement's range) beside confidence bands (the curve's range).

Expectations are computed here, independently of the code under test: the textbook
ordinary-least-squares intervals for a straight line (``scipy.stats.t`` quantiles and
``s² (XᵀX)⁻¹`` written out), and coverage counted over simulations with known parameters.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mqperf.models import usl
from mqperf.models._base import FitResult
from mqperf.models.fitset import FitSet

A, B, NOISE = 2.0, 0.5, 0.3
X = np.array([1.0, 2.0, 3.0, 5.0, 7.0, 8.0, 10.0])  # 7 points, 2 parameters: df 5, where t and normal differ
GRID = np.array([0.0, 1.0, 4.0, 10.0, 14.0])  # inside and beyond the points


def _line(x, a, b):
    return a + b * np.asarray(x, dtype=float)


def line_fit(x, y) -> FitResult:
    """A straight line by OLS, with its covariance written out (not from the package's solver)."""
    design = np.column_stack([np.ones_like(x), x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    df = x.size - 2
    cov = None
    if df > 0:
        s2 = float(np.sum((y - design @ beta) ** 2)) / df
        cov = pd.DataFrame(s2 * np.linalg.inv(design.T @ design), index=["a", "b"], columns=["a", "b"])
    return FitResult(model="line", formula="y = a + b*x", params=pd.Series(beta, index=["a", "b"]), cov=cov,
                     x=x, y=y, fn=_line)


def textbook_half_widths(x, y, x0, alpha=0.05):
    """OLS half-widths at x0: t·s·sqrt(h) for the mean, t·s·sqrt(1 + h) for a new observation."""
    design = np.column_stack([np.ones_like(x), x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    df = x.size - 2
    s = np.sqrt(np.sum((y - design @ beta) ** 2) / df)
    g = np.column_stack([np.ones_like(x0), x0])
    h = np.einsum("ij,jk,ik->i", g, np.linalg.inv(design.T @ design), g)
    t = stats.t.ppf(1 - alpha / 2, df)
    return t * s * np.sqrt(h), t * s * np.sqrt(1 + h)


def test_line_bands_match_the_textbook_formulas():
    rng = np.random.default_rng(7)
    y = _line(X, A, B) + rng.normal(0, NOISE, X.size)
    res = line_fit(X, y)
    conf, pred = res.conf_band(GRID), res.pred_band(GRID)
    conf_half, pred_half = textbook_half_widths(X, y, GRID)
    # conf_band differentiates the model numerically (central differences, step 1e-6 of each
    # parameter): exact for a line up to float rounding, hence the relative 1e-6.
    np.testing.assert_allclose(conf["upper"] - conf["fit"], conf_half, rtol=1e-6)
    np.testing.assert_allclose(pred["upper"] - pred["fit"], pred_half, rtol=1e-6)
    np.testing.assert_allclose(pred["fit"] - pred["lower"], pred_half, rtol=1e-6)
    assert np.all(pred["upper"] > conf["upper"]) and np.all(pred["lower"] < conf["lower"])


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_line_coverage_over_many_simulations_is_near_95_percent():
    rng = np.random.default_rng(2026)
    sims, truth = 2000, _line(GRID, A, B)
    covered_curve = covered_new = 0
    for _ in range(sims):
        res = line_fit(X, _line(X, A, B) + rng.normal(0, NOISE, X.size))
        both = res.bands(GRID)
        fresh = truth + rng.normal(0, NOISE, GRID.size)  # new measurements, not used by the fit
        covered_curve += np.sum((both["lower"] <= truth) & (truth <= both["upper"]))
        covered_new += np.sum((both["pred_lower"] <= fresh) & (fresh <= both["pred_upper"]))
        assert np.all(both["pred_upper"] - both["pred_lower"] > both["upper"] - both["lower"])
    n = sims * GRID.size
    # Binomial standard error at 95 % over 10,000 checks is 0.0022; ±0.012 is more than 5 of them,
    # yet a normal quantile in place of the t on 5 df (coverage about 0.89) or the confidence band
    # used for new measurements (far below) falls outside it.
    assert covered_curve / n == pytest.approx(0.95, abs=0.012)
    assert covered_new / n == pytest.approx(0.95, abs=0.012)


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_usl_prediction_band_covers_new_measurements():
    lam, sigma, kappa, noise = 1000.0, 0.05, 0.002, 40.0
    n = np.array([1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0])
    grid = np.array([3.0, 10.0, 20.0])
    truth = usl.throughput(grid, lam, sigma, kappa)
    rng = np.random.default_rng(12)
    sims, curve, new = 200, 0, 0
    for _ in range(sims):
        res = usl.fit(n, usl.throughput(n, lam, sigma, kappa) + rng.normal(0, noise, n.size))
        both = res.bands(grid)
        fresh = truth + rng.normal(0, noise, grid.size)
        curve += np.sum((both["lower"] <= truth) & (truth <= both["upper"]))
        new += np.sum((both["pred_lower"] <= fresh) & (fresh <= both["pred_upper"]))
    # 600 checks: binomial standard error 0.009; the delta method is an approximation for a
    # nonlinear model, so ±0.04 (4.5 standard errors) is allowed around 95 %.
    assert curve / (sims * grid.size) == pytest.approx(0.95, abs=0.04)
    assert new / (sims * grid.size) == pytest.approx(0.95, abs=0.04)


def test_no_residual_degrees_of_freedom_gives_no_prediction_band():
    res = line_fit(np.array([1.0, 3.0]), np.array([2.0, 3.0]))
    assert res.df_resid == 0 and res.pred_band(GRID)[["lower", "upper"]].isna().all().all()
    exact = usl.fit([1, 2, 4], usl.throughput(np.array([1.0, 2.0, 4.0]), 100.0, 0.1, 0.01))
    assert exact.exactly_identified
    both = exact.bands([1.0, 3.0, 8.0])
    assert both[["lower", "upper", "pred_lower", "pred_upper"]].isna().all().all()
    np.testing.assert_allclose(both["fit"], usl.throughput(np.array([1.0, 3.0, 8.0]), 100.0, 0.1, 0.01), rtol=1e-6)


def test_fitset_curves_carry_both_bands():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"series": "s", "x": X, "y": _line(X, A, B) + rng.normal(0, NOISE, X.size)})
    fits = FitSet.fit(frame, "series", lambda rows: line_fit(rows["x"].to_numpy(float), rows["y"].to_numpy(float)))
    curves = fits.curves(GRID)
    _, pred_half = textbook_half_widths(X, frame["y"].to_numpy(), GRID)
    np.testing.assert_allclose(curves["pred_upper"] - curves["y"], pred_half, rtol=1e-6)
    assert (curves["pred_lower"] < curves["lower"]).all() and (curves["upper"] < curves["pred_upper"]).all()


def test_relative_weights_widen_the_prediction_band_with_the_curve():
    from mqperf.models import latency_bandwidth

    a, bw, rel = 1e-4, 5e4, 0.03  # 10 % of the time fixed at 500 bytes; 3 % relative scatter
    size = np.array([100.0, 500.0, 1000.0, 4000.0, 10000.0, 32000.0])
    grid = np.array([300.0, 2000.0, 20000.0])
    truth = latency_bandwidth.message_rate(grid, a, bw)
    rng = np.random.default_rng(5)
    sims, new = 250, 0
    for _ in range(sims):
        rate = latency_bandwidth.message_rate(size, a, bw) * (1 + rng.normal(0, rel, size.size))
        pred = latency_bandwidth.fit(size, rate).pred_band(grid)
        fresh = truth * (1 + rng.normal(0, rel, grid.size))
        new += np.sum((pred["lower"] <= fresh) & (fresh <= pred["upper"]))
    # 750 checks, binomial standard error 0.008; a constant (unweighted) scatter would cover the
    # small sizes' large rates far less and the large sizes' small rates almost always.
    assert new / (sims * grid.size) == pytest.approx(0.95, abs=0.035)
    rate = latency_bandwidth.message_rate(size, a, bw) * (1 + rng.normal(0, rel, size.size))
    res = latency_bandwidth.fit(size, rate)
    half = (res.pred_band(grid)["upper"] - res.predict(grid)).to_numpy()
    # Equal relative errors: the band's half-width is roughly proportional to the rate itself.
    assert half[0] / half[2] == pytest.approx(truth[0] / truth[2], rel=0.3)
    custom = latency_bandwidth.fit(size, rate, weights=np.arange(1.0, size.size + 1))
    assert custom.pred_band(grid)[["lower", "upper"]].isna().all().all()  # per-point weights: no band at a new x
