"""Aggregation of many rows per setting: rates are total count over total time."""

import pandas as pd
import pytest

from mqperf.data import aggregate


def test_rates_over_intervals_are_total_count_over_total_time():
    # 100 messages in 10 s, then 900 in 90 s, then 3,000 in 10 s: 4,000 in 110 s.
    frame = pd.DataFrame({"qm": ["A"] * 3, "interval_s": [10.0, 90.0, 10.0], "rate": [10.0, 10.0, 300.0]})
    out = aggregate.means(frame, ["qm"], ["rate"], weight="interval_s", rates=["rate"])
    assert out["rate"].iloc[0] == pytest.approx(4000 / 110)
    assert out.attrs["weighted_by"] == "their interval_s"
    plain = aggregate.means(frame, ["qm"], ["rate"])  # no lengths given: the mean of the rows' rates
    assert plain["rate"].iloc[0] == pytest.approx(320 / 3) and "weighted_by" not in plain.attrs
