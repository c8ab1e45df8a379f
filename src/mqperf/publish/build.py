"""Build the book: execute chapters with papermill, then render HTML with Jupyter Book.

Execution is cached by content. A chapter is re-executed only when its *input hash*
changes: the hash of its cells' sources, of the package code, of the lock file, and of the
data files it reads. Those are resolved from its declared parameters (:func:`chapter_inputs`:
the book datasets its data parameters default to, the datasets its view module declares, its
contracts and the data package descriptor), not observed while it runs, so nothing passes
between the chapter's kernel and the build. The hash and the list of inputs are stored in the
committed notebook's metadata, so a fresh clone knows its notebooks are current without
running them.

A failed chapter leaves its committed notebook, ``models/`` cards and ``_build/html`` as
they were: notebooks are executed into a temporary file and swapped in only on success, the
cards a failed chapter wrote are put back as they were (:mod:`mqperf.publish.kept`, which also
keeps a notebook and cards that are the same book as before), and the HTML is rendered into
``.cache/jb`` and swapped into ``_build/html`` only when Jupyter Book succeeds.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mqperf import catalog
from mqperf.paths import book_root, chapters_dir, package_dir
from mqperf.publish import cpus
from mqperf.publish.digest import digest

@dataclass
class Outcome:
    chapter: str
    status: str  # "executed", "reused", "failed"
    seconds: float = 0.0
    error: str = ""
    #: Waiting for the worker's kernel to start (its first chapter only), not in ``seconds``.
    waited: float = 0.0


# -- hashing ----------------------------------------------------------------------------------

def source_hash(nb) -> str:
    """Hash of what a chapter *is*: cell types, sources and tags, and its mqperf metadata."""
    cells = [(c["cell_type"], c["source"], c.get("metadata", {}).get("tags", [])) for c in nb["cells"]]
    meta = {k: v for k, v in nb["metadata"].get("mqperf", {}).items() if k not in ("inputs", "input_hash")}
    return digest(json.dumps([cells, meta], sort_keys=True).encode())


# Modules that build, render or drive the book but are never imported by a chapter.
# Code that builds or publishes, but that no chapter runs: changing it re-renders, never re-executes.
BUILD_ONLY = ("publish", "cli")  # "cli.py" matched nothing once the CLI became a package


def environment_hash() -> str:
    """Hash of the package code chapters run and the locked dependency versions."""
    parts = []
    for path in sorted(package_dir().rglob("*.py")):
        if path.relative_to(package_dir()).parts[0] in BUILD_ONLY:
            continue
        parts.append(str(path.relative_to(package_dir())).encode())
        parts.append(path.read_bytes())
    lock = book_root() / "requirements.lock"
    if lock.exists():
        parts.append(lock.read_bytes())
    return digest(*parts)


def input_hash(nb, env_hash: str | None = None) -> str:
    root = book_root()
    parts = [source_hash(nb).encode(), (env_hash or environment_hash()).encode()]
    for rel in nb["metadata"].get("mqperf", {}).get("inputs", []):
        path = root / rel
        parts.append(rel.encode())
        parts.append(path.read_bytes() if path.exists() else b"<missing>")
    return digest(*parts)


def is_current(chapter: catalog.Chapter, env_hash: str | None = None) -> bool:
    nb = _read_for_hash(chapter.path)
    stored = nb["metadata"].get("mqperf", {}).get("input_hash")
    return stored is not None and stored == input_hash(nb, env_hash)


def _read_for_hash(path: Path) -> dict:
    """A notebook as :func:`input_hash` reads it: its metadata, and its cells with their sources
    joined into one string each, as ``nbformat.read`` gives them. Plain JSON: checking it
    against the notebook schema cost every build 0.2 s for the book's twenty (importing and
    compiling the checker), and an executed notebook is checked when it is read back. A
    notebook in another format version goes through ``nbformat.read``."""
    text = Path(path).read_text(encoding="utf-8")
    nb = json.loads(text)
    if nb.get("nbformat") != 4:
        import nbformat

        return nbformat.reads(text, as_version=4)
    for cell in nb.get("cells", []):
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    nb.setdefault("metadata", {})
    return nb


# -- execution --------------------------------------------------------------------------------

def execute_notebook(source: Path, target: Path, *, parameters: dict | None = None, cwd: Path | None = None) -> None:
    """Run ``source`` with papermill into ``target``, in a kernel of its own (a cold run).

    The build and ``mqperf run`` use warm kernels (:mod:`mqperf.publish.engine`); this is the
    reference they must equal byte for byte (``tests/publish/test_engine.py``), and the way to run a
    notebook that needs a kernel nobody else has touched.

    Raises papermill's PapermillExecutionError when a cell fails; ``target`` then holds
    the partial notebook, which callers keep away from anything published.
    """
    import papermill

    with _kernel_stderr_captured():
        papermill.execute_notebook(
            str(source), str(target), parameters=parameters or {}, kernel_name="python3",
            cwd=str(cwd or source.parent), progress_bar=False, log_output=False,
            request_save_on_cell_execute=False,
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )


def chapter_inputs(name: str) -> list[str]:
    """The book files chapter ``name`` reads when run on its defaults, relative to the book root.

    Every data parameter's default dataset, the datasets its view module lists in ``READS``
    (a view that joins another table), the chapter's contracts (which decide how a file is
    read) and the data package descriptor (the datasets' schemas).
    """
    import importlib

    from mqperf import declarations, parameters
    from mqperf.data import loader
    from mqperf.data.contracts import SHARED, contracts_dir

    root = book_root()
    datasets = set(loader.resource_names())
    # The parameters cell, not the chapter module: a chapter is a notebook first, and its
    # defaults are what the book runs.
    names = {v for v in parameters.defaults(name).values() if isinstance(v, str) and v in datasets}
    try:
        view = importlib.import_module(f"mqperf.data.views.{name}")
        names.update(getattr(view, "READS", ()))
    except ModuleNotFoundError as exc:
        if exc.name != f"mqperf.data.views.{name}":
            raise
    files = {loader.resource_path(n) for n in names}
    # A default that is a file or folder (a chapter whose book run reads an example file, as the
    # kernel sees it from chapters/): its files are inputs too.
    for value in parameters.defaults(name).values():
        if isinstance(value, str) and value and value not in datasets and declarations.looks_like_path(value):
            path = (chapters_dir() / value).resolve()
            if path.is_file():
                files.add(path)
            elif path.is_dir():
                files.update(p for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith("."))
    files.add(loader.data_dir() / loader.PACKAGE_FILE)
    files.update(p for p in contracts_dir().glob(f"{name}*.json") if p.stem.split(".")[0] == name)
    if (contracts_dir() / SHARED).exists():
        files.add(contracts_dir() / SHARED)
    return sorted(os.path.relpath(f, root) for f in files)


@contextmanager
def _kernel_stderr_captured():
    """Send what the kernel writes to stderr (it inherits fd 2) to a temporary file.

    A kernel interrupted after a failing cell prints its own tracebacks; a reader's
    terminal should show our one-line error instead. The captured text is replayed when
    the failure is not a chapter error (papermill's PapermillExecutionError), where it
    may be the only clue.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        except Exception as exc:
            if getattr(exc, "ename", None) is None:
                os.dup2(saved, 2)
                sink.seek(0)
                sys.stderr.write(sink.read().decode("utf-8", "replace")[-4000:])
            raise
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def normalise(nb, *, inputs: list[str] | None = None, env_hash: str | None = None) -> None:
    """Make an executed notebook deterministic: drop papermill's timings and the kernel's Python
    patch version (``language_info.version``: the lock pins packages, not the interpreter, so a
    reader's 3.11.2 would otherwise rewrite every chapter it re-executes), record inputs."""
    nb.metadata.pop("papermill", None)
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        cell.metadata.pop("papermill", None)
        cell.metadata.pop("execution", None)
    if inputs is not None:
        nb.metadata.setdefault("mqperf", {})["inputs"] = sorted(inputs)
        nb.metadata["mqperf"]["input_hash"] = input_hash(nb, env_hash)


#: The warm kernel of this worker process (see :func:`_start_worker`).
_KERNEL = None


def _start_worker(cwd: str) -> None:
    """Pool initializer: start this worker's kernel at once, so its imports overlap the others'."""
    import multiprocessing.util

    from mqperf.publish import engine

    global _KERNEL
    _KERNEL = engine.Kernel(cwd)
    # Pool workers end without atexit handlers; multiprocessing's finalizers do run.
    multiprocessing.util.Finalize(_KERNEL, _KERNEL.close, exitpriority=10)


def _run_chapter(name: str, path: str, env_hash: str, kernel=None) -> Outcome:
    """Execute one chapter (in ``kernel``, by default this worker's warm kernel) into a temp file;
    swap it in on success."""
    import nbformat

    from mqperf.paths import models_dir
    from mqperf.publish import kept

    kernel = kernel or _KERNEL
    start = time.perf_counter()
    source = Path(path)
    tmp = source.with_name(f".{source.stem}.executing.ipynb")
    waited = 0.0
    cards = kept.Cards(models_dir(), name)
    succeeded = False
    try:
        # The kernel's start-up is the worker's, not the chapter's: timed apart, so the
        # longest-first order and the printed times are the chapters' own.
        kernel.ready()
        waited = time.perf_counter() - start
        start += waited
        kernel.execute(source, tmp)
        nb = nbformat.read(tmp, as_version=4)
        normalise(nb, inputs=chapter_inputs(name), env_hash=env_hash)
        nb = kept.notebook(nb, source)
        nbformat.write(nb, tmp)
        # The same bytes are not written again: the HTML render then knows the page is unchanged.
        if tmp.read_bytes() != source.read_bytes():
            tmp.replace(source)
        succeeded = True
    except Exception as exc:  # reported per chapter; the build decides what fails
        return Outcome(name, "failed", time.perf_counter() - start, _describe(exc), waited)
    finally:
        tmp.unlink(missing_ok=True)
        cards.settle(succeeded=succeeded)
    return Outcome(name, "executed", time.perf_counter() - start, waited=waited)


def _describe(exc: Exception) -> str:
    ename = getattr(exc, "ename", None)
    if ename:
        return f"{ename}: {getattr(exc, 'evalue', '')}".strip()
    return f"{type(exc).__name__}: {exc}"


def execute_chapters(chapters: list[catalog.Chapter], *, force: bool = False, jobs: int | None = None, echo=print,
                     while_executing=None) -> list[Outcome]:
    """Execute stale chapters in parallel; reuse current ones. Prints one line per chapter.

    ``while_executing``, when given, runs in a thread of this process while the chapters execute
    (in workers, or with one job in this process's kernel, whose messages are all it handles
    then), and is finished before this returns.
    """
    env_hash = environment_hash()
    todo, outcomes = [], []
    for chapter in chapters:
        if not force and is_current(chapter, env_hash):
            outcomes.append(Outcome(chapter.name, "reused"))
            echo(f"  reused    {chapter.name} (inputs unchanged)")
        else:
            todo.append(chapter)
    if todo:
        jobs = max(1, min(jobs or cpus.usable(), len(todo)))
        echo(f"  executing {len(todo)} chapter(s) with {jobs} parallel job(s) ...")
        seconds = _timings()
        # Longest first (as last measured; unknown ones first of all), so that no worker is
        # left running a long chapter alone at the end.
        todo.sort(key=lambda c: -seconds.get(c.name, float("inf")))
        side = None
        if while_executing is not None:
            import threading

            side = threading.Thread(target=while_executing, name="mqperf-while-executing", daemon=True)
        with _executing(todo, jobs, env_hash, side.start if side is not None else None) as results:
            for out in results:
                outcomes.append(out)
                if out.status == "executed":
                    seconds[out.chapter] = round(out.seconds, 2)
                    boot = f"; waited {out.waited:.1f} s for the kernel to start" if out.waited >= 0.1 else ""
                    echo(f"  executed  {out.chapter} ({out.seconds:.1f} s{boot})")
                else:
                    echo(f"  FAILED    {out.chapter} ({out.seconds:.1f} s): {out.error}")
            if side is not None and side.is_alive():
                side.join()
        _save_timings(seconds)
    return outcomes


@contextmanager
def _executing(todo: list[catalog.Chapter], jobs: int, env_hash: str, started=None):
    """The chapters' outcomes as they finish: in worker processes, each with its warm kernel, or
    with one job in a kernel of this process's own (a worker would first spend 0.3 s starting
    Python and importing this module before its kernel could start). ``started`` is called as
    soon as the work is under way (work held back until the kernel answered only moved the
    competition for the processor into the chapter's execution)."""
    if jobs == 1:
        from mqperf.publish import engine

        kernel = engine.Kernel(chapters_dir())
        try:
            if started is not None:
                started()
            yield (_run_chapter(c.name, str(c.path), env_hash, kernel) for c in todo)
        finally:
            kernel.close()
        return
    # Spawned, not forked: a process that already runs threads (a warm kernel's ZeroMQ I/O, a
    # notebook calling build) cannot fork safely, and a worker needs only this module anyway.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(str(chapters_dir()),),
                             mp_context=context) as pool:
        futures = [pool.submit(_run_chapter, c.name, str(c.path), env_hash) for c in todo]
        if started is not None:
            started()
        yield (future.result() for future in as_completed(futures))


#: Each chapter's last execution time (a cache: not committed, never read by a chapter).
TIMINGS = Path(".cache") / "chapter-seconds.json"


def _timings() -> dict:
    try:
        doc = json.loads((book_root() / TIMINGS).read_text(encoding="utf-8"))
        return {k: float(v) for k, v in doc.items()} if isinstance(doc, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def _save_timings(seconds: dict) -> None:
    path = book_root() / TIMINGS
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(sorted(seconds.items())), indent=1) + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only checkout builds as well, in table-of-contents order


def _import_for_render() -> None:
    """Import what writing the generated pages needs (pandas among it: 0.4 s). A failure is left
    for the render to meet, and report, when it imports the same modules."""
    try:
        import nbformat

        from mqperf import numbers, parameters  # noqa: F401
        from mqperf.data import contracts, readers  # noqa: F401
        from mqperf.present import cards, text  # noqa: F401
        from mqperf.publish import pages, render  # noqa: F401

        # Reading an executed chapter back checks it against the notebook schema, whose checker
        # is imported and compiled on first use (0.15 s): here, rather than after the execution.
        nbformat.validate(nbformat.v4.new_notebook())
    except Exception:  # noqa: BLE001 - the render imports these itself
        pass


def build(*, strict: bool = False, force: bool = False, jobs: int | None = None, only: list[str] | None = None,
          html: bool = True, echo=print) -> int:
    """The whole build; returns an exit status (0 ok, 1 a chapter or the render failed, 2 bad data)."""
    start = time.perf_counter()
    chapters = catalog.chapters()
    if only:
        unknown = set(only) - {c.name for c in chapters}
        if unknown:
            raise LookupError(f"no chapter named {', '.join(sorted(unknown))}")
        chapters = [c for c in chapters if c.name in only]
    echo(f"mqperf build: {len(chapters)} chapter(s)")
    warm, pages_written = [], []

    def while_executing():
        # A chapter changed, so the book will most likely render: Jupyter Book imports and sets
        # Sphinx up meanwhile, and the generated pages no execution changes are written.
        from mqperf.publish import pages, render

        warm.append(render.Warm(book_root(), render.jupyter_book_args(book_root(), strict=strict)))
        _import_for_render()
        try:
            before = [n for n in pages.PAGES if n not in pages.AFTER_EXECUTION]
            pages.write_all(before)
            pages_written.extend(before)
        except Exception:  # noqa: BLE001 - the render writes them again, and reports what fails
            pass

    try:
        outcomes = execute_chapters(chapters, force=force, jobs=jobs, echo=echo,
                                    while_executing=while_executing if html else None)
        failed = [o for o in outcomes if o.status == "failed"]
        if failed:
            echo(f"build failed: {len(failed)} chapter(s) did not execute; nothing was published")
            # Bad data or a model the data cannot support is bad input (2), not a crash (1).
            bad_input = all(o.error.startswith(("DataError", "ModelError")) for o in failed)
            return 2 if bad_input else 1
        if html:
            from mqperf.publish import render

            try:
                render.render_html(strict=strict, force=force, echo=echo, warm=warm.pop() if warm else None,
                                   pages_written=tuple(pages_written))
            except RuntimeError as exc:
                echo(str(exc))
                return 1
    finally:
        for process in warm:  # not used: a chapter failed, or the build was interrupted
            process.close()
    n_exec = sum(o.status == "executed" for o in outcomes)
    echo(f"done in {time.perf_counter() - start:.1f} s: {n_exec} executed, {len(outcomes) - n_exec} reused")
    return 0
