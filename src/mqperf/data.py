"""Load the book's datasets and readers' files, validated against a Table Schema.

Every dataset in ``data/`` is a resource of ``data/datapackage.json`` (Frictionless Data
Package): its fields, types, units, constraints and provenance. :func:`load` validates
a file with Frictionless and returns a typed :class:`pandas.DataFrame`; on bad input it
raises :class:`~mqperf.errors.DataError` naming the file, the column, the line and the
problem, so the CLI can print one line instead of a traceback.

A reader's own file is checked against a chapter's *contract* (see
:mod:`mqperf.contracts`): the columns the chapter needs, with their types and ranges.
Extra columns are allowed and kept.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

import pandas as pd

from mqperf.errors import DataError
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
    raise DataError(data_dir() / PACKAGE_FILE, f"no dataset named '{name}' (known: {known})")


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
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load(name_or_path: str | Path, *, contract: str | dict | None = None) -> pd.DataFrame:
    """Load and validate a dataset.

    Parameters
    ----------
    name_or_path
        A dataset name from ``data/datapackage.json`` (e.g. ``"kafka_task_scaling"``) or
        the path of a CSV file.
    contract
        For a path: the Table Schema it must satisfy, given as a contract name from
        :mod:`mqperf.contracts`, a dataset name (its schema), or a schema dict. Columns
        the schema does not name are allowed. Without a contract, a path inside ``data/``
        uses its dataset's schema; any other path is an error.

    Returns
    -------
    pandas.DataFrame
        Columns typed as the schema says (integer, number, string, boolean, date).

    Raises
    ------
    DataError
        The file is missing or unreadable, a required column is absent, or a value has
        the wrong type or breaks a constraint. The message names file, column and line.
    """
    schema, path, partial = _resolve(name_or_path, contract)
    _check_readable(path)
    _record_input(path)
    header = _header(path)
    fields = schema["fields"]
    for field in fields:
        required = field.get("constraints", {}).get("required", False)
        if field["name"] not in header and (required or not partial):
            raise DataError(path, "required column is missing", column=field["name"])
    present = [f for f in fields if f["name"] in header]
    _validate(path, {**schema, "fields": present}, allow_extra=partial)
    return _typed_frame(path, present)


def _record_input(path: Path) -> None:
    """Note a file a chapter read, so the build can re-execute it when the file changes."""
    log = os.environ.get("MQPERF_INPUTS_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(str(path.resolve()) + "\n")


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
    from mqperf.contracts import CONTRACTS

    if contract in CONTRACTS:
        return CONTRACTS[contract], path, True
    return resource(contract)["schema"], path, True


def _check_readable(path: Path) -> None:
    if not path.exists():
        raise DataError(path, "file not found")
    if not path.is_file():
        raise DataError(path, "not a file")
    if path.stat().st_size == 0:
        raise DataError(path, "file is empty")


def _header(path: Path) -> list[str]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), [])
    except UnicodeDecodeError:
        raise DataError(path, "not a UTF-8 text file (expected CSV)") from None
    header = [h.strip() for h in header]
    if not any(header):
        raise DataError(path, "no header row (expected CSV with column names)")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise DataError(path, "column appears more than once", column=dupes[0])
    return header


def _validate(path: Path, schema: dict, *, allow_extra: bool) -> None:
    # Imported here: Frictionless takes ~0.5 s to import and most callers never validate.
    from frictionless import Resource

    table_schema = _frictionless_schema(schema)
    if allow_extra:
        # Table Schema v2: the file may have columns the schema does not name.
        table_schema["fieldsMatch"] = "subset"
    descriptor = {"$schema": RESOURCE_V2, "name": "data", "path": path.name, "schema": table_schema}
    res = Resource.from_descriptor(descriptor, basepath=str(path.resolve().parent))
    report = res.validate()
    if report.valid:
        return
    row, column, kind, note = report.flatten(["rowNumber", "fieldName", "type", "note"])[0]
    raise DataError(path, _problem(kind, note), column=column or None, row=_line(row))


# Data Package v2 profiles, for constraints such as exclusiveMinimum; named, never fetched.
TABLE_SCHEMA_V2 = "https://datapackage.org/profiles/2.0/tableschema.json"
RESOURCE_V2 = "https://datapackage.org/profiles/2.0/dataresource.json"


def _frictionless_schema(schema: dict) -> dict:
    """Table Schema v2 (for exclusiveMinimum); our extra field keys (unit, role) pass through."""
    keep = ("fields", "missingValues", "primaryKey")
    return {"$schema": TABLE_SCHEMA_V2, **{k: v for k, v in schema.items() if k in keep}}


def _line(row_number):
    # Frictionless counts the header as row 1, so its row number is the file's line number.
    return row_number


def _problem(kind: str, note: str) -> str:
    messages = {
        "type-error": "value has the wrong type",
        "constraint-error": "value breaks a constraint",
        "missing-label": "required column is missing",
        "extra-label": "unexpected column",
        "blank-row": "blank row",
        "missing-cell": "row has too few values",
        "extra-cell": "row has too many values",
        "primary-key": "duplicate key",
    }
    text = messages.get(kind, kind.replace("-", " "))
    return f"{text} ({note})" if note else text


_PANDAS_TYPES = {"integer": "Int64", "number": "float64", "string": "string", "boolean": "boolean"}


def _typed_frame(path: Path, fields: list[dict]) -> pd.DataFrame:
    names = {f["name"] for f in fields}
    frame = pd.read_csv(path, dtype="string", keep_default_na=False, encoding="utf-8-sig")
    frame.columns = [c.strip() for c in frame.columns]
    out = {}
    for column in frame.columns:
        values = frame[column].str.strip().replace("", pd.NA)
        field = next((f for f in fields if f["name"] == column), None)
        kind = field.get("type", "string") if field else "string"
        if column in names and kind in ("integer", "number"):
            numbers = pd.to_numeric(values)
            # Plain int64 where nothing is missing: numpy maths on nullable Int64 is awkward.
            dtype = "int64" if kind == "integer" and numbers.notna().all() else _PANDAS_TYPES[kind]
            out[column] = numbers.astype(dtype)
        elif column in names and kind == "boolean":
            out[column] = values.str.lower().map({"true": True, "false": False}).astype("boolean")
        elif column in names and kind == "date":
            out[column] = pd.to_datetime(values)
        else:
            out[column] = values.astype("string")
    return pd.DataFrame(out)
