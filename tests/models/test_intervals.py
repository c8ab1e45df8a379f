"""Busy intervals found from the data: known busy periods are found, flat series have none."""

import numpy as np
import pandas as pd
import pytest

from mqperf.models import intervals


def _day(rates):
    start = pd.Series(pd.date_range("2026-01-01", periods=len(rates), freq="15min"))
    return start, pd.Series(900.0, index=range(len(rates)))


def test_known_busy_periods_are_found():
    rng = np.random.default_rng(1)
    rates = np.full(96, 40.0) * rng.normal(1, 0.05, 96)
    rates[36:48] = 800 * rng.normal(1, 0.05, 12)   # 09:00-12:00
    rates[56:68] = 1200 * rng.normal(1, 0.05, 12)  # 14:00-17:00
    split = intervals.busy(rates)
    assert split.busy.tolist() == [36 <= i < 48 or 56 <= i < 68 for i in range(96)]
    assert split.contrast > 10 and split.reason == ""
    start, length = _day(rates)
    per = intervals.periods(start, length, split.busy)
    assert per["intervals"].tolist() == [12, 12]
    assert per["start"].dt.strftime("%H:%M").tolist() == ["09:00", "14:00"]
    assert per["end"].dt.strftime("%H:%M").tolist() == ["12:00", "17:00"]


@pytest.mark.parametrize("rates, reason", [
    ([100.0] * 10, "same rate"),
    ([100, 104, 98, 101, 97, 103], "only"),
    ([5.0, 500.0], "two intervals are too few"),
    ([7.0], "one interval is too few"),
])
def test_flat_or_short_series_have_no_busy_period(rates, reason):
    split = intervals.busy(rates)
    assert not split.busy.any() and split.threshold is None and reason in split.reason


def test_the_contrast_rule_is_the_parameter():
    rates = [10, 11, 10, 12, 25, 26, 24]  # a step of about 2.3 times
    assert intervals.busy(rates, min_contrast=2).busy.tolist() == [False] * 4 + [True] * 3
    assert not intervals.busy(rates, min_contrast=3).busy.any()


def test_a_missing_interval_splits_a_period_and_order_does_not_matter():
    start = pd.Series(pd.to_datetime(["2026-01-01 10:30", "2026-01-01 10:00", "2026-01-01 10:15", "2026-01-01 11:00"]))
    per = intervals.periods(start, pd.Series([900.0] * 4), [True, True, True, True])
    assert per["intervals"].tolist() == [3, 1]  # 10:45 is missing
    assert per["members"].tolist() == [[1, 2, 0], [3]]
