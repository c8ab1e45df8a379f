"""Change points over a series of runs: found where they are, not where they are not."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import changepoint


def test_a_clear_shift_is_found_at_its_run():
    y = [10.0, 10.2, 9.9, 10.1, 14.0, 14.1, 13.9]
    (c,) = changepoint.detect(y, [0.2] * 7)
    assert c.index == 4
    assert_allclose(c.before, np.mean(y[:4]), rtol=1e-12)  # equal errors: plain means
    assert_allclose(c.after, np.mean(y[4:]), rtol=1e-12)
    assert c.lower > 0


def test_a_flat_series_has_none():
    assert changepoint.detect([10.0, 10.1, 9.9, 10.05, 9.95], [0.2] * 5) == []
    assert changepoint.detect([10.0, 10.1, 9.9, 10.05, 9.95], [0.2] * 5, df=5) == []


def test_a_shift_within_the_runs_errors_is_not_claimed():
    # The runs moved by 1, but each is known only to ±2: no claim.
    assert changepoint.detect([10.0, 10.0, 11.0, 11.0], [2.0] * 4) == []


def test_weighted_levels_follow_the_standard_errors():
    y, s = [10.0, 10.5, 20.0, 20.0], [0.1, 1.0, 0.1, 0.1]
    (c,) = changepoint.detect(y, s)
    w = 1 / np.array(s[:2]) ** 2
    assert c.index == 2 and np.isclose(c.before, np.sum(w * y[:2]) / np.sum(w))


@pytest.mark.parametrize("y, s, df, match", [([1.0, 2.0], [0.1, 0.1], None, "three or more runs"),
                                             ([1.0, 2.0, 3.0], [0.1, np.nan, 0.1], None, "no standard error"),
                                             ([1.0, 2.0, 3.0], [0.1, 0.1, 0.1], [5, 0, 5], "no residual degrees")])
def test_what_cannot_be_tested_says_why(y, s, df, match):
    with pytest.raises(ModelError, match=match):
        changepoint.detect(y, s, df=df)


def test_the_search_finds_the_partition_ruptures_pelt_finds():
    # The exact optimal partition (dynamic programming, many sequences at once) is the one PELT
    # finds; the docs say "as ruptures' PELT finds it", and this holds them to it.
    ruptures = pytest.importorskip("ruptures")
    rng = np.random.default_rng(7)
    for k in range(300):
        n = int(rng.integers(3, 25))
        y = rng.normal(0, 1, n)
        if k % 2:
            y[int(rng.integers(1, n)):] += rng.normal(0, 4)
        s = rng.uniform(0.3, 2.0, n)
        pen = float(changepoint.penalty(s)[0])
        expected = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(y.reshape(-1, 1)).predict(pen=pen)[:-1]
        assert changepoint.cuts(changepoint.partition(y[None, :], np.array([pen]))[0]) == expected


def _runs(rng, level, shift_at=None, shift=0.0, runs=6, points=7, noise=1.0):
    """Each run: a straight line fitted to ``points`` points (5 residual df); the estimate is its
    level at the centre, with the standard error the fit estimates from its own residuals."""
    x = np.arange(points, dtype=float) - (points - 1) / 2
    design = np.column_stack([np.ones_like(x), x])
    est, se = [], []
    for i in range(runs):
        mu = level * (1 + (shift if shift_at is not None and i >= shift_at else 0.0))
        y = mu + 0.3 * x + rng.normal(0, noise, points)
        theta, ssr, *_ = np.linalg.lstsq(design, y, rcond=None)
        s2 = float(ssr[0]) / (points - 2)
        est.append(theta[0])
        se.append(np.sqrt(s2 / points))
    return np.array(est), np.array(se)


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_error_rates_with_standard_errors_estimated_from_five_degrees_of_freedom():
    # Sets of six runs of one unchanged system, each run's error estimated from its own five
    # residual degrees of freedom. Treating those errors as known flags far more than α; with
    # their uncertainty in the check, at most 10 % (the target; α = 5 %, and 0.10 is
    # about four binomial standard deviations above it for 250 series). A 15 % shift from the
    # fourth run (errors of 3.5 % of the level per run) is found there, and nowhere else, in at
    # least 80 %.
    rng = np.random.default_rng(21)
    null = [_runs(rng, 100.0, noise=3.5 * np.sqrt(7)) for _ in range(250)]
    as_known = sum(bool(changepoint.detect(y, s)) for y, s in null) / len(null)
    calibrated = sum(bool(changepoint.detect(y, s, df=5)) for y, s in null) / len(null)
    assert calibrated <= 0.10
    assert as_known >= calibrated + 0.05  # what the check's simulation of the errors' uncertainty fixes
    found = 0
    for _ in range(80):
        y, s = _runs(rng, 100.0, shift_at=3, shift=-0.15, noise=3.5 * np.sqrt(7))
        found += [c.index for c in changepoint.detect(y, s, df=5)] == [3]
    assert found / 80 >= 0.8


def test_error_rates_over_generated_series_with_known_errors():
    # 8 runs with known errors. No shift in 150 series: at most 5 % claims expected; 0.11 allows
    # three binomial standard deviations above (sqrt(.05 × .95 / 150) = 0.018). A shift of five
    # errors at run 5 in 50 series: found there, and nowhere else, in at least 80 %.
    rng = np.random.default_rng(21)
    false = sum(bool(changepoint.detect(rng.normal(100, 1, 8), np.ones(8))) for _ in range(150))
    assert false / 150 <= 0.11
    found = 0
    for _ in range(50):
        y = rng.normal(100, 1, 8)
        y[5:] += 5
        found += [c.index for c in changepoint.detect(y, np.ones(8))] == [5]
    assert found / 50 >= 0.8


@pytest.mark.parametrize("jitter", [0.0, 1e-14, -1e-14])
def test_two_equally_good_partitions_give_the_earlier_on_every_cpu(jitter):
    """[0, 2, 4] cut once, after the first point or before the last, costs 2 either way in exact
    arithmetic; a last-bit difference (another CPU's sums) must not decide which is reported."""
    y = np.array([[0.0, 2.0 + jitter, 4.0]])
    last = changepoint.partition(y, np.array([4.0]))[0]  # one cut beats none (8 + 4) and two (12)
    assert changepoint.cuts(last) == [1]
