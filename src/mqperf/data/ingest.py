"""A reader's files, in whatever tool's format, into the inputs of one chapter.

:func:`route` recognises each file's format (:mod:`mqperf.data.readers`) and assigns it to
the chapter input that format feeds; :func:`convert` reads the files of one input into its
contract shape, validated by the contract as a hand-made CSV would be; :func:`prepare` does
both for a run and writes each converted input as a CSV that the notebook then reads.

A plain CSV (no tool recognised) goes to the chapter's main input unchanged and is checked by
its contract as before; a tool's files are converted. Messages name the reader's own file and
line, not the converted table's.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mqperf.data import loader, readers
from mqperf.errors import DataError, shorten

#: The column every converted row keeps: the reader's file and line (or record) it came from.
SOURCE = "source"


@dataclass
class Converted:
    """One chapter input read from a reader's files."""

    target: str                  # "chapter" or "chapter.input"
    files: list[Path]
    formats: list[str]           # names of the formats read, in order of first appearance
    frame: pd.DataFrame | None   # contract shape (None: one plain CSV, used as it is)
    notes: list[str] = field(default_factory=list)

    @property
    def plain(self) -> bool:
        return self.frame is None

    def describe(self) -> str:
        """One line: what was read from what."""
        names = ", ".join(shorten(p.name, 60) for p in self.files[:4]) + (
            f" and {len(self.files) - 4} more" if len(self.files) > 4 else "")
        if self.plain:
            return f"{names}: CSV in the contract's shape"
        fmt = " + ".join(readers.by_name(n).title for n in self.formats)
        return f"{names}: read as {fmt}: {len(self.frame)} rows"


def target(chapter: str, input: str = "data") -> str:
    """The key a format's ``feeds`` uses for a chapter input."""
    return chapter if input == "data" else f"{chapter}.{input}"


def inputs(chapter: str) -> list[str]:
    """The chapter's inputs that take a reader's files, main data first (as its contract lists them)."""
    from mqperf.data.contracts import inputs as listed

    names = [n for n, d in listed(chapter).items() if d.get("files")]
    return sorted(names, key=lambda n: n != "data")


def accepted(chapter: str) -> dict[str, list[readers.Format]]:
    """For each input of ``chapter``: the tool formats it accepts (``mqperf list`` shows them)."""
    out = {}
    for name in inputs(chapter):
        key = target(chapter, name)
        out[name] = [f for f in readers.formats() if key in f.feeds]
    return out


def supported(chapter: str | None = None) -> str:
    """The formats a message lists: every one, or those a chapter reads."""
    fmts = readers.formats() if chapter is None else [f for fs in accepted(chapter).values() for f in fs]
    names = ", ".join(dict.fromkeys(f.title for f in fmts)) or "none"
    return names


def route(chapter: str, paths, *, explicit_input: str | None = None) -> dict[str, list[tuple[Path, readers.Format | None]]]:
    """Which of the chapter's inputs each file feeds: ``{input: [(path, format or None)]}``.

    A folder stands for the files in it; there, files no reader recognises (a formatter's
    log beside MQSMFCSV's CSVs) are skipped. A file named on its own must be recognised or be
    the plain CSV of the main input.
    """
    named = [Path(p).expanduser() for p in paths]
    if not named:
        raise DataError("--data", "no file given")
    accepts = accepted(chapter)
    out: dict[str, list] = {}
    for given in named:
        in_folder = given.is_dir()
        for path in readers.expand([given]):
            loader._check_readable(path)
            fmt = readers.detect(path)
            if fmt is None:
                if in_folder:
                    continue
                name = explicit_input or "data"
                if name not in accepts:
                    raise DataError(path, f"chapter '{chapter}' takes no reader file for '{name}'")
                if not _has_contract(chapter, name):
                    raise DataError(path, f"not a format '{name}' reads: expected {supported_for(chapter, name, csv=False)}")
                _check_plain_csv(path)
                out.setdefault(name, []).append((path, None))
                continue
            choices = [n for n, fs in accepts.items() if fmt in fs and (explicit_input in (None, n))]
            if not choices:
                feeds = sorted({k.split(".")[0] for k in fmt.feeds}) or ["no chapter"]
                wants = supported(chapter)
                raise DataError(path, f"found {fmt.title}; chapter '{chapter}' reads {wants} "
                                      f"(this format feeds: {', '.join(feeds)})")
            out.setdefault(choices[0], []).append((path, fmt))
        if in_folder and not any(p.parent == given or given in p.parents for v in out.values() for p, _ in v):
            raise DataError(given, f"no file in the folder is in a format mqperf reads (supported: {supported(chapter)})")
    for name, files in out.items():
        plain = [p for p, f in files if f is None]
        if plain and len(files) > 1:
            raise DataError(plain[0], "a CSV in the contract's shape is read on its own: give it as the only file, "
                                      "or give the tools' own output files")
    return out


def _check_plain_csv(path: Path) -> None:
    """A file no reader recognised must be a CSV; else say what it is and what mqperf reads."""
    also = f"mqperf reads a CSV in the chapter's contract shape, or these tools' output: {supported()}"
    try:
        loader._check_format(path)
        header = loader._header(path)
    except DataError as exc:
        raise DataError(path, f"{exc.problem.split('; save it as')[0]}; {also}") from None
    if len(header) == 1 and path.suffix.lower() != ".csv":
        raise DataError(path, f"not a format mqperf recognises; {also}")


def convert(files: list[tuple[Path, readers.Format | None]], chapter: str, input: str = "data") -> Converted:
    """Read one input's files into its contract shape, validated by its contract."""
    key = target(chapter, input)
    paths = [p for p, _ in files]
    if len(files) == 1 and files[0][1] is None:
        return Converted(key, paths, [], None)
    groups: dict[str, list[Path]] = {}
    for path, fmt in files:
        groups.setdefault(fmt.name, []).append(path)
    frames, notes = [], []
    for name, group in groups.items():
        fmt = readers.by_name(name)
        raw = fmt.read(group)
        shaped = fmt.feeds[key](raw)
        for note in readers.notes(raw) + readers.notes(shaped):
            if note not in notes:
                notes.append(note)
        frames.append(shaped)
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)
    if SOURCE in frame.columns:
        frame = frame[[c for c in frame.columns if c != SOURCE] + [SOURCE]]
    conv = Converted(key, paths, list(groups), frame, notes)
    _validate(conv, chapter, input)
    return conv


def _validate(conv: Converted, chapter: str, input: str) -> None:
    """Check the converted rows against the input's contract; a problem names the reader's line."""
    from mqperf.data.contracts import contract_for

    contract = contract_for(chapter, input)
    from mqperf.data.contracts import CONTRACTS

    if contract not in CONTRACTS:
        return  # an input whose shape is a reader's own (e.g. mqldt's columns)
    with tempfile.TemporaryDirectory(prefix="mqperf-convert-") as tmp:
        path = Path(tmp) / f"{conv.target}.csv"
        conv.frame.to_csv(path, index=False)
        try:
            loader.load(path, contract=contract)
        except DataError as exc:
            raise _from_source(exc, conv) from None


def _from_source(exc: DataError, conv: Converted) -> DataError:
    where = None
    if exc.row is not None and SOURCE in conv.frame.columns and 0 <= exc.row - 2 < len(conv.frame):
        where = str(conv.frame[SOURCE].iloc[exc.row - 2])
    what = " + ".join(conv.formats)
    origin = where or ", ".join(p.name for p in conv.files[:3])
    column = f", column {exc.column}" if exc.column else ""
    return DataError(origin, f"read as {what}{column}: {exc.problem}")


def write(conv: Converted, path: Path) -> Path:
    """Write a converted input as CSV (atomically: a temporary file renamed into place)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    try:
        conv.frame.to_csv(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def prepare(chapter: str, paths, folder: Path) -> tuple[dict[str, str], list[Converted]]:
    """Route and convert a run's files; write converted inputs into ``folder`` as
    ``<input>.csv`` (with ``conversion.json`` saying what was read, how, with which notes).

    Returns the parameter values to run with (``{input: path}``) and the conversions.
    """
    routed = route(chapter, paths)
    if "data" not in routed:
        raise DataError(Path(str(list(paths)[0])), f"chapter '{chapter}' needs its main data "
                                                   f"({supported_for(chapter, 'data')}); none of the files given is that")
    values, done = {}, []
    for name, files in routed.items():
        conv = convert(files, chapter, name)
        done.append(conv)
        if conv.plain:
            values[name] = str(conv.files[0].resolve())
            continue
        folder.mkdir(parents=True, exist_ok=True)
        values[name] = str(write(conv, folder / f"{name}.csv").resolve())
    if any(not c.plain for c in done):
        record = [{"input": c.target, "files": [p.name for p in c.files], "formats": c.formats,
                   "sha256": [loader.file_hash(p) for p in c.files], "notes": c.notes,
                   "setup": dict(c.frame.attrs.get("setup", {})) if c.frame is not None else {}} for c in done]
        (folder / "conversion.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return values, done


def supported_for(chapter: str, input: str, *, csv: bool = True) -> str:
    fmts = [f.title for f in accepted(chapter).get(input, [])]
    return ", ".join((["a CSV in its contract's shape"] if csv else []) + fmts) or "nothing"


def _has_contract(chapter: str, input: str) -> bool:
    """Whether an input takes a contract-shaped CSV (some take only a tool's format)."""
    from mqperf.data.contracts import CONTRACTS
    from mqperf.data.contracts import contract_for

    return contract_for(chapter, input) in CONTRACTS
