"""fio output (JSON and text, IBM's MQ-logging job pattern) read into the NativeHA chapter's mqldt rows.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/fio/.
"""

import json

import pytest

from mqperf.data import ingest, readers
from mqperf.data.readers import fio
from mqperf.errors import DataError


def test_json_sample(reference_dir):
    path = reference_dir / "formats" / "fio" / "vm_run_mqlog_5bsizes.json"
    fmt = readers.detect(path)
    assert fmt.name == "fio-json"
    frame = fmt.read([path])
    assert frame["blocksize_bytes"].tolist() == [4096, 16384, 65536, 262144, 1048576]
    first = frame.iloc[0]  # write-4K: total_ios 19757, bw_bytes 20226111, runtime 4001 ms, lat_ns mean 152723.33
    assert (first["writes"], first["avg_bytes_s"], first["duration_s"]) == (19757, 20226111, 4.001)
    assert first["write_latency_us"] == pytest.approx(152.72333, abs=1e-4)
    doc = json.loads(path.read_text())
    sync_us = doc["jobs"][0]["sync"]["lat_ns"]["mean"] / 1000
    assert first["avg_latency_us"] == pytest.approx(152.723329655 + sync_us)
    assert any("KiB/s" in n for n in readers.notes(frame))


def test_text_sample(reference_dir):
    path = reference_dir / "formats" / "fio" / "vm_run_mqlog_5bsizes.txt"
    fmt = readers.detect(path)
    assert fmt.name == "fio-text"
    first = fmt.read([path]).iloc[0]  # "BW=22.9MiB/s", "lat (usec): ... avg=118.25", "sync (usec): ... avg=52.08"
    assert first["blocksize_bytes"] == 4096 and first["writes"] == 23414 and first["duration_s"] == 4.001
    assert first["avg_bytes_s"] == pytest.approx(22.9 * 1048576)
    assert first["avg_latency_us"] == pytest.approx(118.25 + 52.08)


def test_the_job_file_is_not_output(reference_dir, tmp_path):
    job = reference_dir / "formats" / "fio" / "mqlog.fio"
    assert readers.detect(job) is None
    with pytest.raises(DataError, match="not a format mqperf recognises.*fio JSON"):
        ingest.route("nativeha_storage", [job], explicit_input="mqldt")


def test_units_in_text_are_converted(tmp_path):
    text = ("fio-3.33\nw: (g=0): rw=write, bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB\n"
            "w: (groupid=0, jobs=1): err= 0: pid=1\n"
            "  write: IOPS=10, BW=1.5GiB/s (1.6GB/s)(6GiB/4000msec); 0 zone resets\n"
            "     lat (msec): min=1, max=4, avg=2.50, stdev=0.1\n"
            "    sync (nsec): min=1, max=4, avg=500.00, stdev=0.1\n"
            "     issued rwts: total=0,40,0,0 short=0,0,0,0\n")
    path = tmp_path / "f.txt"
    path.write_text(text)
    row = readers.detect(path).read([path]).iloc[0]
    assert row["blocksize_bytes"] == 65536 and row["avg_bytes_s"] == pytest.approx(1.5 * 1024 ** 3)
    assert row["avg_latency_us"] == pytest.approx(2500 + 0.5)


def test_broken_fio_output_is_one_line(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text('{\n  "fio version" : "fio-3.33",\n  "jobs" : [ { "jobname" : "w"')
    with pytest.raises(DataError, match="not complete fio JSON") as err:
        fio.read_json([cut])
    assert "\n" not in str(err.value)
    failed = tmp_path / "f.txt"
    failed.write_text("fio-3.33\nw: (groupid=0, jobs=1): err= 5: pid=1\n")
    with pytest.raises(DataError, match="err=5"):
        fio.read_text([failed])
