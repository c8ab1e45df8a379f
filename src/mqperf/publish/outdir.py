"""The output folder of ``mqperf run``: write a report there without losing anything else.

The rules (issue 8):

* a missing or empty folder is created and filled;
* a folder holding an earlier mqperf report (recognised by its manifest,
  :data:`MANIFEST`, which lists the report's files with their SHA-256) gets exactly those
  files replaced; anything a reader added beside them stays;
* a folder holding anything else is refused, as is a folder of the book itself, the
  repository root, a path that is or lies under a file, a folder holding the input data,
  and a folder that cannot be written.

Crash safety. All long work happens in a *staging* folder, a hidden sibling of the
output folder (same file system, so moving is renaming). Publishing is then one of:

* the output folder is missing: one ``rename``;
* it is empty or holds only an earlier report: one atomic directory exchange
  (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames, the old folder parked
  as a hidden sibling until the new one is in place);
* it also holds a reader's files: the report's files are swapped one by one, the old
  ones parked in a hidden *backup* sibling, under a journal. An exception during the
  swap (SIGINT, SIGTERM through :func:`signals_as_exceptions`, a full disk) rolls it back
  at once; after ``kill -9`` or a power cut the next ``mqperf run`` into the same folder
  rolls it back first (:func:`mqperf.publish.swap.recover`).

Hidden siblings are named ``.<folder>.mqperf-<kind>.<pid>.<token>``; :func:`~mqperf.publish.swap.recover`
removes (or, for a parked old folder or a journal, restores) those whose process is gone,
so no interruption leaves the folder other than it was, or litter beside it.

Functions here do no printing; they raise :class:`~mqperf.errors.OutputError` with a
one-line message for the CLI.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mqperf.errors import OutputError, shorten
from mqperf.publish import swap

MANIFEST = ".mqperf-report.json"
MANIFEST_FORMAT = "mqperf-report/1"
# Folders of the book a report must never be written into (relative to the book root).
BOOK_FOLDERS = ("chapters", "models", "data", "_build", "src", "tests", ".git", "docs", "_static", "benchmarks")
# Counting a stranger's folder stops here: "more than 1000 files" is answer enough.
_SCAN_LIMIT = 1000


@dataclass(frozen=True)
class Target:
    """What :func:`inspect` found at an output folder.

    Attributes
    ----------
    path
        The folder, with symlinks and ``..`` resolved.
    state
        ``"missing"``, ``"empty"``, ``"report"`` (only an earlier report) or
        ``"report+others"`` (an earlier report and files a reader added).
    previous
        The earlier report's files (relative POSIX paths, manifest excluded) with their SHA-256.
    others
        Paths (relative) of the files and folders mqperf did not write, up to the scan limit.
    """

    path: Path
    state: str
    previous: dict = field(default_factory=dict)
    others: tuple = ()


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; raised so every ``finally`` runs. ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


# Signals received inside the current signals_as_exceptions() block. The handler's exception
# can be lost: Python runs a handler wherever the main thread is, and an exception raised in a
# weakref callback or a __del__ (importlib's module-lock callback, say) is printed as
# "Exception ignored" and dropped. So a signal is also recorded here, and checked before every
# point of no return (:func:`checkpoint`) and at the block's end.
_received: list[int] = []


@contextmanager
def signals_as_exceptions():
    """Turn SIGTERM (and SIGINT) into :class:`Interrupted` for the duration, so clean-up runs.

    A signal whose exception was swallowed where it arrived is raised at the next
    :func:`checkpoint`, or when the block ends, so it is never lost.
    """
    def handler(signum, _frame):
        _received.append(signum)
        raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    outer = list(_received)
    _received.clear()
    try:
        yield
        checkpoint()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _received[:] = outer


def checkpoint() -> None:
    """Raise :class:`Interrupted` if a signal arrived in this block and its exception was lost.

    Called just before anything that cannot be undone (a staged folder renamed into place), so
    an interrupted run publishes nothing even when the signal struck where Python drops
    exceptions.
    """
    if _received:
        raise Interrupted(_received[0])


# -- deciding ----------------------------------------------------------------------------------

def inspect(out: str | Path, *, data_files=(), book_root: Path | None = None) -> Target:
    """Decide whether a report may go into ``out``; nothing is written.

    Parameters
    ----------
    out
        The folder as the reader typed it.
    data_files
        Files the run reads (``--data`` and file-valued parameters): ``out`` must not hold them.
    book_root
        The book's folder (default :func:`mqperf.paths.book_root`).

    Raises
    ------
    OutputError
        ``out`` must not be written (see the module docstring); the message says why and what to do.
    """
    from mqperf.paths import book_root as _root

    shown = str(out)
    path = Path(os.path.realpath(os.path.expanduser(str(out))))
    _refuse_book(shown, path, Path(os.path.realpath(book_root or _root())))
    _refuse_files_on_path(shown, path)
    for data in data_files:
        real = Path(os.path.realpath(str(data)))
        if real == path or path in real.parents:
            raise OutputError(f"--out {shown}: holds your data file {shorten(real.name)}; "
                              "choose an empty or new folder for the report")
    _refuse_unwritable(shown, path)
    if not path.exists():
        return Target(path, "missing")
    manifest = path / MANIFEST
    if manifest.is_symlink() or (manifest.exists() and not manifest.is_file()):
        raise OutputError(f"--out {shown}: {MANIFEST} is not a file mqperf wrote; choose an empty or new folder")
    previous = _read_manifest(shown, manifest) if manifest.exists() else {}
    others = _strangers(path, previous)
    if not manifest.exists():
        if not others:
            return Target(path, "empty")
        raise OutputError(f"--out {shown}: {_count(others)} mqperf did not write, e.g. {shorten(others[0])}; "
                          "mqperf writes only into an empty or new folder (or over its own earlier report): "
                          "choose an empty or new folder")
    _refuse_changed(shown, path, previous)
    return Target(path, "report+others" if others else "report", previous, tuple(others))


def _refuse_book(shown: str, path: Path, root: Path) -> None:
    if path == root:
        raise OutputError(f"--out {shown}: is the book's own folder; choose an empty or new folder outside it")
    for name in BOOK_FOLDERS:
        folder = root / name
        if path == folder or folder in path.parents:
            raise OutputError(f"--out {shown}: lies in the book's own {name}/ folder, which mqperf never "
                              "overwrites; choose a folder outside the book")


def _refuse_files_on_path(shown: str, path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise OutputError(f"--out {shown}: is a file, not a folder; choose a folder")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"--out {shown}: {parent} is a file, so no folder can be made under it; "
                                  "choose another folder")
            return


def _refuse_unwritable(shown: str, path: Path) -> None:
    # The report is staged beside the folder, so its parent (or the nearest existing
    # ancestor, where folders will be created) must be writable.
    anchor = next(p for p in path.parents if p.exists()) if not path.exists() else path.parent
    if not os.access(anchor, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK | os.X_OK)):
        where = path if path.exists() and not os.access(path, os.W_OK | os.X_OK) else anchor
        raise OutputError(f"--out {shown}: cannot write in {where} (read-only); choose a folder you can write to")


def _read_manifest(shown: str, manifest: Path) -> dict:
    bad = OutputError(f"--out {shown}: {MANIFEST} is not a manifest mqperf wrote; choose an empty or new folder")
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise bad from None
    files = doc.get("files") if isinstance(doc, dict) and doc.get("format") == MANIFEST_FORMAT else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise bad
    for rel in files:
        # A manifest names files inside the folder only: never follow it elsewhere.
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts or rel == MANIFEST:
            raise bad
    return dict(files)


def _strangers(path: Path, previous: dict) -> list[str]:
    """Files and folders under ``path`` that are neither the report's files nor their folders."""
    ours = set(previous) | {MANIFEST}
    our_dirs = {str(PurePosixPath(rel).parent) for rel in previous} - {"."}
    found = []
    for dirpath, dirnames, filenames in os.walk(path):
        rel_dir = Path(dirpath).relative_to(path).as_posix()
        for name in sorted(filenames) + sorted(d for d in dirnames if os.path.islink(os.path.join(dirpath, d))):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel not in ours:
                found.append(rel)
        for name in sorted(dirnames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel not in our_dirs and not os.path.islink(os.path.join(dirpath, name)):
                found.append(rel + "/")
        # A stranger's folder is one stranger: no need to list its contents.
        dirnames[:] = sorted(d for d in dirnames
                             if (d if rel_dir == "." else f"{rel_dir}/{d}") in our_dirs)
        if len(found) > _SCAN_LIMIT:
            break
    return found


def _count(others: list[str]) -> str:
    files = [o for o in others if not o.endswith("/")]
    folders = len(others) - len(files)
    parts = []
    more = "more than " if len(others) > _SCAN_LIMIT else ""
    if files:
        parts.append(f"{more}{len(files)} file{'s' * (len(files) != 1)}")
    if folders:
        parts.append(f"{folders} folder{'s' * (folders != 1)}")
    return "holds " + " and ".join(parts)


def _refuse_changed(shown: str, path: Path, previous: dict) -> None:
    for rel, digest in previous.items():
        file = path / rel
        if not os.path.lexists(file):
            continue
        if file.is_symlink() or not file.is_file() or _sha256(file) != digest:
            raise OutputError(f"--out {shown}: {shorten(rel)} was changed after mqperf wrote it; "
                              "move it elsewhere or choose an empty or new folder")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -- staging -----------------------------------------------------------------------------------

@contextmanager
def staging(target: Target):
    """A fresh hidden sibling folder of ``target.path`` to build the report in.

    Folders created on the way to it are removed again if the report never arrives; the
    staging folder itself is always removed (after a publish it holds only the old report).
    """
    made = []
    for parent in reversed(target.path.parents):
        if not parent.exists():
            try:
                parent.mkdir()
            except FileExistsError:
                continue
            except OSError as exc:
                _cleanup_made(made)
                raise _write_error(target.path, parent.parent, exc) from None
            made.append(parent)
    stage = swap.sibling(target.path, "stage")
    try:
        stage.mkdir()
    except OSError as exc:
        _cleanup_made(made)
        raise _write_error(target.path, stage.parent, exc) from None
    umask = os.umask(0)
    os.umask(umask)
    stage.chmod(0o777 & ~umask)
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if not target.path.exists():
            _cleanup_made(made)


def _cleanup_made(made: list[Path]) -> None:
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            break


def _write_error(out: Path, where: Path, exc: OSError) -> OutputError:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(f"--out {out}: cannot write in {where} (read-only); choose a folder you can write to")
    if exc.errno == errno.ENOSPC:
        return OutputError(f"--out {out}: no space left on the device holding {where}")
    return OutputError(f"--out {out}: cannot create a folder in {where} ({os.strerror(exc.errno or 0)})")


# -- publishing --------------------------------------------------------------------------------

def report_files(stage: Path) -> list[str]:
    """The files a staged report consists of (relative POSIX paths), manifest excluded."""
    return sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*")
                  if p.is_file() and p.name != MANIFEST)


def write_manifest(stage: Path, *, chapter: str, version: str, data: str | None = None) -> dict:
    """Write :data:`MANIFEST` into ``stage`` listing every staged file with its SHA-256."""
    doc = {"format": MANIFEST_FORMAT, "chapter": chapter, "mqperf_version": version,
           "data": data, "files": {rel: _sha256(stage / rel) for rel in report_files(stage)}}
    swap.write_synced(stage / MANIFEST, json.dumps(doc, indent=2) + "\n")
    return doc


def publish(stage: Path, target: Target, *, chapter: str, version: str, data: str | None = None) -> None:
    """Put the report staged in ``stage`` at ``target.path``, atomically (see the module docstring).

    The folder is inspected again first: it may have changed while the chapter ran.
    """
    write_manifest(stage, chapter=chapter, version=version, data=data)
    now = inspect(target.path, book_root=None)
    checkpoint()
    new = report_files(stage) + [MANIFEST]
    if now.state == "missing":
        os.rename(stage, now.path)
    elif now.state in ("empty", "report"):
        os.chmod(stage, stat.S_IMODE(now.path.stat().st_mode))
        swap.exchange(stage, now.path)
    else:
        clash = [rel for rel in new if rel not in now.previous and rel != MANIFEST
                 and os.path.lexists(now.path / rel)]
        if clash:
            raise OutputError(f"--out {target.path}: holds {shorten(clash[0])}, which mqperf did not write and "
                              "the new report would replace; move it or choose an empty or new folder")
        swap.swap_files(stage, now.path, old=[MANIFEST] + sorted(now.previous), new=new)
    swap.fsync_dir(now.path.parent)
