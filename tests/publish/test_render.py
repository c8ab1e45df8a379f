"""The render's warm Jupyter Book process (``mqperf.publish.render.Warm``): it renders as
``jupyter-book ARGS`` does, and ends when it is not needed.

``mqperf build`` starts one while the chapters execute; the book's own renders (the browser
and PDF tests' ``built_book``, ``test_build``) go through it, so these tests hold only what
those cannot show.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mqperf.publish import render

JUPYTER_BOOK = str(Path(sys.executable).with_name("jupyter-book"))


def test_it_runs_what_the_command_runs(tmp_path):
    want = subprocess.run([JUPYTER_BOOK, "--version"], cwd=tmp_path, capture_output=True, text=True)
    got = render.Warm(tmp_path).run(["--version"])
    assert (got.returncode, got.stdout) == (want.returncode, want.stdout) and "Jupyter Book" in got.stdout
    bad = render.Warm(tmp_path).run(["build", str(tmp_path / "no such book")])
    assert bad.returncode != 0 and bad.returncode == subprocess.run(
        [JUPYTER_BOOK, "build", str(tmp_path / "no such book")], cwd=tmp_path, capture_output=True).returncode


def test_a_module_in_the_books_folder_shadows_nothing(tmp_path):
    # The process runs in the book's folder; a reader's file there named like a module it imports
    # must not be imported in its place.
    (tmp_path / "sphinx.py").write_text("raise SystemExit('the book folder was on the import path')\n")
    got = render.Warm(tmp_path).run(["--version"])
    assert got.returncode == 0, got.stderr


def test_a_module_that_cannot_be_imported_ahead_is_left_to_the_render(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "WARM_IMPORTS", ("no_such_module_for_mqperf", *render.WARM_IMPORTS))
    got = render.Warm(tmp_path).run(["--version"])
    assert got.returncode == 0 and "Jupyter Book" in got.stdout, got.stderr


def test_one_not_needed_is_ended(tmp_path):
    warm = render.Warm(tmp_path)
    warm.close()
    assert warm.proc.returncode is not None
    warm.close()  # twice is harmless
