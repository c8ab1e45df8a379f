"""Message size on generated data: the report is honest and its planning answer follows the fit.

Datasets come from the chapter's own model, t(s) = a + s/B, with noise, plus awkward ones:
flat, rising, pure 1/size (no fixed cost), two sizes only, one series and many, unicode and
"/" in series names, and a file of ~20,000 interval rows.
"""


import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import props  # noqa: E402
from mqperf.chapters.kafka_message_size import fits as k  # noqa: E402
from mqperf.errors import DataError, ModelError  # noqa: E402

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
SHAPES = ("model", "model", "flat", "rising", "inverse")


@st.composite
def datasets(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique_by=lambda s: s.replace("_", " ")))
    frames = []
    for name in names:
        sizes = np.array(sorted(draw(st.sets(st.sampled_from([0.5, 1, 2, 4, 8, 10, 16, 32, 64, 100, 256, 1024]),
                                             min_size=2, max_size=7))), dtype=float)
        shape = draw(st.sampled_from(SHAPES))
        a = draw(st.floats(1e-6, 1e-3))
        bw = draw(st.floats(1.0, 2000.0)) * 1024 * 1024
        if shape == "model":
            rate = 1 / (a + sizes * 1024 / bw)
        elif shape == "flat":
            rate = np.full(sizes.size, 1 / a)
        elif shape == "rising":
            rate = sizes / a
        else:
            rate = bw / (sizes * 1024)
        noise = draw(st.floats(0, 0.05))
        rate = rate * (1 + noise * np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(sizes.size))
        frames.append(pd.DataFrame({"series": name, "msg_size_kb": sizes, "rate_msg_s": np.maximum(rate, 1e-3)}))
    return pd.concat(frames, ignore_index=True)


def check(r, plan_kb):
    results = k.fit_all(r.points).results
    props.assert_report_is_honest(r, results)
    plan = r["plan"].frame.set_index("series")
    assert set(plan.index) == set(results)
    for name, res in results.items():
        expected = float(res.predict([plan_kb * k.KB])[0])
        assert plan.loc[name, "rate (msg/s)"] == pytest.approx(expected, rel=1e-9)
        assert plan.loc[name, "MB/s"] == pytest.approx(expected * plan_kb / 1024, rel=1e-9)
        sizes = r.points.loc[r.points["series"] == name, "msg_size_kb"]
        assert bool(plan.loc[name, "extrapolated"]) == (not sizes.min() <= plan_kb <= sizes.max())


@SETTINGS
@given(frame=datasets(), plan_kb=st.sampled_from([0.25, 1, 3, 8, 50, 2048]))
def test_generated_reports_are_honest(tmp_path, frame, plan_kb):
    path = props.frame_to_csv(frame, tmp_path / "gen.csv")
    try:
        r = props.run("kafka_message_size", path, plan_msg_size_kb=plan_kb)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    check(r, plan_kb)


def test_rising_rates_are_refused_in_one_line(tmp_path):
    frame = pd.DataFrame({"msg_size_kb": [1, 4, 16], "rate_msg_s": [100.0, 400.0, 1600.0]})
    with pytest.raises(ModelError) as info:
        props.run("kafka_message_size", props.frame_to_csv(frame, tmp_path / "rising.csv"))
    assert "\n" not in str(info.value)


def test_twenty_thousand_interval_rows_and_many_series(tmp_path):
    rng = np.random.default_rng(5)
    sizes = np.tile(np.repeat([1.0, 4.0, 16.0, 64.0], 250), 20)
    series = np.repeat([f"cfg/{i} é" for i in range(20)], 1000)
    rate = 1 / (30e-6 + sizes * 1024 / (150 * 1024 * 1024)) * (1 + 0.03 * rng.standard_normal(sizes.size))
    frame = pd.DataFrame({"series": series, "msg_size_kb": sizes, "rate_msg_s": rate})
    r = props.run("kafka_message_size", props.frame_to_csv(frame, tmp_path / "big.csv"), plan_msg_size_kb=8)
    assert len(r.points) == 80 and "20,000 rows were averaged into 80 points" in repr(r["aggregation"])
    assert (r["fits"].frame["residual df"] == 2).all()
    check(r, 8)
