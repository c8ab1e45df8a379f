"""Moving a staged report into place so that no interruption loses a file: the atomic folder
exchange, the journalled file-by-file swap and its rollback, and :func:`recover`, which undoes
what a killed run left beside an output folder.

:mod:`mqperf.publish.outdir` decides *what* may be written where; this module only moves files.
Hidden siblings are named ``.<folder>.mqperf-<kind>.<pid>.<token>`` (:func:`sibling`).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import secrets
import shutil
from pathlib import Path, PurePosixPath

JOURNAL = "journal.json"


def sibling(path: Path, kind: str) -> Path:
    """A fresh hidden sibling of ``path`` of the given kind, named for this process."""
    return path.with_name(f".{path.name}.mqperf-{kind}.{os.getpid()}.{secrets.token_hex(4)}")


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: Path, b: Path) -> None:
    """Swap two folders atomically; where the kernel cannot, park ``b`` and rename (recoverable)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        renameat2 = None
    if renameat2 is not None:
        renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), str(b))
    # Fallback: between these renames the folder is missing; recover() puts the parked one back.
    parked = sibling(b, "old")
    os.rename(b, parked)
    try:
        os.rename(a, b)
    except BaseException:
        os.rename(parked, b)
        raise
    os.rename(parked, a)


def swap_files(stage: Path, out: Path, *, old: list[str], new: list[str]) -> None:
    """Replace the report's files in a folder that also holds a reader's, under a journal."""
    backup = sibling(out, "backup")
    backup.mkdir()
    made = sorted({str(PurePosixPath(rel).parent) for rel in new} - {"."}, key=len)
    made = [d for d in made if not (out / d).exists()]
    journal = {"out": str(out), "stage": str(stage), "old": old, "new": new, "made": made}
    write_synced(backup / JOURNAL, json.dumps(journal, indent=2))
    fsync_dir(out.parent)
    try:
        for rel in old:
            if os.path.lexists(out / rel):
                (backup / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
                os.rename(out / rel, backup / "files" / rel)
        for rel in new:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.rename(stage / rel, out / rel)
        fsync_dir(out)
        os.unlink(backup / JOURNAL)  # the commit point
    except BaseException:
        roll_back(backup, journal)
        raise
    shutil.rmtree(backup, ignore_errors=True)


def roll_back(backup: Path, journal: dict) -> None:
    out, stage = Path(journal["out"]), Path(journal["stage"])
    files = backup / "files"
    for rel in reversed(journal["new"]):
        placed = out / rel
        still_old = rel in journal["old"] and not os.path.lexists(files / rel)
        # Ours only if it left the staging folder; an old file not yet parked stays.
        if not still_old and os.path.lexists(placed) and not os.path.lexists(stage / rel):
            os.unlink(placed)
    for rel in journal["old"]:
        if os.path.lexists(files / rel):
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.rename(files / rel, out / rel)
    for rel in sorted(journal["made"], key=len, reverse=True):
        try:
            (out / rel).rmdir()
        except OSError:
            pass
    try:
        os.unlink(backup / JOURNAL)
    except FileNotFoundError:
        pass
    shutil.rmtree(backup, ignore_errors=True)


def recover(out: str | Path) -> list[Path]:
    """Undo what a killed run left beside ``out``; return the hidden siblings dealt with.

    A journal of a dead process is rolled back (the reader's folder returns to the old
    report); a parked old folder returns if the folder is missing; staging folders and
    finished backups are removed. Siblings of a live process are left alone.
    """
    path = Path(os.path.realpath(os.path.expanduser(str(out))))
    parent = path.parent
    if not parent.is_dir():
        return []
    prefix = f".{path.name}.mqperf-"
    try:
        siblings = sorted(p for p in parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        return []
    handled = []
    # Journals first: a rollback needs the staging folder the journal names.
    order = {"backup": 0, "old": 1, "stage": 2}
    for sib in sorted(siblings, key=lambda p: order.get(_kind(p, prefix), 3)):
        kind, pid = _kind(sib, prefix), _pid(sib)
        if kind not in order or pid is None or _alive(pid):
            continue
        if kind == "backup" and (sib / JOURNAL).is_file():
            try:
                journal = json.loads((sib / JOURNAL).read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue  # a half-written journal: nothing was moved yet (it is written first)
            roll_back(sib, journal)
        elif kind == "old" and not os.path.lexists(path):
            os.rename(sib, path)
        else:
            shutil.rmtree(sib, ignore_errors=True)
        handled.append(sib)
    return handled


def _kind(sib: Path, prefix: str) -> str:
    return sib.name[len(prefix):].split(".", 1)[0]


def _pid(sib: Path) -> int | None:
    parts = sib.name.rsplit(".", 2)
    try:
        return int(parts[-2])
    except (IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
