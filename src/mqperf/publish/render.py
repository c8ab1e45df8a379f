"""Render the executed book to HTML with Jupyter Book: generated pages first, then a swap.

The render runs in ``.cache/jb`` and is copied into ``_build/html`` only when Jupyter Book
succeeds, so a failed render leaves the published HTML as it was. Nothing is rendered when
every input of the render (:func:`html_inputs_hash`) is what the last render read.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mqperf.paths import book_root, package_dir
from mqperf.publish.digest import digest

def render_html(*, strict: bool = False, force: bool = False, echo=print, warm: Warm | None = None,
                pages_written: tuple = ()) -> Path:
    """Jupyter Book build into .cache/jb, then swap into _build/html. Returns the HTML dir.

    Nothing is rendered when the inputs (:func:`html_inputs_hash`) are those of the last render,
    unless ``strict`` (warnings checked) or ``force``. ``warm``, when given, is the Jupyter Book
    process that renders (its imports done ahead); it is used up or closed either way.
    ``pages_written``: generated pages the caller has written already in this build.
    """
    from mqperf.publish import pages

    try:
        root = book_root()
        pages.write_all([name for name in pages.PAGES if name not in pages_written])
        target = root / "_build" / "html"
        stamp = target / HTML_STAMP
        inputs = html_inputs_hash(root)
        if not (strict or force) and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == inputs:
            echo("  html      unchanged: no page, notebook, dataset, card or setting changed since the last render")
            return target
        staging = root / ".cache" / "jb"
        args = ["build", str(root), "--path-output", str(staging), "--builder", "html"]
        if strict:
            args += ["-W", "-n", "--keep-going"]
        echo("  html      rendering with Jupyter Book" + (" (warnings are errors)" if strict else "") + " ...")
        start = time.perf_counter()
        if warm is not None:
            proc = warm.run(args)
        else:
            proc = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), *args], cwd=root,
                                  capture_output=True, text=True)
    finally:
        if warm is not None:
            warm.close()
    if proc.returncode != 0:
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        problems = [ln for ln in lines if "WARNING" in ln or "ERROR" in ln]
        tail = "\n".join((problems or lines)[-30:])
        raise RuntimeError(f"jupyter-book build failed (exit {proc.returncode}); _build/html left as it was:\n{tail}")
    warnings = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "WARNING" in ln]
    for line in warnings[:20]:
        echo(f"  {line}")
    built = staging / "_build" / "html"
    _sync_static(root / "_static", built / "_static")
    (built / HTML_STAMP).write_text(inputs + "\n", encoding="utf-8")
    _swap_dir(built, target)
    echo(f"  html      rendered in {time.perf_counter() - start:.1f} s -> {target.relative_to(root)}/index.html")
    return target


#: In the rendered HTML folder: the hash of everything the render read (see html_inputs_hash).
HTML_STAMP = ".mqperf-html-inputs"

# What Jupyter Book reads to render the book: pages and notebooks, the data (the catalog page),
# the model cards (their page), static files, the configuration, and the code that renders.
_HTML_INPUTS = ("_config.yml", "_toc.yml", "requirements.lock", "chapters", "data", "models", "_static")


def html_inputs_hash(root: Path) -> str:
    """Hash of every file the HTML render depends on, so an unchanged book renders nothing."""
    parts = []
    for name in _HTML_INPUTS:
        path = root / name
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else ([path] if path.is_file() else [])
        for f in files:
            if any(part.startswith(".") for part in f.relative_to(root).parts):
                continue  # a notebook being executed, editor files: not what the book shows
            parts += [str(f.relative_to(root)).encode(), f.read_bytes()]
    for f in sorted((package_dir() / "publish").rglob("*.py")):
        parts += [str(f.relative_to(package_dir())).encode(), f.read_bytes()]
    return digest(*parts)


#: What Jupyter Book imports before it reads a page (0.8 s of a 2 s render): :class:`Warm` imports them ahead.
WARM_IMPORTS = ("jupyter_book.cli.main", "jupyter_book.sphinx", "sphinx.application", "sphinx.cmd.build",
                "myst_nb.sphinx_ext", "sphinx_book_theme", "sphinx_design.extension", "sphinx_external_toc.parsing",
                "mqperf.publish.sphinxext")

_WARM_MAIN = """
import importlib, json, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:
        pass  # the render meets what cannot be imported, and reports it as it always did
line = sys.stdin.readline()
if not line.strip():
    sys.exit(0)
sys.argv = ["jupyter-book", *json.loads(line)]
from jupyter_book.cli.main import main
sys.exit(main())
"""


class Warm:
    """A Jupyter Book process that imports what a render needs, then waits for its arguments.

    ``mqperf build`` starts one while the chapters execute (the build process only waits then,
    and this is another process, so the imports take no time from anyone), and the render after
    them starts at Sphinx's reading of the book: a one-chapter change renders in 1.2 s, not 2.0.
    :meth:`run` renders as ``jupyter-book ARGS`` would (the same interpreter, folder, environment
    and output); :meth:`close` ends a process that was not needed.
    """

    def __init__(self, root: Path):
        # -P: the book's folder is the working directory, and nothing in it may shadow a module.
        self.proc = subprocess.Popen([sys.executable, "-P", "-c", _WARM_MAIN, *WARM_IMPORTS], cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def run(self, args: list[str]) -> subprocess.CompletedProcess:
        out, err = self.proc.communicate(json.dumps(args) + "\n")
        return subprocess.CompletedProcess(["jupyter-book", *args], self.proc.returncode, out, err)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


def _sync_static(source: Path, built: Path) -> None:
    """Copy the book's own static files over the built ones.

    Sphinx (7.4+) neither overwrites a static file already in the output of an incremental
    build nor copies at all when no page changed, so an edited stylesheet would never reach
    the book without this.
    """
    if not source.is_dir():
        return
    for path in source.rglob("*"):
        if path.is_file():
            copy = built / path.relative_to(source)
            if not copy.is_file() or copy.read_bytes() != path.read_bytes():
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, copy)


def _swap_dir(source: Path, target: Path) -> None:
    """Replace ``target`` with a copy of ``source`` with as short a gap as a rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = target.with_name(target.name + ".new")
    old = target.with_name(target.name + ".old")
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(source, fresh)
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


