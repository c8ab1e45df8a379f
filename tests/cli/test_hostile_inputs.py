"""A hostile-input corpus: what a reader may throw at `mqperf run`, `check`, `-p` and `--out`.

Each case asserts the exit status, that stderr is exactly one line starting ``error:``
(never a traceback), what the line says, and that nothing was deleted or half-written:
the output folder, the data file and the book's own folders are snapshotted before and
compared after, and no hidden staging folder may be left beside the output folder.

Most cases call :func:`mqperf.cli.main` in this process (a refusal must come before any
work, so there is nothing a subprocess would add), and the full runs too, in the test
session's warm kernel; interruptions and kills use the installed ``mqperf`` script in a
subprocess, as a reader's shell would.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from mqperf import catalog
from mqperf import cli
from mqperf.publish import outdir

pytestmark = pytest.mark.slow

MQPERF = str(Path(sys.executable).with_name("mqperf"))
CHAPTER = "kafka_task_scaling"
GOOD = "series,tasks,rate_msg_s\nmine,1,1000\nmine,2,1850\nmine,3,2500\nmine,4,2950\nmine,6,3300\n"
LONG = "x" * 100_000
# Bad input must be answered before any kernel starts: well under the ~10 s a chapter takes.


# -- helpers -----------------------------------------------------------------------------------

def _walk(top: Path):
    """Everything under ``top`` but the virtual environment (not the book, and most of a checkout's files)."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".venv"]
        here = Path(folder)
        yield from (here / d for d in dirs)
        yield from (here / f for f in files)


def tree(path: Path, *, names_only: bool = False) -> dict:
    """Every file and folder under ``path`` (or the file itself) with its size and SHA-256."""
    path = Path(path)
    if not path.exists():
        return {}
    items = [path] if path.is_file() else sorted(_walk(path))

    def sig(p: Path):
        if p.is_dir() or names_only:
            return "dir" if p.is_dir() else "file"
        return p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest()

    # Python may cache bytecode of modules a run imports: that is not a change to the book.
    return {p.relative_to(path.parent if path.is_file() else path).as_posix(): sig(p) for p in items
            if "__pycache__" not in p.parts}


def litter(out: Path) -> list[str]:
    parent = Path(os.path.realpath(out)).parent
    if not parent.is_dir():
        return []
    return sorted(p.name for p in parent.iterdir() if ".mqperf-" in p.name)


def one_line(err: str, phrase: str) -> str:
    """The single stderr line, checked: one line, 'error: ', the phrase, no traceback, short."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    line = lines[0]
    assert line.startswith("error: "), line
    assert phrase in line, line
    assert len(line) < 600, len(line)  # user text is cut: no 100,000-character lines
    return line


@pytest.fixture
def reader(tmp_path, monkeypatch):
    """A reader's folder with a good CSV; logs go to tmp_path, not the real cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    home = tmp_path / "reader"
    home.mkdir()
    (home / "mine.csv").write_text(GOOD)
    return home


@pytest.fixture(scope="module", autouse=True)
def warm_imports():
    """Import what a run imports once, so timings measure validation, not Python start-up."""
    from mqperf import chapters, data, parameters  # noqa: F401
    from mqperf.publish import build as book  # noqa: F401

    catalog.find(CHAPTER)


@pytest.fixture
def chapter_ran(monkeypatch) -> list:
    """Calls that would execute the chapter: a refusal must come before any (empty list)."""
    from mqperf.publish import runner

    calls = []

    def make(*args, **kwargs):
        calls.append(args)
        raise AssertionError("the chapter was executed")

    monkeypatch.setattr(runner, "make", make)
    return calls


def main(capsys, *args, cwd: Path | None = None):
    """Run `mqperf ARGS` in this process: (exit status, stdout, stderr, seconds)."""
    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        start = time.perf_counter()
        try:
            status = cli.main([str(a) for a in args])
        except SystemExit as exc:  # argparse
            status = exc.code
        seconds = time.perf_counter() - start
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return status, out, err, seconds


def subprocess_env(tmp_path: Path) -> dict:
    # TMPDIR too: a run killed with -9 leaves its temporary folder where it made it, and that is
    # the test's folder then, not the machine's /tmp.
    return {**os.environ, "PYTHONWARNINGS": "ignore", "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}


# -- --out -------------------------------------------------------------------------------------

BOOK_OUTS = [
    ("chapters", "the book's own chapters/ folder"),
    ("chapters/", "the book's own chapters/ folder"),
    ("models", "the book's own models/ folder"),
    ("_build/html", "the book's own _build/ folder"),
    ("data", "the book's own data/ folder"),
    ("src/mqperf", "the book's own src/ folder"),
    ("tests", "the book's own tests/ folder"),
    (".git", "the book's own .git/ folder"),
    ("docs/../chapters", "the book's own chapters/ folder"),
    (".", "is the book's own folder"),
]


@pytest.mark.parametrize("where,phrase", BOOK_OUTS, ids=[w for w, _ in BOOK_OUTS])
def test_out_in_the_book_is_refused_before_any_work(capsys, chapter_ran, reader, where, phrase):
    top = ROOT / where.split("/")[0] if where != "." else ROOT
    before = tree(top, names_only=True)
    # For ".", the folder holding the book's checkout is not the tests' own: only what this run
    # leaves there counts (another program's hidden folders may be there already).
    littered = litter(ROOT / where)
    status, _, err, seconds = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", where, cwd=ROOT)
    assert status == 2
    one_line(err, phrase)
    assert not chapter_ran, "the chapter ran before the refusal"
    assert tree(top, names_only=True) == before
    assert litter(ROOT / where) == littered


def test_out_symlink_into_the_book_is_resolved_and_refused(capsys, reader):
    link = reader / "looks-harmless"
    link.symlink_to(ROOT / "models")
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", link)
    assert status == 2
    one_line(err, "the book's own models/ folder")
    assert link.is_symlink()


def test_out_reader_folder_with_other_files_is_refused(capsys, chapter_ran, reader, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    for name in ("notes.txt", "a.csv", "plan.docx"):
        (work / name).write_text(name)
    before = tree(work)
    status, _, err, seconds = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", work)
    assert status == 2
    one_line(err, "holds 3 files mqperf did not write, e.g. a.csv")
    assert "choose an empty or new folder" in err and not chapter_ran
    assert tree(work) == before and not litter(work)


def test_out_dot_in_a_reader_folder_is_refused(capsys, reader):
    before = tree(reader)
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", "mine.csv", "--out", ".", cwd=reader)
    assert status == 2
    one_line(err, "holds your data file mine.csv")
    assert tree(reader) == before


def test_out_holding_the_input_csv_is_refused_even_after_an_earlier_report(capsys, reader, tmp_path):
    # An earlier report plus the input: the report may be replaced, but never beside its input.
    outdir.write_manifest(reader, chapter=CHAPTER, version="0")
    before = tree(reader)
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", reader)
    assert status == 2
    one_line(err, "holds your data file mine.csv")
    assert tree(reader) == before


def test_out_above_the_input_csv_is_refused(capsys, reader, tmp_path):
    before = tree(tmp_path / "reader")
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", tmp_path)
    assert status == 2
    one_line(err, "holds your data file mine.csv")
    assert tree(tmp_path / "reader") == before


def test_out_is_a_file(capsys, reader):
    (reader / "file.txt").write_text("mine")
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", reader / "file.txt")
    assert status == 2
    one_line(err, "is a file, not a folder")
    assert (reader / "file.txt").read_text() == "mine"


def test_out_under_a_file(capsys, reader):
    (reader / "file.txt").write_text("mine")
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", "mine.csv", "--out", "file.txt/sub", cwd=reader)
    assert status == 2
    one_line(err, "file.txt is a file, so no folder can be made under it")
    assert (reader / "file.txt").read_text() == "mine"


def test_out_in_a_read_only_folder(capsys, reader, tmp_path):
    if os.geteuid() == 0:
        parent = Path("/sys")  # root may write anywhere on a normal file system, not in sysfs
    else:
        parent = tmp_path / "ro"
        parent.mkdir()
        parent.chmod(0o555)
    try:
        status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv",
                                 "--out", parent / "mqperf-report")
    finally:
        if parent != Path("/sys"):
            parent.chmod(0o755)
    assert status == 2
    one_line(err, "read-only")
    assert not (parent / "mqperf-report").exists()


def test_out_with_a_changed_report_file_is_refused(capsys, reader, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / f"{CHAPTER}.html").write_text("report")
    outdir.write_manifest(out, chapter=CHAPTER, version="0")
    (out / f"{CHAPTER}.html").write_text("the reader annotated it")
    before = tree(out)
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", out)
    assert status == 2
    one_line(err, f"{CHAPTER}.html was changed after mqperf wrote it")
    assert tree(out) == before


def test_out_with_a_forged_manifest_is_refused(capsys, reader, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / outdir.MANIFEST).write_text(json.dumps({"format": outdir.MANIFEST_FORMAT, "files": {"../reader/mine.csv": "0"}}))
    before, data_before = tree(out), tree(reader)
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", out)
    assert status == 2
    one_line(err, "not a manifest mqperf wrote")
    assert tree(out) == before and tree(reader) == data_before


# -- data given to run and check ----------------------------------------------------------------

BAD_DATA = [
    # (id, file bytes, name, phrase)
    ("header-only", b"series,tasks,rate_msg_s\n", "mine.csv", "no data rows"),
    ("inf", b"tasks,rate_msg_s\n1,100\n2,inf\n3,300\n", "mine.csv", "column 'rate_msg_s', line 3: not a finite number, found 'inf'"),
    ("nan", b"tasks,rate_msg_s\n1,100\n2,nan\n3,300\n", "mine.csv", "line 3: not a finite number, found 'nan'"),
    ("semicolons", b"tasks;rate_msg_s\n1;100\n2;180\n", "mine.csv", "looks semicolon-separated; the book reads comma-separated CSV"),
    ("tabs", b"tasks\trate_msg_s\n1\t100\n2\t180\n", "mine.csv", "looks tab-separated"),
    ("json", b'[{"tasks": 1, "rate_msg_s": 100}]\n', "mine.json", "not a CSV file (looks like JSON)"),
    ("json-named-csv", b'{"tasks": [1, 2], "rate_msg_s": [100, 180]}\n', "mine.csv", "not a CSV file (looks like JSON)"),
    ("xlsx", b"PK\x03\x04\x14\x00\x06\x00\x08\x00" + bytes(200), "mine.xlsx", "not a CSV file (looks like a spreadsheet"),
    ("xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200), "mine.xls", "not a CSV file (looks like an Excel .xls"),
    ("utf16", "tasks,rate_msg_s\n1,100\n2,180\n".encode("utf-16"), "mine.csv", "not a CSV file (UTF-16 text)"),
    ("latin1", "series,tasks,rate_msg_s\ncafé,1,100\n".encode("latin-1"), "mine.csv", "not a UTF-8 text file"),
    ("word-for-number", b"tasks,rate_msg_s\n1,100\n2,fast\n", "mine.csv", "line 3: expected a number, found 'fast'"),
    ("thousands-separator", b'tasks,rate_msg_s\n1,"50,000"\n', "mine.csv", "expected a number, found '50,000'"),
    ("fraction-of-a-task", b"tasks,rate_msg_s\n1.5,100\n", "mine.csv", "expected a whole number, found '1.5'"),
    ("zero-tasks", b"tasks,rate_msg_s\n0,100\n", "mine.csv", "column 'tasks', line 2: must be at least 1, found '0'"),
    ("missing-column", b"tasks,throughput\n1,100\n", "mine.csv", "column 'rate_msg_s': required column is missing"),
    ("ragged-row", b"tasks,rate_msg_s\n1,100\n2,180,7\n", "mine.csv", "line 3: the row has 3 values but the header names 2"),
    ("long-cell", b"tasks,rate_msg_s\n1," + LONG.encode() + b"\n", "mine.csv", "expected a number, found 'xxx"),
    ("empty-file", b"", "mine.csv", "file is empty"),
]


@pytest.mark.parametrize("case,content,name,phrase", BAD_DATA, ids=[c[0] for c in BAD_DATA])
def test_bad_data_run_and_check_give_the_same_line(capsys, chapter_ran, tmp_path, case, content, name, phrase):
    src = tmp_path / name
    src.write_bytes(content)
    out = tmp_path / "report"
    status, _, err, seconds = main(capsys, "run", CHAPTER, "--data", src, "--out", out)
    assert status == 2
    run_line = one_line(err, phrase)
    assert not chapter_ran, "the chapter ran before the refusal"
    assert not out.exists() and not litter(out)
    assert src.read_bytes() == content
    status, out_text, err, _ = main(capsys, "check", src, "--contract", CHAPTER)
    assert status == 2 and out_text == ""
    assert one_line(err, phrase) == run_line  # check and run agree, word for word
    assert "type is" not in run_line and "constraint" not in run_line  # no validator jargon


def test_missing_data_file(capsys, tmp_path):
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", tmp_path / "nope.csv", "--out", tmp_path / "r")
    assert status == 2
    one_line(err, "nope.csv: file not found")
    assert not (tmp_path / "r").exists()


def test_check_a_folder_instead_of_a_file(capsys, tmp_path):
    # A folder stands for a tool's output folder (MQSMFCSV): empty, or holding no tool's output, it is one line.
    empty = tmp_path / "empty"
    empty.mkdir()
    status, _, err, _ = main(capsys, "check", empty, "--contract", CHAPTER)
    assert status == 2
    one_line(err, "the folder holds no files")
    (empty / "mine.csv").write_text("tasks,rate_msg_s\n1,10\n")
    status, _, err, _ = main(capsys, "check", empty, "--contract", CHAPTER)
    assert status == 2
    one_line(err, "no file in the folder is in a format mqperf reads")


def test_check_unknown_contract(capsys, reader):
    status, _, err, _ = main(capsys, "check", reader / "mine.csv", "--contract", "no_such_thing")
    assert status == 2
    one_line(err, "no dataset named 'no_such_thing'")


def test_check_good_file_says_what_it_checked(capsys, reader):
    status, out, err, _ = main(capsys, "check", reader / "mine.csv", "--contract", CHAPTER)
    assert status == 0 and err == ""
    assert f"ok against chapter {CHAPTER}" in out and "5 rows" in out


@pytest.mark.parametrize("rows,phrase", [
    ("series,tasks,rate_msg_s\nmine,1,1000\n", "no series has"),
    (f"series,tasks,rate_msg_s\n{LONG},1,1000\n{LONG},1,1100\n", "no series has"),
], ids=["one-row", "100k-character-series-name"])
def test_too_few_points_is_bad_input_in_check_and_run(capsys, borrowed_kernel, tmp_path, rows, phrase):
    """The contract accepts the file; the fits cannot use it. check says so from the analysis in its
    own process, run from the notebook's (the data are analysed once, there): the same one line,
    exit status 2, and no report folder."""
    src = tmp_path / "mine.csv"
    src.write_text(rows)
    status, _, err, _ = main(capsys, "check", src, "--contract", CHAPTER)
    assert status == 2, "check must reject what run rejects"
    check_line = one_line(err, phrase)
    status, _, err, seconds = main(capsys, "run", CHAPTER, "--data", src, "--out", tmp_path / "r")
    assert status == 2
    assert one_line(err, phrase) == check_line
    assert not (tmp_path / "r").exists() and not litter(tmp_path / "r")


# -- -p ----------------------------------------------------------------------------------------

PARAMS = [
    ("target_rate_msg_s", "50,000"),
    ("target_rate_msg_s", "fast"),
    ("target_rate_msg_s", "50k"),
    ("target_rate_msg_s", "-5"),
    ("target_rate_msg_s", "[1, 2"),
    ("target_rate_msg_s", LONG),
    ("max_tasks", "0"),
    ("max_tasks", "1000000000"),
]


@pytest.mark.parametrize("name,value", PARAMS, ids=[f"{n}={v[:12]}" for n, v in PARAMS])
def test_bad_parameter_is_refused_before_the_chapter_runs(capsys, chapter_ran, reader, tmp_path, name, value):
    # Depends on the chapter's parameter declarations (mqperf.parameters).
    out = tmp_path / "report"
    status, _, err, seconds = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv",
                                   "-p", name, value, "--out", out)
    assert status == 2
    one_line(err, f"-p {name}")
    assert not chapter_ran, "the chapter ran before the refusal"
    assert not out.exists() and not litter(out)


def test_unknown_parameter_with_a_huge_name(capsys, reader, tmp_path):
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "-p", LONG, "1",
                             "--out", tmp_path / "r")
    assert status == 2
    one_line(err, "has no such parameter")
    assert len(err) < 400


def test_usage_error_is_one_line(capsys, reader):
    status, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv")
    assert status == 2
    one_line(err, "--out")


def test_a_defect_of_ours_is_exit_1_one_line_and_a_log(capsys, reader, tmp_path, monkeypatch):
    from mqperf import chapters

    def broken(*_a, **_k):
        raise RuntimeError("simulated defect")

    monkeypatch.setattr(chapters, "preflight", broken)
    status, _, err, _ = main(capsys, "check", reader / "mine.csv", "--contract", CHAPTER)
    assert status == 1
    line = one_line(err, "internal error: RuntimeError: simulated defect (details in ")
    log = Path(line.rsplit("(details in ", 1)[1].rstrip(")"))
    assert log.is_file() and log.is_relative_to(tmp_path / "cache" / "mqperf" / "logs")
    assert "Traceback" in log.read_text() and "simulated defect" in log.read_text()


@pytest.mark.parametrize("failure,status,phrase", [
    (OSError(28, "No space left on device"), 2, "no space left on the device while writing the report"),
    (RuntimeError("Kernel died before replying to kernel_info"), 1, "the chapter failed: RuntimeError: Kernel died"),
], ids=["disk-full", "kernel-death"])
def test_run_failing_mid_way_leaves_out_as_it_was(capsys, reader, tmp_path, monkeypatch, failure, status, phrase):
    from mqperf.publish import engine

    def half_written(self, source, target, **_kw):
        Path(target).write_text('{"cells": [')  # what a dying kernel or a full disk leaves
        raise failure

    monkeypatch.setattr(engine.Kernel, "execute", half_written)
    out = tmp_path / "report"
    fake_report(out)
    before = tree(out)
    status_, _, err, _ = main(capsys, "run", CHAPTER, "--data", reader / "mine.csv", "--out", out)
    assert status_ == status
    line = one_line(err, phrase)
    assert Path(line.rsplit("(details in ", 1)[1].rstrip(")")).is_file()
    assert tree(out) == before and not litter(out)


def test_any_series_label_gives_a_safe_card_file(tmp_path):
    # The chapters build card names from the reader's series labels ("/" once broke a run).
    from mqperf.present import cards

    for label in ("source/sink", "../../escape", LONG, "  ", "ü€"):
        path = cards.write_card({"x": 1}, f"{CHAPTER}__{label}", tmp_path)
        assert path.parent == tmp_path and len(path.name) <= cards.MAX_NAME + len(".json")
    assert len(list(tmp_path.iterdir())) == 5  # distinct labels, distinct files
    assert cards.safe_file_name("kafka_task_scaling__sink_persistent_get_commit") == \
        "kafka_task_scaling__sink_persistent_get_commit"  # the book's own card names do not move


# -- interrupted and killed runs (subprocess); full runs (in process) ------------------------------

def fake_report(out: Path) -> None:
    """An earlier report (as a run would have published it) plus a reader's notes."""
    target = outdir.inspect(out, book_root=out.parent / "no-book")
    with outdir.staging(target) as stage:
        (stage / "models").mkdir()
        (stage / f"{CHAPTER}.ipynb").write_text("{}")
        (stage / f"{CHAPTER}.html").write_text("<p>earlier</p>")
        (stage / "models" / f"{CHAPTER}__old.json").write_text("{}")
        outdir.publish(stage, target, chapter=CHAPTER, version="0")
    (out / "notes.txt").write_text("the reader's notes")


def start_run(tmp_path: Path, out: Path, data: Path) -> subprocess.Popen:
    return subprocess.Popen([MQPERF, "run", CHAPTER, "--data", str(data), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env(tmp_path))


def wait_for_kernel(proc: subprocess.Popen, out: Path, timeout: float = 120) -> None:
    """Wait until the run's kernel process exists, with the report being staged.

    Signalled then, the run is certainly mid-way: executing the chapter takes seconds
    after the kernel starts. (Waiting a fixed time instead raced with fast runs, which
    had already published when the signal came.)
    """
    import psutil

    end = time.monotonic() + timeout
    parent = psutil.Process(proc.pid)
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        stages = [p for p in out.parent.iterdir() if ".mqperf-stage." in p.name]
        try:
            kernels = [c for c in parent.children(recursive=True) if "ipykernel" in " ".join(c.cmdline())]
        except psutil.Error:
            kernels = []
        if stages and kernels:
            time.sleep(0.2)
            return
        time.sleep(0.05)
    raise AssertionError("the run never started its kernel")


@pytest.mark.slow
@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_leaves_out_as_it_was(tmp_path, reader, sig, status):
    out = tmp_path / "report"
    fake_report(out)
    before = tree(out)
    proc = start_run(tmp_path, out, reader / "mine.csv")
    wait_for_kernel(proc, out)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == status, err
    one_line(err, "interrupted")
    assert tree(out) == before and not litter(out)


@pytest.mark.slow
def test_killed_run_is_cleaned_up_by_the_next_run(tmp_path, reader):
    out = tmp_path / "report"
    fake_report(out)
    before = tree(out)
    proc = start_run(tmp_path, out, reader / "mine.csv")
    wait_for_kernel(proc, out)
    proc.kill()
    proc.wait(timeout=60)
    time.sleep(3)  # the orphaned kernel notices its parent is gone and exits
    assert tree(out) == before
    assert litter(out), "kill -9 cannot clean up; the next run must"
    bad = tmp_path / "bad.csv"
    bad.write_text("tasks,rate_msg_s\n")
    res = subprocess.run([MQPERF, "run", CHAPTER, "--data", str(bad), "--out", str(out)],
                         capture_output=True, text=True, env=subprocess_env(tmp_path), timeout=120)
    assert res.returncode == 2
    one_line(res.stderr, "no data rows")
    assert tree(out) == before and not litter(out)


@pytest.mark.slow
def test_series_with_a_slash_then_a_second_run_beside_a_readers_notes(tmp_path, warm_mqperf):
    src = tmp_path / "mine.csv"
    src.write_text(GOOD.replace("mine,", "source/sink persistent,"))
    out = tmp_path / "report"
    status, stdout, stderr = warm_mqperf("run", CHAPTER, "--data", src, "--out", out, "-q")
    assert status == 0, stderr
    assert stderr == "" and "Traceback" not in stdout
    cards = sorted(p.name for p in (out / "models").iterdir())
    assert len(cards) == 1 and "/" not in cards[0] and "source" in cards[0]
    manifest = json.loads((out / outdir.MANIFEST).read_text())
    assert sorted(manifest["files"]) == sorted([f"{CHAPTER}.html", f"{CHAPTER}.ipynb", f"models/{cards[0]}"])
    # The reader adds notes; a second run on other data replaces the report and only the report.
    (out / "notes.txt").write_text("mine")
    first_html = (out / f"{CHAPTER}.html").read_bytes()
    src.write_text(GOOD.replace("mine,", "second,"))
    status, _, stderr = warm_mqperf("run", CHAPTER, "--data", src, "--out", out, "-q")
    assert status == 0, stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / f"{CHAPTER}.html").read_bytes() != first_html and b"second" in (out / f"{CHAPTER}.html").read_bytes()
    assert sorted(p.name for p in (out / "models").iterdir()) == [f"{CHAPTER}__second.json"]
    assert not litter(out)


@pytest.mark.slow
def test_a_240_row_file_runs_to_a_report(tmp_path, warm_mqperf):
    # Depends on long tables being shown (mqperf.present.tables.show); one row per measurement interval.
    src = tmp_path / "long.csv"
    rows = [f"mine,{1 + i % 8},{1000 * (1 + i % 8) ** 0.8 + i % 5:.1f}" for i in range(240)]
    src.write_text("series,tasks,rate_msg_s\n" + "\n".join(rows) + "\n")
    out = tmp_path / "report"
    status, _, stderr = warm_mqperf("run", CHAPTER, "--data", src, "--out", out, "-q")
    assert status == 0, stderr[-3000:]
    assert (out / f"{CHAPTER}.html").is_file() and not litter(out)
