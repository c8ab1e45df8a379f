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


def test_a_shift_within_the_runs_errors_is_not_claimed():
    # The runs moved by 1, but each is known only to ±2: no claim.
    assert changepoint.detect([10.0, 10.0, 11.0, 11.0], [2.0] * 4) == []


def test_weighted_levels_follow_the_standard_errors():
    y, s = [10.0, 10.5, 20.0, 20.0], [0.1, 1.0, 0.1, 0.1]
    (c,) = changepoint.detect(y, s)
    w = 1 / np.array(s[:2]) ** 2
    assert c.index == 2 and np.isclose(c.before, np.sum(w * y[:2]) / np.sum(w))


@pytest.mark.parametrize("y, s, match", [([1.0, 2.0], [0.1, 0.1], "three or more runs"),
                                         ([1.0, 2.0, 3.0], [0.1, np.nan, 0.1], "no standard error")])
def test_what_cannot_be_tested_says_why(y, s, match):
    with pytest.raises(ModelError, match=match):
        changepoint.detect(y, s)


def test_error_rates_over_generated_series():
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
