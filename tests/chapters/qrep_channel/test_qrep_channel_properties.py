"""Properties of the Q Replication chapter's report on generated channel files.

Files come from the chapter's own model (window / round trip, batches that wait a round trip
plus a commit) with noise and a window that may have grown, and from awkward shapes: flat,
proportional, falling, one row, the fewest batch sizes a fit takes, 20,000 rows, one channel
and several, names with unicode and "/". Every report must be honest (tests/chapters/props.py)
and its planning answer must agree with the model recomputed here from the parameters.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from mqperf import parameters
from mqperf.chapters.qrep_channel import fits as fitting
from mqperf.data import views
from mqperf.errors import DataError, ModelError

import props  # noqa: E402

# No shrinking: each example runs the whole chapter, and a derandomized failure reproduces as drawn.
FAST = settings(max_examples=15, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = ["CAPTURE.TO.APPLY", "DR/west", "Zürich → Genève", "ch 1", "λ-link"]
BATCHES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
WINDOWS = [32768, 65536, 262144, 1048576, 4194304]


def model_mb_s(b, size, rtt_ms, window, link_mb_s, commit_ms):
    """b·s / (t_batch + b·s/B_eff) in MB/s, written out here rather than taken from the chapter."""
    eff = min(window / (rtt_ms / 1e3), link_mb_s * 1e6)
    return b * size / ((rtt_ms + commit_ms) / 1e3 + b * size / eff) / 1e6


@st.composite
def channel_files(draw):
    shape = draw(st.sampled_from(["model", "model", "flat", "proportional", "falling", "one row", "three sizes"]))
    n_series = 1 if shape == "one row" else draw(st.integers(1, 3))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n_series, max_size=n_series, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for name in names:
        rtt = draw(st.floats(0.2, 50.0))
        window = draw(st.sampled_from(WINDOWS))
        size = draw(st.sampled_from([1024, 10240, 32768, 102400, 1048576]))
        link = draw(st.sampled_from([12.5, 125.0, 1250.0]))
        commit = draw(st.floats(0.0, 5.0))
        k = 1 if shape == "one row" else 3 if shape == "three sizes" else draw(st.integers(3, 7))
        bs = sorted(draw(st.lists(st.sampled_from(BATCHES), min_size=k, max_size=k, unique=True)))
        grown = draw(st.sampled_from([1.0, 1.0, 0.6, 1.8]))  # a window that grew beyond its buffer
        for b in bs:
            m = model_mb_s(b, size, rtt, window, link, commit) * grown
            m = {"flat": 40.0, "proportional": 0.3 * b, "falling": 80.0 / b}.get(shape, m)
            rows.append({"series": name, "rtt_ms": rtt, "tcp_window_bytes": window, "message_bytes": size,
                         "batch_size": b, "batchlim_kb": 999999, "link_mb_s": link, "commit_ms": commit,
                         "measured_mb_s": round(m * rng.lognormal(0, 0.03), 6)})
    frame = pd.DataFrame(rows)
    if shape == "one row":
        frame = frame.drop(columns=["measured_mb_s", "series", "link_mb_s", "commit_ms"])
    return frame


plans = st.fixed_dictionaries({
    "rtt_ms": st.floats(0.1, 100.0), "tcp_buffer_bytes": st.sampled_from(WINDOWS),
    "message_kb": st.sampled_from([1.0, 10.0, 100.0, 1024.0]), "batch_size": st.sampled_from([1, 50, 200, 9999]),
    "batchlim_kb": st.sampled_from([100.0, 5000.0, 100000.0]), "link_gbit_s": st.sampled_from([0.1, 1.0, 10.0]),
    "commit_ms": st.floats(0.0, 5.0), "target_mb_s": st.floats(1.0, 2000.0)})


def fit_results(path, values):
    """The fits the run made, rebuilt from the same file (for the identification property)."""
    defaults = {"batch_size": values["batch_size"], "batchlim_kb": values["batchlim_kb"],
                "link_mb_s": values["link_gbit_s"] * 1e9 / 8 / 1e6, "commit_ms": values["commit_ms"]}
    sc = fitting.scenarios(views.open(path, "qrep_channel"), defaults)
    return fitting.fit_batches(fitting.measured_check(fitting.evaluate(sc))).results


def check_plan(r, p):
    """The planning table's answers against the model recomputed from the parameters."""
    shown = {q: (None if v is None or (isinstance(v, float) and math.isnan(v)) else v)  # "–" in the table
             for q, v in zip(r.show("plan").frame["quantity"], r.show("plan").frame["value"])}
    size, rtt = p["message_kb"] * 1024, p["rtt_ms"]
    link = p["link_gbit_s"] * 1e9 / 8 / 1e6
    eff = min(p["tcp_buffer_bytes"] / (rtt / 1e3), link * 1e6) / 1e6
    assert shown["window the target needs (target × round trip)"] == pytest.approx(p["target_mb_s"] * 1e6 * rtt / 1e3)
    b = shown["BATCHSZ that reaches the target"]
    rate = lambda n: model_mb_s(n, size, rtt, p["tcp_buffer_bytes"], link, p["commit_ms"])  # noqa: E731
    if b is None:
        assert p["target_mb_s"] >= eff * (1 - 1e-12)
    else:
        assert rate(b) >= p["target_mb_s"] * (1 - 1e-9)
        assert b == 1 or rate(b - 1) < p["target_mb_s"]
    n = shown["channels at these settings"]
    per = rate(min(p["batch_size"], math.ceil(p["batchlim_kb"] * 1024 / size)))
    if p["target_mb_s"] > link:
        assert n is None
    else:
        assert n * per >= p["target_mb_s"] * (1 - 1e-9) and (n - 1) * per < p["target_mb_s"]


@FAST
@given(frame=channel_files(), plan=plans)
def test_report_is_honest_on_generated_channels(tmp_path, frame, plan):
    path = props.frame_to_csv(frame, tmp_path / "channels.csv")
    try:
        r = props.run("qrep_channel", path, **plan)
    except (DataError, ModelError):
        return  # refused in one line is a legitimate answer for an awkward file
    values = {**parameters.effective("qrep_channel", str(path), {}).values, **plan}
    props.assert_report_is_honest(r, fit_results(path, values))
    check_plan(r, plan)
    assert not r.book_data


def test_twenty_thousand_rows_are_averaged_and_reported_honestly(tmp_path):
    b = np.tile(BATCHES[:5], 4000)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"series": "Zürich/east", "rtt_ms": 2.0, "tcp_window_bytes": 1048576, "message_bytes": 10240,
                          "batch_size": b, "measured_mb_s": [model_mb_s(x, 10240, 2.0, 1048576, 1250.0, 0.0)
                                                             * rng.lognormal(0, 0.03) for x in b]})
    path = props.frame_to_csv(frame, tmp_path / "big.csv")
    r = props.run("qrep_channel", path)
    assert "20,000 rows were averaged into 5 points" in r.sentences()["rows"]
    assert len(r.show("measured").frame) == 5 and set(r.show("measured").frame["n"]) == {4000}
    values = parameters.effective("qrep_channel", str(path), {}).values
    props.assert_report_is_honest(r, fit_results(path, values))


def test_many_scenarios_are_counted_by_limit(tmp_path):
    frame = pd.DataFrame({"series": [f"ch/{i}" for i in range(12)], "rtt_ms": np.linspace(0.5, 40, 12),
                          "tcp_window_bytes": 65536, "message_bytes": 10240, "batch_size": [1, 200] * 6})
    path = props.frame_to_csv(frame, tmp_path / "many.csv")
    r = props.run("qrep_channel", path)
    counts = r.show("limits").frame
    assert counts["scenarios"].sum() == 12
    props.assert_report_is_honest(r)
