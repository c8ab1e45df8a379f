"""Data contracts: what each chapter reads from a reader's file, as Table Schema data files.

``data/contracts/<chapter>.json`` is the Frictionless Table Schema of a chapter's main input
(its ``data`` parameter); ``data/contracts/<chapter>.<parameter>.json`` that of another input
the chapter reads from a reader's file. A contract's name is the file's name without
``.json``, so a chapter's contract is named like the chapter. Fields several contracts share
are defined once in ``data/contracts/_fields.json`` and used as ``{"$ref": "<name>"}``.

Required columns must be present; others are used when present; extra columns are ignored.
``mqperf list``, ``mqperf check`` and the Bring-your-own-data page are generated from these
files.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from mqperf.errors import DataError
from mqperf.paths import data_dir

SHARED = "_fields.json"


def contracts_dir() -> Path:
    return data_dir() / "contracts"


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON ({exc.msg} at line {exc.lineno})") from None


@lru_cache(maxsize=4)
def _load_all(directory: str) -> dict[str, dict]:
    folder = Path(directory)
    shared = _read(folder / SHARED) if (folder / SHARED).exists() else {}
    out = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == SHARED:
            continue
        schema = _read(path)
        fields = []
        for f in schema.get("fields", []):
            if "$ref" in f:
                if f["$ref"] not in shared:
                    raise DataError(path, f"field $ref '{f['$ref']}' is not defined in {SHARED}")
                f = {**shared[f["$ref"]], **{k: v for k, v in f.items() if k != "$ref"}}
            fields.append(f)
        out[path.stem] = {**schema, "fields": fields}
    return out


class _Contracts(dict):
    """The contracts by name, read from ``data/contracts/`` on first use."""

    def _all(self) -> dict:
        return _load_all(str(contracts_dir()))

    def __getitem__(self, name):
        return self._all()[name]

    def __contains__(self, name) -> bool:
        return name in self._all()

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def keys(self):
        return self._all().keys()

    def items(self):
        return self._all().items()

    def values(self):
        return self._all().values()

    def get(self, name, default=None):
        return self._all().get(name, default)


CONTRACTS = _Contracts()


def inputs(chapter: str) -> dict[str, dict]:
    """A chapter's data inputs as its contract lists them: ``{input: {"contract": name, "files": bool}}``.

    ``files`` says the input takes a reader's files (the main data, ``mqldt``, ...), not only a
    book dataset. The data wing reads this, never the chapter's module; a test keeps the two in step.
    """
    contract = CONTRACTS.get(chapter)
    if contract is None:
        return {}
    return dict(contract.get("inputs", {"data": {"contract": chapter, "files": True}}))


def contract_for(chapter: str, input: str = "data") -> str:
    """The contract (or dataset schema) a reader's file for ``input`` must meet, as the chapter's
    contract lists its inputs (:func:`inputs`)."""
    listed = inputs(chapter).get(input, {}).get("contract", "")
    return listed or (chapter if input == "data" else f"{chapter}.{input}")


def describe(name: str) -> str:
    """A one-paragraph text of a contract's columns, for --help and the book."""
    contract = CONTRACTS[name]
    parts = []
    for f in contract["fields"]:
        req = "required" if f.get("constraints", {}).get("required") else "optional"
        unit = f" [{f['unit']}]" if f.get("unit") else ""
        parts.append(f"{f['name']}{unit} ({f['type']}, {req})")
    return f"{contract['title']}: " + ", ".join(parts)
