"""amqsrua DISK/Log text output read into the nativeha_storage contract's rows."""

import pytest

from mqperf.data import readers, views
from mqperf.data.readers import amqsrua
from mqperf.errors import DataError

# Published DISK/Log block (Colin Paice, developer.ibm.com, 2018-04-12), as in the format notes.
SAMPLE = """Publication received PutDate:20180331 PutTime:13044235 Interval:10.000 seconds
Log - bytes in use 83886080
Log - physical bytes written 598876160 59871780/sec
Log - logical bytes written 532921878 53278096/sec
Log - write latency 280 uSec
Log - write size 36809
Log - current primary space in use 150.82%
"""


def test_parse_amqsrua_text():
    frame = amqsrua.parse_amqsrua(SAMPLE).iloc[0]
    assert frame["physical_bytes_s"] == 59871780 and frame["logical_bytes_s"] == 53278096
    assert frame["write_latency_us"] == 280 and frame["write_size_bytes"] == 36809 and frame["interval_s"] == 10
    assert frame["series"] == "20180331 13044235"
    dashed = amqsrua.parse_amqsrua(SAMPLE.replace("Log - ", "Log \u2013 ")).iloc[0]
    assert dashed["write_latency_us"] == 280
    assert amqsrua.interval_seconds("1 minutes,4.785 seconds") == pytest.approx(64.785)
    assert amqsrua.interval_seconds("2 hours,0 minutes,1.5 seconds") == pytest.approx(7201.5)
    with pytest.raises(DataError):
        amqsrua.parse_amqsrua("nothing here")
    with pytest.raises(DataError, match="interval not understood"):
        amqsrua.interval_seconds("soon")


def test_a_count_without_a_rate_is_divided_by_the_interval():
    text = SAMPLE.replace("598876160 59871780/sec", "598876160")
    assert amqsrua.parse_amqsrua(text).iloc[0]["physical_bytes_s"] == pytest.approx(59887616.0)


def test_a_missing_element_is_named():
    text = "\n".join(line for line in SAMPLE.splitlines() if "write size" not in line)
    with pytest.raises(DataError, match=r"missing: Log - write size"):
        amqsrua.parse_amqsrua(text)


def test_parse_amqsrua_published_samples(reference_dir):
    folder = reference_dir / "formats" / "amqsrua"
    frame = amqsrua.parse_amqsrua((folder / "colinpaice_blog_2019-03-03_DISK_Log_partial.txt").read_text(encoding="utf-8"))
    assert frame.iloc[0]["physical_bytes_s"] == 3371827 and frame.iloc[0]["write_latency_us"] == 994


def test_a_tool_file_is_read_by_views_and_converted_with_its_line(tmp_path):
    src = tmp_path / "out.txt"
    src.write_text(SAMPLE)
    frame = views.open(str(src), "nativeha_storage")
    assert frame.iloc[0]["write_size_bytes"] == 36809 and frame.iloc[0]["source"] == "out.txt:2"


def test_devibm_sample_and_the_dash_variants(reference_dir):
    folder = reference_dir / "formats" / "amqsrua"
    row = views.open(str(folder / "devibm_2018-04-12_colinpaice_DISK_Log.txt"), "nativeha_storage").iloc[0]
    # "Log - physical bytes written 598876160 59871780/sec", "Log - write latency 280 uSec", "write size 36809"
    assert (row["physical_bytes_s"], row["logical_bytes_s"], row["write_latency_us"], row["write_size_bytes"]) == \
        (59871780, 53278096, 280, 36809)
    en = views.open(str(folder / "colinpaice_blog_2019-03-03_DISK_Log_partial.txt"), "nativeha_storage")
    ascii_ = views.open(str(folder / "colinpaice_blog_2019-03-03_DISK_Log_partial.ascii_hyphen.txt"), "nativeha_storage")
    cols = ["physical_bytes_s", "logical_bytes_s", "write_latency_us", "write_size_bytes"]
    assert en[cols].to_numpy().tolist() == ascii_[cols].to_numpy().tolist() == [[3371827, 541895, 994, 4099]]
    assert readers.detect(folder / "element_datatypes_mq94.tsv") is None


# STATMQI and STATQ blocks: no public sample exists (FORMAT.md), so these lines are written here
# in the grammar FORMAT.md gives (delta elements "<count> <rate>/sec", per-object names in 48 columns).
STATMQI = """Publication received PutDate:20261123 PutTime:10001000 Interval:1 minutes,0.000 seconds
MQCONN/MQCONNX count 12 0/sec
MQDISC count 10 0/sec
Interval total MQPUT/MQPUT1 count 6000 100/sec
Non-persistent message MQPUT count 2000 33/sec
Persistent message MQPUT count 3900 65/sec
Persistent message MQPUT1 count 100 2/sec
Interval total destructive get- count 5400 90/sec
Commit count 600 10/sec
Publication received PutDate:20261123 PutTime:10011000 Interval:1 minutes,0.000 seconds
Interval total MQPUT/MQPUT1 count 1200 20/sec
Persistent message MQPUT count 0 
Commit count 0 
"""


def test_statmqi_publications_feed_the_statistics_chapter(tmp_path):
    path = tmp_path / "mqi.txt"
    path.write_text(STATMQI)
    frame = amqsrua.to_statistics(amqsrua.read([path]))
    first, second = frame.iloc[0], frame.iloc[1]
    assert first["start"] == "2026-11-23T09:59:10" and first["interval_s"] == 60
    assert (first["puts"], first["persistent_puts"], first["gets"], first["commits"]) == (6000, 4000, 5400, 600)
    assert (first["connects"], first["disconnects"]) == (12, 10)
    assert second["puts"] == 1200 and second["persistent_puts"] == 0
    with pytest.raises(DataError, match="found amqsrua STATMQI publications; the chapter needs DISK/Log"):
        amqsrua.to_log(amqsrua.read([path]))
    log = tmp_path / "log.txt"
    log.write_text(SAMPLE)
    with pytest.raises(DataError, match="found amqsrua DISK/Log publications; the chapter needs STATMQI"):
        amqsrua.to_statistics(amqsrua.read([log]))


def test_per_object_lines_and_units(tmp_path):
    statq = ("Publication received PutDate:20261123 PutTime:10001000 Interval:2 days,1 hours,0 minutes,1.500 seconds\n"
             + "APP.QUEUE.ONE".ljust(48) + "MQPUT/MQPUT1 count 40 0/sec\n"
             + "APP.QUEUE.ONE".ljust(48) + "queue avoided bytes 3MB\n")
    path = tmp_path / "q.txt"
    path.write_text(statq)
    frame = amqsrua.read([path])
    assert frame["object"].tolist() == ["APP.QUEUE.ONE", "APP.QUEUE.ONE"]
    assert frame["element"].tolist() == ["MQPUT/MQPUT1 count", "queue avoided bytes"]
    assert frame["value"].tolist() == [40, 3 * 1024 ** 2]
    assert frame["interval_s"].iloc[0] == pytest.approx(2 * 86400 + 3600 + 1.5)
    assert any("MB values × 1048576" in n for n in readers.notes(frame))


def test_qmmonitor2_key_value_lines(tmp_path):
    # cphtestp's qmmonitor2 writes key=value lines (FORMAT.md); written here in that form.
    path = tmp_path / "disklogerr"
    path.write_text("log_lat=300\nlog_phy=1000000\nlog_log=900000\nlog_siz=8192\n"
                    "log_lat=320\nlog_phy=1100000\nlog_log=950000\nlog_siz=8192\n")
    assert readers.detect(path).name == "amqsrua"
    frame = amqsrua.to_log(amqsrua.read([path]))
    assert frame["write_latency_us"].tolist() == [300, 320] and frame["physical_bytes_s"].tolist() == [1e6, 1.1e6]


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


def test_the_setup_the_publications_state_goes_with_the_rows(tmp_path):
    two = SAMPLE + SAMPLE.replace("PutTime:13044235 Interval:10.000 seconds",
                                  "PutTime:13054235 Interval:1 minutes,0.000 seconds")
    path = tmp_path / "log.txt"
    path.write_text(two)
    setup = amqsrua.to_log(amqsrua.read([path])).attrs["setup"]
    # PutTime 13:04:42.35 less 10 s; the second publication ran 60 s.
    assert setup["interval length"] == "10 to 60 s (most often 10 s)"
    assert setup["publications"] == "2 from 2018-03-31T13:04:32 (UTC)" and setup["tool"] == "amqsrua"
    assert "MQ version" not in setup and "platform" not in setup  # amqsrua's lines state neither
