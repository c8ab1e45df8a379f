"""Hill curve in ln(size) for zEDC effects, and recovery time from rates."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import saturation

KB, MB = 1024, 1024 * 1024
# Seed 004: message size / increase in QM TCB / increase in peak throughput, zEDC archives on.
ZEDC_SIZE = np.array([4 * KB, 32 * KB, 1 * MB, 4 * MB], dtype=float)
ZEDC_TCB = np.array([7.0, 26.0, 90.0, 100.0])
ZEDC_THROUGHPUT = np.array([1.0, 2.0, 30.0, 45.0])


def test_recovers_known_curve_from_noisy_points():
    rng = np.random.default_rng(2016)
    size = np.geomspace(1 * KB, 16 * MB, 10)
    truth = dict(y_max=100.0, s50=200 * KB, h=0.9)
    y = truth["y_max"] / (1 + (truth["s50"] / size) ** truth["h"]) + rng.normal(0, 1.0, size.size)
    res = saturation.fit(size, y)
    assert_allclose([res.y_max, res.s50, res.h], list(truth.values()), rtol=0.1)
    lo, hi = res.s50_conf_int()
    assert lo <= truth["s50"] <= hi
    ci = res.conf_int()
    assert ci.loc["h", "lower"] <= truth["h"] <= ci.loc["h", "upper"]


def test_seed_tcb_increase_is_followed_within_rounding_scale():
    res = saturation.fit(ZEDC_SIZE, ZEDC_TCB)
    # Whole-percent values, one residual degree of freedom: within 1.5 points of each.
    assert_allclose(res.fittedvalues, ZEDC_TCB, atol=1.5)
    assert res.df_resid == 1 and res.at_bound == ()
    lo, hi = res.s50_conf_int()
    assert 0 < lo < res.s50 < hi


def test_seed_throughput_gain_is_followed():
    res = saturation.fit(ZEDC_SIZE, ZEDC_THROUGHPUT)
    assert_allclose(res.fittedvalues, ZEDC_THROUGHPUT, atol=1.5)
    assert ZEDC_SIZE.min() < res.s50 < ZEDC_SIZE.max()
    assert not any("extrapolation" in note for note in res.notes)


def test_curve_still_rising_at_the_largest_size_is_flagged_as_extrapolated():
    # The throughput gain without its 4 MB point: nothing in 1, 2, 30 % says where it levels off.
    res = saturation.fit(ZEDC_SIZE[:3], ZEDC_THROUGHPUT[:3])
    assert res.s50 > ZEDC_SIZE[2]
    assert any("extrapolation" in note for note in res.notes)
    # With three points for three parameters the midpoint runs to the edge of its search range.
    assert "ln_s50" in res.at_bound
    assert any("not identified" in note for note in res.notes)


def test_three_sizes_are_exactly_identified():
    res = saturation.fit(ZEDC_SIZE[:3], ZEDC_TCB[:3])
    assert res.exactly_identified
    assert res.conf_int().isna().all().all()
    assert all(np.isnan(v) for v in res.s50_conf_int())


def test_cap_on_the_plateau_is_reported():
    res = saturation.fit(ZEDC_SIZE, ZEDC_TCB, y_max_upper=100.0)
    assert "y_max" in res.at_bound and res.y_max == pytest.approx(100.0)
    assert any("upper limit" in note for note in res.notes)


def test_size_for_level_inverts_the_curve():
    assert_allclose(saturation.size_for_level(50, 100, 2e5, 0.9), 2e5, rtol=1e-12)
    s = saturation.size_for_level(90, 100, 2e5, 0.9)
    assert_allclose(saturation.hill(s, 100, np.log(2e5), 0.9), 90, rtol=1e-12)
    res = saturation.fit(ZEDC_SIZE, ZEDC_TCB)
    assert_allclose(res.size_for_level(res.y_max / 2), res.s50, rtol=1e-9)
    with pytest.raises(ModelError):
        saturation.size_for_level(120, 100, 2e5, 0.9)


def test_recovery_time_and_cpu_from_seed_004():
    # RECOVER CFSTRUCT of 4 GB: 88 MB/s uncompressed, 27 MB/s from zEDC-compressed archives.
    assert_allclose(saturation.recovery_time(4096, [88, 27]), [4096 / 88, 4096 / 27], rtol=1e-12)
    # Cost per MB as printed (CPU ms): 860 and 1900 (unit doubted in errata E039).
    assert_allclose(saturation.recovery_cpu(4096, [860, 1900]), [4096 * 860, 4096 * 1900], rtol=1e-12)


@pytest.mark.parametrize(
    "size, y, match",
    [
        (ZEDC_SIZE[:2], ZEDC_TCB[:2], "at least 3 distinct"),
        (ZEDC_SIZE, [-7.0, -26.0, 0.0, -100.0], "no value greater than zero"),
        (ZEDC_SIZE, [7.0, np.nan, 90.0, 100.0], "missing"),
        ([-1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "greater than zero"),
    ],
)
def test_bad_input_raises_model_error(size, y, match):
    with pytest.raises(ModelError, match=match):
        saturation.fit(size, y)


def test_relative_weights_need_positive_effects():
    with pytest.raises(ModelError, match="relative weights"):
        saturation.fit(ZEDC_SIZE, [-0.5, 2.0, 30.0, 45.0], weights="relative")


def test_recovery_rejects_zero_rate():
    with pytest.raises(ModelError):
        saturation.recovery_time(4096, 0)


def test_slope_rise_and_bend_tests():
    # A rise that levels off: the curve beats a constant and (given a residual df) a line in ln size.
    size = np.array([4.0, 32.0, 256.0, 1024.0, 4096.0])
    y = saturation.hill(size, 100.0, np.log(200.0), 1.5) + np.array([0.4, -0.3, 0.2, -0.4, 0.3])
    res = saturation.fit(size, y)
    slope, p, words = saturation.slope_test(size, y)
    assert slope > 0 and p < 0.05 and words.startswith("t-test of the slope against log size: t = ")
    p_rise, words = saturation.rise_test(res)
    assert p_rise < 0.05 and "against a constant effect: F = " in words
    p_bend, words = saturation.bend_test(res)
    assert p_bend < 0.05 and "against a straight line in log size: F = " in words
    # Too few sizes (or no residual df) leave nothing to test with.
    assert saturation.slope_test(size[:2], y[:2]) is None
    assert saturation.bend_test(saturation.fit(size[:3], y[:3])) is None
    # The same effect at every size: no rise.
    assert saturation.slope_test(size, np.full(5, 3.0))[1] == 1.0


def test_the_hill_gradient_is_the_curves_derivative():
    import numpy as np

    from mqperf.models import _base, saturation

    sizes = np.array([0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 1024.0])
    for theta in ([30.0, 1.3, 1.7], [5.0, -2.0, 0.4], [120.0, 6.0, 12.0]):
        numeric = _base.jacobian(lambda t: saturation.hill(sizes, *t), np.array(theta))
        assert np.allclose(saturation.hill_gradient(sizes, *theta), numeric, rtol=1e-6, atol=1e-7 * theta[0])
