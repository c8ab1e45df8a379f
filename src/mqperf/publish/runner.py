"""One chapter on one reader's dataset, into a folder: the notebook, the HTML report, the cards.

``mqperf run`` calls :func:`write_report` once; ``mqperf fleet --reports`` once per dataset,
with the same warm :class:`~mqperf.publish.engine.Kernel`, so only the first run pays for the
imports. This module raises; printing and exit statuses are the CLI's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mqperf import __version__


@dataclass
class ChapterFailed(Exception):
    """The chapter's notebook failed: on bad input (a chapter error), or otherwise (a defect)."""

    ename: str | None
    evalue: str
    cause: BaseException
    kernel_stderr: str = ""

    @property
    def bad_input(self) -> bool:
        return self.ename in _bad_input_errors()

    def __str__(self) -> str:
        return f"{self.ename}: {self.evalue}" if self.ename else self.evalue


def stage_inputs(params: dict, converted: Path, stage: Path) -> dict:
    """Copy the inputs converted from a reader's tool files into ``stage/inputs/`` and point
    the parameters at the copies, so the published report holds what its notebook read."""
    import shutil

    files = sorted(converted.glob("*")) if converted.is_dir() else []
    if not files:
        return params
    folder = stage / INPUTS
    folder.mkdir()
    for f in files:
        shutil.copy2(f, folder / f.name)
    moved = {os.path.abspath(f): os.path.abspath(folder / f.name) for f in files}
    return {k: moved.get(v, v) if isinstance(v, str) else v for k, v in params.items()}


#: The report's folder of converted inputs.
INPUTS = "inputs"


def write_report(chapter, source, params: dict, stage: Path, kernel, *, out: Path | None = None) -> Path:
    """Execute ``chapter`` with ``params`` in ``kernel`` and write its report into ``stage``.

    Writes ``stage/<chapter>.ipynb`` (the executed notebook), ``stage/<chapter>.html`` (the
    standalone report) and ``stage/models/*.json``. ``out`` is where ``stage`` will be
    published: the notebook's injected parameters name it rather than the staging folder.
    ``source`` names the data in the subtitle (a path, or a label for several files).
    Returns the HTML report's path; raises :class:`ChapterFailed`.
    """
    import nbformat

    from mqperf.publish import build as book
    from mqperf.publish import report

    params = dict(params, cards_dir=str(stage / "models"))
    nb_path = stage / f"{chapter.name}.ipynb"
    try:
        kernel.execute(chapter.path, nb_path, parameters=params)
    except Exception as exc:
        ename = getattr(exc, "ename", None)
        evalue = getattr(exc, "evalue", None) if ename else f"{type(exc).__name__}: {exc}"
        raise ChapterFailed(ename, str(evalue), exc, kernel.stderr_tail()) from exc
    nb = nbformat.read(nb_path, as_version=4)
    book.normalise(nb)
    if out is not None:
        for cell in nb.cells:
            if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
                cell.source = cell.source.replace(str(stage), str(out))
    nbformat.write(nb, nb_path)
    html = stage / f"{chapter.name}.html"
    report.write_report(nb_path, html, title=chapter.title,
                        subtitle=f"{chapter.title}: run on {getattr(source, 'name', source)} with mqperf {__version__}")
    return html


def _bad_input_errors() -> set[str]:
    """Names of mqperf's bad-input exceptions, as a failing cell reports them (ename)."""
    from mqperf import errors

    found, todo = set(), [errors.MQPerfError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return found
