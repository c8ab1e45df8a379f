"""Idle and trickle costs on generated data: the report is honest and its plans follow the fits.

Datasets come from the chapter's own model (idle CPU = base + per task × tasks.max) with noise,
plus awkward ones: flat, falling, curved, the fewest task counts a fit accepts, one series and
many (sinks among them), unicode and "/" in names, and ~20,000 interval rows; the polling inputs
and planning parameters vary too.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import props  # noqa: E402
from mqperf.errors import DataError, ModelError  # noqa: E402
from mqperf.models import polling  # noqa: E402

CH = "kafka_idle_trickle"
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = st.one_of(st.just("sink"), st.just("source"),
                  st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip()))
SHAPES = ("line", "flat", "falling", "curved")


@st.composite
def datasets(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique_by=lambda s: s.replace("_", " ")))
    frames = []
    for name in names:
        tasks = np.array(sorted(draw(st.sets(st.integers(1, 16), min_size=2, max_size=8))))
        base, per = draw(st.floats(0.01, 20)), draw(st.floats(0.001, 3))
        shape = draw(st.sampled_from(SHAPES))
        cpu = {"line": base + per * tasks, "flat": np.full(tasks.size, base),
               "falling": base + per * (tasks.max() + 1 - tasks), "curved": base + per * tasks**1.5}[shape]
        noise = draw(st.floats(0, 0.05))
        cpu = cpu * (1 + noise * np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(tasks.size))
        frames.append(pd.DataFrame({"connector": name, "tasks": tasks, "cpu_s_per_hour": np.maximum(cpu, 1e-3)}))
    return pd.concat(frames, ignore_index=True)


def check(r, p):
    props.assert_report_is_honest(r, r.fit_results)
    plan = r["plan"].frame
    name = plan["series"].iloc[0]
    res = r.fit_results[name]
    tasks, n = p["plan_tasks"], p["plan_connectors"]
    cpu = float(res.predict(pd.DataFrame({"tasks": [tasks]}))[0])
    assert plan.iloc[0]["CPU s per day, low"] == pytest.approx(cpu * n * 24)
    polls = 0.0 if name.lower().startswith("sink") else polling.idle_polls_per_hour(p["wait_s"], tasks=tasks) * 24 * n
    assert plan.iloc[1]["idle MQGETs per day"] == pytest.approx(polls)
    assert plan.iloc[1]["CPU s per day, high"] == pytest.approx(polls * max(p["empty_get_cpu_us"]) * 1e-6)
    trickle = r["trickle"].frame.set_index("arrival rate (msg/s)")
    rate = p["arrival_rate_msg_s"]
    if rate > 0:
        expected = polling.gets_per_message(rate / tasks, p["wait_s"], p["processing_time_s"])
        assert trickle.loc[rate, "MQGETs per message"] == pytest.approx(expected)


@SETTINGS
@given(frame=datasets(), wait=st.floats(0.5, 600), cost=st.lists(st.floats(0.1, 50), min_size=2, max_size=2),
       connectors=st.integers(1, 5000), tasks=st.integers(1, 20), rate=st.sampled_from([0.0, 0.003, 0.05, 2.0, 500.0]),
       tau=st.sampled_from([0.0, 0.001, 0.1]))
def test_generated_reports_are_honest(tmp_path, frame, wait, cost, connectors, tasks, rate, tau):
    p = {"trickle": "", "wait_s": wait, "empty_get_cpu_us": cost, "plan_connectors": connectors,
         "plan_tasks": tasks, "arrival_rate_msg_s": rate, "processing_time_s": tau}
    try:
        r = props.run(CH, props.frame_to_csv(frame, tmp_path / "gen.csv"), **p)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    check(r, p)


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n=st.integers(2, 4), per=st.floats(0.01, 2))
def test_exact_fits_say_so_and_only_then(tmp_path, n, per):
    tasks = np.arange(1, n + 1)
    frame = pd.DataFrame({"tasks": tasks, "cpu_s_per_hour": 1 + per * tasks + 0.05 * np.cos(tasks)})
    r = props.run(CH, props.frame_to_csv(frame, tmp_path / "exact.csv"))
    props.assert_report_is_honest(r, r.fit_results)
    assert props.says_exactly_identified(r) == (n == 2)


def test_twenty_thousand_interval_rows_and_many_series(tmp_path):
    rng = np.random.default_rng(7)
    tasks = np.tile(np.repeat([1, 2, 4, 8], 500), 10)
    series = np.repeat([f"sink/{i} µ" if i % 2 else f"source/{i} 日" for i in range(10)], 2000)
    cpu = (0.5 + 0.3 * tasks) * (1 + 0.05 * rng.standard_normal(tasks.size))
    frame = pd.DataFrame({"connector": series, "tasks": tasks, "cpu_s_per_hour": cpu})
    p = {"plan_connectors": 3, "plan_tasks": 2, "arrival_rate_msg_s": 0.01, "processing_time_s": 0.0,
         "wait_s": 30.0, "empty_get_cpu_us": [1.0, 2.0], "plan_connector": "sink/1"}
    r = props.run(CH, props.frame_to_csv(frame, tmp_path / "big.csv"), **p)
    assert len(r.points) == 40 and "20,000 rows were averaged into 40 points" in repr(r["points_note"])
    assert (r["fits"].frame["residual df"] == 2).all()
    check(r, p)
    assert math.isclose(r["plan"].frame.iloc[1]["idle MQGETs per day"], 0.0)  # a sink does not poll MQ
