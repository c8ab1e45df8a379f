"""Latch wait power law w(N) = a·N^b and its comparison with the USL coherency term."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import contention


def test_recovers_exponent_from_noisy_waits():
    rng = np.random.default_rng(5)
    n = np.arange(1.0, 9.0)
    w = 5.0 * n**1.9 * np.exp(0.05 * rng.standard_normal(n.size))
    res = contention.fit(n, w)
    lo, hi = res.conf_int().loc["b"]
    assert lo <= 1.9 <= hi
    assert_allclose(res.b, 1.9, atol=0.1)
    assert_allclose(res.a, 5.0, rtol=0.15)
    assert_allclose(res.log_rmse, 0.05, rtol=0.6)


def test_fit_is_ordinary_least_squares_in_log_space():
    n = np.array([2.0, 3.0, 4.0, 6.0, 8.0])
    w = np.array([10.0, 27.0, 41.0, 100.0, 170.0])
    res = contention.fit(n, w)
    slope, intercept = np.polyfit(np.log(n), np.log(w), 1)
    assert_allclose([res.params["ln_a"], res.b], [intercept, slope], rtol=1e-10)


def test_seed_latch_19_two_points_are_exactly_identified():
    # Seed 000: latch 19 (BMXL3) total wait 293 s with 4 tasks, 449 s with 5 (3-minute runs).
    res = contention.fit([4, 5], [293, 449])
    assert res.exactly_identified and res.bse.isna().all()
    assert_allclose(res.b, math.log(449 / 293) / math.log(5 / 4), rtol=1e-12)
    assert_allclose(res.predict([4, 5]), [293, 449], rtol=1e-12)
    # The seed prints "+50 %"; the two times give +53 % (errata E002).
    assert_allclose(res.growth(4, 5), 449 / 293, rtol=1e-12)


def test_coherency_growth_and_exponent():
    # N(N-1) from 4 to 5 tasks: 20 / 12, i.e. +67 %, more than latch 19's +53 %.
    assert_allclose(contention.coherency_growth(4, 5), 20 / 12, rtol=1e-12)
    assert_allclose(contention.coherency_exponent(2), 3.0, rtol=1e-12)
    assert_allclose(contention.coherency_exponent(1e6), 2.0, rtol=1e-5)
    # exponent of the coherency term through two points equals its own growth
    assert_allclose(contention.power_growth(4, 5, contention.exponent_from_ratio(20 / 12, 4, 5)), 20 / 12, rtol=1e-12)


def test_compare_with_coherency_table():
    res = contention.fit([4, 5], [293, 449])
    table = res.compare_with_coherency([2, 4])
    assert list(table["n_to"]) == [3, 5]
    assert_allclose(table["coherency_growth"], [6 / 2, 20 / 12], rtol=1e-12)
    assert_allclose(table["power_law_growth"], [(3 / 2) ** res.b, (5 / 4) ** res.b], rtol=1e-12)
    # what-if: b = 2 against coherency at N = 4
    assert_allclose(res.growth(4, 5, b=2), 25 / 16, rtol=1e-12)


def test_seed_latch_percentages_as_exponents():
    # Seed 000 gives only percentages for latches 31, 24 and 12 from 4 to 5 tasks.
    for pct in (63, 93, 160):
        b = contention.exponent_from_ratio(1 + pct / 100, 4, 5)
        assert_allclose((5 / 4) ** b, 1 + pct / 100, rtol=1e-12)
    assert contention.exponent_from_ratio(2.6, 4, 5) > contention.coherency_exponent(4)


def test_negative_exponent_is_noted():
    res = contention.fit([1, 2, 4], [10.0, 6.0, 3.0])
    assert res.b < 0
    assert any("b < 0" in note for note in res.notes)


@pytest.mark.parametrize(
    "n, w, match",
    [
        ([4], [293.0], "at least 2 distinct"),
        ([4, 5], [293.0, 0.0], "greater than zero"),
        ([0, 5], [1.0, 2.0], "greater than zero"),
    ],
)
def test_bad_input_raises_model_error(n, w, match):
    with pytest.raises(ModelError, match=match):
        contention.fit(n, w)


def test_coherency_needs_more_than_one_task():
    with pytest.raises(ModelError, match="n_from > 1"):
        contention.coherency_growth(1, 2)
    with pytest.raises(ModelError):
        contention.exponent_from_ratio(1.5, 4, 4)
