"""Routing a reader's files to a chapter's inputs, converting them, and the commands on top.

A toy format stands in for a tool here, so these tests pin the routing rules themselves;
every real reader is tested on the tool's real samples in ``test_readers_<tool>.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from mqperf import cli
from mqperf.data import ingest, readers, views
from mqperf.errors import DataError

CHAPTER = "kafka_task_scaling"


def _read_toy(paths):
    rows = []
    for path in paths:
        for no, line in enumerate(Path(path).read_text().splitlines(), start=1):
            m = re.match(r"threads=(\S+) rate=(\S+)", line)
            if m:
                rows.append({"threads": int(m[1]), "rate_per_ms": float(m[2]), "source": f"{Path(path).name}:{no}"})
    if not rows:
        raise DataError(paths[0], "no threads= line")
    return readers.with_notes(pd.DataFrame(rows), "toy rates are per millisecond: × 1000 → msg/s")


def _to_scaling(frame):
    out = pd.DataFrame({"series": "toy", "tasks": frame["threads"], "rate_msg_s": frame["rate_per_ms"] * 1000,
                        "source": frame["source"]})
    return readers.with_notes(out, *readers.notes(frame))


TOY = readers.Format(name="toy", tool="toytool", title="toytool output", command="toytool > out.txt",
                     sniff=lambda head, path: head.startswith("TOYTOOL"), read=_read_toy,
                     feeds={CHAPTER: _to_scaling})
ELSEWHERE = readers.Format(name="other", tool="othertool", title="othertool output", command="othertool",
                           sniff=lambda head, path: head.startswith("OTHERTOOL"), read=_read_toy,
                           feeds={"ims_bridge": _to_scaling})


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(readers, "formats", lambda: [TOY, ELSEWHERE])
    return TOY


def _toy_file(path: Path, *pairs) -> Path:
    path.write_text("TOYTOOL v1\n" + "".join(f"threads={t} rate={r}\n" for t, r in pairs))
    return path


def test_a_tool_file_is_recognised_by_content_not_name(tmp_path, toy):
    odd = _toy_file(tmp_path / "results.csv", (1, 10))
    assert readers.detect(odd) is TOY
    plain = tmp_path / "plain.txt"
    plain.write_text("tasks,rate_msg_s\n1,10\n")
    assert readers.detect(plain) is None


def test_several_files_make_one_dataset_with_their_origin(tmp_path, toy):
    a = _toy_file(tmp_path / "a.txt", (1, 10.0))
    b = _toy_file(tmp_path / "b.txt", (2, 18.5), (4, 30.0))
    routed = ingest.route(CHAPTER, [a, b])
    conv = ingest.convert(routed["data"], CHAPTER)
    assert list(conv.frame["tasks"]) == [1, 2, 4]
    assert list(conv.frame["rate_msg_s"]) == [10000.0, 18500.0, 30000.0]
    assert list(conv.frame["source"]) == ["a.txt:2", "b.txt:2", "b.txt:3"]
    assert conv.notes == ["toy rates are per millisecond: × 1000 → msg/s"]
    assert "toytool output" in conv.describe() and "3 rows" in conv.describe()


def test_a_folder_stands_for_its_files_and_skips_what_no_reader_knows(tmp_path, toy):
    folder = tmp_path / "runs"
    folder.mkdir()
    _toy_file(folder / "1.txt", (1, 10))
    _toy_file(folder / "2.txt", (2, 19))
    (folder / "formatter.log").write_text("formatted 3 records\n")
    routed = ingest.route(CHAPTER, [folder])
    assert [p.name for p, _ in routed["data"]] == ["1.txt", "2.txt"]
    (folder / "1.txt").unlink()
    (folder / "2.txt").unlink()
    with pytest.raises(DataError, match="no file in the folder is in a format mqperf reads"):
        ingest.route(CHAPTER, [folder])


def test_an_unknown_format_names_the_formats_mqperf_reads(tmp_path, toy):
    notes = tmp_path / "notes.txt"
    notes.write_text("my measurements\nwere good\n")
    with pytest.raises(DataError, match=r"notes.txt: not a format mqperf recognises.*toytool output"):
        ingest.route(CHAPTER, [notes])
    js = tmp_path / "x.json"
    js.write_text('{"a": 1}')
    with pytest.raises(DataError, match=r"looks like JSON.*toytool output"):
        ingest.route(CHAPTER, [js])


def test_a_known_format_the_chapter_cannot_use_says_both(tmp_path, toy):
    other = tmp_path / "o.txt"
    other.write_text("OTHERTOOL\nthreads=1 rate=2\n")
    with pytest.raises(DataError, match=r"found othertool output; chapter 'kafka_task_scaling' reads toytool output "
                                        r"\(this format feeds: ims_bridge\)"):
        ingest.route(CHAPTER, [other])


def test_a_contract_csv_is_read_alone(tmp_path, toy):
    plain = tmp_path / "mine.csv"
    plain.write_text("tasks,rate_msg_s\n1,10\n2,19\n")
    conv = ingest.convert(ingest.route(CHAPTER, [plain])["data"], CHAPTER)
    assert conv.plain and conv.frame is None
    with pytest.raises(DataError, match="read on its own"):
        ingest.route(CHAPTER, [plain, _toy_file(tmp_path / "a.txt", (1, 1))])


def test_a_bad_converted_value_is_reported_at_the_readers_own_line(tmp_path, toy):
    bad = _toy_file(tmp_path / "run.txt", (1, 10), (2, -3))
    with pytest.raises(DataError) as exc:
        ingest.convert(ingest.route(CHAPTER, [bad])["data"], CHAPTER)
    assert str(exc.value).startswith("run.txt:3: read as toy, column rate_msg_s: ")


def test_views_open_reads_a_tool_file_directly(tmp_path, toy):
    frame = views.open(str(_toy_file(tmp_path / "a.txt", (1, 10), (2, 19))), CHAPTER)
    assert list(frame["rate_msg_s"]) == [10000.0, 19000.0]


def test_prepare_writes_the_converted_input_and_what_was_done(tmp_path, toy):
    a = _toy_file(tmp_path / "a.txt", (1, 10), (2, 19), (3, 26))
    values, convs = ingest.prepare(CHAPTER, [a], tmp_path / "inputs")
    written = pd.read_csv(values["data"])
    assert list(written.columns) == ["series", "tasks", "rate_msg_s", "source"]
    record = json.loads((tmp_path / "inputs" / "conversion.json").read_text())
    assert record[0]["files"] == ["a.txt"] and record[0]["formats"] == ["toy"]
    assert len(record[0]["sha256"][0]) == 64 and record[0]["notes"] == convs[0].notes


def _cli(*args):
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main([str(a) for a in args])
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def test_convert_writes_a_new_file_and_never_overwrites(tmp_path, toy):
    a = _toy_file(tmp_path / "a.txt", (1, 10), (2, 19), (3, 26))
    out = tmp_path / "scaling.csv"
    status, stdout, err = _cli("convert", a, "--to", CHAPTER, "-o", out)
    assert status == 0, err
    assert "read as toytool output: 3 rows" in stdout and "× 1000" in stdout
    assert pd.read_csv(out)["rate_msg_s"].tolist() == [10000.0, 19000.0, 26000.0]
    before = out.read_bytes()
    status, _, err = _cli("convert", a, "--to", CHAPTER, "-o", out)
    assert status == 2 and "the file exists" in err and err.count("\n") == 1
    assert out.read_bytes() == before
    status, _, err = _cli("convert", a, "--to", f"{CHAPTER}.nosuch", "-o", tmp_path / "n.csv")
    assert status == 2 and "has no input 'nosuch'" in err


def test_check_says_what_it_recognised(tmp_path, toy):
    a = _toy_file(tmp_path / "a.txt", (1, 10), (2, 19), (3, 26), (4, 31), (5, 34))
    status, stdout, err = _cli("check", a, "--contract", CHAPTER)
    assert status == 0, err
    assert "kafka_task_scaling: a.txt: read as toytool output: 5 rows" in stdout
    assert "ok against chapter kafka_task_scaling" in stdout


@pytest.mark.slow
def test_run_keeps_the_converted_input_in_the_report(tmp_path, toy, warm_mqperf):
    files = [_toy_file(tmp_path / f"{n}.txt", (n, r)) for n, r in ((1, 10), (2, 19), (3, 26), (4, 31), (6, 35))]
    status, stdout, err = warm_mqperf("run", CHAPTER, "--data", *files, "--out", tmp_path / "report")
    assert status == 0, err
    report = tmp_path / "report"
    assert pd.read_csv(report / "inputs" / "data.csv")["source"].tolist() == [f"{n}.txt:2" for n in (1, 2, 3, 4, 6)]
    assert json.loads((report / "inputs" / "conversion.json").read_text())[0]["formats"] == ["toy"]
    nb = (report / f"{CHAPTER}.ipynb").read_text()
    assert str(report / "inputs" / "data.csv") in nb and "mqperf-inputs-" not in nb
    manifest = json.loads((report / ".mqperf-report.json").read_text())
    assert "inputs/data.csv" in json.dumps(manifest)
