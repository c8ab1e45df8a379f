"""Persistent messages on generated data: the report is honest and its planning answers follow the fits.

Datasets come from the chapter's own models, X(b) = b/(t_c + b·t_m) and L(b) = l_m + l_c/b, with
noise, plus awkward ones: flat (no gain from batching), linear (no saturation), falling, the
fewest unit-of-work sizes a fit accepts, one series and many, ranged points, several log
operations, unicode and "/" in names, and ~20,000 interval rows.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.chapters.kafka_persistent_uow import fits as uow_fits
from mqperf.errors import DataError, ModelError
from mqperf.models import batching

import props  # noqa: E402

CH = "kafka_persistent_uow"
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
SHAPES = ("model", "flat", "linear", "falling")


@st.composite
def datasets(draw):
    """A reader's file: 1–4 series with their own shape and noise; maybe ranges and log bytes."""
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique_by=lambda s: s))
    ranged = draw(st.booleans())
    frames = []
    for name in names:
        b = np.array(sorted(draw(st.sets(st.sampled_from([1, 2, 3, 5, 10, 20, 50, 100, 250, 500]),
                                         min_size=2, max_size=7))), dtype=float)
        shape = draw(st.sampled_from(SHAPES))
        t_c, t_m = draw(st.floats(1e-5, 5e-2)), draw(st.floats(1e-6, 1e-3))
        x = {"model": batching.throughput(b, t_c, t_m), "flat": np.full(b.size, 1 / t_m),
             "linear": b / t_c, "falling": 1 / (t_m * b)}[shape]
        noise = draw(st.floats(0, 0.05))
        x = x * (1 + noise * np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(b.size))
        frame = pd.DataFrame({"series": name, "msgs_per_commit": b, "rate_msg_s": np.maximum(x, 1e-3)})
        if ranged:  # the smallest unit of work known only to within a range
            frame["msgs_per_commit_low"] = frame["msgs_per_commit"]
            frame["msgs_per_commit_high"] = frame["msgs_per_commit"]
            frame.loc[0, "msgs_per_commit_high"] = min(b[0] * 2, b[1])
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    if draw(st.booleans()):
        ops = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
        l_m, l_c = draw(st.floats(50, 3000)), draw(st.floats(0, 5000))
        op = [ops[i % len(ops)] for i in range(len(frame))]
        scale = np.array([1 + ops.index(o) for o in op], dtype=float)
        frame["log_bytes_per_msg"] = scale * batching.log_bytes(frame["msgs_per_commit"], l_m, l_c)
        frame["operation"] = op
    return frame


def check(r, fraction, plan_b):
    props.assert_report_is_honest(r, r.fit_results)
    fits = r["fits"].frame.set_index("series")
    plan = r["plan"].frame
    for name, res in r.fit_results.items():
        if name.startswith("log bytes, "):
            continue
        assert fits.loc[name, "commit time t_c (µs)"] == pytest.approx(res.t_c * 1e6)
        rows = plan[plan["series"] == name].set_index("why")
        asked = rows.loc["asked for (plan_batch)"]
        assert asked["rate (msg/s)"] == pytest.approx(float(res.predict([plan_b])[0]))
        if uow_fits.batch_known(res):  # the data tell both times: the planning row exists
            need = rows.iloc[0]
            assert need["messages per commit"] == max(1, math.ceil(round(res.batch_for_fraction(fraction), 9)))
            # The smallest such unit of work: it reaches the fraction, one fewer does not.
            n = need["messages per commit"]
            assert float(res.predict([n])[0]) * res.t_m >= fraction - 1e-9
            if n > 1:
                assert float(res.predict([n - 1])[0]) * res.t_m < fraction + 1e-9


@SETTINGS
@given(frame=datasets(), fraction=st.floats(0.05, 0.99), plan_b=st.integers(1, 2000),
       reference=st.one_of(st.none(), st.floats(10, 1e6)))
def test_generated_reports_are_honest(tmp_path, frame, fraction, plan_b, reference):
    path = props.frame_to_csv(frame, tmp_path / "gen.csv")
    try:
        r = props.run(CH, path, fraction=fraction, plan_batch=plan_b, reference_rate_msg_s=reference)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    check(r, fraction, plan_b)


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n=st.integers(2, 4), t_c=st.floats(1e-4, 1e-2))
def test_exact_fits_say_so_and_only_then(tmp_path, n, t_c):
    # Two sizes identify X(b) exactly; a third leaves a degree of freedom.
    b = np.array([1, 10, 100, 1000][:n], dtype=float)
    frame = pd.DataFrame({"msgs_per_commit": b, "rate_msg_s": batching.throughput(b, t_c, 5e-5) * (1 + 0.02 * np.cos(b))})
    r = props.run(CH, props.frame_to_csv(frame, tmp_path / "exact.csv"))
    props.assert_report_is_honest(r, r.fit_results)
    assert props.says_exactly_identified(r) == (n == 2)


def test_one_size_is_refused_in_one_line(tmp_path):
    frame = pd.DataFrame({"msgs_per_commit": [5, 5], "rate_msg_s": [100.0, 110.0]})
    with pytest.raises(ModelError) as info:
        props.run(CH, props.frame_to_csv(frame, tmp_path / "one.csv"))
    assert "\n" not in str(info.value)


def test_twenty_thousand_interval_rows_and_many_series(tmp_path):
    rng = np.random.default_rng(5)
    b = np.tile(np.repeat([1.0, 5, 20, 100, 250], 400), 10)
    series = np.repeat([f"qm/{i} µ" for i in range(10)], 2000)
    x = batching.throughput(b, 1e-3, 3e-5) * (1 + 0.03 * rng.standard_normal(b.size))
    frame = pd.DataFrame({"series": series, "msgs_per_commit": b, "rate_msg_s": x,
                          "log_bytes_per_msg": batching.log_bytes(b, 150, 340) * (1 + 0.01 * rng.standard_normal(b.size)),
                          "operation": "get_commit"})
    r = props.run(CH, props.frame_to_csv(frame, tmp_path / "big.csv"))
    assert len(r.points) == 50 and "20,000 rows were averaged into 50 points" in repr(r["points_note"])
    assert (r["fits"].frame["residual df"] == 3).all()
    check(r, 0.9, 250)
