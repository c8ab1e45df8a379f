"""Render the executed book to HTML with Jupyter Book: generated pages first, then a swap.

The render runs in ``.cache/jb`` and is copied into ``_build/html`` only when Jupyter Book
succeeds, so a failed render leaves the published HTML as it was. Nothing is rendered when
every input of the render (:func:`html_inputs_hash`) is what the last render read.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from mqperf.paths import book_root, package_dir
from mqperf.publish.digest import digest

def render_html(*, strict: bool = False, force: bool = False, echo=print) -> Path:
    """Jupyter Book build into .cache/jb, then swap into _build/html. Returns the HTML dir.

    Nothing is rendered when the inputs (:func:`html_inputs_hash`) are those of the last render,
    unless ``strict`` (warnings checked) or ``force``.
    """
    from mqperf.publish import pages

    root = book_root()
    pages.write_all()
    target = root / "_build" / "html"
    stamp = target / HTML_STAMP
    inputs = html_inputs_hash(root)
    if not (strict or force) and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == inputs:
        echo("  html      unchanged: no page, notebook, dataset, card or setting changed since the last render")
        return target
    staging = root / ".cache" / "jb"
    cmd = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(root), "--path-output", str(staging), "--builder", "html"]
    if strict:
        cmd += ["-W", "-n", "--keep-going"]
    echo("  html      rendering with Jupyter Book" + (" (warnings are errors)" if strict else "") + " ...")
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
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


