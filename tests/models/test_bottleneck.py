"""Bottleneck model X(N) = min(λN, X_max): recovery, exact least squares, edge cases, AIC comparison."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import bottleneck, usl
from mqperf.models.usl import Equal

RNG_SEED = 20240731


def noisy_bottleneck(lam=100.0, x_max=550.0, rel_noise=0.02, n=np.arange(1, 13)):
    rng = np.random.default_rng(RNG_SEED)
    truth = np.minimum(lam * n, x_max)
    return n.astype(float), truth * (1 + rel_noise * rng.standard_normal(n.size))


def test_recovers_known_parameters_from_noisy_data():
    n, x = noisy_bottleneck()
    res = bottleneck.fit(n, x)
    ci = res.conf_int()
    assert ci.loc["lam", "lower"] <= 100.0 <= ci.loc["lam", "upper"]
    assert ci.loc["x_max", "lower"] <= 550.0 <= ci.loc["x_max", "upper"]
    # 2 % noise on 12 points: both estimates within 3 % of the truth.
    assert_allclose(res.params.to_numpy(), [100.0, 550.0], rtol=0.03)
    assert_allclose(res.knee(), 5.5, rtol=0.05)
    assert res.df_resid == 10 and not res.exactly_identified and res.at_bound == ()


def test_solution_is_the_global_least_squares_minimum():
    n, x = noisy_bottleneck()
    res = bottleneck.fit(n, x)
    rng = np.random.default_rng(1)
    theta = res.params.to_numpy()
    for _ in range(2000):
        trial = theta * (1 + 0.05 * rng.standard_normal(2))
        assert np.sum((bottleneck.throughput(n, *trial) - x) ** 2) >= res.ssr - 1e-9


def test_two_seed_points_are_exactly_identified():
    # Seed 000: 28,000 msg/s with one task, +66 % with two; no gain from 4 to 5 tasks.
    res = bottleneck.fit([1, 2], [28000, 28000 * 1.66], constraints=[Equal(4, 5)])
    assert res.exactly_identified
    assert_allclose(res.params.to_numpy(), [28000.0, 46480.0], rtol=1e-12)
    assert res.bse.isna().all()
    assert res.conf_int().isna().all().all()
    assert any("exactly identified" in note for note in res.notes)
    assert res.to_card()["parameters"]["lam"]["ci95"] == [None, None]


def test_plateau_only_data_flag_lam_as_not_identified():
    # Seed 000, sink with MQGET*100 getters: 33,767 / 35,056 / 30,592 at 1 / 2 / 4 tasks.
    x = np.array([33767.0, 35056.0, 30592.0])
    res = bottleneck.fit([1, 2, 4], x)
    assert res.at_bound == ("lam",)
    assert_allclose(res.x_max, x.mean(), rtol=1e-12)
    assert np.isnan(res.bse["lam"]) and np.isfinite(res.bse["x_max"])
    assert any("no rising part" in note for note in res.notes)


def test_linear_data_flag_x_max_as_not_identified():
    n = np.arange(1.0, 6.0)
    res = bottleneck.fit(n, 10 * n + np.array([0.1, -0.1, 0.2, -0.2, 0.0]))
    assert res.at_bound == ("x_max",)
    assert np.isnan(res.bse["x_max"])
    assert any("no plateau" in note for note in res.notes)


def test_no_gain_statement_limits_the_knee():
    n = np.array([1.0, 2.0, 3.0, 4.0])
    x = np.array([10.0, 20.0, 30.0, 40.0])
    res = bottleneck.fit(n, x, constraints=[Equal(2, 3, "flat from 2 to 3")])
    assert res.knee() <= 2 + 1e-9
    assert res.n_constraints == 0  # an inequality, not an equation: no degree of freedom added
    assert any("knee sits on the limit" in note for note in res.notes)


def test_what_if_overrides_and_planning():
    res = bottleneck.fit([1, 2, 3, 4, 5], [100, 200, 290, 300, 305])
    assert res.knee(lam=50.0) == pytest.approx(res.x_max / 50.0)
    assert res.n_for_rate(res.x_max * 2) is None
    assert res.n_for_rate(150, lam=100.0) == 2
    assert res.to_card()["derived"]["knee_n"] == pytest.approx(res.knee(), rel=1e-5)


@pytest.mark.parametrize(
    "n, x, match",
    [
        ([1, 1, 1], [10, 11, 12], "at least 2 distinct"),
        ([3], [10], "at least 2 distinct"),
        ([1, 2], [10, 0], "greater than zero"),
        ([0, 2], [10, 20], "greater than zero"),
        ([1, 2, 3], [10, 20], "has 3 values"),
    ],
)
def test_bad_input_raises_model_error(n, x, match):
    with pytest.raises(ModelError, match=match):
        bottleneck.fit(n, x)


def test_compare_prefers_the_model_that_generated_the_data():
    n, x = noisy_bottleneck()
    table = bottleneck.compare_with_usl(n, x)
    assert table.loc["bottleneck", "preferred"] and not table.loc["usl", "preferred"]
    assert table["criterion"].iloc[0] == "aicc"

    rng = np.random.default_rng(RNG_SEED)
    nn = np.arange(1.0, 17.0)
    xx = usl.throughput(nn, 100.0, 0.03, 0.002) * (1 + 0.01 * rng.standard_normal(nn.size))
    table = bottleneck.compare_with_usl(nn, xx)
    assert table.loc["usl", "preferred"] and not table.loc["bottleneck", "preferred"]


def test_compare_aic_matches_its_formula():
    n, x = noisy_bottleneck()
    table = bottleneck.compare_with_usl(n, x)
    ssr, nobs = table.loc["bottleneck", "ssr"], 12
    # K = 2 parameters + the noise variance; Burnham & Anderson eq. 2.1 and 2.14.
    aic = nobs * np.log(ssr / nobs) + 2 * 3
    assert_allclose(table.loc["bottleneck", "aic"], aic, rtol=1e-12)
    assert_allclose(table.loc["bottleneck", "aicc"], aic + 2 * 3 * 4 / (nobs - 3 - 1), rtol=1e-12)


def test_compare_says_when_degrees_of_freedom_do_not_allow():
    table = bottleneck.compare_with_usl([1, 2], [28000, 46480], constraints=[Equal(4, 5)])
    assert table["aic"].isna().all()
    assert not table["preferred"].any()
    assert table["criterion"].iloc[0].startswith("none")
