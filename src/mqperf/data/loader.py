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
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.errors import DataError, shorten
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
        A dataset name from ``data/datapackage.json`` (e.g. ``"kafka_task_scaling"``) or
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
    return _Table(path, raw_header, present, schema.get("primaryKey")).validated()


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
_SAVE_AS = "save it as CSV (comma-separated, UTF-8) and try again"


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


_PANDAS_TYPES = {"integer": "Int64", "number": "float64", "string": "string", "boolean": "boolean"}
_TRUE, _FALSE = {"true", "1"}, {"false", "0"}  # Table Schema's defaults, compared case-insensitively
_NOT_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}
_EXPECTED = {"integer": "a whole number", "number": "a number", "boolean": "true or false",
             "date": "a date (YYYY-MM-DD)"}
_EMPTY = "a value is required, found an empty cell"


class _Table:
    """One read of a CSV file, checked column by column against a Table Schema subset.

    Numbers are parsed by pandas' C reader straight into float64 (fast, small); only when
    that fails, or to quote a bad cell as written, is a column read again as text.
    """

    def __init__(self, path: Path, raw_header: list[str], fields: list[dict], primary_key=None):
        self.path, self.fields = path, fields
        self.raw = {h.strip(): h for h in raw_header}
        self.primary_key = [primary_key] if isinstance(primary_key, str) else list(primary_key or [])
        self._text_cache: dict[str, pd.Series] = {}

    # -- reading ----------------------------------------------------------------------------
    def _read(self, dtype=None, usecols=None, na_values=None) -> pd.DataFrame:
        try:
            frame = pd.read_csv(self.path, dtype=dtype or str, usecols=usecols, encoding="utf-8-sig",
                                keep_default_na=False, na_values=na_values, skip_blank_lines=False)
        except UnicodeDecodeError:
            raise DataError(self.path, f"not a UTF-8 text file; {_SAVE_AS}") from None
        except pd.errors.ParserError as exc:
            raise self._parser_error(exc) from None
        return frame

    def _parser_error(self, exc: Exception) -> DataError:
        text = str(exc)
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
        if m:
            want, line, saw = m.groups()
            return DataError(self.path, f"the row has {saw} values but the header names {want} columns "
                                        "(a comma inside a value needs quotes)", row=int(line))
        m = re.search(r"EOF inside string starting at row (\d+)", text)
        if m:
            return DataError(self.path, "a quote (\") is opened and never closed", row=int(m.group(1)) + 1)
        return DataError(self.path, f"not valid CSV ({shorten(' '.join(text.split()), 120)})")

    def text(self, name: str) -> pd.Series:
        """The column as written (stripped), read again on demand."""
        if name not in self._text_cache:
            raw = self.raw[name]
            self._text_cache[name] = self._read(usecols=[raw])[raw].str.strip()
        return self._text_cache[name]

    def validated(self) -> pd.DataFrame:
        numeric = [f["name"] for f in self.fields if f.get("type") in ("integer", "number")]
        try:
            frame = self._read(dtype={**{h: str for h in self.raw.values()}, **{self.raw[n]: "float64" for n in numeric}},
                               na_values={self.raw[n]: [""] for n in numeric})
            parsed = True
        except ValueError:
            # A cell the C reader could not take as a number: read as text and find it.
            frame, parsed = self._read(), False
        frame.columns = [c.strip() for c in frame.columns]
        columns = {}
        for name in frame.columns:
            col = frame[name]
            if name in numeric and parsed:
                columns[name] = col
            elif name in numeric:
                self._text_cache[name] = col.str.strip()
                text = self._text_cache[name]
                columns[name] = pd.to_numeric(text.where(text.ne("")), errors="coerce")
            else:
                columns[name] = col.str.strip()
        del frame
        blank = None
        for name, col in columns.items():
            empty = self._empty(name, col, name in numeric)
            blank = empty if blank is None else blank & empty
        keep = ~blank.to_numpy() if blank is not None else None
        if keep is not None and not keep.all():
            columns = {n: c[keep] for n, c in columns.items()}
        rows = len(next(iter(columns.values()))) if columns else 0
        if rows == 0:
            raise DataError(self.path, "no data rows (the file has a header only)")
        problems = []
        for order, field in enumerate(self.fields):
            found = self._check_field(field, columns[field["name"]])
            if found is not None:
                problems.append((found[0], order, field["name"], found[1]))
        key = self._check_key(columns)
        if key is not None:
            problems.append((key[0], len(self.fields), self.primary_key[0], key[1]))
        if problems:
            index, _, name, message = min(problems, key=lambda p: (p[0], p[1]))
            raise DataError(self.path, message(index) if callable(message) else message,
                            column=shorten(name), row=index + 2)  # line 1 is the header
        return self._typed(columns)

    # -- checking ---------------------------------------------------------------------------
    @staticmethod
    def _first(mask) -> int | None:
        values = mask.to_numpy(dtype=bool, na_value=False) if hasattr(mask, "to_numpy") else mask
        pos = values.argmax() if len(values) else 0
        return int(mask.index[pos]) if len(values) and values[pos] else None

    def _empty(self, name: str, col: pd.Series, numeric: bool) -> pd.Series:
        if not numeric:
            return col.eq("")
        # A cell that is no number is NaN after parsing, but not empty.
        return self._text_cache[name].eq("") if name in self._text_cache else col.isna()

    def _found(self, name: str):
        return lambda index: shorten(self.text(name).loc[index])

    def _check_field(self, field: dict, col: pd.Series):
        """(index, message or message(index)) of the first bad cell of one column, or None."""
        name, kind = field["name"], field.get("type", "string")
        c = field.get("constraints", {})
        numeric = kind in ("integer", "number")
        empty = self._empty(name, col, numeric)
        found = self._found(name)
        bad = []
        if c.get("required"):
            bad.append((self._first(empty), _EMPTY))
        if numeric:
            if name in self._text_cache:  # parsed from text: a non-empty cell that is no number
                text = self._text_cache[name]
                not_number = col.isna() & text.ne("")
                i = self._first(not_number)
                if i is not None:
                    written = text.loc[i]
                    problem = (f"not a finite number, found '{shorten(written)}'"
                               if written.lower() in _NOT_FINITE else
                               f"expected {_EXPECTED[kind]}, found '{shorten(written)}'")
                    bad.append((i, problem))
            values = col.to_numpy(dtype="float64", na_value=np.nan)
            present = ~np.isnan(values)
            i = self._first(pd.Series(np.isinf(values), index=col.index))
            if i is not None:
                bad.append((i, lambda j: f"not a finite number, found '{found(j)}'"))
            # Squares and products of such values leave the range of a float: no measurement has them.
            with np.errstate(invalid="ignore"):
                size = np.abs(values)
                odd = present & np.isfinite(values) & (size != 0) & ((size < MIN_MAGNITUDE) | (size > MAX_MAGNITUDE))
            i = self._first(pd.Series(odd, index=col.index))
            if i is not None:
                bad.append((i, lambda j: f"'{found(j)}' is outside the range a measurement can have "
                                         f"({MIN_MAGNITUDE:g} to {MAX_MAGNITUDE:g}, or 0); check the unit"))
            if kind == "integer":
                frac = present & np.isfinite(values) & (np.mod(values, 1) != 0)
                i = self._first(pd.Series(frac, index=col.index))
                if i is not None:
                    bad.append((i, lambda j: f"expected a whole number, found '{found(j)}'"))
            for key, test, words in (("minimum", np.less, "at least"), ("maximum", np.greater, "at most"),
                                     ("exclusiveMinimum", np.less_equal, "greater than"),
                                     ("exclusiveMaximum", np.greater_equal, "less than")):
                if key in c:
                    limit = c[key]
                    i = self._first(pd.Series(present & test(values, limit), index=col.index))
                    if i is not None:
                        bad.append((i, lambda j, w=words, lim=limit: f"must be {w} {_num(lim)}, found '{found(j)}'"))
            if "enum" in c:
                i = self._first(pd.Series(present & ~np.isin(values, c["enum"]), index=col.index))
                if i is not None:
                    bad.append((i, lambda j: f"must be one of {_choices(c['enum'])}, found '{found(j)}'"))
        else:
            filled = ~empty
            if kind == "boolean":
                i = self._first(filled & ~col.str.lower().isin(_TRUE | _FALSE))
                if i is not None:
                    bad.append((i, f"expected true or false, found '{shorten(col.loc[i])}'"))
            elif kind == "date":
                dates = pd.to_datetime(col.where(filled), format="%Y-%m-%d", errors="coerce")
                i = self._first(filled & dates.isna())
                if i is not None:
                    bad.append((i, f"expected {_EXPECTED['date']}, found '{shorten(col.loc[i])}'"))
            if "enum" in c:
                i = self._first(filled & ~col.isin([str(v) for v in c["enum"]]))
                if i is not None:
                    bad.append((i, f"must be one of {_choices(c['enum'])}, found '{shorten(col.loc[i])}'"))
            if "pattern" in c:
                i = self._first(filled & ~col.str.fullmatch(c["pattern"]).fillna(False).astype(bool))
                if i is not None:
                    bad.append((i, f"must look like {c['pattern']}, found '{shorten(col.loc[i])}'"))
            if c.get("unique"):
                i = self._first(filled & col.duplicated())
                if i is not None:
                    bad.append((i, f"'{shorten(col.loc[i])}' appears on an earlier line too; each value must be unique"))
        if field.get("maxDistinct"):
            # A report fits, charts and tables every group: past this many it would be no report.
            most = int(field["maxDistinct"])
            seen = (~empty & ~col.duplicated()).cumsum()
            i = self._first(~empty & (seen > most))
            if i is not None:
                total = int(col[~empty].nunique())
                bad.append((i, f"{total:,} different values; a report holds at most {most:,} (split the file: "
                               "`mqperf fleet` makes one report per file)"))
        bad = [b for b in bad if b[0] is not None]
        return min(bad, key=lambda b: b[0]) if bad else None

    def _check_key(self, columns: dict):
        if not self.primary_key or not all(k in columns for k in self.primary_key):
            return None
        keys = pd.DataFrame({k: columns[k] for k in self.primary_key})
        i = self._first(keys.duplicated())
        if i is None:
            return None
        names = ", ".join(self.primary_key)
        return i, f"repeats the key ({names}) of an earlier line; each line must have its own"

    # -- typing -----------------------------------------------------------------------------
    def _typed(self, columns: dict) -> pd.DataFrame:
        kinds = {f["name"]: f.get("type", "string") for f in self.fields}
        out = {}
        for name, col in columns.items():
            kind = kinds.get(name, "string")
            if kind in ("integer", "number"):
                # Plain int64 where nothing is missing: numpy maths on nullable Int64 is awkward.
                if kind == "integer":
                    out[name] = col.astype("int64" if col.notna().all() else "Int64")
                else:
                    out[name] = col.astype("float64")
            elif kind == "boolean":
                out[name] = col.str.lower().map(lambda v: True if v in _TRUE else False if v in _FALSE else pd.NA
                                                ).astype("boolean")
            elif kind == "date":
                out[name] = pd.to_datetime(col.replace("", None), format="%Y-%m-%d")
            else:
                out[name] = col.replace("", pd.NA).astype("string")
        return pd.DataFrame(out).reset_index(drop=True)


#: Magnitudes a measured value may have (0 aside): far beyond any unit the book uses, and far
#: inside a float's range, so a fit's sums of squares can neither overflow nor underflow.
MIN_MAGNITUDE = 1e-30
MAX_MAGNITUDE = 1e30


def _num(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _choices(values) -> str:
    return shorten(", ".join(str(v) for v in values), 120)
