"""``mqperf fleet --reports``: each dataset's own report, made in the worker's warm kernel.

A worker keeps one :class:`~mqperf.publish.engine.Kernel` per thread (Dask runs tasks on a
worker's threads; a kernel and its client serve one thread), so the second and later reports
on a worker pay only for the chapter's own work. A report is written into the row cache
beside the row (``<cache>/<key>.report/``), so an interrupted run keeps the reports it made,
and copied into ``DIR/reports/<id>/`` when the summary is published.
"""

from __future__ import annotations

import atexit
import shutil
import threading
from pathlib import Path

_LOCAL = threading.local()


def folder(cache: Path, key: str) -> Path:
    """Where the report of row ``key`` is kept between runs."""
    return cache / f"{key}.report"


def is_made(cache: Path, key: str, chapter: str) -> bool:
    return (folder(cache, key) / f"{chapter}.html").is_file()


def _kernel():
    kernel = getattr(_LOCAL, "kernel", None)
    if kernel is None:
        from mqperf.paths import chapters_dir
        from mqperf.publish import engine

        kernel = _LOCAL.kernel = engine.Kernel(chapters_dir())
        atexit.register(kernel.close)
    return kernel


def make(chapter: str, data: str, values: dict, target: Path) -> list[dict]:
    """In the worker: ``chapter`` on ``data`` with the run's ``values`` into ``target`` (replaced whole).

    Returns the row's summary rows, computed in the kernel from the notebook's own results
    (its ``r``), so the analysis runs once and the summary and the report cannot disagree.
    Raises :class:`~mqperf.publish.runner.ChapterFailed` when the notebook fails.
    """
    import json

    from mqperf import catalog
    from mqperf.publish import runner

    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    kernel = _kernel()
    try:
        runner.write_report(catalog.find(chapter), Path(data), values, staging, kernel, out=target)
        rows = json.loads(kernel.evaluate(
            "__import__('json').dumps(__import__('mqperf.publish.fleet_summary', fromlist=['_']).card_rows("
            f"{chapter!r}, __import__('json').loads({json.dumps(values)!r}), r))"))
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return rows


def publish(cache: Path, key: str, stage: Path, row_id: str, out: Path) -> None:
    """Copy row ``key``'s report into ``stage/reports/<id>/`` (``stage`` becomes ``out``)."""
    source = folder(cache, key)
    rel = Path("reports") / row_id
    dest, final = stage / rel, out / rel
    dest.mkdir(parents=True, exist_ok=True)
    for path in source.rglob("*"):
        if path.is_file():
            copy = dest / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".ipynb":
                # The notebook's injected cards_dir names the cache; name the published folder.
                text = path.read_text(encoding="utf-8").replace(str(source), str(final))
                copy.write_text(text, encoding="utf-8")
            else:
                shutil.copyfile(path, copy)
