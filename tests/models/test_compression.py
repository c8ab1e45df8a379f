"""models.compression: the cost line a + b·S + c·S·p against statsmodels' OLS, its bands, its bootstrap
and its refusals."""

import numpy as np
import pandas as pd
import pytest

from mqperf.errors import ModelError
from mqperf.models import compression

S = np.repeat([2.0, 8, 16, 32, 64, 100], 5)
P = np.tile([0.0, 0.2, 0.4, 0.6, 0.8], 6)


def test_matches_statsmodels_ols():
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    y = 120 + 4.5 * S - 1.0 * S * P + rng.normal(0, 3, S.size)
    res = compression.fit(S, P, y)
    ols = sm.OLS(y, np.column_stack([np.ones_like(S), S, S * P])).fit()
    np.testing.assert_allclose(res.params.to_numpy(), ols.params, rtol=1e-9)
    np.testing.assert_allclose(res.bse.to_numpy(), ols.bse, rtol=1e-6)
    assert res.df_resid == int(ols.df_resid)
    if res.residual_checks.passed:
        np.testing.assert_allclose(res.conf_int().to_numpy(), ols.conf_int(), rtol=1e-6)
        x = np.array([[50.0, 0.5]])
        band = res.band(x).iloc[0]
        pred = ols.get_prediction(np.array([[1.0, 50.0, 25.0]])).conf_int()[0]
        assert (band["lower"], band["upper"]) == pytest.approx(tuple(pred), rel=1e-6)


def test_exact_line_is_recovered():
    y = 100 + 2 * S - 0.5 * S * P
    res = compression.fit(S, P, y)
    np.testing.assert_allclose(res.params.to_numpy(), [100, 2, -0.5], atol=1e-9)


def test_bootstrap_band_covers_the_wald_band_when_checks_fail():
    rng = np.random.default_rng(0)
    y = (120 + 4.5 * S - 1.0 * S * P) * (1 + 0.1 * rng.standard_t(2, S.size))  # heavy tails, spread with size
    res = compression.fit(S, P, y)
    grid = np.array([[32.0, 0.4], [200.0, 0.4]])
    band = res.band(grid)
    if not res.residual_checks.passed:
        assert (band["method"] == "bootstrap").all()
        assert "bootstrap" in res.interval_method
    assert (band["lower"] <= band["fit"]).all() and (band["fit"] <= band["upper"]).all()
    # Fixed seed: the same band every run. On the same grid: a band on a grid of one point takes
    # another BLAS path than one on two, which on some CPUs' kernels differs in the last bit.
    again = compression.fit(S, P, y).band(grid)
    assert again["lower"].iloc[0] == band["lower"].iloc[0]


def test_one_compressibility_and_too_few_sizes():
    res = compression.fit([2, 8, 32], [0.4, 0.4, 0.4], [105, 118, 170])
    assert list(res.params.index) == ["a", "b"]  # S·p is S times a constant: c is not identified
    with pytest.raises(ModelError, match="one message size"):
        compression.fit([8, 8, 8], [0, 0.2, 0.4], [1, 2, 3])
    with pytest.raises(ModelError, match="missing"):
        compression.fit([2, 8, np.nan], [0, 0, 0], [1, 2, 3])


def test_exactly_identified_gives_no_band():
    res = compression.fit([2, 8], [0, 0], [105, 118])
    assert res.df_resid == 0
    band = res.band(np.array([[4.0, 0.0]]))
    assert band["method"].iloc[0] == "none" and np.isnan(band["lower"].iloc[0])


def test_difference_band_and_ratio():
    one = pd.Series({"fit": 100.0, "lower": 97.0, "upper": 103.0})
    other = pd.Series({"fit": 110.0, "lower": 106.0, "upper": 114.0})
    d, lo, hi = compression.difference_band(one, other, 10)
    assert d == 10 and (lo, hi) == pytest.approx((5, 15))
    np.testing.assert_allclose(compression.share_from_ratio([1.25, 4]), [0.2, 0.75])
