"""Chapter parameters as declarations: their types, ranges and parsing of ``-p NAME VALUE`` text.

Each chapter package (:mod:`mqperf.chapters.<notebook name>`) declares ``PARAMETERS``, a dict from
name to one of the types below (:class:`Number`, :class:`Integer`, :class:`Choice`, :class:`DataFile`,
...). :mod:`mqperf.parameters` looks a chapter's declarations up and turns ``-p`` values and a
run's files into the values a notebook runs with.

This module must stay cheap to import: chapters' ``__init__`` imports it, and ``mqperf run``
parses ``-p`` values before anything heavy (pandas, papermill, a kernel) starts.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from mqperf.errors import shorten
from mqperf.paths import data_dir

#: The longest piece of a reader's own text quoted back in a message.
QUOTE_MAX = 60

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")
_NONE_WORDS = {"none", "null", "~"}


def quote(text) -> str:
    """A reader's value as a message shows it: quoted, cut by the one shortening rule."""
    return repr(shorten(text, QUOTE_MAX))


def _num(value: float) -> str:
    """A bound as a reader would type it: 1e9 rather than 1000000000 (the parser reads both)."""
    text = f"{value:g}"
    if "e+" in text:
        short = text.replace("e+0", "e").replace("e+", "e")
        return short if float(short) == value else str(int(value))
    return text


class Invalid(ValueError):
    """A value breaks its declaration; the text says how (the caller adds the name and value)."""


@dataclass(frozen=True)
class Param:
    """Base declaration: every parameter has help text and may be settable with ``-p``."""

    help: str
    settable = True
    kind = "value"

    def parse(self, text: str):
        """The typed value of ``-p NAME text``; raises :class:`Invalid`."""
        raise NotImplementedError

    def check(self, value) -> None:
        """Raise :class:`Invalid` when a Python value (a default, a parsed value) breaks the declaration."""
        raise NotImplementedError

    def allowed(self) -> str:
        """What the declaration allows, as a phrase for messages and docs."""
        raise NotImplementedError

    def span(self) -> str:
        """The allowed values alone, for ``mqperf list`` and the docs' tables."""
        return self.allowed().removeprefix("allowed: ")

    def extra(self) -> dict:
        return {}


@dataclass(frozen=True)
class Number(Param):
    """A real number in a range; ``optional`` also allows None (written ``none`` on the command line)."""

    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    optional: bool = False
    kind = "number"

    def parse(self, text: str):
        raw = text.strip()
        if self.optional and raw.lower() in _NONE_WORDS | {""}:
            return None
        if _THOUSANDS.match(raw):
            plain = raw.replace(",", "")
            raise Invalid(f"write {plain} without thousands separators; {self.allowed()}")
        try:
            value = float(raw)
        except ValueError:
            raise Invalid(f"not a number; {self.allowed()}") from None
        if math.isfinite(value) and value.is_integer() and "." not in raw:
            value = int(value)  # 5e4 prints as 50,000 in the report, not 50,000.0
        self.check(value)
        return value

    def check(self, value) -> None:
        if value is None and self.optional:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Invalid(f"not a number; {self.allowed()}")
        if not math.isfinite(value):
            raise Invalid(f"not a finite number; {self.allowed()}")
        lo, hi = self.minimum, self.maximum
        if lo is not None and (value <= lo if self.exclusive_minimum else value < lo):
            raise Invalid(f"too small; {self.allowed()}")
        if hi is not None and (value >= hi if self.exclusive_maximum else value > hi):
            raise Invalid(f"too large; {self.allowed()}")

    def range(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '≥'} {_num(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.exclusive_maximum else '≤'} {_num(self.maximum)}")
        return " and ".join(parts) or "any"

    def allowed(self) -> str:
        unit = f" ({self.unit})" if self.unit else ""
        article = "an" if self.kind[0] in "aeiou" else "a"
        text = f"allowed: {article} {self.kind}{unit}, {self.range()}"
        return text + (", or none" if self.optional else "")

    def span(self) -> str:
        return self.range() + (", or none" if self.optional else "")

    def extra(self) -> dict:
        return {"unit": self.unit, "minimum": self.minimum, "maximum": self.maximum,
                "exclusive_minimum": self.exclusive_minimum, "exclusive_maximum": self.exclusive_maximum,
                "optional": self.optional}


@dataclass(frozen=True)
class Integer(Number):
    """A whole number in a range (``5e4`` and ``8.0`` are accepted when they are whole)."""

    kind = "integer"

    def parse(self, text: str):
        value = super().parse(text)
        return None if value is None else int(value)

    def check(self, value) -> None:
        if value is None and self.optional:
            return
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(f"not a whole number; {self.allowed()}")
        super().check(value)


@dataclass(frozen=True)
class Text(Param):
    """Free text, taken as written (``-p ssid 123`` is the text "123")."""

    max_length: int = 200
    pattern: str | None = None
    pattern_help: str = ""
    kind = "text"

    def parse(self, text: str):
        self.check(text)
        return text

    def check(self, value) -> None:
        if not isinstance(value, str):
            raise Invalid(f"not text; {self.allowed()}")
        if len(value) > self.max_length:
            raise Invalid(f"longer than {self.max_length} characters")
        if self.pattern and not re.fullmatch(self.pattern, value):
            raise Invalid(f"not {self.pattern_help or 'of the expected form'}")

    def allowed(self) -> str:
        return f"allowed: text of at most {self.max_length} characters" + (f", {self.pattern_help}" if self.pattern_help else "")

    def extra(self) -> dict:
        return {"max_length": self.max_length, "pattern": self.pattern}


@dataclass(frozen=True)
class Choice(Param):
    """One of a fixed set of words."""

    values: tuple = ()
    kind = "choice"

    def parse(self, text: str):
        self.check(text)
        return text

    def check(self, value) -> None:
        if value not in self.values:
            raise Invalid(f"not one of the choices; {self.allowed()}")

    def allowed(self) -> str:
        return "allowed: one of " + ", ".join(f'"{v}"' for v in self.values)

    def extra(self) -> dict:
        return {"values": list(self.values)}


@dataclass(frozen=True)
class Flag(Param):
    """True or false (``true``/``false``, ``yes``/``no``, ``1``/``0``)."""

    kind = "flag"
    _WORDS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}

    def parse(self, text: str):
        try:
            return self._WORDS[text.strip().lower()]
        except KeyError:
            raise Invalid(f"not true or false; {self.allowed()}") from None

    def check(self, value) -> None:
        if not isinstance(value, bool):
            raise Invalid(f"not true or false; {self.allowed()}")

    def allowed(self) -> str:
        return "allowed: true or false"


@dataclass(frozen=True)
class NumberList(Param):
    """A list of numbers: YAML (``[1, 50, 500]``) or plain commas (``1,50,500``)."""

    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    min_items: int = 1
    max_items: int = 20
    kind = "list of numbers"

    def _item(self) -> Number:
        return Number(help="", unit=self.unit, minimum=self.minimum, maximum=self.maximum,
                      exclusive_minimum=self.exclusive_minimum)

    def parse(self, text: str):
        raw = text.strip()
        if raw.startswith("["):
            import yaml  # only for list values; a small pure-Python import

            try:
                value = yaml.safe_load(raw)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem", None) or "cannot be read"
                raise Invalid(f"not a valid YAML list ({mark}); {self.allowed()}") from None
        else:
            value = []
            for part in raw.split(","):
                try:
                    value.append(self._item().parse(part))
                except Invalid:
                    raise Invalid(f"item {quote(part.strip())} is not a number; {self.allowed()}") from None
        self.check(value)
        return value

    def check(self, value) -> None:
        if not isinstance(value, (list, tuple)):
            raise Invalid(f"not a list; {self.allowed()}")
        if not self.min_items <= len(value) <= self.max_items:
            raise Invalid(f"has {len(value)} items; {self.allowed()}")
        item = self._item()
        for v in value:
            try:
                item.check(v)
            except Invalid:
                raise Invalid(f"item {quote(v)} is out of range; {self.allowed()}") from None

    def allowed(self) -> str:
        unit = f" in {self.unit}" if self.unit else ""
        count = f"{self.min_items} to {self.max_items}" if self.min_items != self.max_items else str(self.min_items)
        example = "[1, 2]" if self.max_items == 2 else "[1, 50, 500]"
        return f"allowed: {count} numbers{unit}, each {self._item().range()}, e.g. {example}"

    def extra(self) -> dict:
        return {"unit": self.unit, "minimum": self.minimum, "maximum": self.maximum,
                "min_items": self.min_items, "max_items": self.max_items}


@dataclass(frozen=True)
class DataFile(Param):
    """A data source: a book dataset name, or (when ``files``) the path of a reader's CSV file.

    ``contract`` names what a file must hold (a contract of :mod:`mqperf.data.contracts`, a
    dataset's schema, or a tool's format); ``optional`` allows ``""`` for none.
    """

    contract: str = ""
    files: bool = True
    optional: bool = False
    kind = "data"

    def parse(self, text: str):
        if text == "" and self.optional:
            return ""
        if looks_like_path(text):
            if not self.files:
                raise Invalid(f"takes a book dataset name, not a file; {self.allowed()}")
            path = Path(text).expanduser()
            if not (path.is_file() or path.is_dir()):  # a folder: a tool's output folder (MQSMFCSV)
                raise Invalid("no such file" if not path.exists() else "not a file")
            return str(path.resolve())  # the kernel runs in chapters/, so relative paths would move
        self.check(text)
        return text

    def check(self, value) -> None:
        if value == "" and self.optional:
            return
        if not isinstance(value, str) or value == "":
            raise Invalid(f"empty; {self.allowed()}")
        if looks_like_path(value):
            if not self.files:
                raise Invalid(f"takes a book dataset name, not a file; {self.allowed()}")
            return
        if value not in dataset_names():
            raise Invalid(f"neither a file nor a book dataset; {self.allowed()}")

    def allowed(self) -> str:
        what = "allowed: " + ("a CSV file" + (f" ({self.contract})" if self.contract else "")
                              + ", a tool's own output (see mqperf list), or a book dataset name"
                if self.files else f"a book dataset name ({self.contract or 'see the data catalog'})")
        return what + (', or "" for none' if self.optional else "")

    def extra(self) -> dict:
        return {"contract": self.contract, "files": self.files, "optional": self.optional}


@dataclass(frozen=True)
class Internal(Param):
    """Set by ``mqperf run`` itself (e.g. ``cards_dir``): not settable with ``-p``."""

    settable = False
    kind = "internal"

    def parse(self, text: str):
        raise Invalid("set by mqperf run itself, not with -p")

    def check(self, value) -> None:
        if value is not None and not isinstance(value, str):
            raise Invalid("expected a folder path or None")

    def allowed(self) -> str:
        return "set by mqperf run, not with -p"


# -- lookups -------------------------------------------------------------------------------------

def looks_like_path(text: str) -> bool:
    """A file rather than a dataset name: as :func:`mqperf.data.is_path` decides, plus any suffix."""
    return text.endswith(".csv") or "/" in text or "\\" in text or bool(Path(text).suffix)


_DATASETS: dict[str, frozenset] = {}


def dataset_names() -> frozenset:
    """The book's dataset names, read straight from ``data/datapackage.json`` (no pandas)."""
    key = str(data_dir())
    if key not in _DATASETS:
        try:
            package = json.loads((data_dir() / "datapackage.json").read_text(encoding="utf-8"))
            _DATASETS[key] = frozenset(r["name"] for r in package["resources"])
        except (OSError, ValueError, KeyError):
            _DATASETS[key] = frozenset()
    return _DATASETS[key]
