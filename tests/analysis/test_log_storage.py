"""NativeHA storage chapter analysis: amqsrua figures read correctly, mqldt, replication, timeout."""

import math

import numpy as np
import pandas as pd
import pytest

from mqperf.analysis import log_storage as ls
from mqperf.errors import DataError, ModelError

# Published DISK/Log block (Colin Paice, developer.ibm.com, 2018-04-12), as in the format notes.
SAMPLE = """Publication received PutDate:20180331 PutTime:13044235 Interval:10.000 seconds
Log - bytes in use 83886080
Log - physical bytes written 598876160 59871780/sec
Log - logical bytes written 532921878 53278096/sec
Log - write latency 280 uSec
Log - write size 36809
Log - current primary space in use 150.82%
"""


def test_book_stats_are_the_printed_figures():
    stats = ls.load_log_stats("nativeha_amqsrua_log").set_index("test_id")
    assert stats.loc[1, "write_latency_us"] == 53425 and stats.loc[1, "write_size_bytes"] == 6025
    assert stats.loc[3, "physical_bytes_s"] == 403939 and stats.loc[3, "logical_bytes_s"] == 67647
    assert stats.loc[3, "interval_s"] == pytest.approx(64.785)


def test_log_table_by_hand():
    table = ls.log_table(ls.load_log_stats("nativeha_amqsrua_log")).set_index("series")
    t1 = table.loc["NativeHA QM on ODF (test 1)"]
    assert t1["log_utilisation"] == pytest.approx(103809 * 0.053425 / 6025, rel=1e-3)
    assert t1["max_writes_s"] == pytest.approx(1 / 0.053425, rel=1e-3)
    # E030: the VM's physical/logical ratio is 5.97, not its inverse.
    assert table.loc["QM on a VM (test 3)", "write_amplification"] == pytest.approx(26169344 / 4382523, rel=1e-3)


def test_mqldt_serial_bound_predicts_its_bandwidth():
    check = ls.mqldt_check(ls.load_mqldt("nativeha_mqldt")).iloc[0]
    assert check["predicted_bytes_s"] == pytest.approx(16384 / 713.826e-6, rel=1e-4)
    assert check["error_pct"] == pytest.approx((16384 / 713.826e-6 - 22321743) / 22321743 * 100, abs=0.01)
    assert check["measured_writes_s"] == pytest.approx(81717 / 60, rel=1e-4)


def test_read_mqldt_csv_single_and_multi_qm(tmp_path):
    header = ("Blocksize,Total writes to files,Total bytes written to files,Max bytes/sec written to files (over 1 sec interval),"
              "Min bytes/sec written to files (over 1 sec interval),{avg},Max latency of write (ns),Min latency of write (ns),"
              "Avg latency of write (ns),Min bytes/sec (slowest write),Max bytes/sec (fastest write)")
    text = "\n".join([
        header.format(avg="Avg bytes/sec written to files"), "4096,1000,4096000,1,1,20000000,1,1,200000,1,1",
        "Running MQLDT over 2 Queue Managers",
        header.format(avg="Avg bytes/sec written to files by all queue managers"), "4096,2000,8192000,1,1,30000000,1,1,250000,1,1",
    ])
    path = tmp_path / "mqldt.csv"
    path.write_text(text + "\n")
    frame = ls.read_mqldt_csv(path)
    assert frame["queue_managers"].tolist() == [1, 2]
    assert frame["avg_latency_us"].tolist() == [200.0, 250.0]
    check = ls.mqldt_check(frame)
    assert check["predicted_bytes_s"].tolist() == pytest.approx([4096 / 200e-6, 2 * 4096 / 250e-6], rel=1e-4)
    bad = tmp_path / "bad.csv"
    bad.write_text("Blocksize,Total writes to files\n4096,10\n")
    with pytest.raises(DataError, match="Avg latency"):
        ls.read_mqldt_csv(bad)


def test_parse_amqsrua_text():
    frame = ls.parse_amqsrua(SAMPLE).iloc[0]
    assert frame["physical_bytes_s"] == 59871780 and frame["logical_bytes_s"] == 53278096
    assert frame["write_latency_us"] == 280 and frame["write_size_bytes"] == 36809 and frame["interval_s"] == 10
    dashed = ls.parse_amqsrua(SAMPLE.replace("Log - ", "Log \u2013 ")).iloc[0]
    assert dashed["write_latency_us"] == 280
    assert ls.interval_seconds("1 minutes,4.785 seconds") == pytest.approx(64.785)
    assert ls.interval_seconds("2 hours,0 minutes,1.5 seconds") == pytest.approx(7201.5)
    with pytest.raises(DataError):
        ls.parse_amqsrua("nothing here")


def test_parse_amqsrua_published_samples(reference_dir):
    folder = reference_dir / "formats" / "amqsrua"
    frame = ls.parse_amqsrua((folder / "colinpaice_blog_2019-03-03_DISK_Log_partial.txt").read_text(encoding="utf-8"))
    assert frame.iloc[0]["physical_bytes_s"] == 3371827 and frame.iloc[0]["write_latency_us"] == 994


def test_amqsrua_csv_round_trip(tmp_path):
    src = tmp_path / "out.txt"
    src.write_text(SAMPLE)
    csv_path = ls.amqsrua_to_csv(src, tmp_path / "log.csv")
    stats = ls.load_log_stats(str(csv_path))
    assert stats.iloc[0]["write_size_bytes"] == 36809


def test_replication_counts_nine_copies():
    table = ls.replication_table().set_index("configuration")
    row = table.loc["NativeHA on ODF replica=3 (test 1)"]
    assert (row["copies_written"], row["copies_beyond_first"]) == (9, 8)  # E034


def _erlang_cdf(t, k, stage_mean):
    # P(k exponential stages of this mean end by t) = P(Poisson(t / mean) >= k).
    x = t / stage_mean
    return 1 - sum(math.exp(-x) * x**n / math.factorial(n) for n in range(k))


def test_timeout_share_falls_with_utilisation():
    rho = np.array([0.0, 0.5, 0.9, 0.99])
    share = ls.completed_share(0.05, rho, forced_writes=8, timeout_s=5)
    assert np.all(np.diff(share) < 0)
    # The chain is 8 exponential waits, so Erlang-8, not one exponential of mean 8 t / (1 - rho): until issue 9
    # this test asserted 1 - exp(-5 / 0.4) at rho 0 and 1 - exp(-5 / 4) = 71 % at rho 0.9, the approximation it replaced.
    assert share[0] == pytest.approx(_erlang_cdf(5, 8, 0.05), rel=1e-9)
    assert share[2] == pytest.approx(_erlang_cdf(5, 8, 0.05 / 0.1), rel=1e-9)
    assert share[2] > 1 - np.exp(-5 / 4)  # less spread than one exponential: with the mean (4 s) below T, more finish
    assert ls.completed_share(0.05, np.array([1.0]), forced_writes=8, timeout_s=5)[0] == 0
    with pytest.raises(ModelError):
        ls.chain_response(0.05, 0.5, 0)


def test_records_check_test_1_is_47_not_61_percent():
    # Issue 9, item 4, from the book's data through the chapter's function: test 1's log (53,425 us writes,
    # 103,809 B/s in 6,025 B writes) gives a chain mean of 5.34 s; the chapter printed 61 % (one exponential).
    stats = ls.load_log_stats("nativeha_amqsrua_log")
    table = ls.records_check(stats, "nativeha_records", forced_writes=8, timeout_s=5).set_index("series")
    t1 = table.loc["NativeHA QM on ODF (test 1)"]
    rho = round(103809 * 0.053425 / 6025, 3)  # the log table shows the utilisation to 3 digits
    assert t1["modelled_share_pct"] == pytest.approx(100 * _erlang_cdf(5, 8, 0.053425 / (1 - rho)), abs=0.05)
    assert 46 < t1["modelled_share_pct"] < 48
    assert 100 * (1 - math.exp(-5 / (8 * 0.053425 / (1 - rho)))) == pytest.approx(61, abs=0.5)
    text = ls.timeout_summary(table.reset_index(), forced_writes=8, timeout_s=5)
    assert "Erlang-8" in text and "47 %" in text and "12 %" in text and "would give 61 %" in text


def test_utilisation_for_share_is_the_root():
    rho = ls.utilisation_for_share(0.053425, forced_writes=8, timeout_s=5, share=0.9)
    assert ls.completed_share(0.053425, np.array([rho]), forced_writes=8, timeout_s=5)[0] == pytest.approx(0.9, abs=1e-4)
    assert ls.utilisation_for_share(0.7, forced_writes=8, timeout_s=5) == 0.0  # 8 x 0.7 s > 5 s even when idle
    text = ls.timeout_curve_summary({"slow": 700.0, "odf": 53.425}, forced_writes=8, timeout_s=5)
    assert "even on an idle log" in text and f"above {math.ceil(rho * 100)} % utilisation" in text


def test_quorum_check_predicts_nativeha_from_the_single_instance():
    check = ls.quorum_check(ls.load_log_stats("nativeha_amqsrua_log")).set_index("rule")
    quorum, slowest = check.iloc[0], check.iloc[1]
    # Exponential instance writes of mean 46.177 ms: max(active, faster replica) = 7/6 m; slowest of 3 = 11/6 m.
    assert quorum["predicted_ms"] == pytest.approx(46.177 * 7 / 6, rel=2e-3)
    assert slowest["predicted_ms"] == pytest.approx(46.177 * 11 / 6, rel=2e-3)
    assert abs(quorum["error_pct"]) < 2 < abs(slowest["error_pct"])
    assert "closer to the quorum rule" in ls.quorum_summary(check.reset_index())
    # A reader's file without the book's tests 1 and 2 gets no table and no sentence.
    reader = pd.DataFrame({"series": ["x"], "write_latency_us": [500.0]})
    assert ls.quorum_check(reader).empty and ls.quorum_summary(ls.quorum_check(reader)) == ""


def test_latency_plan_and_max_latency():
    assert ls.max_latency_ms(403939, 6025, 0.5) == pytest.approx(0.5 * 6025 / 403939 * 1e3)
    plan = ls.latency_plan(403939, 6025, {"fast": 0.5, "slow": 53.425}, forced_writes=8, timeout_s=5).set_index("latency")
    assert plan.loc["fast", "fits"] and not plan.loc["slow", "fits"]
    assert plan.loc["slow", "log_utilisation_at_target"] == pytest.approx(403939 * 0.053425 / 6025, rel=1e-3)


def test_reader_file_needs_the_latency(tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"write_size_bytes": [4096], "physical_bytes_s": [1000]}).to_csv(path, index=False)
    with pytest.raises(DataError, match="write_latency_us"):
        ls.load_log_stats(str(path))
