"""Property tests: the channel compression chapter on files generated from its own model (and awkward
ones) tells the truth about them: every stated number shown, no empty table, no published passage."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared chapter test helpers (props)
import props  # noqa: E402
from mqperf.errors import DataError, ModelError

CHAPTER = "channel_compression"
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@st.composite
def files(draw):
    techs = draw(st.lists(st.sampled_from(["NONE", "RLE", "ZLIBFAST", "ZLIBHIGH", "Zlib<b>"]), min_size=1,
                          max_size=4, unique=True))
    sizes = draw(st.lists(st.sampled_from([1, 2, 8, 16, 32, 64, 100, 1000]), min_size=1, max_size=5, unique=True))
    pcts = draw(st.lists(st.sampled_from([0, 10, 40, 75, 90]), min_size=1, max_size=4, unique=True))
    noise = draw(st.sampled_from([0.0, 0.02, 0.2]))
    rates = draw(st.booleans())
    ratio = draw(st.booleans())
    rng = np.random.default_rng(len(techs) * 7 + len(sizes))
    rows = []
    for t in techs:
        a, b, c = draw(st.tuples(st.floats(10, 500), st.floats(0.1, 40), st.floats(-20, 5)))
        for s in sizes:
            for p in ((0,) if t == "NONE" else pcts):
                cpu = max(a + b * s + c * s * p / 100, 1.0) * (1 + noise * rng.normal())
                row = {"technique": t, "message_bytes": s * 1024, "cpu_us_per_tx": max(cpu, 0.5)}
                if ratio:
                    row["compression_ratio"] = 1 / (1 - p / 100)
                else:
                    row["compressibility_pct"] = p
                if rates:
                    row["rate_tx_s"] = 1e6 / (20 + 0.5 * s)
                rows.append(row)
    size_kb = draw(st.sampled_from([4, 32, 5000]))
    pct = draw(st.sampled_from([0, 40, 95]))
    return pd.DataFrame(rows), size_kb, pct


@SETTINGS
@given(generated=files())
def test_report_is_honest_on_generated_files(tmp_path, generated):
    frame, size_kb, pct = generated
    try:
        r = props.run(CHAPTER, props.write(tmp_path, frame, "runs.csv"), message_size_kb=size_kb,
                      compressibility_pct=pct)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc)
        return
    props.assert_report_is_honest(r, r.fit_results)
    plan = props.table(r, "plan")
    # An answer is labelled extrapolated exactly when the size lies outside a technique's measured sizes.
    sizes = frame["message_bytes"] / 1024
    for row in plan.to_dict("records"):
        mine = sizes[frame["technique"] == row["technique"]]
        outside = size_kb < mine.min() or size_kb > mine.max()
        assert outside == ("size outside" in row["extrapolated"])
