"""Comparing two fits: the difference's interval, and its error rates on generated pairs.

The generated runs follow the noise model every fit in the book assumes (the same normal
noise at every concurrency), so the stated level is the one to expect.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import compare, usl

N = np.arange(1, 13, dtype=float)
TRUE = (1000.0, 0.05, 0.002)


def _x(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def _run(rng, lam=TRUE[0], sigma=TRUE[1], kappa=TRUE[2], sd=120.0):
    return usl.fit(N, _x(N, lam, sigma, kappa) + rng.normal(0, sd, N.size))


def test_identical_runs_differ_by_nothing():
    r = _run(np.random.default_rng(1))
    d = compare.parameters(r, r)
    assert not d["changed"].any()
    assert_allclose(d["difference"], 0.0, atol=1e-12)
    tested = d.dropna(subset=["lower"])
    assert len(tested) == len(d)  # every parameter and both curve points have an interval
    assert_allclose(tested["lower"], -tested["upper"], rtol=1e-12)  # centred on no change


def test_interval_is_welch_t_on_the_independent_standard_errors():
    rng = np.random.default_rng(2)
    a, b = _run(rng), _run(rng, lam=900)
    d = compare.parameters(a, b).set_index("parameter")
    from scipy import stats

    se_a, se_b = float(a.bse["lam"]), float(b.bse["lam"])
    df = (se_a**2 + se_b**2) ** 2 / (se_a**4 / a.df_resid + se_b**4 / b.df_resid)
    k = len(d)  # three parameters and the curve at both ends of the common range
    q = stats.t.ppf(1 - 0.05 / (2 * k), df)
    diff = float(b.params["lam"] - a.params["lam"])
    assert_allclose(d.loc["lam", "lower"], diff - q * math.hypot(se_a, se_b), rtol=1e-9)
    assert_allclose(d.loc["lam", "upper"], diff + q * math.hypot(se_a, se_b), rtol=1e-9)


def test_welch_df_by_hand():
    # se 1 on 5 df and se 2 on 10 df: (1 + 4)² / (1/5 + 16/10) = 25 / 1.8
    assert_allclose(compare.welch_df(1.0, 5, 2.0, 10), 25 / 1.8, rtol=1e-12)


def test_curve_rows_are_the_fits_at_the_ends_of_the_common_range():
    rng = np.random.default_rng(3)
    a, b = _run(rng), _run(rng)
    d = compare.parameters(a, b).set_index("parameter")
    assert {"X(N) at N = 1", "X(N) at N = 12"} <= set(d.index)
    assert_allclose(d.loc["X(N) at N = 12", "before"], a.predict([12.0])[0], rtol=1e-12)
    assert_allclose(d.loc["X(N) at N = 12", "after"], b.predict([12.0])[0], rtol=1e-12)


def test_different_models_are_not_compared():
    rng = np.random.default_rng(4)
    a = _run(rng)
    amdahl = usl.fit(N, _x(N, 1000, 0.05, 0) + rng.normal(0, 50, N.size), amdahl_only=True)
    with pytest.raises(ModelError, match="different models"):
        compare.parameters(a, amdahl)


def test_exactly_identified_fit_gives_no_interval_and_no_claim():
    n = np.array([1.0, 2.0, 4.0])
    exact = usl.fit(n, _x(n, 1000, 0.05, 0.01))
    assert exact.df_resid == 0
    other = _run(np.random.default_rng(5))
    d = compare.parameters(exact, other)
    assert d["lower"].isna().all() and not d["changed"].any()
    assert d["note"].str.contains("before fit has no residual degrees of freedom").all()


def test_a_parameter_held_on_its_bound_gets_no_interval():
    # Concave-up data press κ onto 0: that run's κ has no standard error.
    rng = np.random.default_rng(6)
    held = usl.fit(N, 1000 * N * (1 + 0.01 * N) + rng.normal(0, 20, N.size))
    assert "kappa" in held.active_bounds
    d = compare.parameters(held, _run(rng)).set_index("parameter")
    assert math.isnan(d.loc["kappa", "lower"]) and not d.loc["kappa", "changed"]
    assert "holds it on its bound" in d.loc["kappa", "note"]


# -- error rates over generated pairs ----------------------------------------------------------
# 200 pairs without a change: the simultaneous 95 % level allows 5 % of pairs with a claimed
# change; 0.10 is that plus three binomial standard deviations (sqrt(.05 × .95 / 200) = 0.015).
PAIRS = 200


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_false_change_rate_is_within_the_stated_level():
    rng = np.random.default_rng(11)
    claimed = sum(compare.parameters(_run(rng), _run(rng))["changed"].any() for _ in range(PAIRS))
    assert claimed / PAIRS <= 0.10


@pytest.mark.parametrize("change", [{"lam": 850.0}, {"kappa": 0.008}, {"sigma": 0.15}],
                         ids=["rate -15 %", "kappa x4", "sigma x3"])
@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_a_real_change_is_found(change):
    rng = np.random.default_rng(12)
    found = 0
    for _ in range(60):
        d = compare.parameters(_run(rng), _run(rng, **change))
        found += d["changed"].any()
        # Whatever was claimed moved the right way: no claim against the true direction.
        moved = d[d["changed"] & d["parameter"].isin(list(change))]
        assert (np.sign(moved["difference"]) == np.sign(change[next(iter(change))] - dict(
            zip(("lam", "sigma", "kappa"), TRUE))[next(iter(change))])).all()
    assert found / 60 >= 0.9
