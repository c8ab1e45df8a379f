"""HA replication latency on generated files: every report is honest, whatever the file.

Files come from the chapter's model, rate = N·1000/(a + k·d), with random a, k, N, delays (one to
six, added or whole round trips), noise, series names (punctuation, non-ASCII), with and without
clients and CPU; the chapter either reports honestly or refuses the file in one line.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "ha_replication"
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=8).map(lambda s: "s" + s.strip())


@st.composite
def files(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    column = draw(st.sampled_from(["added_latency_ms", "rtt_ms"]))
    clients, cpu = draw(st.booleans()), draw(st.booleans())
    noise = draw(st.sampled_from([0.0, 0.01, 0.1]))
    frames = []
    for name in draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=lambda s: s.replace("_", " "))):
        a, k = draw(st.floats(0.05, 200)), draw(st.floats(0.1, 50))
        n = draw(st.integers(1, 5000))
        d = np.array(sorted(draw(st.sets(st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0]), min_size=1,
                                         max_size=6))))
        rate = n * 1000 / (a + k * d) * np.exp(noise * rng.standard_normal(d.size))
        frame = pd.DataFrame({"series": name, column: d, "rate": rate})
        if clients:
            frame["clients"] = n
        if cpu:
            frame["cpu_pct"] = np.clip(100 * rate / rate.max() * 0.8, 0, 100)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True), draw(st.sampled_from([0.5, 3.0, 50.0]))


@SETTINGS
@given(files())
def test_reports_on_generated_files_are_honest(tmp_path, case):
    frame, your = case
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    try:
        r = props.run(CHAPTER, path, your_rtt_ms=your)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    props.assert_report_is_honest(r, r.fit_results)
    plan = r.items["plan"]
    if hasattr(plan, "frame"):
        beyond = (plan.frame["extrapolated"] != "no").any()
        assert beyond == bool(r.extrapolations)
