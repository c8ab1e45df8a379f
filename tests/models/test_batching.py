"""Units of work: X(b) = b/(t_c + b·t_m) and L(b) = l_m + l_c/b."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import batching


def test_throughput_recovers_known_parameters():
    rng = np.random.default_rng(11)
    b = np.array([1, 2, 5, 10, 20, 50, 100, 250], dtype=float)
    t_c, t_m = 4e-4, 3.5e-5
    x = b / (t_c + b * t_m) * (1 + 0.03 * rng.standard_normal(b.size))
    res = batching.fit_throughput(b, x)
    ci = res.conf_int()
    for name, true in (("t_c", t_c), ("t_m", t_m)):
        assert ci.loc[name, "lower"] <= true <= ci.loc[name, "upper"]
    assert_allclose([res.t_c, res.t_m], [t_c, t_m], rtol=0.05)  # 3 % noise on 8 points


def test_batch_for_fraction_reaches_the_fraction_of_the_asymptote():
    t_c, t_m = 4e-4, 3.5e-5
    b90 = batching.batch_for_fraction(0.9, t_c, t_m)
    # Independent check: evaluate X at that batch size against 0.9 / t_m.
    assert_allclose(b90 / (t_c + b90 * t_m), 0.9 / t_m, rtol=1e-12)
    assert_allclose(b90, 9 * t_c / t_m, rtol=1e-12)


def test_result_methods_accept_overrides():
    res = batching.fit_throughput([1, 10, 100], [2500.0, 15000.0, 27000.0])
    assert_allclose(res.x_max(), 1 / res.t_m, rtol=1e-12)
    assert_allclose(res.batch_for_fraction(0.5, t_c=1.0, t_m=0.01), 100.0, rtol=1e-12)
    assert res.derived()["batch_for_90pct"] == pytest.approx(res.batch_for_fraction(0.9))


def test_log_bytes_from_mp16_values_are_exactly_identified():
    # Seed 000 quoting MP16: 1 KB get/commit logs 492 bytes; 10 gets per commit log 178 bytes per message.
    res = batching.fit_log_bytes([1, 10], [492, 178])
    # Two equations: l_m + l_c = 492, l_m + l_c/10 = 178  =>  l_c = 314 / 0.9.
    l_c = (492 - 178) / (1 - 1 / 10)
    assert_allclose(res.l_c, l_c, rtol=1e-9)
    assert_allclose(res.l_m, 492 - l_c, rtol=1e-9)
    assert res.exactly_identified
    assert res.bse.isna().all()
    # 100 messages per commit: the model's extrapolation, by hand.
    assert_allclose(res.predict([100])[0], 492 - l_c + l_c / 100, rtol=1e-9)


def test_log_bytes_recovery_and_excess():
    rng = np.random.default_rng(3)
    b = np.array([1, 2, 5, 10, 50, 100], dtype=float)
    y = 140 + 350 / b + rng.normal(0, 2, b.size)
    res = batching.fit_log_bytes(b, y)
    assert_allclose([res.l_m, res.l_c], [140, 350], rtol=0.05)
    # Within 10 % of the floor: l_c / (0.1 l_m) messages per commit.
    assert_allclose(res.batch_for_excess(0.1), res.l_c / (0.1 * res.l_m), rtol=1e-12)
    assert_allclose(res.log_rate(1000, 10), 1000 * (res.l_m + res.l_c / 10), rtol=1e-12)


def test_bytes_rising_with_batch_size_put_l_c_on_its_bound():
    res = batching.fit_log_bytes([1, 10, 100], [150, 160, 170])
    assert "l_c" in res.at_bound and res.l_c == 0
    assert any("l_c is on its bound 0" in note for note in res.notes)


def test_linear_throughput_puts_t_m_on_its_bound():
    b = np.array([1.0, 2.0, 4.0, 8.0])
    res = batching.fit_throughput(b, 1000 * b * np.array([1.0, 1.01, 1.03, 1.06]))
    assert "t_m" in res.at_bound
    assert any("no saturation" in note for note in res.notes)


@pytest.mark.parametrize("fit", [batching.fit_throughput, batching.fit_log_bytes])
@pytest.mark.parametrize(
    "b, y, match",
    [([5], [100.0], "at least 2 distinct"), ([1, 0], [1.0, 2.0], "greater than zero"), ([1, 2], [1.0, -2.0], "greater than zero")],
)
def test_bad_input_raises_model_error(fit, b, y, match):
    with pytest.raises(ModelError, match=match):
        fit(b, y)


@pytest.mark.parametrize("fraction", [0.0, 1.0, 1.5, -0.1])
def test_fraction_must_lie_strictly_between_zero_and_one(fraction):
    with pytest.raises(ModelError, match="fraction"):
        batching.batch_for_fraction(fraction, 1e-3, 1e-5)
