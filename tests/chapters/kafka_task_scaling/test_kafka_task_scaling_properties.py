"""Task scaling on generated data: the report is honest and its planning answer follows the fit.

Datasets come from the chapter's own model (the USL) with noise, plus awkward ones: flat,
linear, falling, the fewest points a fit accepts, one series and many, unicode and "/" in
series names, and a file of ~20,000 interval rows.
"""


import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import props  # noqa: E402
from mqperf.chapters import kafka_task_scaling as chapter  # noqa: E402
from mqperf.chapters.kafka_task_scaling import fits as k  # noqa: E402
from mqperf.errors import DataError, ModelError  # noqa: E402
from mqperf.models import usl  # noqa: E402

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
SHAPES = ("usl", "flat", "linear", "falling")


@st.composite
def datasets(draw):
    """A reader's file: 1–4 series, each with its own shape, task counts and noise."""
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=lambda s: s.replace("_", " ")))
    frames = []
    for name in names:
        tasks = np.array(sorted(draw(st.sets(st.integers(1, 16), min_size=2, max_size=8))))
        shape = draw(st.sampled_from(SHAPES))
        lam = draw(st.floats(50, 1e5))
        if shape == "usl":
            x = usl.throughput(tasks, lam, draw(st.floats(0, 0.6)), draw(st.floats(0, 0.05)))
        elif shape == "flat":
            x = np.full(tasks.size, lam)
        elif shape == "linear":
            x = lam * tasks
        else:
            x = lam / tasks
        noise = draw(st.floats(0, 0.05))
        seed = draw(st.integers(0, 2**16))
        x = x * (1 + noise * np.random.default_rng(seed).standard_normal(tasks.size))
        frames.append(pd.DataFrame({"series": name, "tasks": tasks, "rate_msg_s": np.maximum(x, 1e-3)}))
    return pd.concat(frames, ignore_index=True)


def fit_results(r):
    """The fits the report rests on (weighted where its residuals chose weights)."""
    return r.fit_results


def check(r, target, max_tasks):
    results = fit_results(r)
    props.assert_report_is_honest(r, results)
    frame = r["plan"].frame
    assert set(frame["series"]) == set(results)
    for row in frame.to_dict("records"):
        res = results[row["series"]]
        if row["model"] == "bottleneck":
            assert row["chosen by"] != "the only reading"
            continue
        reading = k.reading(res)
        need, why = reading.units_for(target)
        said = row["tasks for the target"]
        assert said == (need if need is not None else f"none: {why}")
        if need is not None:  # the smallest whole N that reaches the target, however large
            x = res.predict(np.array([need - 1, need], dtype=float))
            assert x[1] >= target * (1 - 1e-9) and (need == 1 or x[0] < target)
        else:  # no whole N reaches it: the target is above the curve's best
            assert res.predict(np.arange(1, 400)).max() < target * (1 + 1e-9)
        last = row["last task adding ≥ 5 %"]
        n = np.arange(1, last + 2, dtype=float)
        gains = np.diff(res.predict(n)) / res.predict(n[:-1]) * 100
        assert (gains[: last - 1] >= chapter.PAYING_PCT).all() and gains[last - 1] < chapter.PAYING_PCT
        low, high = k.measured(r.points, row["series"])
        beyond = ((need is not None and not low <= need <= high) or not low <= last + 1 <= high
                  or not low <= last <= high)
        assert row["extrapolated"] == (beyond or "the modelled" in row["beyond the measured counts"])


@SETTINGS
@given(frame=datasets(), target=st.floats(10, 2e5), max_tasks=st.integers(1, 20))
def test_generated_reports_are_honest(tmp_path, frame, target, max_tasks):
    path = props.frame_to_csv(frame, tmp_path / "gen.csv")
    try:
        r = props.run("kafka_task_scaling", path, target_rate_msg_s=target, max_tasks=max_tasks)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    check(r, target, max_tasks)


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n=st.integers(3, 6), sigma=st.floats(0, 0.3), kappa=st.floats(0, 0.02))
def test_exact_fits_say_so_and_only_then(tmp_path, n, sigma, kappa):
    # Exactly three task counts: the USL is exactly identified; a fourth leaves a degree of freedom.
    tasks = np.arange(1, n + 1)
    frame = pd.DataFrame({"tasks": tasks, "rate_msg_s": usl.throughput(tasks, 1000, sigma, kappa)
                          * (1 + 0.02 * np.cos(tasks))})
    r = props.run("kafka_task_scaling", props.frame_to_csv(frame, tmp_path / "exact.csv"))
    results = fit_results(r)
    props.assert_report_is_honest(r, results)
    assert props.says_exactly_identified(r) == any(res.exactly_identified for res in results.values())


def test_a_single_point_series_is_refused_in_one_line(tmp_path):
    frame = pd.DataFrame({"tasks": [3], "rate_msg_s": [100.0]})
    with pytest.raises(ModelError) as info:
        props.run("kafka_task_scaling", props.frame_to_csv(frame, tmp_path / "one.csv"))
    assert "\n" not in str(info.value)


def test_twenty_thousand_interval_rows_and_many_series(tmp_path):
    rng = np.random.default_rng(3)
    tasks = np.tile(np.repeat(np.arange(1, 9), 250), 10)
    series = np.repeat([f"run/{i} µ" for i in range(10)], 2000)
    x = usl.throughput(tasks, 5000, 0.1, 0.01) * (1 + 0.03 * rng.standard_normal(tasks.size))
    frame = pd.DataFrame({"series": series, "tasks": tasks, "rate_msg_s": x})
    r = props.run("kafka_task_scaling", props.frame_to_csv(frame, tmp_path / "big.csv"), target_rate_msg_s=20000)
    assert len(r.points) == 80 and "20,000 rows were averaged into 80 points" in repr(r["aggregation"])
    assert (r["fits"].frame["residual df"] == 5).all()  # 8 distinct tasks values, 3 parameters
    check(r, 20000, 8)
