"""A chapter's parameters for one run: its declarations, its defaults, and the values a run executes with.

Each chapter package declares ``PARAMETERS`` with the types of :mod:`mqperf.declarations`. The
notebook's ``parameters`` cell keeps the defaults (papermill reads them there, :mod:`mqperf.catalog`
too); ``mqperf list``, ``mqperf run`` and the Bring-your-own-data page read the declarations through
:func:`describe` and :func:`parse_cli`, and a test keeps the two in step.

Cheap to import, like :mod:`mqperf.declarations`: a bad ``-p`` value costs the reader well under a second.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from mqperf import catalog
from mqperf.declarations import DataFile, Invalid, Param, quote
from mqperf.errors import ParameterError

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
