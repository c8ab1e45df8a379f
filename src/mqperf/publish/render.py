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
    process that renders (started ahead with :func:`jupyter_book_args`); it is used up or closed
    either way.
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
        staging = staging_dir(root)
        args = jupyter_book_args(root, strict=strict)
        echo("  html      rendering with Jupyter Book" + (" (warnings are errors)" if strict else "") + " ...")
        start = time.perf_counter()
        if warm is not None and warm.args == args:
            proc = warm.run()
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
import importlib, json, os, sys
args = json.loads(sys.argv[1])
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
    except Exception:
        pass  # the render meets what cannot be imported, and reports it as it always did

def wait():
    if sys.stdin.readline().strip() != "go":
        os._exit(0)  # not needed after all

try:
    # Jupyter Book reads the configuration, sets Sphinx's extensions up and loads its pickled
    # environment now; it reads the book's pages only when told to go (Sphinx.build).
    from sphinx.application import Sphinx
    build = Sphinx.build
    def gated(self, *a, **kw):
        wait()
        return build(self, *a, **kw)
    Sphinx.build = gated
except Exception:
    wait()
sys.argv = ["jupyter-book", *args]
from jupyter_book.cli.main import main
try:
    main()
    code = 0
except SystemExit as exc:
    code = exc.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
# Everything is written; tearing down Sphinx's objects one by one would take 0.4 s more.
from mqperf.publish.quick_exit import quick_exit
quick_exit(code or 0)
"""


def staging_dir(root: Path) -> Path:
    """Where Jupyter Book renders before the HTML is swapped into ``_build/html``."""
    return root / ".cache" / "jb"


def jupyter_book_args(root: Path, *, strict: bool) -> list[str]:
    """The ``jupyter-book`` arguments of the book's render (into ``.cache/jb``)."""
    args = ["build", str(root), "--path-output", str(staging_dir(root)), "--builder", "html"]
    return args + ["-W", "-n", "--keep-going"] if strict else args


class Warm:
    """A Jupyter Book process started ahead, to render with ``args`` when told to.

    ``mqperf build`` starts one while the chapters execute (the build process only waits then,
    and this is another process, so the work takes no time from anyone). It imports what a
    render needs, reads the configuration, sets Sphinx up and loads its environment, then waits;
    :meth:`run` lets it read and write the book: a one-chapter change renders in about 1 s, not 2.
    It renders as ``jupyter-book ARGS`` would (the same interpreter, folder, environment and
    output), and ends without tearing its objects down. :meth:`close` ends one not needed.
    """

    def __init__(self, root: Path, args: list[str]):
        self.args = list(args)
        # -P: the book's folder is the working directory, and nothing in it may shadow a module.
        self.proc = subprocess.Popen([sys.executable, "-P", "-c", _WARM_MAIN, json.dumps(self.args), *WARM_IMPORTS],
                                     cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)

    def run(self) -> subprocess.CompletedProcess:
        out, err = self.proc.communicate("go\n")
        return subprocess.CompletedProcess(["jupyter-book", *self.args], self.proc.returncode, out, err)

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


