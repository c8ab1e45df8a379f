"""``mqperf fleet``: one chapter's analysis on many datasets, one summary, on Dask.

A manifest CSV names the datasets (``id``, ``data``, optional parameter columns). Each
(dataset, chapter) runs :func:`mqperf.chapters.preflight` in a Dask worker process
(:func:`mqperf.publish.fleet_summary.run_row`); the workers import pandas, scipy and the
chapter once (:func:`~mqperf.publish.fleet_summary.warm`) and stay warm for every row.
Dask is the scheduler: a ``LocalCluster`` sized to the machine, or the cluster at
``--scheduler``. The client collects small dicts, writes ``summary.csv`` and ``index.html``
through the output-folder rules of :mod:`mqperf.publish.outdir` (stage, then publish).
The manifest is read and checked in :mod:`mqperf.publish.fleet_manifest`; the rows, the CSV
and the page are made in :mod:`mqperf.publish.fleet_summary`.

Resuming. Each finished row is written at once to a *row cache*, a hidden sibling of DIR
named ``.<DIR>.mqperf-fleet-cache/`` (one JSON file per row key). Why there and not inside
DIR: DIR must stay exactly as it was until the summary is published (an interrupted run
changes nothing in it, and the publish step swaps the whole folder, which would drop a
cache kept inside), and a file mqperf did not list in DIR's manifest would make DIR a
stranger's folder to the next run. A sibling is on the same file system, survives an
interruption, and :func:`mqperf.publish.swap.recover` leaves it alone (it is no staging,
backup or parked folder). The key of a row hashes the chapter, the data file's bytes (and
any other file a parameter names), the row's parameter values, the package environment
(:func:`mqperf.publish.build.environment_hash`) and this summary code, so a rerun
recomputes exactly the rows whose inputs changed. After a publish the cache keeps only the
rows of that summary. Rows that *failed* (a defect, a lost worker) are never cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from mqperf.errors import MQPerfError, ParameterError, shorten
from mqperf.publish import cpus
from mqperf.publish.fleet_manifest import Job, read_manifest

CACHE_SUFFIX = "mqperf-fleet-cache"
EXIT_OK, EXIT_FAILED = 0, 1

# -- keys and the row cache --------------------------------------------------------------------

def _file_sha(path: str | Path) -> str:
    if Path(path).is_dir():  # a tool's output folder: its files' names and hashes
        from mqperf.data import views

        return views.describe(str(path)).sha256
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_hash() -> str:
    """This summary code (outside :func:`~mqperf.publish.build.environment_hash`, which skips publish/)."""
    from mqperf.publish import build, fleet_summary

    return hashlib.sha256(build.environment_hash().encode()
                          + Path(fleet_summary.__file__).read_bytes()).hexdigest()


def row_key(job: Job, env: str) -> str:
    """The cache key of a runnable job: chapter, file bytes, parameter values, environment."""
    params = {}
    for name, value in sorted(job.params.items()):
        if name == "data":
            continue
        # A file a parameter names counts by its bytes: moving the folder keeps the key.
        params[name] = ("sha256:" + _file_sha(value)) if isinstance(value, str) and os.path.isfile(value) else value
    doc = {"chapter": job.chapter, "data": _file_sha(job.path), "params": params, "env": env}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:32]


def cache_dir(out: Path) -> Path:
    """The row cache of output folder ``out`` (see the module docstring for why it is a sibling)."""
    return out.with_name(f".{out.name}.{CACHE_SUFFIX}")


def _cached(folder: Path, key: str) -> dict | None:
    try:
        doc = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("status") in ("ok", "bad input") else None


def _store(folder: Path, key: str, result: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{key}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(result, allow_nan=True), encoding="utf-8")
    tmp.replace(folder / f"{key}.json")  # a row is either cached whole or not at all


def _prune(folder: Path, keep: set[str]) -> None:
    import shutil

    for file in folder.glob("*.json"):
        if file.stem not in keep:
            file.unlink(missing_ok=True)
    for report in folder.glob("*.report"):
        if report.name.removesuffix(".report") not in keep:
            shutil.rmtree(report, ignore_errors=True)


# -- running -----------------------------------------------------------------------------------

class Progress:
    """Lines like ``fleet: 12/50 done, 3.1 datasets/s, ETA 12 s`` at most twice a second."""

    def __init__(self, total: int, todo: int, echo):
        self.total, self.todo, self.echo = total, todo, echo
        self.done = total - todo
        self.computed = 0
        self.start = time.perf_counter()
        self.last = 0.0

    def tick(self) -> None:
        self.done += 1
        self.computed += 1
        now = time.perf_counter()
        if now - self.last < 0.5 and self.computed < self.todo:
            return
        self.last = now
        rate = self.computed / max(now - self.start, 1e-9)
        left = self.todo - self.computed
        eta = f"ETA {left / rate:.0f} s" if left else "finished"
        self.echo(f"fleet: {self.done}/{self.total} done, {rate:.1f} datasets/s, {eta}")

    def rate(self) -> float:
        return self.computed / max(time.perf_counter() - self.start, 1e-9)


def _quiet_dask() -> None:
    for name in ("distributed", "tornado", "asyncio", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _client(scheduler: str | None, workers: int):
    """A Dask client (and the LocalCluster it owns, or None for --scheduler)."""
    _quiet_dask()
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise MQPerfError(f"--scheduler {shorten(scheduler)}: cannot connect "
                              f"({shorten(' '.join(str(exc).split()), 120)})") from None
    # ":0": the scheduler's HTTP server on a free port; with None it still tries 8787 and
    # warns on the terminal when another cluster holds it.
    # A terminal's Ctrl-C goes to every process of its group, and the worker processes would
    # print Dask's tracebacks on the reader's terminal. They are started with a log file as their
    # standard error (a process inherits its parent's descriptors), and this process holds a
    # Ctrl-C during the start until the cluster object exists, then raises it to close the cluster.
    cluster = None
    try:
        with _sigint_held(), _stderr_to(_worker_log()):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.CRITICAL)
        return Client(cluster), cluster
    except BaseException:
        if cluster is not None:
            cluster.close()
        raise


def _worker_log() -> Path:
    from mqperf.paths import log_dir

    return log_dir() / f"fleet-workers-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"


@contextlib.contextmanager
def _stderr_to(path: Path):
    """File descriptor 2 of this process (and of the processes it starts meanwhile) on ``path``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


@contextlib.contextmanager
def _sigint_held():
    """SIGINT blocked in this thread (and in the threads and processes it starts) while inside."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        # A pending SIGINT is delivered now, as KeyboardInterrupt, once the cluster can be closed.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def compute(todo: dict[str, Job], chapters: list[str], *, scheduler: str | None, workers: int, store, echo,
            progress: Progress, reports: Path | None = None) -> dict[str, dict]:
    """Run one job per key on Dask; ``store(key, result)`` as each finishes. Closes the cluster on any exit."""
    from distributed import as_completed

    from mqperf.publish import fleet_summary

    results: dict[str, dict] = {}
    client, cluster = _client(scheduler, workers)
    try:
        try:
            client.run(fleet_summary.warm, chapters)
        except Exception as exc:  # a remote worker without this mqperf (or another version of it)
            raise MQPerfError(f"a Dask worker cannot import mqperf or the chapter: {type(exc).__name__}: "
                              f"{shorten(' '.join(str(exc).split()), 160)}; install this mqperf on every worker") from None
        from mqperf.publish import fleet_reports

        futures = {client.submit(fleet_summary.run_row, job.chapter, str(job.path), job.params,
                                 str(fleet_reports.folder(reports, key)) if reports else None,
                                 key=f"mqperf-fleet-{key}", pure=False, retries=0): key
                   for key, job in todo.items()}
        for future in as_completed(futures):
            key = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # the worker died, or Dask lost the task: this row failed
                result = {"status": fleet_summary.FAILED, "rows": [],
                          "reason": shorten(f"{type(exc).__name__}: {' '.join(str(exc).split())}", 300)}
            results[key] = result
            store(key, result)
            progress.tick()
            future.release()
    finally:
        _close(client, cluster)
    return results


def _close(client, cluster) -> None:
    # Closing after Ctrl-C makes Dask log about cancelled tasks and lost workers: noise.
    _quiet_dask()
    try:
        client.close(timeout=10)
    except Exception:
        pass
    if cluster is not None:
        try:
            cluster.close(timeout=10)
        except Exception:
            pass


def run(manifest, chapters, out, *, scheduler: str | None = None, jobs: int | None = None, parameters=(),
        reports: bool = False, pdf: bool = False, quiet: bool = False) -> int:
    """One summary of ``chapters`` on every dataset ``manifest`` names, into ``out``.

    Returns the exit status (0, or 1 when some rows failed); raises an MQPerfError for bad input
    (exit 2). SIGTERM unwinds like Ctrl-C, so DIR is left as it was.
    """
    from mqperf.publish.outdir import signals_as_exceptions

    with signals_as_exceptions():
        return _run(manifest, list(chapters), out, scheduler=scheduler, workers=jobs, parameters=list(parameters),
                    reports=reports, print_pdf=pdf, quiet=quiet)


def _run(manifest, chapters, out, *, scheduler, workers, parameters, reports, print_pdf, quiet) -> int:
    from mqperf import __version__
    from mqperf.publish import fleet_reports
    from mqperf.publish import fleet_summary as fs
    from mqperf.publish import outdir, swap

    say = (lambda *_: None) if quiet else (lambda m: print(m, flush=True))
    chapters = list(dict.fromkeys(chapters))
    if workers is not None and workers < 1:
        raise ParameterError(f"-j {workers}: give at least 1 worker")
    if print_pdf and not reports:
        raise ParameterError("--pdf prints the per-dataset reports: give --reports too")
    if print_pdf:
        from mqperf.publish import pdf

        pdf.find_chromium()
    jobs = read_manifest(manifest, chapters, [tuple(p) for p in parameters])
    swap.recover(out)
    data_files = [Path(manifest)] + [j.path for j in jobs if j.path is not None]
    target = outdir.inspect(out, data_files=data_files)
    cache = cache_dir(target.path)

    env = code_hash()
    results: dict[str, dict] = {}
    todo: dict[str, Job] = {}
    for job in jobs:
        if job.problem:
            continue
        job.key = row_key(job, env)
        if job.key in results or job.key in todo:
            continue  # the same file and parameters under another id: computed once
        hit = _cached(cache, job.key)
        if hit is not None and reports and hit["status"] == "ok" and not fleet_reports.is_made(cache, job.key, job.chapter):
            hit = None  # computed before without its report: make both now
        if hit is not None:
            results[job.key] = hit
        else:
            todo[job.key] = job
    runnable = sum(1 for j in jobs if not j.problem)
    reused = sum(1 for j in jobs if not j.problem and j.key in results)
    say(f"mqperf fleet: {len(jobs)} datasets × chapters from {manifest}; "
        f"{len(jobs) - runnable} bad before running; reused {reused}; {len(todo)} to compute")
    progress = Progress(len(jobs), len(todo), say)
    if todo:
        used = min(workers or cpus.usable(), len(todo))
        if scheduler:
            say(f"  on the Dask scheduler at {scheduler}" + (" (-j is ignored with --scheduler)" if workers else ""))
        else:
            say(f"  on a local Dask cluster of {used} worker process{'es' * (used != 1)}")
        results.update(compute(todo, chapters, scheduler=scheduler, workers=used,
                               store=lambda k, r: _store(cache, k, r) if r["status"] != fs.FAILED else None,
                               echo=say, progress=progress, reports=cache if reports else None))
    rows = []
    for job in jobs:
        result = ({"status": fs.BAD, "reason": shorten(job.problem, 300), "rows": []} if job.problem
                  else results[job.key])
        made = reports and result["status"] == fs.OK
        extra = {"report": f"reports/{job.id}/{job.chapter}.html" if made else ""} if reports else {}
        rows.extend({**row, **extra} for row in
                    fs.summary_rows({"id": job.id, "chapter": job.chapter, "data": job.data}, result))
    frame = fs.with_use_of_peak(fs.summary_frame(rows), chapters)
    datasets = len({j.id for j in jobs})
    with outdir.staging(target) as stage:
        fs.write_csv(frame, stage / "summary.csv")
        if reports:
            printable = []
            for job in jobs:
                if not job.problem and results[job.key]["status"] == fs.OK:
                    fleet_reports.publish(cache, job.key, stage, job.id, target.path)
                    folder = stage / "reports" / job.id
                    printable.append((folder / f"{job.chapter}.html", folder / f"{job.chapter}.pdf"))
            if print_pdf and printable:
                from mqperf.publish import pdf

                say(f"  printing {len(printable)} report PDFs ...")
                pdf.reports(printable)
        fs.write_page(frame, stage / "index.html", chapters=chapters, datasets=datasets,
                      title=f"Fleet summary: {', '.join(chapters)} on {Path(manifest).name}")
        outdir.publish(stage, target, chapter="fleet", version=__version__, data=Path(manifest).name)
    _prune(cache, {j.key for j in jobs if j.key})
    status = [fs.BAD if j.problem else results[j.key]["status"] for j in jobs]
    bad, failed = status.count(fs.BAD), status.count(fs.FAILED)
    rate = f", {progress.rate():.1f} datasets/s" if todo else ""
    print(f"mqperf fleet: {len(jobs)} rows (reused {reused}, computed {len(todo)}{rate}); "
          f"{bad} bad input, {failed} failed; summary: {target.path / 'summary.csv'}, page: {target.path / 'index.html'}")
    sys.stdout.flush()
    return EXIT_FAILED if failed else EXIT_OK
