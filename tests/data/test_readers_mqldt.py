"""mqldt --csvFile output read into the rows the nativeha_storage chapter's mqldt check reads."""

import pytest

from mqperf.data import views
from mqperf.data.readers import mqldt
from mqperf.errors import DataError

HEADER = ("Blocksize,Total writes to files,Total bytes written to files,Max bytes/sec written to files (over 1 sec interval),"
          "Min bytes/sec written to files (over 1 sec interval),{avg},Max latency of write (ns),Min latency of write (ns),"
          "Avg latency of write (ns),Min bytes/sec (slowest write),Max bytes/sec (fastest write)")


def test_read_mqldt_csv_single_and_multi_qm(tmp_path):
    text = "\n".join([
        HEADER.format(avg="Avg bytes/sec written to files"), "4096,1000,4096000,1,1,20000000,1,1,200000,1,1",
        "Running MQLDT over 2 Queue Managers",
        HEADER.format(avg="Avg bytes/sec written to files by all queue managers"), "4096,2000,8192000,1,1,30000000,1,1,250000,1,1",
    ])
    path = tmp_path / "mqldt.csv"
    path.write_text(text + "\n")
    frame = mqldt.read_mqldt_csv(path)
    assert list(frame.columns) == mqldt.COLUMNS
    assert frame["queue_managers"].tolist() == [1, 2]
    assert frame["avg_latency_us"].tolist() == [200.0, 250.0]
    assert frame["avg_bytes_s"].tolist() == [20000000.0, 30000000.0]
    # views.open hands a reader's mqldt file to this reader, not to a contract check.
    assert views.open(str(path), "nativeha_storage", "mqldt")["avg_latency_us"].tolist() == [200.0, 250.0]


@pytest.mark.parametrize(("text", "match"), [
    ("Blocksize,Total writes to files\n4096,10\n", "Avg latency"),
    ("hello\nworld\n", "no mqldt header line"),
    (HEADER.format(avg="Avg bytes/sec written to files") + "\n", "no mqldt result rows"),
    (HEADER.format(avg="Avg bytes/sec written to files") + "\n4096,x,1,1,1,2,1,1,y,1,1\n", "not a number"),
    (HEADER.format(avg="Avg bytes/sec written to files") + "\n4096,1,1,1,1,2,1,1,0,1,1\n", "greater than zero"),
])
def test_bad_mqldt_files_are_refused_in_one_line(tmp_path, text, match):
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(DataError, match=match) as err:
        mqldt.read_mqldt_csv(bad)
    assert "\n" not in str(err.value)


def test_missing_directory_and_binary_files(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        mqldt.read_mqldt_csv(tmp_path / "none.csv")
    with pytest.raises(DataError, match="not a file"):
        mqldt.read_mqldt_csv(tmp_path)
    binary = tmp_path / "mqldt.csv"
    binary.write_bytes(b"\xff\xfeB\x00l\x00")
    with pytest.raises(DataError, match="not UTF-8"):
        mqldt.read_mqldt_csv(binary)
