"""The log disk chapter on generated data: every report is honest.

Datasets come from the chapter's own model, t(b) = a + b/B with relative noise, and awkward ones:
one block size, replicates, several writers at once without a series column, write times that fall
with block size (no bandwidth), unicode and "/" in series names, and planning inputs that leave the
measured block sizes.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared chapter test helpers (props)
import props  # noqa: E402

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
BLOCKS = [512, 4096, 16384, 65536, 262144, 1048576, 4194304]


@st.composite
def datasets(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    writers_only = draw(st.booleans()) and draw(st.integers(0, 3)) == 0
    names = [None] if writers_only else draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    rows = []
    for name in names:
        a = 10 ** draw(st.floats(-5.5, -2))          # 3 µs to 10 ms per write
        B = 10 ** draw(st.floats(7, 10))              # 10 MB/s to 10 GB/s
        blocks = draw(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=6, unique=True))
        reps = draw(st.integers(1, 2))
        noise = draw(st.sampled_from([0.0, 0.01, 0.1]))
        falling = draw(st.integers(0, 5)) == 0
        for b in blocks:
            for _ in range(reps):
                t = (a + (0 if falling else b / B)) * (1 + noise * rng.normal()) * (1 - (b / 1e7 if falling else 0))
                t = max(t, 1e-7)
                row = {"blocksize_bytes": b, "avg_latency_us": t * 1e6, "avg_bytes_s": b / t}
                if name is None:
                    row["queue_managers"] = int(rng.integers(1, 4))
                else:
                    row["series"] = name
                rows.append(row)
    return pd.DataFrame(rows)


@SETTINGS
@given(frame=datasets(), size=st.sampled_from([100, 2048, 204800, 5_000_000]),
       k=st.integers(1, 50), n=st.integers(1, 500))
def test_reports_on_generated_disks_are_honest(tmp_path, frame, size, k, n):
    path = tmp_path / "disk.csv"
    frame.to_csv(path, index=False)
    r = props.run("log_disk", path, message_size_bytes=size, messages_per_commit=k, committers=n)
    props.assert_report_is_honest(r, r.fit_results)
    plan = r["plan"].frame
    assert len(plan) == frame.get("series", pd.Series(["x"])).nunique() or "queue_managers" in frame
    # An answer outside the measured block sizes is labelled in the table and recorded.
    outside = plan[plan["extrapolated"] != "no"]
    assert len(outside) == len(r.extrapolations)
    for row in plan.to_dict("records"):
        if pd.notna(row.get("persistent msg/s")) and pd.notna(row.get("msg/s lower")):
            assert row["msg/s lower"] <= row["persistent msg/s"] * (1 + 1e-9)
