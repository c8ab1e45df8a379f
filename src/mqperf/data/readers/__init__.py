"""Readers for the output of the tools readers already run, recognised from the content.

One module per tool (``mqldt``, ``fio``, ``amqsrua``, ``amqsevt``, ``mqsmfcsv``, ``rmf``,
``cph``, ``kafka_perf``). Each declares ``FORMATS``, a list of :class:`Format`: how to recognise
the tool's output from a file's first bytes (:attr:`Format.sniff`), how to read one or more
such files into one table (:attr:`Format.read`), and which chapter inputs that table feeds,
with the function that turns it into the input's contract shape (:attr:`Format.feeds`).

Every row a reader returns keeps where it came from in a ``source`` column (``file:line``, or
``file:record N`` for JSON and XML). A reader converts units explicitly and says so in
``frame.attrs["notes"]`` (one sentence each, e.g. "fio bw KiB/s × 1024 → bytes/s"), and
drops a tool's error values (a ``-1`` sentinel, a zero STCK time) with a note, never as data.
Readers raise :class:`mqperf.errors.DataError` naming file, column and line; they know
nothing of the book's datasets (that is :mod:`mqperf.data.views`) nor of chapters' prose.

:mod:`mqperf.data.ingest` routes a reader's files to a chapter's inputs through this registry.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from mqperf.errors import DataError

#: Reader modules, in the order detection tries them (the most specific sniffers first).
MODULES = ("mqsmfcsv", "amqsevt", "rmf", "fio", "mqldt", "amqsrua", "cph", "kafka_perf")

#: How much of a file a sniffer sees.
HEAD_BYTES = 65536


@dataclass(frozen=True)
class Format:
    """One output format of one tool.

    name     short id, e.g. ``"fio-json"`` (``mqperf check`` and ``convert`` print it)
    tool     the tool, e.g. ``"fio"``
    title    what it is, e.g. ``"fio JSON output (--output-format=json)"``
    command  the command a reader runs to produce it (the Bring-your-own-data table shows it)
    sniff    ``sniff(head, path) -> bool``: True when ``head`` (the file's first
             :data:`HEAD_BYTES`, decoded as UTF-8 with replacement) is this format
    read     ``read(paths) -> DataFrame``: every file of this format given in one run, read into
             one table with a ``source`` column; notes in ``frame.attrs["notes"]``
    feeds    ``{target: adapter}``; a target is a chapter name (its main data) or
             ``"chapter.input"``; ``adapter(frame) -> DataFrame`` returns the contract shape,
             keeps ``source``, and raises DataError when the frame lacks what the chapter needs
             ("found amqsevt Queue statistics; the chapter needs MQI statistics")
    """

    name: str
    tool: str
    title: str
    command: str
    sniff: Callable[[str, Path], bool]
    read: Callable[[list[Path]], pd.DataFrame]
    feeds: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = field(default_factory=dict)


def formats() -> list[Format]:
    """Every format the book reads, in detection order."""
    found = []
    for name in MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue  # a reader not written yet
        found.extend(getattr(mod, "FORMATS", []))
    return found


def by_name(name: str) -> Format:
    for fmt in formats():
        if fmt.name == name:
            return fmt
    raise LookupError(f"no format named {name!r} (known: {', '.join(f.name for f in formats())})")


def head(path: Path) -> str | None:
    """The first bytes of a file as text, or None for binary data (a sniffer never sees it)."""
    with Path(path).open("rb") as fh:
        raw = fh.read(HEAD_BYTES)
    if raw[:200].count(b"\x00") > 2:
        return None
    return raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8", errors="replace")


def detect(path: str | Path) -> Format | None:
    """The tool format of a file, from its content; None when no reader recognises it (a
    plain CSV is then checked against the chapter's contract)."""
    path = Path(path)
    text = head(path)
    if text is None:
        return None
    for fmt in formats():
        if fmt.sniff(text, path):
            return fmt
    return None


def expand(paths) -> list[Path]:
    """Files given, with a folder replaced by the files in it (sorted; hidden files skipped)."""
    out = []
    for p in paths:
        p = Path(p).expanduser()
        if not p.exists():
            raise DataError(p, "file not found")
        if p.is_dir():
            inside = sorted(c for c in p.iterdir() if c.is_file() and not c.name.startswith("."))
            if not inside:
                raise DataError(p, "the folder holds no files")
            out.extend(inside)
        else:
            out.append(p)
    return out


def notes(frame: pd.DataFrame) -> list[str]:
    """The notes a reader or adapter attached to a frame."""
    return list(frame.attrs.get("notes", []))


def with_notes(frame: pd.DataFrame, *more: str) -> pd.DataFrame:
    """``frame`` with ``more`` notes appended (pandas drops attrs through some operations)."""
    frame.attrs["notes"] = [*frame.attrs.get("notes", []), *[m for m in more if m]]
    return frame
