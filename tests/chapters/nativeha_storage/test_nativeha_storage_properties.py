"""NativeHA storage on generated data: the report is honest and its planning answer follows the bound.

Datasets come from the chapter's own model (a serial log writer: rate = busy · size / latency)
with noise, plus awkward ones: identical rows, one row, ~20,000 publications without a series
column, one series and many, unicode and "/" in series names, with and without logical bytes,
instances and storage, and an mqldt file beside them.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import props  # noqa: E402
from mqperf.chapters.nativeha_storage import fits as m
from mqperf.models import storage
from mqperf.errors import DataError, ModelError

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
MQLDT_HEADER = ("Blocksize,Total writes to files,Total bytes written to files,Avg bytes/sec written to files,"
                "Avg latency of write (ns)")


@st.composite
def datasets(draw):
    """A reader's amqsrua figures: 1–4 series of 1–6 publications each, or one long file without series."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    long = draw(st.booleans()) and draw(st.integers(0, 4)) == 0
    names = ["x"] if long else draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    frames = []
    storage_names = ["disk A", "disk B"]
    for i, name in enumerate(names):
        rows = 20_000 if long else draw(st.integers(1, 6))
        latency = draw(st.floats(30, 200_000))
        size = draw(st.floats(512, 1e6))
        busy = draw(st.floats(0.001, 1.2))
        noise = draw(st.sampled_from([0.0, 0.02, 0.1]))
        jitter = 1 + noise * np.abs(rng.standard_normal((3, rows)))
        physical = busy * size / (latency / 1e6) * jitter[2]
        frame = pd.DataFrame({"series": name, "interval_s": 10.0, "write_latency_us": latency * jitter[0],
                              "write_size_bytes": size * jitter[1], "physical_bytes_s": physical})
        if draw(st.booleans()):
            frame["logical_bytes_s"] = physical / draw(st.floats(1.0, 8.0))
        frame["instances"] = draw(st.sampled_from([1, 3]))
        frame["storage"] = storage_names[i % 2]
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    if long or draw(st.booleans()):
        frame = frame.drop(columns="series")
    if draw(st.booleans()):
        frame = frame.drop(columns=["instances", "storage"])
    return frame


def mqldt_file(path, sizes, latencies_us):
    lines = [MQLDT_HEADER] + [f"{s},{1000},{1000 * s},{s / (lat / 1e6) * 0.98:.1f},{lat * 1000:.0f}"
                              for s, lat in zip(sizes, latencies_us)]
    path.write_text("\n".join(lines) + "\n")
    return path


def check_plan(r, target, size, most):
    limit = r["plan_limit"].frame.iloc[0]
    assert limit["longest write latency (ms)"] == pytest.approx(most * size / target * 1e3, rel=1e-12)
    plan = r["plan"].frame
    for row in plan.itertuples(index=False):
        latency_ms, busy, fits, within = row[1], row[3], row[4], row[5]
        assert busy == pytest.approx(100 * target * (latency_ms / 1e3) / size, rel=1e-9)
        assert fits == (busy < 100) and within == (busy <= most * 100)
        assert within == (latency_ms <= most * size / target * 1e3 * (1 + 1e-12))
    said = r.sentences()["plan_reading"]
    for name in plan.loc[plan.iloc[:, 5], plan.columns[0]]:
        assert f"“{name}”" in said.split("meet")[0]


def check_timeout(r, timeout):
    frame = r["timeout"].frame
    limit_col = next(c for c in frame.columns if c.startswith("busy (%) above which"))
    for _, row in frame.iterrows():
        latency_ms, k, limit = row["write latency (ms)"], int(row["forced writes per record"]), row[limit_col]
        share = lambda rho: storage.group_commit_completed_fraction(timeout, latency_ms / 1e3, rho, k)  # noqa: E731
        if limit != limit:  # NaN: at least 90 % finish however busy the log is
            assert share(1.0) >= 0.9 - 1e-9
        elif limit == 0:
            assert share(0.0) < 0.9
        else:  # rounded up to 0.01 %: the share is below 90 % beyond it, and not yet 0.01 % before it
            assert share(limit / 100) <= 0.9 + 1e-9
            assert share(max(limit - 0.01, 0) / 100) >= 0.9 - 1e-6


@SETTINGS
@given(frame=datasets(), target=st.floats(1e3, 1e9), size=st.floats(512, 1e6), most=st.floats(0.05, 0.95),
       timeout=st.sampled_from([1.0, 5.0, 30.0]), k=st.integers(1, 40), with_mqldt=st.booleans(),
       your=st.one_of(st.none(), st.floats(0.05, 500)))
def test_generated_reports_are_honest(tmp_path, frame, target, size, most, timeout, k, with_mqldt, your):
    path = props.frame_to_csv(frame, tmp_path / "gen.csv")
    extra = {}
    if with_mqldt:
        extra["mqldt"] = str(mqldt_file(tmp_path / "mqldt.csv", [4096, 16384], [300.0, 900.0]))
    try:
        r = props.run("nativeha_storage", path, target_log_bytes_s=target, write_size_bytes=size,
                      max_log_utilisation=most, timeout_s=timeout, forced_writes_per_record=k,
                      your_latency_ms=your, **extra)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc)
        return
    props.assert_report_is_honest(r)
    check_plan(r, target, size, most)
    check_timeout(r, timeout)
    log = r["log"].frame
    assert len(log) == len(r.points) and len(log) <= max(m.MAX_PUBLICATIONS, frame.get("series", pd.Series()).nunique())
    if "instances" not in frame:
        assert r.sentences()["quorum"].startswith("Your figures do not say")


@pytest.mark.parametrize("shape", ["flat", "one row"])
def test_awkward_files(tmp_path, shape):
    rows = 8 if shape == "flat" else 1
    frame = pd.DataFrame({"series": ["a/b日"] * rows, "write_latency_us": [500.0] * rows,
                          "write_size_bytes": [4096.0] * rows, "physical_bytes_s": [1e6] * rows})
    r = props.run("nativeha_storage", props.frame_to_csv(frame, tmp_path / "f.csv"))
    props.assert_report_is_honest(r)
    assert r["log"].frame["log writer busy (%)"].iloc[0] == pytest.approx(100 * 1e6 * 500e-6 / 4096)
    assert "“a/b日” wrote its log in 0.5 ms per write" in r.sentences()["log_reading"]
