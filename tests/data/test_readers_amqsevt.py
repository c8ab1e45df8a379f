"""amqsevt JSON statistics read into the statistics chapter's rows and the Q Replication channel rows.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/amqsevt/.
"""

import json

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import amqsevt
from mqperf.errors import DataError


@pytest.fixture
def folder(reference_dir):
    return reference_dir / "formats" / "amqsevt"


def test_mqi_sample(folder):
    path = folder / "statistics_mqi_datadog_sandbox.json"
    assert readers.detect(path).name == "amqsevt-json"
    row = amqsevt.to_statistics(amqsevt.read([path])).iloc[0]
    # "startTime": "21.13.46" .. "endTime": "21.14.16"; puts [54, 0] + put1s [8, 0]; gets [56, 0];
    # commits 5; conns 4; discs [3, 1, 0]
    assert (row["start"], row["interval_s"], row["qmgr"]) == ("2020-06-06T21:13:46", 30, "datadog")
    assert (row["puts"], row["persistent_puts"], row["gets"], row["commits"]) == (62, 0, 56, 5)
    assert (row["connects"], row["disconnects"]) == (4, 4)


def test_queue_sample_sentinels_are_not_data(folder):
    frame = amqsevt.read([folder / "statistics_queue_datadog_sandbox_5of15.json"])
    assert len(frame) == 5 and set(frame["kind"]) == {"Queue"}
    first = frame.iloc[0]  # SYSTEM.ADMIN.COMMAND.QUEUE: "avgQueueTime": [1317624576693539300, 0]
    assert first["object"] == "SYSTEM.ADMIN.COMMAND.QUEUE" and first["fields"]["avgQueueTime"][1] == 0
    assert first["fields"]["avgQueueTime"][0] != first["fields"]["avgQueueTime"][0]  # NaN
    assert any("sentinel" in n for n in readers.notes(frame))
    with pytest.raises(DataError, match=r"found amqsevt Queue statistics \(5 objects\); the chapter needs MQI"):
        amqsevt.to_statistics(frame)


def test_minus_one_is_not_a_time(tmp_path):
    event = {"eventType": {"name": "Statistics Queue"}, "eventData": {
        "queueMgrName": "QM1", "startDate": "2026-01-01", "startTime": "10.00.00", "endDate": "2026-01-01",
        "endTime": "10.01.00", "queueStatisticsData": [{"queueName": "Q1", "avgQueueTime": ["-1", 250]}]}}
    path = tmp_path / "q.json"
    path.write_text(json.dumps(event))
    times = amqsevt.read([path]).iloc[0]["fields"]["avgQueueTime"]
    assert times[0] != times[0] and times[1] == 250


def test_channel_sample_feeds_the_channel_chapter(folder):
    path = folder / "statistics_channel_datadog_sandbox.json"
    conv = ingest.convert(ingest.route("qrep_channel", [path])["data"], "qrep_channel")
    row = conv.frame.iloc[0]  # GCP.B: "netTimeAvg": 378 (µs), "msgs": 0
    assert row["series"] == "GCP.B (QM1)" and row["rtt_ms"] == pytest.approx(0.378)
    assert "message_bytes" not in conv.frame  # no messages moved: no size, batch or rate is data
    assert any("moved no messages" in n for n in conv.notes)


def test_channel_with_traffic(tmp_path):
    event = {"eventType": {"name": "Statistics Channel"}, "eventData": {
        "queueMgrName": "QMA", "startDate": "2026-01-01", "startTime": "10.00.00", "endDate": "2026-01-01",
        "endTime": "10.00.10", "chlStatisticsData": [{"channelName": "TO.QMB", "msgs": 2000, "bytes": 20480000,
                                                      "netTimeAvg": 2500, "avgBatchSize": 49.6}]}}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(event, indent=2))
    row = amqsevt.to_channels(amqsevt.read([path])).iloc[0]
    assert row["rtt_ms"] == 2.5 and row["message_bytes"] == 10240 and row["batch_size"] == 50
    assert row["measured_mb_s"] == pytest.approx(2.048)


def test_json_and_json_compact_give_the_same_rows(folder, tmp_path):
    pretty = folder / "statistics_mqi_datadog_sandbox.json"
    compact = tmp_path / "compact.json"
    events = [json.loads(pretty.read_text())] * 2
    compact.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
    assert readers.detect(compact).name == "amqsevt-json"
    a = amqsevt.to_statistics(amqsevt.read([pretty]))
    b = amqsevt.to_statistics(amqsevt.read([compact]))
    cols = ["start", "puts", "gets", "commits"]
    assert b[cols].to_numpy().tolist() == a[cols].to_numpy().tolist() * 2
    assert b["source"].tolist() == ["compact.json:1", "compact.json:2"]


def test_truncated_and_foreign_events(tmp_path, folder):
    cut = tmp_path / "cut.json"
    cut.write_text((folder / "statistics_mqi_datadog_sandbox.json").read_text()[:500])
    with pytest.raises(DataError, match="not complete amqsevt JSON") as err:
        amqsevt.read([cut])
    assert "\n" not in str(err.value)
    other = tmp_path / "config.json"
    other.write_text(json.dumps({"eventType": {"name": "Config Change"}, "eventData": {"startTime": "x"}}))
    with pytest.raises(DataError, match="no amqsevt statistics event"):
        amqsevt.read([other])


def test_other_json_is_not_claimed(reference_dir, root):
    assert readers.detect(reference_dir / "formats" / "fio" / "vm_run_mqlog_5bsizes.json").name == "fio-json"
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


def test_the_setup_the_events_state_goes_with_the_rows(folder, tmp_path):
    # "queueMgrName": "datadog", "commandLevel": 802 (MQ 8.0), 21.13.46 to 21.14.16: 30 s.
    path = folder / "statistics_mqi_datadog_sandbox.json"
    rows = amqsevt.to_statistics(amqsevt.read([path]))
    setup = rows.attrs["setup"]
    assert setup["MQ version"] == "MQ 8.0 (command level 802)"
    assert setup["interval length"] == "30 s" and setup["queue managers"] == "datadog"
    assert "platform" not in setup  # the events do not say which operating system
    values, _ = ingest.prepare("qm_statistics", [path], tmp_path)
    record = json.loads((tmp_path / "conversion.json").read_text())
    assert record[0]["setup"]["MQ version"] == "MQ 8.0 (command level 802)"
