"""Latency–bandwidth model rate(s) = 1/(a + s/B): recovery, seed 000 message sizes, edge cases."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import latency_bandwidth as lb
from mqperf.models.validation import holdout

KB = 1024
# Seed 000, "MQ as a source", 1 task, peak-rate configuration: size / messages per second / "approximate MB/s".
SOURCE_SIZE = np.array([1 * KB, 10 * KB, 32 * KB], dtype=float)
SOURCE_RATE = np.array([28776.0, 10030.0, 3750.0])
SOURCE_MB_S = np.array([28.0, 98.0, 117.0])


def test_recovers_known_parameters_from_noisy_rates():
    rng = np.random.default_rng(7)
    size = np.geomspace(512, 1024 * KB, 10)
    a, B = 25e-6, 130e6
    rate = 1 / (a + size / B) * (1 + 0.02 * rng.standard_normal(size.size))
    res = lb.fit(size, rate)
    ci = res.conf_int()
    assert ci.loc["a", "lower"] <= a <= ci.loc["a", "upper"]
    assert ci.loc["B", "lower"] <= B <= ci.loc["B", "upper"]
    assert_allclose([res.a, res.bandwidth], [a, B], rtol=0.05)  # 2 % noise, 10 sizes
    assert_allclose(res.wrmse, 0.02, rtol=0.5)  # the relative residual error is the 2 % put in


def test_two_sizes_are_exactly_identified_and_solve_the_straight_line_through_times():
    size, rate = SOURCE_SIZE[[0, 2]], SOURCE_RATE[[0, 2]]
    res = lb.fit(size, rate)
    # Times per message 1/r lie on t = a + s/B: solve the two equations by hand.
    slope = (1 / rate[1] - 1 / rate[0]) / (size[1] - size[0])
    assert_allclose(res.bandwidth, 1 / slope, rtol=1e-8)
    assert_allclose(res.a, 1 / rate[0] - size[0] * slope, rtol=1e-8)
    assert res.exactly_identified
    assert res.conf_int().isna().all().all()


def test_seed_mb_per_second_column_is_reproduced():
    res = lb.fit(SOURCE_SIZE, SOURCE_RATE)
    # The seed's "approximate MB/s" is rate x size with KB = 1024 and MB = 1024 KB, rounded;
    # the fitted curve must stay within 5 % of it (three points, two parameters).
    assert_allclose(res.byte_rate(SOURCE_SIZE) / (1024 * KB), SOURCE_MB_S, rtol=0.05)


def test_held_out_middle_size_is_predicted_from_the_other_two():
    res = lb.fit(SOURCE_SIZE[[0, 2]], SOURCE_RATE[[0, 2]])
    table = holdout(res, SOURCE_SIZE[[1]], SOURCE_RATE[[1]])
    # The straight line through 1 KB and 32 KB predicts 10 KB within 5 % (seed 000 source and sink).
    assert abs(table["error_pct"].iloc[0]) < 5


def test_derived_quantities_and_overrides():
    res = lb.fit(SOURCE_SIZE, SOURCE_RATE)
    assert_allclose(res.s_half(), res.a * res.bandwidth, rtol=1e-12)
    # At s½ half of the time is per byte, so the byte rate is B/2.
    assert_allclose(res.byte_rate(res.s_half()), res.bandwidth / 2, rtol=1e-12)
    assert_allclose(res.size_for_fraction(0.5), res.s_half(), rtol=1e-12)
    assert_allclose(res.s_half(a=1e-6), 1e-6 * res.bandwidth, rtol=1e-12)
    assert_allclose(res.time_per_message(0), res.a, rtol=1e-12)


def test_relative_and_unweighted_fits_differ_and_are_documented():
    rel = lb.fit(SOURCE_SIZE, SOURCE_RATE)
    flat = lb.fit(SOURCE_SIZE, SOURCE_RATE, weights="none")
    assert "1/y²" in rel.notes[0] and "unweighted" in flat.notes[0]
    assert not np.isclose(rel.a, flat.a, rtol=1e-3)
    with pytest.raises(ModelError, match="weights"):
        lb.fit(SOURCE_SIZE, SOURCE_RATE, weights="inverse")


def test_pure_bandwidth_data_put_a_on_its_bound():
    size = np.array([1e3, 1e4, 1e5, 1e6])
    rate = 1e8 / size * np.array([1.02, 0.99, 1.01, 0.98])  # rate ∝ 1/size: no fixed cost
    res = lb.fit(size, rate * np.array([1.3, 1, 1, 1]))  # the small size faster still: a < 0 wanted
    assert "a" in res.at_bound
    assert res.a == 0
    assert any("no fixed per-message time" in note for note in res.notes)


@pytest.mark.parametrize(
    "size, rate, match",
    [
        ([1024], [100.0], "at least 2 distinct"),
        ([1024, 1024], [100.0, 90.0], "at least 2 distinct"),
        ([1024, 0], [100.0, 90.0], "greater than zero"),
        ([1024, 2048], [100.0, -1.0], "greater than zero"),
        ([1024, 2048], [100.0, 120.0], "no finite bandwidth"),
    ],
)
def test_bad_input_raises_model_error(size, rate, match):
    with pytest.raises(ModelError, match=match):
        lb.fit(size, rate)


def test_size_for_fraction_rejects_fractions_outside_zero_one():
    with pytest.raises(ModelError):
        lb.size_for_fraction(1.0, 1e-5, 1e8)


def test_the_rate_gradient_is_the_curves_derivative():
    import numpy as np

    from mqperf.models import _base, latency_bandwidth as lb

    sizes = np.array([64.0, 1024.0, 32768.0, 1048576.0])
    for theta in ([2e-5, 3e8], [1e-3, 1e6], [1e-7, 5e7]):
        numeric = _base.jacobian(lambda t: lb.message_rate(sizes, *t), np.array(theta), floor=1e-9)
        assert np.allclose(lb.message_rate_gradient(sizes, *theta), numeric, rtol=1e-5, atol=0)
