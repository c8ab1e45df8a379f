"""Hypothesis: reports on runs generated from the chapter's model (a rate ratio and a CPU-per-round-trip ratio
per CipherSpec, with or without repeats) are honest, and their ratios are the generating ones."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

ratio = st.floats(1.05, 4.0)


@SETTINGS
@given(specs=st.lists(st.tuples(ratio, ratio), min_size=1, max_size=6), base_rate=st.floats(1e3, 1e6),
       base_cpu=st.floats(5.0, 60.0), your_rate=st.floats(100.0, 2e6), repeats=st.integers(1, 3))
def test_generated_reports_are_honest(tmp_path, specs, base_rate, base_cpu, your_rate, repeats):
    rng = np.random.default_rng(3)
    rows = []
    for i, (r, k) in enumerate([(1.0, 1.0)] + specs):
        name = "No TLS" if i == 0 else f"CIPHER_{i}"
        for _ in range(repeats):
            noise = 1 + (0.01 * rng.standard_normal() if repeats > 1 else 0.0)
            rows.append({"cipherspec": name, "rate_rt_s": base_rate / r * noise,
                         "cpu_pct": min(100.0, base_cpu * k / r * noise)})
    path = props.write(tmp_path, pd.DataFrame(rows), "gen.csv")
    res = props.run("tls_ciphers", path, your_rate_rt_s=your_rate)
    props.assert_report_is_honest(res)
    costs = props.table(res, "costs").set_index("CipherSpec")
    if repeats == 1:
        for i, (r, k) in enumerate(specs, start=1):
            assert costs.loc[f"CIPHER_{i}", "rate ratio No TLS / this"] == pytest.approx(r, rel=1e-9)
        assert "One run per CipherSpec" in str(res["costs_text"]) or len(specs) == 1
    plan = props.table(res, "plan")
    assert (plan["extrapolated"] == (your_rate > plan["measured peak (round trips/s)"])).all()
    assert len(res.extrapolations) == int(plan["extrapolated"].sum())
