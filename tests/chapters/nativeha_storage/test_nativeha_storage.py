"""NativeHA storage chapter: amqsrua figures read correctly, mqldt, replication, quorum, timeout, planning.

Expected values are recomputed here from the article's printed figures (seed 001), not copied
from the chapter's output.
"""

import math

import numpy as np
import pandas as pd
import pytest

import props  # noqa: E402
from mqperf.chapters import nativeha_storage as chapter
from mqperf.chapters.nativeha_storage import fits as m
from mqperf.chapters.nativeha_storage import text as words
from mqperf.models import storage
from mqperf.data import views
from mqperf.errors import DataError
from mqperf.present.results import Missing

T1, T2, T3 = "NativeHA QM on ODF (test 1)", "single resilient QM on ODF (test 2)", "QM on a VM (test 3)"


@pytest.fixture(scope="module")
def book():
    from mqperf import parameters

    return chapter.analyse(parameters.effective("nativeha_storage", None, None).values)


@pytest.fixture(scope="module")
def stats():
    return m.publications(views.open("nativeha_amqsrua_log", "nativeha_storage")).set_index("series", drop=False)


def test_book_stats_are_the_printed_figures(stats):
    assert stats.loc[T1, "write_latency_us"] == 53425 and stats.loc[T1, "write_size_bytes"] == 6025
    assert stats.loc[T3, "physical_bytes_s"] == 403939 and stats.loc[T3, "logical_bytes_s"] == 67647
    assert stats.loc[T3, "interval_s"] == pytest.approx(64.785)
    assert stats.loc[T1, "instances"] == 3 and stats.loc[T2, "instances"] == 1


def test_log_table_by_hand(stats):
    table = m.log_table(stats.reset_index(drop=True)).set_index("series")
    assert table.loc[T1, "busy_pct"] == pytest.approx(100 * 103809 * 0.053425 / 6025, rel=1e-9)
    assert table.loc[T1, "max_writes_s"] == pytest.approx(1 / 0.053425, rel=1e-9)
    # E030: the VM's physical/logical ratio is 5.97, not its inverse.
    assert table.loc[T3, "write_amplification"] == pytest.approx(26169344 / 4382523, rel=1e-3)
    assert table.loc[T3, "records_per_write_bytes"] == pytest.approx(67647 / (403939 / 4612), rel=1e-9)


def test_log_reading_says_which_logs_were_busy(book):
    text = book.sentences()["log_reading"]
    assert f"“{T1}” had the slowest log writes (53.4 ms)" in text
    assert "92 % of the way to its serial bound: writing almost back to back" in text
    assert "4.61 % of the way to its serial bound: lightly used" in text
    assert "about 772 bytes of log records" in text and "ratio 5.97" in text


def test_mqldt_serial_bound_predicts_its_bandwidth(book):
    check = m.mqldt_check(views.open("nativeha_mqldt", "nativeha_storage", "mqldt")).iloc[0]
    assert check["predicted_mb_s"] == pytest.approx(16384 / 713.826e-6 / 1e6, rel=1e-9)
    assert check["error_pct"] == pytest.approx((16384 / 713.826e-6 - 22321743) / 22321743 * 100, rel=1e-9)
    assert check["measured_writes_s"] == pytest.approx(81717 / 60, rel=1e-9)
    assert "an error of 2.83 %. For synchronous writers, latency is throughput." in book.sentences()["mqldt_reading"]
    assert "from one writer's" in book.sentences()["mqldt_reading"]


def test_replication_counts_nine_copies():
    table = m.replication_table(1000.0).set_index("configuration")
    row = table.loc["Native HA on ODF replica=3"]
    assert (row["copies_written"], row["copies_beyond_first"], row["bytes_s_all_copies"]) == (9, 8, 9000.0)  # E034


def test_records_check_test_1_the_log_does_not_explain_the_losses(book):
    # Test 1's log (53,425 us writes, 92 % busy): under group commit its 8 forced writes take 8 × t × (1 + ρ/2)
    # = 0.624 s on average and at most 0.855 s, so the log alone lets every record finish within 5 s; the
    # first edition's M/M/1 wait (668 ms per commit) gave 47 %. 12.1 % arrived: something else lost them.
    rho = 103809 * 0.053425 / 6025
    table = book["records"].frame.set_index("series")
    t1 = table.loc[T1]
    assert t1["modelled chain mean (s)"] == pytest.approx(8 * 0.053425 * (1 + rho / 2), rel=1e-6)
    assert t1["modelled within 5 s (%)"] == pytest.approx(100.0)
    assert t1["received (%)"] == pytest.approx(1455 / 12000 * 100)
    text = book.sentences()["records_reading"]
    assert text.startswith("**The log does not explain the lost records.**") and "where 12.1 %" in text
    assert f"“{T3}” lost records with its log only 4.61 % busy" in text


def test_timeout_thresholds_round_the_limit_up():
    rho = storage.group_commit_utilisation_for_share(0.4, 8, 5, 0.9)
    limits = m.timeout_thresholds({"slow": 700.0, "cloud": 400.0, "odf": 53.425}, forced_writes=8,
                                  timeout_s=5).set_index("latency")
    assert limits.loc["cloud", "busy_limit_pct"] == math.ceil(rho * 1e4) / 100  # rounded up: "more than X %" stays true
    text = words.timeout_reading(limits.reset_index(), 5, "the test")
    assert "“slow” (700 ms a write): 8 writes take 5.6 s on an idle log and at most 11.2 s" in text
    assert "even on an idle log" in text and f"more than {math.ceil(rho * 1e4) / 100:.2f} % busy" in text
    assert "“odf” (53.43 ms a write)" in text and "however busy the log is" in text


def test_quorum_check_predicts_nativeha_from_the_single_instance(stats, book):
    check = m.quorum_check(stats.reset_index(drop=True))
    quorum, slowest = check.iloc[0], check.iloc[1]
    # Exponential instance writes of mean 46.177 ms: max(active, faster replica) = 7/6 m; slowest of 3 = 11/6 m.
    assert quorum["predicted_ms"] == pytest.approx(46.177 * 7 / 6, rel=1e-6)
    assert slowest["predicted_ms"] == pytest.approx(46.177 * 11 / 6, rel=1e-6)
    assert abs(quorum["error_pct"]) < 2 < abs(slowest["error_pct"])
    assert "predicts 53.9 ms per Native HA write and waiting for all three copies 84.7 ms" in book.sentences()["quorum_reading"]
    assert "closer to the quorum rule" in book.sentences()["quorum_reading"]
    # Rows that do not say which is one instance and which Native HA give no check.
    reader = pd.DataFrame({"series": ["x"], "write_latency_us": [500.0], "instances": [np.nan], "storage": [np.nan]})
    assert m.quorum_check(reader).empty
    other = pd.DataFrame({"series": ["a", "b"], "write_latency_us": [500.0, 700.0], "instances": [1, 3],
                          "storage": ["disk A", "disk B"]})
    assert m.quorum_check(other).empty  # one instance and Native HA, but not on the same storage


def test_latency_plan_and_max_latency(book):
    plan = m.latency_plan(403939, 6025, {"fast": 0.5, "slow": 53.425}, forced_writes=8, timeout_s=5).set_index("latency")
    assert plan.loc["fast", "fits"] and not plan.loc["slow", "fits"]
    assert plan.loc["slow", "busy_pct"] == pytest.approx(100 * 403939 * 0.053425 / 6025, rel=1e-9)
    assert math.isnan(plan.loc["slow", "share_pct"])  # a log that cannot carry the target has no share to give
    text = book.sentences()["plan_reading"]
    assert "the log must write in 7.46 ms or less" in text and "the book's `target_log_bytes_s`" in text
    assert f"At “{T1}” and “{T2}” a serial log could not carry the target in writes of this size" in text


def test_book_run_keeps_the_published_passages(book):
    said = book.sentences()
    assert "About the published measurements" in said["system"] and "E034" in said["replication_about"]
    assert "E030" in said["comparison_about"] and len(book["comparison"].frame) == 10
    assert not props.unshown_numbers(book).keys() - {"system", "log_about", "replication_about", "comparison_about",
                                                      "records_about", "advice", "errata"}


def test_reader_example_is_honest_and_says_what_it_cannot_support(root):
    r = props.run("nativeha_storage", root / "data" / "examples" / "nativeha_storage.csv")
    props.assert_report_is_honest(r)
    assert isinstance(r["records"], Missing) and isinstance(r["mqldt"], Missing) and isinstance(r["comparison"], Missing)
    assert "averaged into 3 points" in r.sentences()["aggregation"] and "fits" not in r.sentences()["aggregation"]
    assert "closer to the quorum rule" in r.sentences()["quorum_reading"]
    assert "12,000" not in " ".join(r.sentences().values())  # the book's numbers stay with the book's data


def test_reader_file_without_instances_has_no_quorum_check(tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"write_latency_us": [500.0, 520.0], "write_size_bytes": [4096, 4096],
                  "physical_bytes_s": [1e6, 1.1e6]}).to_csv(path, index=False)
    r = props.run("nativeha_storage", path)
    props.assert_report_is_honest(r)
    assert isinstance(r["quorum"], Missing) and "instances and storage" in r["quorum"].why
    assert list(r.points["series"]) == ["publication 1", "publication 2"]


def test_reader_file_needs_the_latency(tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"write_size_bytes": [4096], "physical_bytes_s": [1000]}).to_csv(path, index=False)
    with pytest.raises(DataError, match="write_latency_us"):
        props.run("nativeha_storage", path)
