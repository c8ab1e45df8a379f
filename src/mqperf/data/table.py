"""One reader's CSV, checked column by column against a Table Schema (the contract or dataset schema).

:class:`Table` reads the file once with pandas' C reader and checks every constraint over whole
columns (required, types, minimum/maximum, enumerations, patterns, uniqueness, primary keys, a
limit on distinct values, magnitudes a float can hold); the first bad cell becomes a one-line
:class:`~mqperf.errors.DataError` naming the file, the column, the line and the problem.
:func:`mqperf.data.loader.load` is its one caller.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.errors import DataError, shorten

#: What a file that is no UTF-8 CSV is told to do.
SAVE_AS = "save it as CSV (comma-separated, UTF-8) and try again"

_PANDAS_TYPES = {"integer": "Int64", "number": "float64", "string": "string", "boolean": "boolean"}
_TRUE, _FALSE = {"true", "1"}, {"false", "0"}  # Table Schema's defaults, compared case-insensitively
_NOT_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}
_EXPECTED = {"integer": "a whole number", "number": "a number", "boolean": "true or false",
             "date": "a date (YYYY-MM-DD)"}
_EMPTY = "a value is required, found an empty cell"


class Table:
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
            raise DataError(self.path, f"not a UTF-8 text file; {SAVE_AS}") from None
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
