"""The render's warm Jupyter Book process (``mqperf.publish.render.Warm``): it renders as
``jupyter-book ARGS`` does, and ends when it is not needed.

``mqperf build`` starts one while the chapters execute; the book's own renders (the browser
and PDF tests' ``built_book``, ``test_build``) go through it, so these tests hold only what
those cannot show.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqperf.publish import render

JUPYTER_BOOK = str(Path(sys.executable).with_name("jupyter-book"))


def test_it_runs_what_the_command_runs(tmp_path):
    want = subprocess.run([JUPYTER_BOOK, "--version"], cwd=tmp_path, capture_output=True, text=True)
    got = render.Warm(tmp_path, ["--version"]).run()
    assert (got.returncode, got.stdout) == (want.returncode, want.stdout) and "Jupyter Book" in got.stdout
    bad = render.Warm(tmp_path, ["build", str(tmp_path / "no such book")]).run()
    assert bad.returncode != 0 and bad.returncode == subprocess.run(
        [JUPYTER_BOOK, "build", str(tmp_path / "no such book")], cwd=tmp_path, capture_output=True).returncode


def test_a_module_in_the_books_folder_shadows_nothing(tmp_path):
    # The process runs in the book's folder; a reader's file there named like a module it imports
    # must not be imported in its place.
    (tmp_path / "sphinx.py").write_text("raise SystemExit('the book folder was on the import path')\n")
    got = render.Warm(tmp_path, ["--version"]).run()
    assert got.returncode == 0, got.stderr


def test_a_module_that_cannot_be_imported_ahead_is_left_to_the_render(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "WARM_IMPORTS", ("no_such_module_for_mqperf", *render.WARM_IMPORTS))
    got = render.Warm(tmp_path, ["--version"]).run()
    assert got.returncode == 0 and "Jupyter Book" in got.stdout, got.stderr


def test_one_not_needed_is_ended(tmp_path):
    warm = render.Warm(tmp_path, ["--version"])
    warm.close()
    assert warm.proc.returncode is not None
    warm.close()  # twice is harmless


def test_compiled_templates_are_kept_where_they_can_be(tmp_path):
    from types import SimpleNamespace

    from jinja2 import Environment, FileSystemBytecodeCache

    from mqperf.publish import sphinxext

    environment = Environment()
    app = SimpleNamespace(builder=SimpleNamespace(templates=SimpleNamespace(environment=environment)),
                          doctreedir=str(tmp_path / "_build" / ".doctrees"))
    sphinxext._keep_compiled_templates(app)
    assert isinstance(environment.bytecode_cache, FileSystemBytecodeCache)
    assert environment.bytecode_cache.directory == str(tmp_path / "_build" / ".jinja-bytecode")
    # Another template bridge, or a folder that cannot be made: templates compiled each time, as before.
    sphinxext._keep_compiled_templates(SimpleNamespace(builder=SimpleNamespace(), doctreedir=str(tmp_path)))
    (tmp_path / "file").write_text("")
    blocked = Environment()
    app.builder.templates.environment, app.doctreedir = blocked, str(tmp_path / "file" / "_build" / ".doctrees")
    sphinxext._keep_compiled_templates(app)
    assert blocked.bytecode_cache is None


@pytest.fixture
def tiny_book(tmp_path):
    """A one-page book with the book's Sphinx extension; renders into ``tmp_path / "out"``."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: t\nexecute:\n  execute_notebooks: 'off'\n"
                                      "sphinx:\n  extra_extensions:\n    - mqperf.publish.sphinxext\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (book / "intro.md").write_text("# Intro\n\nText.\n")
    return book, ["build", str(book), "--path-output", str(tmp_path / "out"), "--builder", "html"]


@pytest.mark.slow  # renders a book
def test_it_waits_to_be_told_before_it_reads_the_book(tiny_book, tmp_path):
    """Started ahead, it sets Sphinx up (its output folder appears) but writes no page until
    :meth:`run`; closed, never."""
    book, args = tiny_book
    idle = render.Warm(book, args)
    html = tmp_path / "out" / "_build" / "html"
    deadline = time.monotonic() + 120
    while not html.is_dir() and idle.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # Sphinx makes its output folder as it is set up
    assert html.is_dir() and idle.proc.poll() is None  # set up ahead, and waiting
    time.sleep(0.5)
    assert not (html / "intro.html").exists()
    idle.close()
    assert not (html / "intro.html").exists()
    got = render.Warm(book, args).run()
    assert got.returncode == 0, got.stderr
    assert "Intro" in (html / "intro.html").read_text()


@pytest.mark.slow  # renders a book twice
def test_a_render_keeps_its_compiled_templates_and_the_next_loads_them(tiny_book, tmp_path):
    book, args = tiny_book
    assert render.Warm(book, args).run().returncode == 0
    kept = {p: p.stat().st_mtime_ns for p in (tmp_path / "out" / "_build" / ".jinja-bytecode").glob("__jinja2_*")}
    assert len(kept) >= 10  # page.html, layout.html and the theme's components
    (book / "intro.md").write_text("# Intro\n\nOther text.\n")
    again = render.Warm(book, args).run()
    assert again.returncode == 0 and "Other text" in (tmp_path / "out" / "_build" / "html" / "intro.html").read_text()
    # Jinja writes a template's code only when it had none stored: every one was loaded.
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
