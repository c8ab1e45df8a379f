"""The manifest of ``mqperf fleet``: which datasets, which parameters, checked before anything runs.

A manifest error (the file as a whole cannot be used) is one :class:`~mqperf.errors.DataError`
line naming the manifest, the column and the line. A row that cannot run (its data file is
missing, a parameter cell is invalid) is not a manifest error: its :class:`Job` carries the
reason, and the summary shows it as a "bad input" row beside the others.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from mqperf.errors import DataError, ParameterError, shorten
from mqperf.declarations import looks_like_path, quote

#: Manifest columns that are not chapter parameters.
ID, DATA = "id", "data"


@dataclass
class Job:
    """One (dataset, chapter) of the manifest."""

    id: str
    chapter: str
    data: str  # as the manifest gives it
    line: int
    path: Path | None = None  # absolute; None when the row cannot run
    params: dict = field(default_factory=dict)
    problem: str = ""  # a row-level bad input found before running
    key: str = ""


def _given(chapters: list[str], pairs) -> dict[str, dict]:
    """``-p`` values per chapter: each pair goes to the chapters that declare it."""
    from mqperf import parameters

    out = {c: {} for c in chapters}
    for name, value in pairs:
        takers = [c for c in chapters if name in parameters.declarations(c)]
        if not takers:
            parameters.parse_cli(chapters[0], [(name, value)])  # raises the one-line message
        for c in takers:
            out[c].update(parameters.parse_cli(c, [(name, value)]))
    return out


def _safe_id(text: str) -> bool:
    from mqperf.present.cards import safe_file_name

    return bool(text) and safe_file_name(text) == text


def read_manifest(manifest: str | Path, chapters: list[str], pairs=()) -> list[Job]:
    """The jobs ``manifest`` asks for, one per row and chapter, with their parameters.

    Raises
    ------
    DataError
        The manifest as a whole is unusable (one line naming file, column and line): missing,
        not UTF-8 CSV, no rows, no ``id`` or ``data`` column, a column that is no parameter of
        any chapter (or one set by mqperf itself), an empty or duplicate id, an id unsafe as a
        file name. A row whose data file is missing, or whose parameter cell is invalid, is
        not a manifest error: its job carries ``problem``.
    ParameterError
        A ``-p`` value, or an unknown chapter.
    """
    from mqperf import parameters

    for c in chapters:
        parameters.declarations(c)
    given = _given(chapters, pairs)
    path = Path(manifest)
    if not path.is_file():
        raise DataError(path, "no such file" if not path.exists() else "not a file")
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            rows = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]
    except UnicodeDecodeError:
        raise DataError(path, "not UTF-8 text; save the manifest as UTF-8 CSV") from None
    except csv.Error as exc:
        raise DataError(path, f"not a CSV file ({exc})") from None
    if not header:
        raise DataError(path, "empty; the manifest needs a header with columns id and data")
    header = [h.strip() for h in header]
    for needed in (ID, DATA):
        if needed not in header:
            raise DataError(path, f"no column '{needed}' (the header has: {', '.join(shorten(h, 30) for h in header)})")
    dup = next((h for i, h in enumerate(header) if h in header[:i]), None)
    if dup is not None:
        raise DataError(path, "appears twice in the header", column=shorten(dup))
    decl = {c: parameters.declarations(c) for c in chapters}
    data_param = {c: parameters.reader_defaults(c)[1] for c in chapters}
    param_cols = [h for h in header if h not in (ID, DATA)]
    for col in param_cols:
        takers = [c for c in chapters if col in decl[c]]
        settable = sorted({n for c in chapters for n, d in decl[c].items() if d.settable and n != data_param[c]})
        if not takers:
            raise DataError(path, f"no chapter parameter of that name ({', '.join(chapters)} take: "
                                  f"{', '.join(settable)})", column=shorten(col))
        if any(not decl[c][col].settable or col == data_param[c] for c in takers):
            raise DataError(path, "set by mqperf itself (the data file goes in column 'data')", column=shorten(col))
    if not rows:
        raise DataError(path, "has a header but no rows")
    seen: dict[str, int] = {}
    jobs = []
    base = path.resolve().parent
    for line, row in rows:
        cells = dict(zip(header, [c.strip() for c in row] + [""] * (len(header) - len(row))))
        if len(row) > len(header):
            raise DataError(path, f"{len(row)} cells for {len(header)} columns", row=line)
        ident = cells[ID]
        if not ident:
            raise DataError(path, "empty id", column=ID, row=line)
        if not _safe_id(ident):
            raise DataError(path, f"{quote(ident)} is not safe as a file name (use letters, digits, "
                                  "'.', '_' and '-'; no leading dot)", column=ID, row=line)
        if ident in seen:
            raise DataError(path, f"id {quote(ident)} repeats line {seen[ident]}", column=ID, row=line)
        seen[ident] = line
        for c in chapters:
            jobs.append(_job(path, base, line, cells, c, given[c], decl[c], param_cols))
    return jobs


def _job(manifest: Path, base: Path, line: int, cells: dict, chapter: str, given: dict, decl: dict,
         param_cols: list[str]) -> Job:
    from mqperf import parameters

    job = Job(cells[ID], chapter, cells[DATA], line)
    if not job.data:
        job.problem = f"{manifest}: column 'data', line {line}: empty; give the data file"
        return job
    data = Path(job.data).expanduser()
    data = data if data.is_absolute() else base / data
    if not (data.is_file() or data.is_dir()):  # a folder: a tool's output folder (MQSMFCSV)
        job.problem = f"{data}: {'no such file' if not data.exists() else 'not a file'}"
        return job
    values = dict(given)
    for col in param_cols:
        text = cells.get(col, "")
        if col not in decl or text == "":
            continue
        if looks_like_path(text) and not Path(text).expanduser().is_absolute():
            text = str(base / text)  # relative to the manifest, like the data column
        try:
            values.update(parameters.parse_cli(chapter, [(col, text)]))
        except ParameterError as exc:
            job.problem = f"{manifest}: column '{col}', line {line}: {str(exc).split(': ', 1)[-1]}"
            return job
    job.path = data.resolve()
    job.params = parameters.run_overrides(chapter, str(job.path), values)
    return job
