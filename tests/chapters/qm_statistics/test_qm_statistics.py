"""The statistics chapter: busy periods where the example put them, sentences that match its tables,
sections that say why when the data lacks a column, and the real MQSMFCSV and amqsevt samples."""

import numpy as np
import pandas as pd
import pytest

from mqperf import chapters
from mqperf.errors import DataError
from tests.chapters import props

CHAPTER = "qm_statistics"


@pytest.fixture(scope="module")
def example(root):
    return root / "data" / "examples" / "qm_statistics.csv"


def _day(rates, qmgr="QMA", **extra):
    n = len(rates)
    frame = pd.DataFrame({"start": pd.date_range("2026-03-02", periods=n, freq="5min").strftime("%Y-%m-%dT%H:%M:%S"),
                          "interval_s": 300.0, "qmgr": qmgr,
                          "puts": np.asarray(rates) * 150, "gets": np.asarray(rates) * 150})
    for col, values in extra.items():
        frame[col] = values
    return frame


def test_the_example_finds_the_generators_busy_periods(example):
    r = props.run(CHAPTER, example)
    periods = props.table(r, "periods")
    # tools/make_qm_statistics_example.py: QM1 busy 09-12 and 14-17, QM2 08:30-11 and 13:30-16.
    assert periods["from"].str[-5:].tolist() == ["09:00", "14:00", "08:30", "13:30"]
    assert periods["to"].str[-5:].tolist() == ["12:00", "17:00", "11:00", "16:00"]
    assert "synthetic" in str(r["read"])
    props.assert_report_is_honest(r)
    log = props.table(r, "log")
    # The generator logs MP16's 2,022 bytes per persistent message at five operations per commit
    # (±5 % noise), so the chapter finds about one times MP16's figure at the measured b.
    assert log["log bytes per persistent message"].between(2022 * 0.97, 2022 * 1.03).all()
    assert log["messages per commit b"].between(4.8, 5.2).all()
    assert log["× MP16 at b"].between(0.97, 1.03).all()


def test_sentences_agree_with_the_tables(tmp_path):
    rates = [10.0] * 20 + [200.0] * 10 + [10.0] * 10
    frame = _day(rates, persistent_puts=np.asarray(rates) * 100, log_write_bytes=np.asarray(rates) * 100 * 3000,
                 commits=np.asarray(rates) * 30, connects=np.asarray(rates) * 3)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "day.csv"))
    props.assert_report_is_honest(r)
    assert props.table(r, "periods")["intervals"].tolist() == [10]
    log = props.table(r, "log").iloc[0]
    assert log["log bytes per persistent message"] == pytest.approx(3000)
    # MP16 at b = 10 operations per commit: (2,088 − l_c) + (492 − l_c) + 2·l_c/10, l_c = 314/0.9.
    l_c = (492 - 178) / 0.9
    assert log["MP16 at b (bytes)"] == pytest.approx(2088 + 492 - 2 * l_c + 2 * l_c / 10)
    # The chart draws the rate the sentence gives: puts + gets per second, beside each apart.
    lines = {row["line"] for rows in r["rates_chart"].to_dict()["datasets"].values() for row in rows if "line" in row}
    assert lines == {"QMA puts + gets/s", "QMA puts/s", "QMA gets/s"}
    assert props.table(r, "commits")["messages per commit"].iloc[0] == pytest.approx(10)
    peak = props.table(r, "connections")["peak connects/s"].iloc[0]
    assert peak == pytest.approx(200 * 3 / 300)
    assert "No busy period" not in str(r["busy_text"])


def test_missing_columns_are_one_sentence_each(tmp_path):
    r = props.run(CHAPTER, props.write(tmp_path, _day([5.0] * 12), "flat.csv"))
    props.assert_report_is_honest(r)
    for key in ("log", "commits", "connections", "cpu"):
        assert type(r[key]).__name__ == "Missing", key
    assert "No busy period" in str(r["busy_text"]) and "same rate" in str(r["busy_text"])
    assert "It has no `persistent_puts`" in str(r["read"])


def test_two_queue_managers_are_read_apart(tmp_path):
    frame = pd.concat([_day([10.0] * 10 + [100.0] * 5, "QMA"), _day([50.0] * 15, "QMB")], ignore_index=True)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "two.csv"))
    rates = props.table(r, "rates")
    assert rates["queue manager"].tolist() == ["QMA", "QMB"] and rates["busy intervals"].tolist() == [5, 0]


def test_a_repeated_interval_is_bad_data(tmp_path):
    frame = _day([1.0, 2.0, 3.0])
    frame.loc[2, "start"] = frame.loc[1, "start"]
    with pytest.raises(DataError, match="two intervals starting"):
        props.run(CHAPTER, props.write(tmp_path, frame, "dup.csv"))


@pytest.mark.parametrize("sample", ["mqsmfcsv/csv_SMF_MQ1000", "mqsmfcsv/csv_TESTCHL", "mqsmfcsv/csv_TEST115_TEST116",
                                    "amqsevt/statistics_mqi_datadog_sandbox.json"])
def test_real_samples_run_through_the_chapter(reference_dir, sample):
    r = chapters.preflight(CHAPTER, reference_dir / "formats" / sample)
    props.assert_report_is_honest(r)
    assert len(r.points) >= 1
