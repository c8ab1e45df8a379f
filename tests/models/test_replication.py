"""The round-trip model R(d) = a + k·d: recovery of known parameters, intervals that cover them,
the exactly identified case, the slope without client counts, planning helpers, and refusals."""

import math

import numpy as np
import pytest

from mqperf.errors import ModelError
from mqperf.models import replication


def _rates(d, a, k, n):
    return n * 1000.0 / (a + k * np.asarray(d, dtype=float))


@pytest.mark.parametrize("a, k, n", [(1.5, 4.8, 1), (6.5, 7.2, 300), (80.0, 70.0, 150), (0.05, 2.0, 10_000)])
def test_noise_free_rates_give_back_a_and_k(a, k, n):
    d = [0, 0.5, 1, 2, 5]
    res = replication.fit(d, _rates(d, a, k, n), [n] * len(d))
    assert res.a == pytest.approx(a, rel=1e-6)
    assert res.k == pytest.approx(k, rel=1e-6)
    assert res.halving_delay() == pytest.approx(a / k, rel=1e-6)
    assert res.rate([3.0])[0] == pytest.approx(n * 1000 / (a + 3 * k), rel=1e-6)


def test_intervals_cover_k_about_as_often_as_they_say():
    rng = np.random.default_rng(23)
    d = np.array([0, 1, 2, 3, 5, 8], dtype=float)
    covered = 0
    trials = 100
    for _ in range(trials):
        x = _rates(d, 5.0, 4.0, 100) * (1 + 0.03 * rng.standard_normal(d.size))
        lo, hi = replication.fit(d, x, [100] * d.size).k_interval()
        covered += lo <= 4.0 <= hi
    assert 0.85 <= covered / trials <= 0.99


def test_clients_may_differ_from_point_to_point():
    d = [0, 1, 2]
    n = [420, 540, 480]
    x = [ni * 1000 / (7.0 + 10.0 * di) for ni, di in zip(n, d)]
    res = replication.fit(d, x, n)
    assert (res.a, res.k) == pytest.approx((7.0, 10.0), rel=1e-6)


def test_two_delays_are_exactly_identified_with_no_interval():
    res = replication.fit([0, 2], _rates([0, 2], 3.0, 5.0, 50), [50, 50])
    assert res.exactly_identified
    assert all(math.isnan(v) for v in res.k_interval())
    band = res.rate_band([1.0]).iloc[0]
    assert math.isnan(band["lower"]) and band["rate"] == pytest.approx(50 * 1000 / 8.0)


def test_without_clients_the_slope_is_k_over_n_and_k_is_not_said():
    d = [0, 1, 2, 4]
    res = replication.fit(d, _rates(d, 6.0, 8.0, 200))
    assert not res.per_client
    assert math.isnan(res.k) and all(math.isnan(v) for v in res.k_interval())
    assert res.slope == pytest.approx(8.0 / 200, rel=1e-6)
    assert res.a == pytest.approx(6.0 / 200, rel=1e-6)
    assert "k/N" in res.formula


def test_delay_for_a_target_inverts_the_rate():
    res = replication.fit([0, 1, 2, 5], _rates([0, 1, 2, 5], 6.0, 7.0, 300), [300] * 4)
    d = res.delay_for(20_000)
    assert res.rate([d])[0] == pytest.approx(20_000, rel=1e-9)
    assert math.isnan(res.delay_for(1e9))  # not reached even with no delay


def test_the_card_names_k_and_its_unit():
    res = replication.fit([0, 1, 2, 5], _rates([0, 1, 2, 5], 6.0, 7.0, 300) * [1, 1.01, 0.99, 1], [300] * 4)
    card = res.to_card(name="t", dataset="x")
    assert "k" in str(card) and "round trips per request" in str(card)


@pytest.mark.parametrize("d, x, why", [
    ([1, 1, 1], [10, 9, 8], "2 distinct delays"),
    ([-1, 0, 1], [10, 9, 8], "0 or more"),
    ([0, 1, 2], [10, 0, 8], "greater than zero"),
    ([0, 1, 2], [10, 20, 30], "do not fall"),
    ([0, 1], [10], "values"),
])
def test_refusals_say_why(d, x, why):
    with pytest.raises(ModelError, match=why):
        replication.fit(d, x)
