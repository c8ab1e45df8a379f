"""mqperf.data.load: typed frames from good files, one clear DataError for bad ones."""

import pytest

from mqperf import data
from mqperf.errors import DataError


def write(tmp_path, text, name="in.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_book_dataset_loads_typed():
    frame = data.load("kafka_task_scaling")
    assert str(frame["tasks"].dtype) == "int64"
    assert str(frame["rate_msg_s"].dtype) == "float64"
    assert set(frame["basis"]) <= {"measured", "derived"}


def test_every_book_dataset_loads():
    for name in data.resource_names():
        assert len(data.load(name)) > 0, name


def test_reader_file_with_extra_and_optional_columns(tmp_path):
    path = write(tmp_path, "tasks,rate_msg_s,comment\n1,100,a\n2,180,b\n")
    frame = data.load(path, contract="task_scaling")
    assert list(frame["tasks"]) == [1, 2] and "comment" in frame


@pytest.mark.parametrize("text,column,fragment", [
    ("tasks,comment\n1,a\n", "rate_msg_s", "required column is missing"),
    ("tasks,rate_msg_s\n1,100\n2,fast\n", "rate_msg_s", "line 3"),
    ("tasks,rate_msg_s\n0,100\n", "tasks", "constraint"),
    ("tasks,rate_msg_s\n-2,100\n", "tasks", "constraint"),
    ("tasks,rate_msg_s\n1.5,100\n", "tasks", "wrong type"),
    ("tasks,rate_msg_s\n1,0\n", "rate_msg_s", "constraint"),
    ("tasks,rate_msg_s\n1,\n", "rate_msg_s", "constraint"),
])
def test_bad_values_name_file_column_and_problem(tmp_path, text, column, fragment):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as err:
        data.load(path, contract="task_scaling")
    msg = str(err.value)
    assert str(path) in msg and f"column '{column}'" in msg and fragment in msg
    assert "\n" not in msg


@pytest.mark.parametrize("text,fragment", [
    ("", "file is empty"),
    ("tasks,tasks,rate_msg_s\n1,1,2\n", "more than once"),
    ("\x89PNG\x00\xff\xfe", "not a UTF-8"),
])
def test_unreadable_files(tmp_path, text, fragment):
    path = tmp_path / "in.csv"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataError, match=fragment):
        data.load(path, contract="task_scaling")


def test_missing_file_and_unknown_dataset(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        data.load(tmp_path / "nope.csv", contract="task_scaling")
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
    csv = root / "data" / "kafka_task_scaling.csv"
    lines = csv.read_text().splitlines()
    lines[1] = lines[1].replace(",28000,", ",lots,")
    csv.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("MQPERF_ROOT", str(root))
    data._package_descriptor.cache_clear()
    with pytest.raises(DataError, match=r"column 'rate_msg_s', line 2"):
        data.load("kafka_task_scaling")
    data._package_descriptor.cache_clear()
