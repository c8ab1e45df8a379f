"""Chapter parameters: declared types and ranges, and parsing of ``-p NAME VALUE``.

Each chapter module (:mod:`mqperf.chapters.<notebook name>`) declares ``PARAMETERS``, a dict
from name to one of the declaration types below. The notebook's ``parameters`` cell keeps the
defaults (papermill reads them there); ``mqperf list``, ``mqperf run`` and the Bring-your-own-data
page all read the declarations through :func:`describe` and :func:`parse_cli`, and a test keeps
the two in step.

This module must stay cheap to import: ``mqperf run`` parses ``-p`` values before anything
heavy (pandas, papermill, a kernel) starts, so a bad value costs the reader well under a second.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from mqperf import catalog
from mqperf.errors import ParameterError, shorten
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


def chapter_names() -> list[str]:
    """Chapters that declare parameters: one module per notebook in :mod:`mqperf.chapters`."""
    return catalog.names()


def declarations(chapter: str) -> dict[str, Param]:
    """The ``PARAMETERS`` of ``chapter``'s module; ParameterError for an unknown chapter."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", chapter or "") or chapter not in chapter_names():
        known = ", ".join(chapter_names())
        raise ParameterError(f"no chapter named {quote(chapter)} (known: {known})")
    return importlib.import_module(f"mqperf.chapters.{chapter}").PARAMETERS


def defaults(chapter: str) -> dict:
    """Names and default values of the notebook's ``parameters`` cell (:mod:`mqperf.catalog`)."""
    return dict(catalog.find(chapter).defaults)


#: The parameter ``mqperf run --data FILE`` sets.
DATA_PARAMETER = catalog.DATA_PARAMETER


def reader_defaults(chapter: str) -> tuple[dict, str]:
    """Values ``mqperf run`` sets before ``-p`` on a reader's data, and the data parameter.

    The book's companion datasets are off on a reader's data: every optional data parameter
    whose default is a book dataset starts from ``""``. A chapter module may add values of its
    own in ``READER_DEFAULTS`` (e.g. a planning target that only makes sense on the book's data).
    """
    mod = importlib.import_module(f"mqperf.chapters.{chapter}")
    decl, values = declarations(chapter), defaults(chapter)
    out = {name: "" for name, d in decl.items()
           if name != DATA_PARAMETER and isinstance(d, DataFile) and d.optional and values.get(name)}
    out.update(getattr(mod, "READER_DEFAULTS", {}))
    return out, DATA_PARAMETER


# -- the interface -------------------------------------------------------------------------------

def parse_cli(chapter: str, pairs) -> dict:
    """Typed values for ``-p NAME VALUE`` pairs of ``chapter``.

    Raises
    ------
    ParameterError
        One line naming the parameter, the value (cut to :data:`QUOTE_MAX` characters) and
        what is allowed: an unknown name (listing the known ones), a value of the wrong type
        or out of its range, ``cards_dir`` or the data parameter (set by ``--data``).
    """
    decl = declarations(chapter)
    _, data_param = reader_defaults(chapter)
    out = {}
    for name, text in pairs:
        if name not in decl:
            settable = ", ".join(n for n, d in decl.items() if d.settable and n != data_param)
            raise ParameterError(f"-p {quote(name)}: chapter '{chapter}' has no such parameter (it has: {settable})")
        if name == data_param:
            raise ParameterError(f"-p {name}: give the data file with --data FILE, not -p")
        try:
            out[name] = decl[name].parse(str(text))
        except Invalid as exc:
            raise ParameterError(f"-p {name} {quote(text)}: {exc}") from None
    return out


def validate(chapter: str, values: dict) -> None:
    """Check complete parameter values (defaults and overrides) against their declarations."""
    decl = declarations(chapter)
    for name, value in values.items():
        if name not in decl:
            raise ParameterError(f"parameter {quote(name)}: chapter '{chapter}' has no such parameter")
        try:
            decl[name].check(value)
        except Invalid as exc:
            raise ParameterError(f"parameter {name} = {quote(value)}: {exc}") from None


def describe(chapter: str) -> list[dict]:
    """Every parameter of ``chapter``: name, type, default, unit, range, help, settable, and details.

    ``default`` is the notebook's (the book's own run); ``run_default`` is what ``mqperf run``
    starts from on a reader's data (companion datasets of the book are then off).
    """
    decl = declarations(chapter)
    values = defaults(chapter)
    reader, data_param = reader_defaults(chapter)
    rows = []
    for name, d in decl.items():
        how = "-p" if d.settable else "set by mqperf run"
        row = {"name": name, "type": d.kind, "default": values.get(name), "unit": getattr(d, "unit", ""),
               "range": d.span(), "help": d.help, "settable": d.settable and name != data_param,
               "how_to_set": how if name != data_param else "--data FILE",
               # mqperf run starts from these instead of the book's companion datasets
               "run_default": reader.get(name, values.get(name))}
        row.update({k: v for k, v in d.extra().items() if k not in row})
        rows.append(row)
    return rows


@dataclass(frozen=True)
class Effective:
    """The parameters a run executes with, and where the data parameter is."""

    values: dict = field(default_factory=dict)
    data_parameter: str | None = None


def effective(chapter: str, source: str | None, overrides: dict | None = None) -> Effective:
    """Values a ``mqperf run`` passes: notebook defaults, then reader defaults, then ``-p``, then ``--data``.

    Without a ``source`` these are the book's own values (no reader defaults).
    """
    values = defaults(chapter)
    values.update(run_overrides(chapter, source, overrides))
    return Effective(values, reader_defaults(chapter)[1])


def run_overrides(chapter: str, source: str | None, given: dict | None = None) -> dict:
    """What a run changes from the notebook's defaults (what papermill is given): the reader
    defaults when ``source`` is a reader's file, then ``given`` (``-p``), then the data file."""
    reader, data_param = reader_defaults(chapter)
    values = dict(reader) if source is not None else {}  # the book's own run keeps its companion datasets
    values.update(given or {})
    if data_param and source is not None:
        values[data_param] = str(Path(source).expanduser().resolve())
    return values


def for_inputs(chapter: str, inputs: dict, given: dict | None = None) -> dict:
    """What a run on the reader's files changes from the notebook's defaults: the reader
    defaults, the ``-p`` values, then every input the files were routed to
    (``inputs`` as :func:`mqperf.data.ingest.prepare` returns them)."""
    values = run_overrides(chapter, inputs["data"], given)
    values.update({k: v for k, v in inputs.items() if k != "data"})
    return values
