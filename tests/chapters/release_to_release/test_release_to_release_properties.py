"""Property tests: the release-to-release chapter on generated releases, workloads and runs tells
the truth about them (props.assert_report_is_honest)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.chapters.release_to_release import fits as f
from mqperf.errors import DataError, ModelError, ParameterError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "release_to_release"
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@st.composite
def files(draw):
    releases = draw(st.sampled_from([["9.1"], ["9.2", "9.3"], ["V9.1", "V9.2", "V9.3"], ["a/b", "c✓"]]))
    workloads = draw(st.lists(st.sampled_from(["RR-BB 2KB", "RR-CB *x*", "JMS [2MB]", "w"]), min_size=1, max_size=3,
                              unique=True))
    runs = draw(st.integers(1, 3))
    scale = draw(st.sampled_from([3.0, 5e4, 2e6]))
    change = draw(st.sampled_from([0.0, 4.0, -25.0]))
    machine = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    rows = []
    for k, rel in enumerate(releases):
        for w in workloads:
            for i in range(runs):
                rows.append({"release": rel, "workload": w, "replicate": i + 1,
                             "rate_rt_s": scale * (1 + change / 100) ** k * (1 + 0.02 * rng.standard_normal()),
                             "cpu_pct": float(np.clip(60 + 5 * rng.standard_normal(), 1, 100)),
                             **({"machine": "m1" if k < 2 else "m2"} if machine else {})})
    return pd.DataFrame(rows), len(releases)


@SETTINGS
@given(data=files())
def test_generated_files(tmp_path, data):
    frame, n_releases = data
    try:
        r = props.run(CHAPTER, props.write(tmp_path, frame, "runs.csv"))
    except (DataError, ModelError, ParameterError):
        return
    props.assert_report_is_honest(r)
    if n_releases == 1:
        assert r.card_results  # a file of one release: the runs mqperf compare sets side by side
    else:
        rate = props.table(r, "rate_changes")
        assert len(rate) == (n_releases - 1) * frame["workload"].nunique()
        if "machine" in frame:
            moved = rate[(rate["from"] == frame["release"].unique()[1]) & (rate["to"] == frame["release"].unique()[-1])]
            if n_releases == 3:
                assert set(moved["reading"]) == {f.MACHINE}
