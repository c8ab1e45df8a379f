"""One way in for a chapter's data, whoever's it is: :func:`open`.

A reader's file is validated against the chapter's contract and comes back as it is. A book
dataset is stored in provenance form (long tables with quotes, derived rows, several
configurations in one file); the chapter's view module, ``mqperf.data.views.<chapter>``,
turns it into the same contract shape a reader's file has. Only these view modules know the
book's table shapes, so chapter code has no "is it a path?" branches.

A view module defines ``VIEWS = {input_parameter: function(dataset_name, frame) -> frame}``;
an input with no view is used as loaded. ``READS`` lists the other book datasets the chapter
reads on its own data (a joined table, :data:`SYSTEMS`), so the build can hash them.

A reader's file in a tool's own format (mqldt, fio, amqsevt, ...: :mod:`mqperf.data.readers`)
is recognised from its content and converted by :mod:`mqperf.data.ingest`; a folder (an
MQSMFCSV output folder) stands for the files in it.
"""

from __future__ import annotations

import functools

import importlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mqperf.data import contracts, loader


@dataclass(frozen=True)
class Source:
    """Where a chapter's input came from, as reports and model cards name it."""

    name: str | None         # dataset name, or the file's name
    sha256: str | None
    book_data: bool           # True for the book's own dataset (the published measurements)


def book_dataset(source) -> str | None:
    """The dataset name when ``source`` is one of the book's datasets (by name or by its path)."""
    if source is None or str(source) == "":
        return None
    text = str(source)
    if not loader.is_path(text) and not Path(text).suffix:
        return text
    return _locations(str(loader.data_dir())).get(Path(text).expanduser().resolve())


@functools.lru_cache(maxsize=8)
def _locations(data_dir: str) -> dict[Path, str]:
    """Each book dataset's resolved file path and name (per data folder: MQPERF_ROOT may move it).
    A fleet asks this for every input of every dataset; resolving 130 paths each time cost a third
    of a fleet dataset's CPU."""
    return {(Path(data_dir) / res["path"]).resolve(): res["name"] for res in loader.package_descriptor()["resources"]}


def _path(source) -> Path:
    """A reader's path; a relative one that is not there is taken from chapters/, where the
    notebooks run (a notebook's default example file, run from elsewhere)."""
    from mqperf.paths import chapters_dir

    path = Path(str(source)).expanduser()
    if not path.is_absolute() and not path.exists() and (chapters_dir() / path).exists():
        return chapters_dir() / path
    return path


def describe(source, chapter: str | None = None) -> Source:
    """The :class:`Source` of ``source`` (None or "" for no input)."""
    if source is None or str(source) == "":
        return Source(None, None, False)
    name = book_dataset(source)
    if name is not None:
        return Source(name, loader.file_hash(loader.resource_path(name)), True)
    path = _path(source)
    if path.is_dir():  # a tool's output folder: the hash of its files' names and hashes
        import hashlib

        from mqperf.data import readers

        digest = hashlib.sha256("".join(f"{p.name}\0{loader.file_hash(p)}\n" for p in readers.expand([path])).encode())
        return Source(path.name + "/", digest.hexdigest(), False)
    return Source(path.name, loader.file_hash(path), False)


def open(source, chapter: str, input: str = "data") -> pd.DataFrame:  # noqa: A001 (the verb is the point)
    """``source`` as the contract-shaped frame the chapter's ``input`` reads.

    Parameters
    ----------
    source
        A book dataset name, the path of a book dataset, a reader's CSV file, or a reader's
        file (or folder) in a tool's own format.
    chapter
        The chapter (its notebook's name).
    input
        The chapter parameter the source was given as (``"data"``, ``"constraints"``, ...).

    Raises
    ------
    DataError
        A reader's file does not meet the contract (file, column, line and problem named).
    """
    name = book_dataset(source)
    if name is None:
        from mqperf.data import ingest

        path = _path(source)
        routed = ingest.route(chapter, [path], explicit_input=input)
        conv = ingest.convert(routed[input], chapter, input)
        if conv.plain:
            return loader.load(path, contract=contracts.contract_for(chapter, input))
        return conv.frame
    frame = loader.load(name)
    view = getattr(_module(chapter), "VIEWS", {}).get(input)
    return frame if view is None else view(name, frame)


#: The book's table of the systems its sources measured on (one row per component and attribute).
SYSTEMS = "test_environments"


def system(env_id: str) -> pd.DataFrame:
    """The rows of ``test_environments`` describing one measured system: component, attribute,
    value. For about-passages; a view module that calls this lists SYSTEMS in its ``READS``."""
    env = loader.load(SYSTEMS)
    return env[env["env_id"] == env_id].reset_index(drop=True)


def _module(chapter: str):
    """The chapter's view module, or None when it has none."""
    try:
        return importlib.import_module(f"{__name__}.{chapter}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{chapter}":
            raise
        return None
