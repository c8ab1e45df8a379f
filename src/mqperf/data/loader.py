"""Load the book's datasets and readers' files, validated against a Table Schema.

Every dataset in ``data/`` is a resource of ``data/datapackage.json`` (Frictionless Data
Package): its fields, types, units, constraints and provenance. :func:`load` validates
a file (vectorised, over whole columns) and returns a typed :class:`pandas.DataFrame`; on bad input it
raises :class:`~mqperf.errors.DataError` naming the file, the column, the line and the
problem, so the CLI can print one line instead of a traceback.

A reader's own file is checked against a chapter's *contract* (see
:mod:`mqperf.data.contracts`): the columns the chapter needs, with their types and ranges.
Extra columns are allowed and kept.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import pandas as pd

from mqperf.errors import DataError, shorten
from mqperf.data.table import SAVE_AS as _SAVE_AS
from mqperf.data.table import Table
from mqperf.paths import data_dir

PACKAGE_FILE = "datapackage.json"


@lru_cache(maxsize=4)
def _package_descriptor(directory: str) -> dict:
    path = Path(directory) / PACKAGE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(path, "the data package descriptor is missing") from None
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON ({exc.msg} at line {exc.lineno})") from None


def package_descriptor() -> dict:
    """The parsed ``data/datapackage.json``."""
    return _package_descriptor(str(data_dir()))


def resource_names() -> list[str]:
    """Names of every dataset in the book's data package, in descriptor order."""
    return [r["name"] for r in package_descriptor()["resources"]]


def resource(name: str) -> dict:
    """The descriptor of one dataset: path, title, description, schema, sources."""
    for res in package_descriptor()["resources"]:
        if res["name"] == name:
            return res
    known = ", ".join(resource_names())
    raise DataError(data_dir() / PACKAGE_FILE, f"no dataset named '{shorten(name)}' (known: {shorten(known, 200)})")


def resource_path(name: str) -> Path:
    return data_dir() / resource(name)["path"]


def is_path(source) -> bool:
    """True when ``source`` names a file (a reader's CSV) rather than a book dataset."""
    text = str(source)
    return text.endswith(".csv") or "/" in text


def identity(source: str | None) -> tuple[str | None, str | None]:
    """(name, sha256) of a dataset name or a file path, as model cards record it."""
    if not source:
        return None, None
    path = Path(source) if is_path(source) else resource_path(source)
    return (Path(source).name if is_path(source) else source), file_hash(path)


def file_hash(path: str | Path) -> str:
    """SHA-256 of a file's bytes: the identity a model card records for its data."""
    _check_readable(Path(path))
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load(name_or_path: str | Path, *, contract: str | dict | None = None) -> pd.DataFrame:
    """Load and validate a dataset.

    Parameters
    ----------
    name_or_path
        A dataset name from ``data/datapackage.json`` (e.g. ``"kafka_scaling_rates"``) or
        the path of a CSV file (comma-separated, UTF-8).
    contract
        For a path: the Table Schema it must satisfy, given as a contract name from
        :mod:`mqperf.data.contracts`, a dataset name (its schema), or a schema dict. Columns
        the schema does not name are allowed. Without a contract, a path inside ``data/``
        uses its dataset's schema; any other path is an error.

    Returns
    -------
    pandas.DataFrame
        Columns typed as the schema says (integer, number, string, boolean, date); blank
        lines are skipped.

    Raises
    ------
    DataError
        The file is missing, not a CSV file (JSON, a spreadsheet, UTF-16, semicolon- or
        tab-separated), has no data rows, lacks a required column, or a value has the wrong
        type (``inf`` and ``nan`` are not numbers here) or breaks a constraint. The message
        names file, column and the file's line, and says what was expected and found.

    Notes
    -----
    Validation is vectorised over whole columns (a 1,000,000-row file takes about a
    second), covering the Table Schema subset the book uses: types integer, number,
    string, boolean, date; constraints required, minimum, maximum, exclusiveMinimum,
    exclusiveMaximum, enum, pattern, unique; and primaryKey. The first bad line is reported.
    """
    schema, path, partial = _resolve(name_or_path, contract)
    _check_readable(path)
    key = _memo_key(path, schema, partial)
    if key is not None and key in _VALIDATED:
        _VALIDATED.move_to_end(key)
        return _VALIDATED[key].copy()
    frame = _load(path, schema, partial)
    if key is not None:
        _VALIDATED[key] = frame.copy()
        while len(_VALIDATED) > _MEMO_ENTRIES or sum(k[4] for k in _VALIDATED) > _MEMO_TOTAL_BYTES:
            _VALIDATED.popitem(last=False)
    return frame


#: Frames this process has validated, by everything that determines them: the path (errors name
#: it), the file's bytes, the schema and whether other columns are allowed. A chapter reads the
#: book's tables several times, and a test, fleet or warm-kernel process runs many chapters. The
#: key is the content, not the modification time, which two writes in one clock tick share; only
#: files up to _MEMO_BYTES are kept, and only the last _MEMO_ENTRIES whose files hold at most
#: _MEMO_TOTAL_BYTES together, so memory stays flat. The entries hold every table the book's
#: chapters read (69): with fewer, running the chapters in turn dropped each table just before
#: it was read again, and nothing was ever found.
_VALIDATED: OrderedDict[tuple, pd.DataFrame] = OrderedDict()
_MEMO_ENTRIES = 256
_MEMO_BYTES = 1 << 20
_MEMO_TOTAL_BYTES = 16 << 20


def _memo_key(path: Path, schema: dict, partial: bool) -> tuple | None:
    data = path.read_bytes() if path.stat().st_size <= _MEMO_BYTES else None
    if data is None:
        return None
    return (str(path), hashlib.sha256(data).hexdigest(), json.dumps(schema, sort_keys=True), partial, len(data))


def _load(path: Path, schema: dict, partial: bool) -> pd.DataFrame:
    _check_format(path)
    raw_header = _header(path)
    header = [h.strip() for h in raw_header]
    fields = schema["fields"]
    for field in fields:
        required = field.get("constraints", {}).get("required", False)
        if field["name"] not in header and (required or not partial):
            raise DataError(path, "required column is missing", column=shorten(field["name"]))
    if not partial:
        extra = [h for h in header if h not in {f["name"] for f in fields}]
        if extra:
            raise DataError(path, "unexpected column", column=shorten(extra[0]))
    present = [f for f in fields if f["name"] in header]
    return Table(path, raw_header, present, schema.get("primaryKey")).validated()


def _resolve(name_or_path, contract):
    """(schema, path, partial) where partial means extra/optional columns are allowed."""
    text = str(name_or_path)
    looks_like_path = text.endswith(".csv") or "/" in text or Path(text).suffix
    if not looks_like_path:
        res = resource(text)
        return res["schema"], data_dir() / res["path"], False
    path = Path(text)
    if contract is None:
        for res in package_descriptor()["resources"]:
            if (data_dir() / res["path"]).resolve() == path.resolve():
                return res["schema"], path, False
        raise DataError(path, "no schema to check it against: name a contract (e.g. --contract)")
    if isinstance(contract, dict):
        return contract, path, True
    from mqperf.data.contracts import CONTRACTS

    if contract in CONTRACTS:
        return CONTRACTS[contract], path, True
    return resource(contract)["schema"], path, True


def _check_readable(path: Path) -> None:
    if not path.exists():
        raise DataError(path, "file not found")
    if not path.is_file():
        raise DataError(path, "not a file")
    if not os.access(path, os.R_OK):
        raise DataError(path, "cannot read the file (permission denied)")
    if path.stat().st_size == 0:
        raise DataError(path, "file is empty")


# Magic bytes of files readers give by mistake: zip (xlsx, ods), OLE2 (xls), UTF-16 BOMs.
_MAGIC = ((b"PK\x03\x04", "looks like a spreadsheet (.xlsx/.ods) or zip archive"),
          (b"\xd0\xcf\x11\xe0", "looks like an Excel .xls spreadsheet"),
          (b"\xff\xfe", "UTF-16 text"), (b"\xfe\xff", "UTF-16 text"))
_NOT_CSV_SUFFIXES = {".json": "looks like JSON", ".xlsx": "looks like a spreadsheet", ".xls": "looks like a spreadsheet",
                     ".ods": "looks like a spreadsheet", ".parquet": "looks like Parquet"}


def _check_format(path: Path) -> None:
    """Refuse, with a useful name for what it is, a file that is not CSV text at all."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise DataError(path, f"not a CSV file ({what}); {_SAVE_AS}")
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if text[:200].count(b"\x00") > 2:
        # UTF-16 without a BOM: every other byte of ASCII text is zero.
        what = "UTF-16 text" if text[1:200:2].count(b"\x00") > 10 or text[0:200:2].count(b"\x00") > 10 \
            else "binary data"
        raise DataError(path, f"not a CSV file ({what}); {_SAVE_AS}")
    if re.match(rb"\s*(\{|\[\s*($|[\[{\"\d\]-]|true|false|null))", text):  # not an INI "[section]"
        raise DataError(path, f"not a CSV file (looks like JSON); {_SAVE_AS}")
    if path.suffix.lower() in _NOT_CSV_SUFFIXES:
        raise DataError(path, f"not a CSV file ({_NOT_CSV_SUFFIXES[path.suffix.lower()]}); {_SAVE_AS}")


def _header(path: Path) -> list[str]:
    """The header row as written (unstripped), after checking it names columns once each."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), [])
    except UnicodeDecodeError:
        raise DataError(path, f"not a UTF-8 text file; {_SAVE_AS}") from None
    except csv.Error as exc:
        raise DataError(path, f"the header row is not valid CSV ({exc})") from None
    names = [h.strip() for h in header]
    if not any(names):
        raise DataError(path, "no header row (expected CSV with column names)")
    if len(names) == 1:
        for sep, word in ((";", "semicolon"), ("\t", "tab")):
            if sep in header[0]:
                raise DataError(path, f"looks {word}-separated; the book reads comma-separated CSV: {_SAVE_AS}")
    dupes = sorted({h for h in names if names.count(h) > 1})
    if dupes:
        raise DataError(path, "column appears more than once", column=shorten(dupes[0]))
    return header
