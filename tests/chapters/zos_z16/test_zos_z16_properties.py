"""MQ for z/OS on z16 on generated runs: every report is honest (props.assert_report_is_honest).

Datasets come from the chapter's own model, the USL per machine, with random parameters, CPU
counts, machine and workload names (awkward text among them), noise, optional columns present or
not, and repeated runs that the chapter averages.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError
from mqperf.models import usl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "zos_z16"
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = st.text(alphabet="abzXYZ /é日µ-_0123456789", min_size=1, max_size=8).map(lambda s: "m" + s.strip())


@st.composite
def runs(draw):
    machines = draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=lambda s: s.replace("_", " ")))
    workloads = draw(st.sampled_from([[""], ["w1"], ["w1", "w é 2"]]))
    cpus = sorted(draw(st.sets(st.integers(1, 64), min_size=1, max_size=9)))
    noise = draw(st.sampled_from([0.0, 0.02]))
    repeats = draw(st.integers(1, 2))
    with_cost = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for w in workloads:
        for m in machines:
            lam = draw(st.floats(100, 5e5))
            sigma, kappa = draw(st.floats(0, 0.3)), draw(st.sampled_from([0.0, 1e-4, 2e-3]))
            for _ in range(repeats):
                x = usl.throughput(np.array(cpus, float), lam, sigma, kappa) * (1 + noise * rng.standard_normal(len(cpus)))
                for c, v in zip(cpus, x):
                    row = {"machine": m, "cpus": c, "rate_msg_s": max(float(v), 1.0)}
                    if with_cost:
                        row["cpu_us_per_tx"] = 10 + c * draw(st.floats(0.1, 2))
                    if w:
                        row["workload"] = w
                    rows.append(row)
    frame = pd.DataFrame(rows)
    if draw(st.booleans()):
        frame["basis"] = draw(st.sampled_from(["measured", "chart"]))
    pair = (machines[0], machines[-1])
    return frame, pair


@SETTINGS
@given(data=runs(), target=st.floats(10, 1e7), plan_cpus=st.integers(1, 64), named=st.booleans())
def test_generated_reports_are_honest(tmp_path, data, target, plan_cpus, named):
    frame, (a, b) = data
    path = props.write(tmp_path, frame, "gen.csv")
    over = {"target_rate_msg_s": target, "plan_cpus": plan_cpus}
    if named:
        over.update(from_machine=a, to_machine=b)
    try:
        r = props.run(CHAPTER, path, **over)
    except (DataError, ModelError) as exc:
        pytest.fail(f"a valid file was refused: {exc}")
    props.assert_report_is_honest(r, r.fit_results)
    for row in (props.table(r, "plan").to_dict("records") if type(r["plan"]).__name__ == "Table" else []):
        if row["target: extrapolated"]:
            assert any("CPUs on" in e for e in r.extrapolations)
