"""Kafka perf-test output read into the message-size chapter's rows.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/kafka/.
"""

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import kafka_perf
from mqperf.errors import DataError


@pytest.fixture
def folder(reference_dir):
    return reference_dir / "formats" / "kafka"


def test_every_sample_is_recognised(folder):
    for path in sorted(folder.glob("*.txt")):
        assert readers.detect(path).name == "kafka-perf-test", path.name
    assert readers.detect(folder / "FORMAT.md") is None


def test_record_size_sweep(folder):
    path = folder / "producer_ably77_DCOS-Kafka-Performance_README_c723e1b_recordsize_sweep.txt"
    conv = ingest.convert(ingest.route("kafka_message_size", [path])["data"], "kafka_message_size")
    frame = conv.frame
    # "**record-size: 1**" then five summaries, 100 five, 1000 one; first: 540088.034350 records/sec (0.52 MB/sec)
    assert (frame["msg_size_kb"] * 1024).round(6).tolist() == [1.0] * 5 + [100.0] * 5 + [1000.0]
    assert frame["rate_msg_s"].iloc[0] == 540088.034350 and frame["approx_mb_s"].iloc[0] == 0.52
    assert frame["source"].iloc[0].endswith(".txt:2")


def test_window_lines_are_not_runs_and_size_is_derived(folder):
    frame = kafka_perf.read([folder / "producer_ably77_DCOS-Kafka-Performance_README_c723e1b_run1.txt"])
    assert len(frame) == 1  # window lines before the summary are progress
    row = frame.iloc[0]  # "81846.456048 records/sec (78.05 MB/sec)": 78.05 × 2^20 / 81846.456048 ≈ 1000 bytes
    assert row["rate_msg_s"] == 81846.456048 and row["msg_bytes"] == pytest.approx(78.05 * 1048576 / 81846.456048)
    assert not row["size_stated"] and any("within ±" in n for n in readers.notes(frame))


def test_producer_and_consumer_in_one_file(folder):
    frame = kafka_perf.read([folder / "producer_and_consumer_apache-kafka_PR13215.txt"])
    # the producer summary (--record-size 1000 echoed), the two consumer summary rows; the detailed-stats row is not a run
    assert frame["rate_msg_s"].tolist() == [199.973337, 1047.0981, 951.2665]
    assert frame["msg_bytes"].iloc[1] == pytest.approx(3.2864 * 1048576 / 3446)


def test_detailed_stats_alone_hold_no_run(folder):
    with pytest.raises(DataError, match="no perf-test result"):
        kafka_perf.read([folder / "consumer_detailed-stats_vdesabou_kafka-docker-playground_PR2429.txt"])


def test_decimal_commas(tmp_path):
    path = tmp_path / "de.txt"
    path.write_text("--record-size 512\n1000 records sent, 1,081198 records/sec (0,00 MB/sec), 70,10 ms avg latency, "
                    "120,00 ms max latency, 60 ms 50th, 100 ms 95th, 110 ms 99th, 120 ms 99.9th.\n")
    row = kafka_perf.read([path]).iloc[0]
    assert row["rate_msg_s"] == pytest.approx(1.081198) and row["avg_latency_ms"] == pytest.approx(70.10)
    assert row["msg_bytes"] == 512


def test_not_for_task_scaling(folder):
    with pytest.raises(DataError, match="this format feeds: kafka_message_size"):
        ingest.route("kafka_task_scaling", [folder / "producer_ably77_DCOS-Kafka-Performance_README_c723e1b_run1.txt"])


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


def test_the_setup_the_files_state(folder):
    # --print-metrics prints "app-info:version:{client-id=producer-1} : 2.0.0-cp1"; the summary
    # "2000000 records sent, 83381.972817 records/sec" covers a run of 2,000,000 / 83,381.97 = 24.0 s.
    frame = kafka_perf.read([folder / "producer_ably77_DCOS-Kafka-Performance_README_c723e1b_run2_print-metrics_head.txt"])
    setup = frame.attrs["setup"]
    assert setup["Kafka client version"] == "2.0.0-cp1"
    assert setup["tool"] == "kafka-producer-perf-test (1 run)"
    assert "whole runs of 24 s" in setup["interval length"]
    assert kafka_perf.to_message_size(frame).attrs["setup"] == setup


def test_consumer_run_length_and_echoed_settings(folder):
    # "2023-02-07 17:53:25:127, 2023-02-07 17:53:28:418": 3.291 s; the new tool's row: 3.632 s.
    # The echoed producer command gives linger.ms=0 batch.size=16384 --throughput -1; no version.
    frame = kafka_perf.read([folder / "producer_and_consumer_apache-kafka_PR13215.txt"])
    setup = frame.attrs["setup"]
    assert "consumer runs of 3.29 s to 3.63 s (end.time − start.time)" in setup["interval length"]
    assert setup["producer settings"] == "linger.ms 0, batch.size 16384, --throughput -1"
    assert "Kafka client version" not in setup


def test_setup_reaches_the_conversion_record(folder, tmp_path):
    path = folder / "producer_ably77_DCOS-Kafka-Performance_README_c723e1b_recordsize_sweep.txt"
    values, _ = ingest.prepare("kafka_message_size", [path], tmp_path)
    import json

    record = json.loads((tmp_path / "conversion.json").read_text())
    assert record[0]["setup"]["tool"] == "kafka-producer-perf-test (11 runs)"
