"""Properties of the client connection chapter's report on generated files.

Files come from the chapter's own model (a base cost, a SHARECNV step, a listener step and an
interaction, TLS and suppression increments) with noise and repeated rows, and from awkward
shapes: flat, one factor, one row, a missing cell, 20,000 rows, many listeners, names with
unicode and "/". Every report must be honest (tests/chapters/props.py) and the planning answer
(busy engines at the planned rate) must be the rate times the cost, recomputed here.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError

import props  # noqa: E402

CHAPTER = "client_connection_costs"
FAST = settings(max_examples=15, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
LISTENERS = ["local", "shared", "qsg/ü", "监听器", "port 1414"]


@st.composite
def cost_files(draw):
    shares = draw(st.lists(st.sampled_from([0, 1, 10, 50]), min_size=1, max_size=3, unique=True))
    listeners = draw(st.lists(st.sampled_from(LISTENERS), min_size=1, max_size=3, unique=True))
    base, step, lstep, inter = (draw(st.floats(200, 900)), draw(st.floats(-50, 200)), draw(st.floats(0, 800)),
                                draw(st.floats(-100, 300)))
    reps = draw(st.integers(1, 3))
    noise = draw(st.sampled_from([0.0, 0.02]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    tls = draw(st.booleans())
    drop_cell = draw(st.booleans()) and len(shares) * len(listeners) > 2
    rows = []
    for i, s in enumerate(shares):
        for j, lst in enumerate(listeners):
            if drop_cell and i == len(shares) - 1 and j == len(listeners) - 1:
                continue
            mean = base + step * (i > 0) + lstep * j + inter * (i > 0) * j
            for _ in range(reps):
                rows.append({"sharecnv": s, "listener": lst, "cpu_us": round(mean * (1 + rng.normal(0, noise)), 2),
                             "tls": False})
                if tls:
                    rows.append({"sharecnv": s, "listener": lst, "tls": True,
                                 "cpu_us": round((mean + 380) * (1 + rng.normal(0, noise)), 2)})
    return pd.DataFrame(rows)


def run_or_refuse(tmp_path, frame, **params):
    path = props.frame_to_csv(frame, tmp_path / "costs.csv")
    try:
        return props.run(CHAPTER, path, **params)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return None


def check_storm(r, frame, rate):
    """Busy engines = rate × mean cost of each configuration; engines = ceil(busy / max utilisation)."""
    storm = r.items["storm"].frame
    means = frame.groupby(["sharecnv", "listener", "tls"])["cpu_us"].mean()
    assert sorted(storm["CPU per attempt (µs)"].round(6)) == sorted(means.round(6))
    assert np.allclose(storm["busy engines"], rate * storm["CPU per attempt (µs)"] * 1e-6)
    need = [max(1, math.ceil(b / 0.8 - 1e-9)) for b in storm["busy engines"]]
    assert list(storm["engines needed"]) == need


@FAST
@given(frame=cost_files(), rate=st.sampled_from([1, 250, 1000, 40000]))
def test_generated_files_give_honest_reports(tmp_path, frame, rate):
    r = run_or_refuse(tmp_path, frame, storm_rate_per_s=rate, max_utilisation=0.8)
    if r is None:
        return
    props.assert_report_is_honest(r, r.fit_results)
    check_storm(r, frame, rate)
    from mqperf.present import prose

    assert r.sentences()["storm_text"].startswith(f"At {prose.num(rate)} connection attempts a second")


@pytest.mark.parametrize("shape", ["flat", "one row", "one factor", "missing cell", "many listeners"])
def test_awkward_files(tmp_path, shape):
    frames = {
        "flat": pd.DataFrame({"sharecnv": [0, 1, 0, 1], "listener": ["a", "a", "b", "b"], "cpu_us": [500.0] * 4}),
        "one row": pd.DataFrame({"sharecnv": [0], "listener": ["local"], "cpu_us": [510.0]}),
        "one factor": pd.DataFrame({"sharecnv": [0, 0], "listener": ["local", "shared"], "cpu_us": [510.0, 1100.0]}),
        "missing cell": pd.DataFrame({"sharecnv": [0, 0, 1], "listener": ["local", "shared", "local"],
                                      "cpu_us": [510.0, 1100.0, 590.0]}),
        "many listeners": pd.DataFrame({"sharecnv": [0] * 5 + [1] * 5, "listener": LISTENERS * 2,
                                        "cpu_us": [500.0 + 100 * i for i in range(10)]}),
    }
    frame = frames[shape].assign(tls=False)
    r = run_or_refuse(tmp_path, frame, storm_rate_per_s=500)
    assert r is not None
    props.assert_report_is_honest(r, r.fit_results)
    check_storm(r, frame, 500)


def test_twenty_thousand_rows(tmp_path):
    rng = np.random.default_rng(5)
    n = 20000
    frame = pd.DataFrame({"sharecnv": rng.choice([0, 1], n), "listener": rng.choice(["local", "shared"], n),
                          "tls": rng.choice([False, True], n)})
    frame["cpu_us"] = (510 + 80 * frame["sharecnv"] + 590 * (frame["listener"] == "shared") + 380 * frame["tls"]) \
        * np.exp(rng.normal(0, 0.03, n))
    r = run_or_refuse(tmp_path, frame, storm_rate_per_s=1000)
    assert r is not None
    props.assert_report_is_honest(r, r.fit_results)
    assert "20,000 rows were averaged into 8 points" in repr(r.items["note"])
    check_storm(r, frame, 1000)
