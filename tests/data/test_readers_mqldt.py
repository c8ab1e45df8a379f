"""mqldt output (text report and --csvFile CSV) read into the rows the NativeHA chapter's mqldt check reads.

Expected values are read by eye from the real samples in ../shared/reference-data/formats/mqldt/.
"""

import pytest

from mqperf.data import readers, views
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


def _read(path):
    fmt = readers.detect(path)
    assert fmt is not None and fmt.tool == "mqldt", path.name
    return fmt, fmt.read([path])


def test_the_text_report_in_both_locales_gives_the_csvs_numbers(reference_dir):
    folder = reference_dir / "formats" / "mqldt"
    fmt, en = _read(folder / "vm_run_6bsizes_en_US_locale.stdout_stderr.txt")
    assert fmt.name == "mqldt-text"
    first = en.iloc[0]  # "Total writes to files : 29,455" ... "Avg latency of write (ns) : 162,548"
    assert (first["blocksize_bytes"], first["writes"], first["avg_bytes_s"]) == (5120, 29455, 30164933)
    assert first["avg_latency_us"] == pytest.approx(162.548) and first["duration_s"] == 5
    assert first["max_latency_us"] == pytest.approx(41564.162)  # the "(#1,475)" ordinal is not data
    assert en["blocksize_bytes"].tolist() == [5120, 9216, 17408, 24576, 50176, 131072]
    fmt, csv = _read(folder / "vm_run_6bsizes.csv")
    assert fmt.name == "mqldt-csv"
    cols = ["blocksize_bytes", "writes", "avg_bytes_s", "avg_latency_us"]
    assert en[cols].to_numpy().tolist() == csv[cols].to_numpy().tolist()
    # C locale, stdout alone: no "Executing test" lines (they went to stderr); sizes come from --bsize.
    _, c = _read(folder / "vm_run_3bsizes_C_locale.stdout.txt")
    assert c["blocksize_bytes"].tolist() == [4096, 16384, 65536]
    assert c.iloc[0][["writes", "avg_bytes_s"]].tolist() == [15771, 21559336]
    _, c_csv = _read(folder / "vm_run_3bsizes_C_locale.csv")
    assert c[cols].to_numpy().tolist() == c_csv[cols].to_numpy().tolist()
    with pytest.raises(DataError, match="no mqldt result"):  # the stderr capture alone holds no figures
        _read(folder / "vm_run_3bsizes_C_locale.stderr.txt")


def test_multi_qm_runs_and_the_readme_samples(reference_dir):
    folder = reference_dir / "formats" / "mqldt"
    _, multi = _read(folder / "vm_run_mqldt-c_style_qm1-3.csv")
    assert multi["queue_managers"].tolist() == [1, 2, 3]
    assert multi.iloc[1][["writes", "avg_bytes_s"]].tolist() == [38957, 1021319192]
    assert multi.iloc[1]["avg_latency_us"] == pytest.approx(251.972)
    _, multi_text = _read(folder / "vm_run_mqldt-c_style_qm1-3_en_US_locale.stdout_stderr.txt")
    assert multi_text["queue_managers"].tolist() == [1, 2, 3]
    assert multi_text["avg_bytes_s"].tolist() == multi["avg_bytes_s"].tolist()
    _, old = _read(folder / "readme_sample_original_2017_README_0d91271.txt")
    assert old.iloc[0][["blocksize_bytes", "writes", "avg_bytes_s", "duration_s"]].tolist() == [131072, 46790, 306754931, 20]
    assert old.iloc[0]["avg_latency_us"] == pytest.approx(415.704)
    _, current = _read(folder / "readme_sample_current_README_86775176.txt")
    assert current.iloc[0]["writes"] == 46178
    assert readers.detect(folder / "FORMAT.md") is None


@pytest.mark.parametrize("sep", [",", ".", "'", "\u202f"])
def test_any_locale_grouping_is_one_number(tmp_path, sep):
    text = ("Options (specified or defaulted to)\nWrite blocksize (--bsize) : 4K\nTest duration (--duration) : 3\n"
            f"Total writes to files : 15{sep}771\nAvg bytes/sec written to files : 21{sep}559{sep}336\n"
            f"Avg latency of write (ns) : 186{sep}237\n")
    path = tmp_path / "out.txt"
    path.write_text(text, encoding="utf-8")
    row = readers.detect(path).read([path]).iloc[0]
    assert (row["writes"], row["avg_bytes_s"], row["avg_latency_us"]) == (15771, 21559336, 186.237)


def test_contract_csvs_are_not_claimed(root):
    for example in sorted((root / "data" / "examples").glob("*.csv")):
        assert readers.detect(example) is None, example.name


# -- setup and concurrency (issue 21) -------------------------------------------------------------------


def test_text_setup_states_the_options(reference_dir):
    path = reference_dir / "formats" / "mqldt" / "vm_run_3bsizes_C_locale.stdout.txt"
    frame = mqldt.read_text([path])
    setup = frame.attrs["setup"]
    # The Options block: --bsize=4K,16K,64K --fileSize=8388608 --numFiles=4 --duration=3
    assert setup["block sizes"] == "4,096 bytes, 16,384 bytes, 65,536 bytes"
    assert setup["test duration (--duration, s)"] == "3" and setup["files (--numFiles)"] == "4"
    assert setup["file size (--fileSize, bytes)"] == "8388608"
    assert "no version" in setup["tool"]


def test_multi_qm_rows_are_that_many_writers(reference_dir):
    path = reference_dir / "formats" / "mqldt" / "vm_run_mqldt-c_style_qm1-3.csv"
    frame = mqldt.read_csv([path])
    assert frame["queue_managers"].tolist() == [1, 2, 3]
    assert frame.attrs["setup"]["queue managers"] == "1, 2, 3"
    assert any("writers at once" in n for n in readers.notes(frame))
    assert frame.attrs["setup"]["test duration"].startswith("not stated")
