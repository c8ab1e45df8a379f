"""One chapter on one reader's dataset, into a folder: the notebook, the HTML report, the cards.

``mqperf run`` calls :func:`write_report` once; ``mqperf fleet --reports`` once per dataset,
with the same warm :class:`~mqperf.publish.engine.Kernel`, so only the first run pays for the
imports. This module raises; printing and exit statuses are the CLI's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import mqperf


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


@dataclass
class Prepared:
    """A run checked and ready: its parameters, output folder, label and what was read."""

    params: dict
    target: object          # outdir.Target
    label: str
    convs: list
    converted: Path         # where the tool files' conversions were written
    metadata: dict = field(default_factory=dict)


def prepare(chapter, data, given: dict, out, tmp: Path, *, analyse: bool = True) -> Prepared:
    """Read and check a run of ``chapter`` on ``data`` into ``out``.

    Raises the one-line errors of the data, the parameters and the output folder before any
    notebook runs. With ``analyse`` the chapter's analysis runs here too, as ``mqperf check``
    runs it (:func:`mqperf.chapters.preflight`); without, only the parameters and the files'
    contracts are checked (:func:`mqperf.chapters.check_inputs`), for a caller whose notebook
    runs next and analyses the data itself (a failure there is a :class:`ChapterFailed`).
    """
    from mqperf import chapters, parameters
    from mqperf.data import ingest
    from mqperf.errors import MQPerfError, shorten
    from mqperf.publish import outdir, swap

    if not chapter.contract or not chapter.data_parameter:
        raise MQPerfError(f"chapter '{chapter.name}' takes no reader data")
    files = [Path(f).expanduser() for f in data]
    swap.recover(out)
    # A tool's files are read (and converted) into tmp; the report gets them as inputs/.
    values, convs = ingest.prepare(chapter.name, files, tmp)
    params = parameters.for_inputs(chapter.name, values, given)
    data_files = [v for v in params.values() if isinstance(v, str) and v and os.path.isfile(v)]
    target = outdir.inspect(out, data_files=[*files, *data_files])
    (chapters.preflight if analyse else chapters.check_inputs)(chapter.name, Path(values["data"]), params)
    label = ", ".join(shorten(f.name, 40) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return Prepared(params, target, label, convs, tmp)


def make(run: Prepared, chapter, kernel, *, pdf: bool = False, say=print, relative_to: Path | None = None) -> Path:
    """Execute a prepared run and publish its report (notebook, HTML, cards, PDF on request).

    ``run.metadata`` goes into the notebook's ``mqperf`` metadata; with ``relative_to``, the
    notebook's injected paths are written relative to that folder (a report repository's root,
    so its committed notebooks hold no machine's paths). Returns the published folder.
    """
    import nbformat

    from mqperf.publish import outdir

    with outdir.staging(run.target) as stage:
        params = stage_inputs(run.params, run.converted, stage)
        write_report(chapter, run.label, params, stage, kernel, out=run.target.path)
        nb_path = stage / f"{chapter.name}.ipynb"
        if run.metadata or relative_to is not None:
            nb = nbformat.read(nb_path, as_version=4)
            nb.metadata.setdefault("mqperf", {}).update(run.metadata)
            if relative_to is not None:
                for cell in nb.cells:
                    if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
                        cell.source = cell.source.replace(str(relative_to) + os.sep, "")
            nbformat.write(nb, nb_path)
        if pdf:
            from mqperf.publish import pdf as printer

            say("  printing the PDF ...")
            printer.reports([(stage / f"{chapter.name}.html", stage / f"{chapter.name}.pdf")])
        outdir.publish(stage, run.target, chapter=chapter.name, version=mqperf.__version__, data=run.label)
    return run.target.path


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
                        subtitle=f"{chapter.title}: run on {getattr(source, 'name', source)} with mqperf {mqperf.__version__}")
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
