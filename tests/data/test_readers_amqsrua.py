"""amqsrua DISK/Log text output read into the nativeha_storage contract's rows."""

import pandas as pd
import pytest

from mqperf.data import views
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
    with pytest.raises(DataError, match="write_size_bytes"):
        amqsrua.parse_amqsrua(text)


def test_parse_amqsrua_published_samples(reference_dir):
    folder = reference_dir / "formats" / "amqsrua"
    frame = amqsrua.parse_amqsrua((folder / "colinpaice_blog_2019-03-03_DISK_Log_partial.txt").read_text(encoding="utf-8"))
    assert frame.iloc[0]["physical_bytes_s"] == 3371827 and frame.iloc[0]["write_latency_us"] == 994


def test_amqsrua_csv_round_trip_meets_the_contract(tmp_path):
    src = tmp_path / "out.txt"
    src.write_text(SAMPLE)
    csv_path = amqsrua.amqsrua_to_csv(src, tmp_path / "log.csv")
    assert list(pd.read_csv(csv_path).columns) == amqsrua.COLUMNS
    frame = views.open(str(csv_path), "nativeha_storage")
    assert frame.iloc[0]["write_size_bytes"] == 36809
