"""mqperf.publish.outdir: what may go into an --out folder, and publishing that never loses a file.

No kernel runs here: reports are a few small files staged by the test, so every state,
refusal, rollback and recovery is exercised in milliseconds. The CLI end of the same
rules is in test_hostile_inputs.py.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mqperf.errors import OutputError
from mqperf.publish import outdir, swap


def snapshot(folder: Path) -> dict:
    """Every file and folder under ``folder`` (hidden ones too) with its bytes."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else "<dir>")
            for p in sorted(folder.rglob("*"))}


def litter(folder: Path) -> list[str]:
    """Hidden siblings mqperf may create beside ``folder``."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.mqperf-"))


def publish(out: Path, files: dict, **kw) -> outdir.Target:
    """Stage ``files`` (relative path -> text) and publish them into ``out``, as `mqperf run` does."""
    target = outdir.inspect(out, book_root=kw.pop("book_root", out.parent / "book"), **kw)
    with outdir.staging(target) as stage:
        for rel, text in files.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_text(text)
        outdir.publish(stage, target, chapter="ch", version="test")
    return target


REPORT_1 = {"ch.ipynb": "nb 1", "ch.html": "html 1", "models/ch__a.json": "card a 1", "models/ch__b.json": "card b 1"}
REPORT_2 = {"ch.ipynb": "nb 2", "ch.html": "html 2", "models/ch__a.json": "card a 2", "models/ch__c.json": "card c 2"}


def contents(out: Path) -> dict:
    return {k: v.decode() for k, v in snapshot(out).items() if v != "<dir>" and k != outdir.MANIFEST}


# -- states ------------------------------------------------------------------------------------

def test_missing_folder_is_created_with_its_parents_and_a_manifest(tmp_path):
    out = tmp_path / "a" / "b" / "report"
    publish(out, REPORT_1)
    assert contents(out) == REPORT_1
    manifest = json.loads((out / outdir.MANIFEST).read_text())
    assert manifest["chapter"] == "ch" and manifest["mqperf_version"] == "test"
    assert sorted(manifest["files"]) == sorted(REPORT_1)
    assert litter(out) == []


def test_empty_folder_is_filled_in_place(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    assert outdir.inspect(out, book_root=tmp_path / "book").state == "empty"
    publish(out, REPORT_1)
    assert contents(out) == REPORT_1 and litter(out) == []


def test_earlier_report_is_replaced_exactly(tmp_path):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    assert outdir.inspect(out, book_root=tmp_path / "book").state == "report"
    publish(out, REPORT_2)
    assert contents(out) == REPORT_2  # ch__b.json of the first report is gone with it
    assert litter(out) == []


def test_earlier_report_with_a_readers_files_keeps_them(tmp_path):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    (out / "notes.txt").write_text("mine")
    (out / "models" / "my_card.json").write_text("also mine")
    (out / "sub").mkdir()
    (out / "sub" / "x.csv").write_text("1,2")
    target = outdir.inspect(out, book_root=tmp_path / "book")
    assert target.state == "report+others" and "notes.txt" in target.others
    publish(out, REPORT_2)
    assert contents(out) == {**REPORT_2, "notes.txt": "mine", "models/my_card.json": "also mine", "sub/x.csv": "1,2"}
    assert litter(out) == []


def test_new_report_file_that_would_replace_a_readers_file_is_refused(tmp_path):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    (out / "models" / "ch__c.json").write_text("the reader's own")
    before = snapshot(out)
    with pytest.raises(OutputError, match="ch__c.json, which mqperf did not write"):
        publish(out, REPORT_2)
    assert snapshot(out) == before and litter(out) == []


# -- refusals ----------------------------------------------------------------------------------

def test_folder_with_other_files_is_refused_saying_what_is_there(tmp_path):
    out = tmp_path / "work"
    out.mkdir()
    for name in ("notes.txt", "b.txt", "c.txt"):
        (out / name).write_text("x")
    (out / "old").mkdir()
    with pytest.raises(OutputError) as err:
        outdir.inspect(out, book_root=tmp_path / "book")
    msg = str(err.value)
    assert "holds 3 files and 1 folder mqperf did not write, e.g. b.txt" in msg
    assert "choose an empty or new folder" in msg and "\n" not in msg


@pytest.mark.parametrize("where", ["", "chapters", "models", "data", "_build/html", "src/mqperf", "tests", ".git",
                                   "chapters/new/deeper"])
def test_the_books_own_folders_are_refused(tmp_path, where):
    book = tmp_path / "book"
    for name in outdir.BOOK_FOLDERS:
        (book / name).mkdir(parents=True)
    with pytest.raises(OutputError, match="book's own"):
        outdir.inspect(book / where, book_root=book)


def test_symlinks_and_dotdot_are_resolved_before_deciding(tmp_path):
    book = tmp_path / "book"
    (book / "models").mkdir(parents=True)
    (tmp_path / "link").symlink_to(book / "models")
    with pytest.raises(OutputError, match="models/ folder"):
        outdir.inspect(tmp_path / "link", book_root=book)
    with pytest.raises(OutputError, match="models/ folder"):
        outdir.inspect(tmp_path / "elsewhere" / ".." / "book" / "models", book_root=book)


def test_file_or_path_under_a_file_is_refused(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        outdir.inspect(tmp_path / "file.txt", book_root=tmp_path / "book")
    with pytest.raises(OutputError, match="file.txt is a file, so no folder can be made under it"):
        outdir.inspect(tmp_path / "file.txt" / "sub" / "deeper", book_root=tmp_path / "book")


def test_folder_holding_the_data_file_is_refused_even_deep_inside(tmp_path):
    (tmp_path / "runs" / "today").mkdir(parents=True)
    data = tmp_path / "runs" / "today" / "mine.csv"
    data.write_text("x")
    for out in (tmp_path / "runs", tmp_path / "runs" / "today"):
        with pytest.raises(OutputError, match="holds your data file mine.csv"):
            outdir.inspect(out, data_files=[data], book_root=tmp_path / "book")


def test_changed_report_file_is_not_replaced(tmp_path):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    (out / "ch.html").write_text("edited by the reader")
    with pytest.raises(OutputError, match="ch.html was changed after mqperf wrote it"):
        outdir.inspect(out, book_root=tmp_path / "book")


@pytest.mark.parametrize("files", [{"../outside.txt": "0"}, {"/etc/passwd": "0"}, ["not", "a", "dict"]])
def test_a_forged_manifest_never_points_outside_the_folder(tmp_path, files):
    out = tmp_path / "report"
    out.mkdir()
    (out / outdir.MANIFEST).write_text(json.dumps({"format": outdir.MANIFEST_FORMAT, "files": files}))
    with pytest.raises(OutputError, match="not a manifest mqperf wrote"):
        outdir.inspect(out, book_root=tmp_path / "book")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="read-only"):
            outdir.inspect(ro / "report", book_root=tmp_path / "book")
    finally:
        ro.chmod(0o755)


def test_staging_failure_reports_read_only_and_removes_created_parents(tmp_path, monkeypatch):
    target = outdir.inspect(tmp_path / "new" / "report", book_root=tmp_path / "book")
    real_mkdir = Path.mkdir

    def refuse(self, *a, **kw):
        if ".mqperf-stage." in self.name:
            raise PermissionError(13, "Permission denied")
        return real_mkdir(self, *a, **kw)

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(OutputError, match="read-only"):
        with outdir.staging(target):
            pass
    assert not (tmp_path / "new").exists()


# -- interruptions -----------------------------------------------------------------------------

def test_failure_while_staging_leaves_nothing(tmp_path):
    out = tmp_path / "new" / "report"
    target = outdir.inspect(out, book_root=tmp_path / "book")
    with pytest.raises(KeyboardInterrupt):
        with outdir.staging(target) as stage:
            (stage / "ch.ipynb").write_text("half")
            raise KeyboardInterrupt
    assert sorted(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fail_at", range(1, 9))
def test_interrupted_swap_among_a_readers_files_is_rolled_back(tmp_path, monkeypatch, fail_at):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    real, calls = os.rename, []

    def flaky(a, b):
        calls.append((a, b))
        if len(calls) == fail_at:
            raise KeyboardInterrupt  # what SIGINT/SIGTERM become during the swap
        return real(a, b)

    target = outdir.inspect(out, book_root=tmp_path / "book")
    with pytest.raises(KeyboardInterrupt):
        with outdir.staging(target) as stage:
            for rel, text in REPORT_2.items():
                (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                (stage / rel).write_text(text)
            monkeypatch.setattr(outdir.os, "rename", flaky)
            outdir.publish(stage, target, chapter="ch", version="test")
    monkeypatch.setattr(outdir.os, "rename", real)
    assert len(calls) >= fail_at  # the interruption really happened inside the swap
    assert snapshot(out) == before and litter(out) == []


KILLER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from mqperf.publish import outdir, swap
    out, kill_at = Path(sys.argv[1]), int(sys.argv[2])
    real, calls = os.rename, []
    def rename(a, b):
        calls.append(a)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(a, b)
    real_exchange = swap.exchange
    def exchange(a, b):  # kill_at 0: just before the atomic exchange; -1: just after it
        if kill_at == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        real_exchange(a, b)
        os.kill(os.getpid(), signal.SIGKILL)
    swap.exchange = exchange
    target = outdir.inspect(out, book_root=out.parent / "book")
    with outdir.staging(target) as stage:
        (stage / "models").mkdir()
        for rel in ("ch.ipynb", "ch.html", "models/ch__a.json", "models/ch__c.json"):
            (stage / rel).write_text("new " + rel)
        outdir.os.rename = rename
        outdir.publish(stage, target, chapter="ch", version="test")
""")


@pytest.mark.parametrize("others,kill_at", [(False, 0), (False, -1)] + [(True, n) for n in (1, 3, 5, 6, 8, 10)])
def test_kill_9_during_publish_is_undone_by_the_next_run(tmp_path, others, kill_at):
    """kill_at: which rename of the journal swap (reader's files present) or, without them,
    0 = before / -1 = after the atomic exchange."""
    out = tmp_path / "report"
    publish(out, REPORT_1)
    if others:
        (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    res = subprocess.run([sys.executable, "-c", KILLER, str(out), str(kill_at)], capture_output=True, text=True)
    assert res.returncode == -signal.SIGKILL, res.stderr  # it really died inside publish
    assert litter(out), "a killed run leaves its staging folder (or journal) behind"
    swap.recover(out)
    # Either the old report is back, or (killed after the commit point) the new one is whole.
    after = snapshot(out)
    assert after == before or json.loads(after[outdir.MANIFEST])["files"].keys() == {
        "ch.ipynb", "ch.html", "models/ch__a.json", "models/ch__c.json"}
    if others:
        assert after["notes.txt"] == b"mine"
    assert litter(out) == []
    outdir.inspect(out, book_root=tmp_path / "book")  # and the folder is a valid report folder again


def test_exchange_fallback_without_renameat2_and_its_recovery(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("new")
    (b / "x").write_text("old")
    monkeypatch.setattr(swap.ctypes, "CDLL", lambda *a, **kw: (_ for _ in ()).throw(OSError("no libc")))
    swap.exchange(a, b)
    assert (b / "x").read_text() == "new" and (a / "x").read_text() == "old"
    # A run killed between the fallback's two renames left the folder parked: recover() returns it.
    parked = tmp_path / ".b.mqperf-old.999999999.abcd"
    b.rename(parked)
    swap.recover(b)
    assert (b / "x").read_text() == "new" and not parked.exists()


def test_recover_leaves_a_live_runs_staging_alone(tmp_path):
    out = tmp_path / "report"
    live = tmp_path / f".report.mqperf-stage.{os.getppid()}.abcd"
    dead = tmp_path / ".report.mqperf-stage.999999999.abcd"
    live.mkdir()
    dead.mkdir()
    swap.recover(out)
    assert live.exists() and not dead.exists()


def test_sigterm_becomes_an_exception_so_clean_up_runs():
    with pytest.raises(outdir.Interrupted) as err:
        with outdir.signals_as_exceptions():
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 0.1) if hasattr(signal, "sigtimedwait") else None
    assert err.value.signum == signal.SIGTERM


class _SignalsInDel:
    """Sends ``sig`` from its ``__del__``: Python prints a handler's exception raised there and drops it."""

    def __init__(self, sig):
        self.sig = sig

    def __del__(self):
        os.kill(os.getpid(), self.sig)
        sum(range(1000))  # bytecodes, so the handler runs here, inside __del__


@pytest.fixture
def swallowed(monkeypatch):
    """The exceptions Python dropped (``sys.unraisablehook``), recorded instead of printed."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    return seen


def test_a_signal_whose_exception_was_swallowed_still_interrupts_the_block(swallowed):
    # The CI failure of stop 30: SIGINT struck in importlib's weakref callback, the exception was
    # "ignored" and the run published and exited 0.
    with pytest.raises(outdir.Interrupted) as err:
        with outdir.signals_as_exceptions():
            _SignalsInDel(signal.SIGTERM)  # dropped at once: __del__ runs here
            reached_the_end = True
    assert reached_the_end and err.value.signum == signal.SIGTERM
    # The exception really was dropped where the signal arrived.
    assert [type(u.exc_value) for u in swallowed] == [outdir.Interrupted]


def test_a_swallowed_signal_stops_the_publish_and_leaves_out_as_it_was(tmp_path, swallowed):
    out = tmp_path / "report"
    publish(out, REPORT_1)
    before = snapshot(out)
    target = outdir.inspect(out, book_root=tmp_path / "book")
    with pytest.raises(outdir.Interrupted):
        with outdir.signals_as_exceptions():
            with outdir.staging(target) as stage:
                for rel, text in REPORT_2.items():
                    (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                    (stage / rel).write_text(text)
                _SignalsInDel(signal.SIGINT)
                outdir.publish(stage, target, chapter="ch", version="test")
    assert swallowed and snapshot(out) == before and litter(out) == []


def test_signals_before_a_block_do_not_leak_into_the_next():
    with pytest.raises(outdir.Interrupted):
        with outdir.signals_as_exceptions():
            os.kill(os.getpid(), signal.SIGTERM)
            sum(range(1000))
    with outdir.signals_as_exceptions():
        outdir.checkpoint()  # nothing arrived in this block: no exception
