"""The log disk chapter's sentences held to data generated with known disks.

Write times come from t(b) = a + b/B with known a and B (and relative noise), across scale
(microsecond NVMe to millisecond NFS), series count, block-size count down to the contract's
minimum (one block size) and block ranges that do and do not reach the bandwidth. Each sentence
must follow its evidence rule: a quantity's value only when its interval identifies it, a planning
answer labelled extrapolated exactly when its write size leaves the measured block sizes, and
one block size's range holding the true rate.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared chapter test helpers (props)
import props  # noqa: E402
from mqperf.models import log_disk

SWEEP = [4096, 16384, 65536, 262144, 1048576]


def write(tmp_path, disks, sizes=SWEEP, noise=0.01, seed=1, reps=1):
    rng = np.random.default_rng(seed)
    rows = []
    for name, a, B in disks:
        for b in sizes:
            for _ in range(reps):
                t = (a + b / B) * (1 + rng.normal(0, noise))
                rows.append({"series": name, "blocksize_bytes": b, "avg_latency_us": t * 1e6, "avg_bytes_s": b / t})
    path = tmp_path / "disks.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("a,B", [(20e-6, 2e9), (300e-6, 700e6), (2e-3, 100e6)])
def test_identified_disks_are_stated_with_intervals_that_hold_them(tmp_path, a, B):
    r = props.run("log_disk", write(tmp_path, [("disk", a, B)], noise=0.005))
    said = r.sentences()["fit_reading"]
    assert "the per-write latency a is about" in said and "the bandwidth B is about" in said
    fits = r["fits"].frame.iloc[0]
    assert fits["a lower (µs)"] <= a * 1e6 * 1.02 and fits["a upper (µs)"] >= a * 1e6 * 0.98
    assert fits["B lower (MB/s)"] <= B / 1e6 * 1.02 and fits["B upper (MB/s)"] >= B / 1e6 * 0.98
    props.assert_report_is_honest(r, r.fit_results)


def test_a_bandwidth_the_blocks_never_reach_is_not_stated(tmp_path):
    # B = 50 GB/s: a 16 KB write spends 0.3 µs of its 500 µs moving bytes; the sweep cannot see B.
    r = props.run("log_disk", write(tmp_path, [("slow fixed", 500e-6, 50e9)], sizes=[4096, 8192, 16384], noise=0.02))
    said = r.sentences()["fit_reading"]
    assert ("the data cannot tell the bandwidth B" in said or "B is held at its bound" in said
            or "no finite bandwidth is identified" in said)
    assert "B is about" not in said
    plan = r["plan"].frame.iloc[0]
    assert pd.isna(plan["limit, many committers (msg/s)"])
    truth = float(log_disk.message_rate(60, 1, log_disk.write_time(60 * 2048, 500e-6, 50e9)))
    if pd.isna(plan["persistent msg/s"]):  # not fitted: the nearest block size's range holds the truth
        assert plan["msg/s lower"] <= truth * 1.1 and plan["msg/s upper"] >= truth * 0.9
    props.assert_report_is_honest(r, r.fit_results)


def test_the_planning_answer_is_the_model_and_says_when_it_extrapolates(tmp_path):
    a, B = 100e-6, 1e9
    path = write(tmp_path, [("disk", a, B)], noise=0.0)
    inside = props.run("log_disk", path, message_size_bytes=4096, messages_per_commit=2, committers=8)
    plan = inside["plan"].frame.iloc[0]
    S = 8 * 2 * 4096
    truth = float(log_disk.message_rate(8, 2, log_disk.write_time(S, a, B)))
    assert plan["write size (bytes)"] == S and plan["persistent msg/s"] == pytest.approx(truth, rel=1e-6)
    assert plan["time per write (µs)"] == pytest.approx((a + S / B) * 1e6, rel=1e-6)
    assert plan["commit latency, at most (µs)"] == pytest.approx(2 * (a + S / B) * 1e6, rel=1e-6)
    assert plan["extrapolated"] == "no" and not inside.extrapolations
    assert "(extrapolated)" not in inside.sentences()["plan_reading"]
    outside = props.run("log_disk", path, message_size_bytes=1_000_000, committers=10)
    assert outside["plan"].frame.iloc[0]["extrapolated"] != "no" and outside.extrapolations
    assert "(extrapolated)" in outside.sentences()["plan_reading"]


@pytest.mark.parametrize("share", [0.0, 0.5, 0.95])
def test_one_block_sizes_range_holds_the_true_rate(tmp_path, share):
    b0, t0 = 65536, 400e-6
    a = share * t0
    B = b0 / (t0 - a)
    r = props.run("log_disk", write(tmp_path, [("one", a, B)], sizes=[b0], noise=0.0), committers=20)
    plan = r["plan"].frame.iloc[0]
    S = plan["write size (bytes)"]
    truth = float(log_disk.message_rate(20, 1, log_disk.write_time(S, a, B)))
    assert plan["msg/s lower"] * (1 - 1e-9) <= truth <= plan["msg/s upper"] * (1 + 1e-9)
    assert "cannot be split" in r.sentences()["fit_reading"] and not r.fit_results
    props.assert_report_is_honest(r, r.fit_results)


def test_exactly_identified_is_said_for_two_block_sizes(tmp_path):
    r = props.run("log_disk", write(tmp_path, [("two", 100e-6, 1e9)], sizes=[4096, 262144], noise=0.01))
    assert "exactly identified" in r.sentences()["fit_reading"]
    assert r["plan"].frame.iloc[0]["range"].startswith("none: the fit is exactly identified")
    props.assert_report_is_honest(r, r.fit_results)


def test_several_disks_are_fitted_apart(tmp_path):
    disks = [("nvme", 30e-6, 2e9), ("san", 300e-6, 700e6), ("nfs", 1e-3, 110e6)]
    r = props.run("log_disk", write(tmp_path, disks, noise=0.01, reps=2))
    assert set(r.fit_results) == {"nvme", "san", "nfs"}
    for name, a, B in disks:
        assert r.fit_results[name].a == pytest.approx(a, rel=0.15)
        assert r.fit_results[name].bandwidth == pytest.approx(B, rel=0.15)
    rates = r["plan"].frame.set_index("series")["persistent msg/s"]
    assert rates["nvme"] > rates["san"] > rates["nfs"]
    props.assert_report_is_honest(r, r.fit_results)
