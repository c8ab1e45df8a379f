"""mqperf.data.load: typed frames from good files, one clear DataError for bad ones."""

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mqperf import data
from mqperf.data import loader as _loader  # noqa: F401 (data.loader below)
from mqperf.errors import DataError


def write(tmp_path, text, name="in.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_book_dataset_loads_typed():
    frame = data.load("kafka_scaling_rates")
    assert str(frame["tasks"].dtype) == "int64"
    assert str(frame["rate_msg_s"].dtype) == "float64"
    assert set(frame["basis"]) <= {"measured", "derived"}


def test_every_book_dataset_loads():
    for name in data.resource_names():
        assert len(data.load(name)) > 0, name


def test_reader_file_with_extra_and_optional_columns(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s,comment\n1,100,a\n2,180,b\n")
    frame = data.load(path, contract="kafka_task_scaling")
    assert list(frame["tasks"]) == [1, 2] and "comment" in frame


@pytest.mark.parametrize("text,column,fragment", [
    ("tasks,comment\n1,a\n", "rate_msg_s", "required column is missing"),
    ("tasks,rate_msg_s\n1,100\n2,fast\n", "rate_msg_s", "line 3"),
    ("tasks,rate_msg_s\n1,100\n2,fast\n", "rate_msg_s", "expected a number, found 'fast'"),
    ("tasks,rate_msg_s\n0,100\n", "tasks", "line 2: must be at least 1, found '0'"),
    ("tasks,rate_msg_s\n-2,100\n", "tasks", "must be at least 1, found '-2'"),
    ("tasks,rate_msg_s\n1.5,100\n", "tasks", "expected a whole number, found '1.5'"),
    ("tasks,rate_msg_s\n1,0\n", "rate_msg_s", "must be greater than 0, found '0'"),
    ("tasks,rate_msg_s\n1,\n", "rate_msg_s", "a value is required, found an empty cell"),
    ("tasks,rate_msg_s\n1,100\n2,inf\n", "rate_msg_s", "line 3: not a finite number, found 'inf'"),
    ("tasks,rate_msg_s\n1,100\n2,-Infinity\n", "rate_msg_s", "line 3: not a finite number"),
    ("tasks,rate_msg_s\n1,NaN\n", "rate_msg_s", "line 2: not a finite number, found 'NaN'"),
    ("tasks,rate_msg_s\n1,1e999\n", "rate_msg_s", "not a finite number, found '1e999'"),
    ("tasks,rate_msg_s\n1,\"1,000\"\n", "rate_msg_s", "expected a number, found '1,000'"),
    ("tasks,rate_msg_s,basis\n1,100,guessed\n", "basis", "must be one of measured, derived, found 'guessed'"),
    ("tasks,rate_msg_s\n1,100\n2,200\n3,300,7\n", None, "line 4: the row has 3 values but the header names 2"),
])
def test_bad_values_name_file_column_and_problem(tmp_path, text, column, fragment):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as err:
        data.load(path, contract="kafka_task_scaling")
    msg = str(err.value)
    assert str(path) in msg and fragment in msg
    assert column is None or f"column '{column}'" in msg
    assert "\n" not in msg and "type is" not in msg and "constraint" not in msg  # no validator jargon


@pytest.mark.parametrize("text,fragment", [
    ("", "file is empty"),
    ("tasks,tasks,rate_msg_s\n1,1,2\n", "more than once"),
    ("\x89PNG\x00\x00\x00\x00\xff\xfe", "not a CSV file (binary data)"),
    ("tasks,rate_msg_s\n1,caf\xe9\n", "not a UTF-8 text file"),
])
def test_unreadable_files(tmp_path, text, fragment):
    path = tmp_path / "in.csv"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataError, match=re.escape(fragment)):
        data.load(path, contract="kafka_task_scaling")


def test_missing_file_and_unknown_dataset(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        data.load(tmp_path / "nope.csv", contract="kafka_task_scaling")
    with pytest.raises(DataError, match="no dataset named 'nope'"):
        data.load("nope")


def test_path_without_contract_is_refused(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n")
    with pytest.raises(DataError, match="no schema"):
        data.load(path)


def test_broken_book_file_is_reported(tmp_path, monkeypatch):
    # A copy of the data folder with one bad cell: load() must name file, column and line.
    import shutil

    from mqperf import paths

    root = tmp_path / "book"
    shutil.copytree(paths.data_dir(), root / "data")
    (root / "_toc.yml").write_text("root: x\n")
    csv = root / "data" / "kafka_scaling_rates.csv"
    lines = csv.read_text().splitlines()
    lines[1] = lines[1].replace(",28000,", ",lots,")
    csv.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("MQPERF_ROOT", str(root))
    data.loader._package_descriptor.cache_clear()
    with pytest.raises(DataError, match=r"column 'rate_msg_s', line 2"):
        data.load("kafka_scaling_rates")
    data.loader._package_descriptor.cache_clear()


@pytest.mark.parametrize("content,fragment", [
    (b"tasks,rate_msg_s\n", "no data rows"),
    (b"tasks,rate_msg_s\n\n\n", "no data rows"),
    (b"tasks;rate_msg_s\n1;100\n2;180\n", "looks semicolon-separated; the book reads comma-separated CSV"),
    (b"tasks\trate_msg_s\n1\t100\n", "looks tab-separated"),
    (b'[{"tasks": 1, "rate_msg_s": 100}]', "not a CSV file (looks like JSON)"),
    (b'  {"tasks": [1, 2]}', "not a CSV file (looks like JSON)"),
    (b"PK\x03\x04\x14\x00\x06\x00" + bytes(100), "not a CSV file (looks like a spreadsheet (.xlsx/.ods)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "not a CSV file (looks like an Excel .xls"),
    ("tasks,rate_msg_s\n1,100\n".encode("utf-16"), "not a CSV file (UTF-16 text)"),
    ("tasks,rate_msg_s\n1,100\n".encode("utf-16-le"), "not a CSV file (UTF-16 text)"),
    (b'tasks,rate_msg_s\n1,"100\n', "line 2: a quote"),
])
def test_files_that_are_not_comma_separated_csv_say_what_they_are(tmp_path, content, fragment):
    path = tmp_path / "in.csv"
    path.write_bytes(content)
    with pytest.raises(DataError) as err:
        data.load(path, contract="kafka_task_scaling")
    assert fragment in str(err.value) and str(path) in str(err.value)
    assert "required column" not in str(err.value)


@pytest.mark.parametrize("name", ["in.json", "in.xlsx", "in.ods"])
def test_not_csv_by_name(tmp_path, name):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n", name=name)
    with pytest.raises(DataError, match="not a CSV file"):
        data.load(path, contract="kafka_task_scaling")


def test_blank_lines_are_skipped_and_line_numbers_stay_those_of_the_file(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n\n2,200\n\n")
    assert list(data.load(path, contract="kafka_task_scaling")["rate_msg_s"]) == [100.0, 200.0]
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n\n2,0\n")
    with pytest.raises(DataError, match="line 4: must be greater than 0"):
        data.load(path, contract="kafka_task_scaling")


def test_first_bad_line_wins_across_columns(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n2,200\n3,-1\n0,400\n")
    with pytest.raises(DataError, match=r"column 'rate_msg_s', line 4"):
        data.load(path, contract="kafka_task_scaling")


def test_long_user_text_is_cut_in_messages(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s\n1," + "x" * 100_000 + "\n")  # not a number, and very long
    with pytest.raises(DataError) as err:
        data.load(path, contract="kafka_task_scaling")
    assert len(str(err.value)) < len(str(path)) + 150 and "…" in str(err.value)


def test_types_and_optional_columns(tmp_path):
    schema = {"fields": [
        {"name": "n", "type": "integer", "constraints": {"required": True, "maximum": 10}},
        {"name": "ok", "type": "boolean"},
        {"name": "day", "type": "date"},
        {"name": "code", "type": "string", "constraints": {"pattern": "E[0-9]{3}", "unique": True}},
        {"name": "x", "type": "number", "constraints": {"exclusiveMaximum": 1}},
    ]}
    path = write(tmp_path, "n,ok,day,code,x\n1,true,2024-01-02,E001,0.5\n2,FALSE,,E002,\n")
    frame = data.load(path, contract=schema)
    assert str(frame["n"].dtype) == "int64" and list(frame["ok"]) == [True, False]
    assert frame["day"].isna().tolist() == [False, True] and frame["x"].isna().tolist() == [False, True]
    for text, fragment in [
        ("n\n11\n", "must be at most 10, found '11'"),
        ("n,ok\n1,yes\n", "expected true or false, found 'yes'"),
        ("n,day\n1,02/01/2024\n", "expected a date (YYYY-MM-DD), found '02/01/2024'"),
        ("n,code\n1,E01\n", "must look like E[0-9]{3}, found 'E01'"),
        ("n,code\n1,E001\n2,E001\n", "line 3: 'E001' appears on an earlier line too"),
        ("n,x\n1,1\n", "must be less than 1, found '1'"),
    ]:
        with pytest.raises(DataError, match=re.escape(fragment)):
            data.load(write(tmp_path, text), contract=schema)


@pytest.mark.slow
def test_a_million_rows_load_in_little_memory(tmp_path):
    """Readers' files have one row per measurement interval: 10^6 rows must be routine.

    The load time is a benchmark's (benchmarks/bench_large.py), not a test's: it depends on the machine."""
    path = tmp_path / "big.csv"
    n = 1_000_000
    rng = np.random.default_rng(1)
    pd.DataFrame({"series": rng.choice(["source", "sink"], n), "tasks": rng.integers(1, 64, n),
                  "rate_msg_s": rng.random(n) * 1e5 + 1, "gp_cpus": rng.integers(1, 8, n)}).to_csv(path, index=False)
    # The peak is this process's own (VmHWM): ru_maxrss also counts the parent's memory when
    # the child was forked from it before exec (a 500 MB test worker made a 165 MB load fail).
    code = ("import sys; from mqperf import data; "
            "f = data.load(sys.argv[1], contract='kafka_task_scaling'); "
            "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1]; "
            "print(len(f), int(hwm) / 1024)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    rows, peak_mb = out.stdout.split()
    assert int(rows) == n
    assert float(peak_mb) < 500, peak_mb  # the whole process, interpreter and pandas included


# -- the memo of validated frames ---------------------------------------------------------------

@pytest.fixture
def validations(monkeypatch):
    """How many times a file was really read and checked (Table.validated ran)."""
    from mqperf.data import table

    monkeypatch.setattr(data.loader, "_VALIDATED", type(data.loader._VALIDATED)())
    calls = []
    real = table.Table.validated

    def counted(self):
        calls.append(self.path)
        return real(self)

    monkeypatch.setattr(table.Table, "validated", counted)
    return calls


def test_a_file_loaded_again_is_not_checked_again_and_each_caller_gets_its_own_frame(tmp_path, validations):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n2,180\n")
    first = data.load(path, contract="kafka_task_scaling")
    first.loc[0, "rate_msg_s"] = -1.0  # a caller that changes its frame changes no one else's
    second = data.load(path, contract="kafka_task_scaling")
    assert len(validations) == 1
    assert list(second["rate_msg_s"]) == [100.0, 180.0]
    assert data.load("kafka_scaling_rates").equals(data.load("kafka_scaling_rates")) and len(validations) == 2


def test_a_file_rewritten_in_the_same_clock_tick_is_read_again(tmp_path, validations):
    import os

    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n2,180\n")
    stamp = path.stat().st_mtime_ns
    assert list(data.load(path, contract="kafka_task_scaling")["rate_msg_s"]) == [100.0, 180.0]
    path.write_text("tasks,rate_msg_s\n1,100\n2,170\n", encoding="utf-8")  # same size
    os.utime(path, ns=(stamp, stamp))  # and the same modification time
    assert list(data.load(path, contract="kafka_task_scaling")["rate_msg_s"]) == [100.0, 170.0]
    assert len(validations) == 2


def test_the_schema_is_part_of_what_was_checked(tmp_path, validations):
    path = write(tmp_path, "tasks,rate_msg_s\n1,100\n2,180\n")
    data.load(path, contract="kafka_task_scaling")
    with pytest.raises(DataError, match="at most 150"):  # a stricter schema still refuses the file
        data.load(path, contract={"fields": [{"name": "tasks", "type": "integer"},
                                             {"name": "rate_msg_s", "type": "number", "constraints": {"maximum": 150}}]})
    assert len(validations) == 2


def test_a_bad_file_is_refused_every_time_and_a_fixed_one_then_loads(tmp_path, validations):
    path = write(tmp_path, "tasks,rate_msg_s\n1,fast\n")
    for _ in range(2):
        with pytest.raises(DataError, match="rate_msg_s"):
            data.load(path, contract="kafka_task_scaling")
    write(tmp_path, "tasks,rate_msg_s\n1,100\n")
    assert list(data.load(path, contract="kafka_task_scaling")["rate_msg_s"]) == [100.0]


def test_the_memo_holds_few_frames_and_no_large_file(tmp_path, validations, monkeypatch):
    monkeypatch.setattr(data.loader, "_MEMO_ENTRIES", 3)
    paths = [write(tmp_path, f"tasks,rate_msg_s\n1,{100 + i}\n", name=f"f{i}.csv") for i in range(5)]
    for path in paths:
        data.load(path, contract="kafka_task_scaling")
    assert len(data.loader._VALIDATED) == 3
    data.load(paths[0], contract="kafka_task_scaling")  # dropped as the oldest: checked again
    assert len(validations) == 6
    monkeypatch.setattr(data.loader, "_MEMO_BYTES", 10)
    big = write(tmp_path, "tasks,rate_msg_s\n1,100\n2,180\n", name="big.csv")
    data.load(big, contract="kafka_task_scaling")
    data.load(big, contract="kafka_task_scaling")
    assert validations[-2:] == [big, big] and all(key[0] != str(big) for key in data.loader._VALIDATED)


def test_the_memo_holds_files_of_a_bounded_total_size(tmp_path, validations, monkeypatch):
    paths = [write(tmp_path, f"tasks,rate_msg_s\n1,{100 + i}\n", name=f"f{i}.csv") for i in range(4)]
    size = paths[0].stat().st_size
    monkeypatch.setattr(data.loader, "_MEMO_TOTAL_BYTES", 2 * size)
    for path in paths:
        data.load(path, contract="kafka_task_scaling")
    assert [key[0] for key in data.loader._VALIDATED] == [str(p) for p in paths[2:]]
    data.load(paths[3], contract="kafka_task_scaling")
    data.load(paths[1], contract="kafka_task_scaling")  # dropped for its bytes: checked again
    assert validations == paths + [paths[1]]


def test_the_memo_holds_as_many_tables_as_the_book_has(tmp_path, validations):
    # A process that runs the chapters in turn (a test worker, a fleet worker, a warm kernel) reads
    # the book's tables over and over: a memo smaller than the book dropped each table just
    # before it was read again, and found nothing.
    import json

    from conftest import ROOT

    tables = len(json.loads((ROOT / "data" / "datapackage.json").read_text())["resources"])
    tables += len(list((ROOT / "data" / "examples").glob("*.csv")))
    paths = [write(tmp_path, f"tasks,rate_msg_s\n1,{100 + i}\n", name=f"t{i}.csv") for i in range(tables)]
    for _ in range(2):
        for path in paths:
            data.load(path, contract="kafka_task_scaling")
    assert validations == paths
