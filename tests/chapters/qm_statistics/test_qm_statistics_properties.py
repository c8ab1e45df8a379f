"""Property tests: the statistics chapter on generated days tells the truth about them."""

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError
from tests.chapters import props

CHAPTER = "qm_statistics"
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@st.composite
def days(draw):
    n = draw(st.integers(1, 150))
    quiet = draw(st.floats(0, 500))
    busy_at = draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    factor = draw(st.sampled_from([1.0, 1.5, 3.0, 50.0]))
    rates = np.full(n, quiet)
    rates[busy_at] = quiet * factor + (10 if factor > 1 else 0)
    qms = draw(st.sampled_from([["QM1"], ["QM/1", "QM✓2"]]))
    frames = []
    for qm in qms:
        frame = pd.DataFrame({"start": pd.date_range("2026-05-01", periods=n, freq="60s").strftime("%Y-%m-%dT%H:%M:%S"),
                              "interval_s": 60.0, "qmgr": qm, "puts": np.round(rates * 30), "gets": np.round(rates * 30)})
        for col in draw(st.sets(st.sampled_from(["persistent_puts", "commits", "log_write_bytes", "connects", "cpu_s"]))):
            frame[col] = np.round(rates * {"persistent_puts": 20, "commits": 5, "log_write_bytes": 50000,
                                            "connects": 1, "cpu_s": 0.001}[col], 3)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True), rates, factor, busy_at


@SETTINGS
@given(day=days())
def test_generated_days(tmp_path, day):
    frame, rates, factor, busy_at = day
    try:
        r = props.run(CHAPTER, props.write(tmp_path, frame, "day.csv"))
    except (DataError, ModelError):
        return
    props.assert_report_is_honest(r)
    table = props.table(r, "rates")
    busy = table["busy intervals"].iloc[0]
    # A clear step (50×) on at least three intervals with some quiet ones is found exactly.
    if factor == 50.0 and 0 < len(busy_at) < len(rates) and len(rates) >= 3:
        assert busy == len(busy_at)
    if factor == 1.0:
        assert busy == 0
