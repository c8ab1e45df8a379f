"""The build: chapter cache by input hash, failed runs leave published files alone, nbval is real."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from blas_kernels import kernel_of, numpy_baseline
from conftest import ROOT
from mqperf import catalog
from mqperf import data
from mqperf.data import loader as _loader  # noqa: F401 (data.loader below)
from mqperf.publish import build as book
from mqperf.publish import kept
from mqperf.publish import render


def test_committed_chapters_are_current():
    stale = [c.name for c in catalog.chapters() if not book.is_current(c)]
    assert stale == [], f"chapters whose inputs changed since they were executed: {stale} (run `make book`)"


def test_every_chapter_is_in_the_toc_and_has_parameters():
    toc = set(catalog.toc_files(ROOT))
    for chapter in catalog.chapters():
        assert f"chapters/{chapter.name}" in toc, chapter.name
        nb = nbformat.read(chapter.path, as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, f"{chapter.name}: needs exactly one cell tagged 'parameters'"
        assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code"), f"{chapter.name}: unexecuted cells"
        assert "papermill" not in nb.metadata, f"{chapter.name}: papermill timing metadata committed"
        assert "version" not in nb.metadata.get("language_info", {}), f"{chapter.name}: Python's patch version committed"


def test_normalise_drops_the_python_patch_version_and_keeps_the_language():
    """A kernel records the interpreter's version (3.11.7 here, 3.11.2 in Debian's python3.11); the lock
    does not pin it, so a committed chapter must not hold it, or any re-execution elsewhere rewrites it."""
    nb = new_notebook(cells=[new_code_cell("1")])
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.2", "mimetype": "text/x-python"}
    book.normalise(nb)
    assert nb.metadata["language_info"] == {"name": "python", "mimetype": "text/x-python"}
    bare = new_notebook(cells=[new_code_cell("1")])
    book.normalise(bare)  # no language_info at all: nothing to drop
    assert "language_info" not in bare.metadata


@pytest.fixture
def mini_book(tmp_path, monkeypatch):
    """A throwaway book root: the real data, one tiny chapter, the real lock file."""
    root = tmp_path / "book"
    shutil.copytree(ROOT / "data", root / "data")
    (root / "chapters").mkdir()
    shutil.copy(ROOT / "requirements.lock", root / "requirements.lock")
    (root / "_toc.yml").write_text("format: jb-book\nroot: chapters/tiny\n")
    nb = new_notebook(cells=[
        new_markdown_cell("# Tiny"),
        new_code_cell('name = "kafka_scaling_rates"', metadata={"tags": ["parameters"]}),
        new_code_cell("from mqperf import data\nlen(data.load(name))"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "chapters" / "tiny.ipynb")
    monkeypatch.setenv("MQPERF_ROOT", str(root))
    data.loader._package_descriptor.cache_clear()
    yield root
    data.loader._package_descriptor.cache_clear()


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool, or nbval)
def test_build_records_inputs_and_then_reuses(mini_book):
    lines = []
    assert book.build(html=False, echo=lines.append) == 0
    nb = nbformat.read(mini_book / "chapters" / "tiny.ipynb", as_version=4)
    # The dataset its parameter names, and the descriptor and shared contract fields every read uses.
    assert nb.metadata["mqperf"]["inputs"] == ["data/contracts/_fields.json", "data/datapackage.json",
                                               "data/kafka_scaling_rates.csv"]
    with (mini_book / "data" / "kafka_scaling_rates.csv").open(newline="", encoding="utf-8") as fh:
        rows = sum(1 for _ in csv.DictReader(fh))  # counted by the csv module, not by data.load
    assert nb.cells[2].outputs[0]["data"]["text/plain"] == str(rows)
    assert nb.metadata["language_info"]["name"] == "python" and "version" not in nb.metadata["language_info"]
    assert any("executed  tiny" in ln for ln in lines)
    lines.clear()
    assert book.build(html=False, echo=lines.append) == 0
    assert any("reused    tiny" in ln for ln in lines), lines


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool)
def test_work_given_to_do_while_chapters_execute_runs_then_and_only_then(mini_book):
    import threading
    import time

    seen = []
    notebook = mini_book / "chapters" / "tiny.ipynb"
    before = notebook.stat().st_mtime_ns

    def side():
        # Still running after the chapter is written back: execute_chapters must wait for it.
        deadline = time.monotonic() + 120
        while notebook.stat().st_mtime_ns == before and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        seen.append(threading.current_thread() is not threading.main_thread())

    chapters = catalog.chapters()
    outcomes = book.execute_chapters(chapters, echo=lambda *_: None, while_executing=side)
    assert [o.status for o in outcomes] == ["executed"] and seen == [True]
    outcomes = book.execute_chapters(chapters, echo=lambda *_: None, while_executing=side)
    assert [o.status for o in outcomes] == ["reused"] and seen == [True]  # nothing executed: not run


@pytest.mark.slow
def test_one_job_executes_in_a_kernel_of_this_process_and_closes_it(mini_book, monkeypatch):
    # One stale chapter (or -j 1): no worker process to start before the kernel can start.
    from mqperf.publish import engine

    made = []

    class Counted(engine.Kernel):
        def __init__(self, *args, **kwargs):
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(engine, "Kernel", Counted)
    outcomes = book.execute_chapters(catalog.chapters(), echo=lambda *_: None)
    assert [o.status for o in outcomes] == ["executed"], outcomes
    assert len(made) == 1 and made[0].km is None  # made here, and shut down after


@pytest.mark.slow
def test_jupyter_book_starts_while_chapters_execute_and_ends_when_a_chapter_fails(mini_book, monkeypatch):
    from mqperf.publish import render

    started, given = [], []

    class Fake:
        def __init__(self, root, args):
            started.append(self)
            self.root, self.args, self.closed = root, args, False

        def close(self):
            self.closed = True

    written = []

    def render_html(**kwargs):
        given.append(kwargs.get("warm"))
        written.append(kwargs.get("pages_written", ()))

    from mqperf.publish import pages

    asked = []
    monkeypatch.setattr(render, "Warm", Fake)
    monkeypatch.setattr(render, "render_html", render_html)
    monkeypatch.setattr(pages, "write_all", lambda names=None: asked.append(list(names)) or [])
    assert book.build(echo=lambda *_: None) == 0
    assert len(started) == 1 and started[0].root == mini_book and given == started  # the render got it
    assert started[0].args == render.jupyter_book_args(mini_book, strict=False)  # the arguments the render uses
    # The generated pages no execution changes were written meanwhile, and the render is told so;
    # the model cards page is left for it, after the chapters wrote their cards.
    assert asked == [[n for n in pages.PAGES if n != "model_cards.md"]] and written == [tuple(asked[0])]
    assert book.build(echo=lambda *_: None) == 0  # nothing executes: nothing started, a plain render
    assert len(started) == 1 and given[-1] is None and written[-1] == () and len(asked) == 1
    path = mini_book / "chapters" / "tiny.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell("raise ValueError('a chapter that fails')"))
    nbformat.write(nb, path)
    assert book.build(echo=lambda *_: None) == 1
    assert len(started) == 2 and started[1].closed and len(given) == 2  # ended, and no render


@pytest.mark.parametrize("name", catalog.names())
def test_declared_inputs_cover_every_file_a_chapter_reads(name, monkeypatch):
    """The build hashes the inputs a chapter declares; a file it reads but does not declare
    would leave it 'current' after that file changed. Run the chapter's analysis with a spy
    on the loader and compare (one case per chapter, so the fast loop spreads them)."""
    from mqperf import chapters
    from mqperf.data import loader

    read = set()
    real = loader._check_readable

    def spy(path):
        read.add(os.path.relpath(Path(path).resolve(), ROOT))
        return real(path)

    monkeypatch.setattr(loader, "_check_readable", spy)
    chapters.preflight(name, None, {})
    assert read, f"{name}: the spy saw no file read"
    undeclared = sorted(read - set(book.chapter_inputs(name)))
    assert not undeclared, f"{name} reads files the build does not hash: {undeclared}"


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool, or nbval)
def test_input_hash_follows_the_data_the_chapter_read(mini_book):
    assert book.build(html=False, echo=lambda _: None) == 0
    chapter = catalog.find("tiny")
    assert book.is_current(chapter)
    # A dataset the chapter did not read does not make it stale ...
    other = mini_book / "data" / "kafka_log_bytes.csv"
    other.write_text(other.read_text() + "\n")
    assert book.is_current(chapter)
    # ... one it read does; so does a changed cell, but not changed outputs.
    used = mini_book / "data" / "kafka_scaling_rates.csv"
    original = used.read_text()
    used.write_text(original + "\n")
    assert not book.is_current(chapter)
    used.write_text(original)
    nb = nbformat.read(chapter.path, as_version=4)
    nb.cells[2].outputs[0]["data"]["text/plain"] = "16"
    nbformat.write(nb, chapter.path)
    assert book.is_current(chapter)
    nb.cells[2].source += "\n# changed"
    nbformat.write(nb, chapter.path)
    assert not book.is_current(chapter)


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool, or nbval)
def test_failed_chapter_leaves_committed_notebook_alone(mini_book):
    assert book.build(html=False, echo=lambda _: None) == 0
    path = mini_book / "chapters" / "tiny.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[1].source = 'name = "no_such_dataset"'
    nbformat.write(nb, path)
    before = path.read_bytes()
    lines = []
    assert book.build(html=False, echo=lines.append) == 2  # a DataError is bad input, not a crash
    assert path.read_bytes() == before
    assert any("FAILED    tiny" in ln and "DataError" in ln for ln in lines), lines
    assert not list((mini_book / "chapters").glob(".*executing*"))


def _card(value, text="spread check: Spearman p = 0.30") -> str:
    return json.dumps({"card": "tiny__fit", "estimate": value, "residual_checks": text}, indent=2) + "\n"


def _write_cards_then(mini_book, cards: dict, then: str | None = None) -> None:
    """The tiny chapter writes ``cards`` (name: card) into models/ as a chapter does, then runs ``then``."""
    path = mini_book / "chapters" / "tiny.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell("import json\nfrom mqperf.present.cards import write_card\n"
                                  f"for name, card in json.loads({json.dumps(json.dumps(cards))}).items():\n"
                                  "    write_card({k: v for k, v in card.items() if k != 'card'}, name)"))
    if then:
        nb.cells.append(new_code_cell(then))
    nbformat.write(nb, path)


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool)
def test_a_failed_chapter_puts_back_the_cards_it_wrote(mini_book):
    """A chapter writes its cards while it runs; when a later cell fails, the cards it rewrote get
    their bytes back, the ones it made are gone, and another chapter's are untouched."""
    models = mini_book / "models"
    models.mkdir()
    (models / "tiny__fit.json").write_text(_card(101.177))
    (models / "other__fit.json").write_text(_card(5.0))
    before = {p.name: p.read_bytes() for p in models.iterdir()}
    _write_cards_then(mini_book, {"tiny__fit": json.loads(_card(250.0)), "tiny__new": json.loads(_card(1.0))},
                      then="raise ValueError('a later cell fails')")
    lines = []
    assert book.build(html=False, echo=lines.append) != 0
    assert any("FAILED    tiny" in ln for ln in lines), lines
    assert {p.name: p.read_bytes() for p in models.iterdir()} == before


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool)
def test_a_rewritten_card_the_same_by_the_rule_keeps_its_bytes(mini_book):
    """Another CPU may put a card's number one unit away in its last place: the committed card stays
    byte for byte. A number that moved beyond the rule is written."""
    models = mini_book / "models"
    models.mkdir()
    (models / "tiny__fit.json").write_text(_card(101.177))
    committed = (models / "tiny__fit.json").read_bytes()
    _write_cards_then(mini_book, {"tiny__fit": json.loads(_card(101.178))})
    assert book.build(html=False, echo=lambda _: None) == 0
    assert (models / "tiny__fit.json").read_bytes() == committed
    _write_cards_then(mini_book, {"tiny__fit": json.loads(_card(101.177, "spread check: Spearman p = 0.42"))})
    assert book.build(html=False, echo=lambda _: None) == 0
    assert json.loads((models / "tiny__fit.json").read_text())["residual_checks"].endswith("0.42")


def test_same_card_applies_the_rule_to_numbers_text_and_keys():
    a = _card(101.177).encode()
    assert kept.same_card(a, _card(101.178).encode())  # one unit in a shown place
    assert not kept.same_card(a, _card(101.5).encode())
    assert not kept.same_card(a, _card(101.177, "spread check: Spearman p = 0.42").encode())
    assert not kept.same_card(a, json.dumps({"card": "tiny__fit", "estimate": 101.177}).encode())
    assert not kept.same_card(a, b"not json")


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool, or nbval)
def test_nbval_fails_when_a_stored_number_changes(tmp_path):
    """Proof that the nbval check is real: move one stored number beyond the rule (one unit in its
    last shown place) and nbval must fail, naming it; one unit is a rounding boundary and passes.
    Validation leaves the book's model cards as they were (the root conftest.py)."""
    src = ROOT / "chapters" / "kafka_task_scaling.ipynb"
    nb = json.loads(src.read_text())
    changed = False
    titles = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            html = "".join(out.get("data", {}).get("text/html", []))
            if not changed and "61588.0" in html:
                out["data"]["text/html"] = html.replace("61588.0", "61700.0")
                changed = True
                spec = json.loads(html.split("var spec = ", 1)[1].split(";\n", 1)[0].replace("<\\/", "</"))
                from mqperf.publish.drift import chart_title

                titles = [chart_title(spec)]  # a long title is set on several lines
    assert changed, "the curves chart no longer holds 61588.0; update this test"
    target = tmp_path / "drifted.ipynb"
    target.write_text(json.dumps(nb))
    # The drifted copy lives outside the repository, where the root conftest.py (the plugin
    # that says which number moved) is not collected: load it by name.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-p", "no:cacheprovider", "-p", "conftest",
                           "-q", str(target)], capture_output=True, text=True, cwd=tmp_path, timeout=600, env=env)
    assert proc.returncode == 1, proc.stdout[-2000:]
    # nbval names the cell and shows the stored side of the diff (the new side is truncated).
    assert "Cell outputs differ" in proc.stdout and "61588.0" in proc.stdout
    # ... and the plugin says which number moved, in which chart, and by how much.
    assert "Which numbers moved" in proc.stdout
    moved = [line for line in proc.stdout.splitlines() if "61,700 → 61,588" in line]
    assert moved, proc.stdout[-3000:]
    assert any(f"chart '{title}'" in line for line in moved for title in titles), moved
    assert all(f"({-112 / 61700 * 100:+.2g} %)".replace("-", "−") in line for line in moved), moved
    # One unit in the fifth significant digit (a value on a rounding boundary) is the same book.
    # This run's book is a copy whose cards nbval's kernel would rewrite: validation leaves them.
    copy = tmp_path / "book"
    for part in ("data", "models", "chapters"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns(".*"))
    shutil.copy(ROOT / "_toc.yml", copy / "_toc.yml")
    cards = sorted((copy / "models").glob("kafka_task_scaling__*.json"))
    assert len(cards) >= 2, "the chapter writes fewer than two cards; update this test"
    cards[0].unlink()  # a card the run makes: removed afterwards
    cards[1].write_text(json.dumps(json.loads(cards[1].read_text())))  # one it rewrites: put back
    before = {p.name: p.read_bytes() for p in (copy / "models").iterdir()}
    target.write_text(json.dumps(nb).replace("61700.0", "61589.0"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-p", "no:cacheprovider", "-p", "conftest",
                           "-q", str(target)], capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env={**env, "MQPERF_ROOT": str(copy)})
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert {p.name: p.read_bytes() for p in (copy / "models").iterdir()} == before


def test_html_inputs_hash_follows_what_the_render_reads(mini_book):
    base = render.html_inputs_hash(mini_book)
    assert render.html_inputs_hash(mini_book) == base
    # A notebook being executed (a dotfile beside the chapters) is not part of the book.
    (mini_book / "chapters" / ".tiny.executing.ipynb").write_text("{}")
    assert render.html_inputs_hash(mini_book) == base
    for rel in ("chapters/tiny.ipynb", "data/kafka_scaling_rates.csv", "_toc.yml"):
        path = mini_book / rel
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert render.html_inputs_hash(mini_book) != base, rel
        path.write_bytes(original)
    (mini_book / "models").mkdir(exist_ok=True)
    (mini_book / "models" / "x.json").write_text("{}")
    assert render.html_inputs_hash(mini_book) != base  # the model cards page changes


def test_unchanged_book_does_no_sphinx_work(mini_book, monkeypatch):
    from mqperf.publish import pages

    asked = []
    monkeypatch.setattr(pages, "write_all", lambda names=None: asked.append(list(names)) or [])
    target = mini_book / "_build" / "html"
    target.mkdir(parents=True)
    (target / render.HTML_STAMP).write_text(render.html_inputs_hash(mini_book) + "\n")

    def no_render(*_a, **_k):
        raise AssertionError("Jupyter Book ran although nothing changed")

    monkeypatch.setattr(render.subprocess, "run", no_render)
    lines = []
    assert render.render_html(echo=lines.append) == target
    assert any("unchanged" in ln for ln in lines)
    assert asked == [list(pages.PAGES)]  # every generated page, unless some were written already
    render.render_html(echo=lines.append, pages_written=("errata.md", "formats.md"))
    assert asked[-1] == [n for n in pages.PAGES if n not in ("errata.md", "formats.md")]
    # One changed input and the render runs again.
    (mini_book / "_toc.yml").write_text((mini_book / "_toc.yml").read_text() + "\n")
    with pytest.raises(AssertionError, match="Jupyter Book ran"):
        render.render_html(echo=lines.append)


@pytest.mark.slow  # executes the mini book's chapter (a build's worker pool, or nbval)
def test_a_forced_build_keeps_the_committed_notebook_when_nothing_moved_beyond_the_rule(mini_book):
    """Another CPU's BLAS kernel may flip a value on a rounding boundary: the committed file stays."""
    path = mini_book / "chapters" / "tiny.ipynb"
    assert book.build(html=False, echo=lambda _: None) == 0
    nb = nbformat.read(path, as_version=4)
    # The committed notebook as another machine left it: one number one unit away in its last
    # shown place (a rounding boundary), and one more output line.
    committed = nbformat.read(path, as_version=4)
    committed.cells[2].outputs = [new_output("stream", name="stdout", text="lower -483.13\n")]
    fresh = nbformat.read(path, as_version=4)
    fresh.cells[2].outputs = [new_output("stream", name="stdout", text="lower -483.12\n")]
    nbformat.write(committed, path)
    result = kept.notebook(fresh, path)
    assert result.cells[2].outputs[0]["text"] == "lower -483.13\n" and result.metadata == fresh.metadata
    fresh.cells[2].outputs[0]["text"] = "lower -480.00\n"  # a result that moved: the new one is written
    assert kept.notebook(fresh, path).cells[2].outputs[0]["text"] == "lower -480.00\n"
    assert nb.cells[2].source == result.cells[2].source


@pytest.mark.slow
def test_build_force_under_another_blas_kernel_leaves_the_chapters_untouched(tmp_path):
    """``mqperf build --force`` with OPENBLAS_CORETYPE set (Prescott also with numpy's baseline loops)
    leaves every committed notebook byte for byte as it was (the IMS bridge chapter holds a value on
    a rounding boundary between kernel families).

    A family whose kernels are this CPU's own is left out: the committed notebooks were executed with
    those here, and a forced build that keeps an unchanged notebook is tested on the mini book."""
    own = kernel_of(None)
    families = [f for f in ("Prescott", "Haswell") if kernel_of(f) not in (None, own)]
    if not families:
        pytest.skip(f"OPENBLAS_CORETYPE=Prescott and Haswell load no other kernels than this CPU's own ({own})")
    root = tmp_path / "book"
    shutil.copytree(ROOT / "data", root / "data")
    shutil.copytree(ROOT / "chapters", root / "chapters", ignore=shutil.ignore_patterns(".*"))
    shutil.copy(ROOT / "requirements.lock", root / "requirements.lock")
    shutil.copy(ROOT / "_toc.yml", root / "_toc.yml")
    before = {p.name: p.read_bytes() for p in (root / "chapters").glob("*.ipynb")}
    for family in families:
        env = {**os.environ, "MQPERF_ROOT": str(root), "OPENBLAS_CORETYPE": family,
               **(numpy_baseline() if family == "Prescott" else {})}  # the oldest CPU: numpy's loops too
        proc = subprocess.run([sys.executable, "-m", "mqperf.cli", "build", "--force", "--no-html", "-q",
                               "--only", "ims_bridge", "kafka_task_scaling"],
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        after = {p.name: p.read_bytes() for p in (root / "chapters").glob("*.ipynb")}
        changed = sorted(n for n in before if after[n] != before[n])
        assert changed == [], f"OPENBLAS_CORETYPE={family}: the forced build rewrote {changed}"


def test_the_staleness_check_reads_a_notebook_as_nbformat_does():
    # is_current parses the notebooks as plain JSON (no schema check): it must hash what
    # nbformat.read gives, or a committed chapter would look stale (or a stale one current).
    env = book.environment_hash()
    for chapter in catalog.chapters():
        quick, full = book._read_for_hash(chapter.path), nbformat.read(chapter.path, as_version=4)
        assert book.input_hash(quick, env) == book.input_hash(full, env), chapter.name


def test_the_environment_hash_follows_the_code_chapters_run_and_not_the_build_or_the_cli(tmp_path, monkeypatch):
    # Editing the command line or the build must not re-execute the book; editing a model must.
    import shutil

    from mqperf import paths

    copy = tmp_path / "mqperf"
    shutil.copytree(paths.package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(book, "package_dir", lambda: copy)
    base = book.environment_hash()
    for rel in ("cli/list.py", "cli/__init__.py", "publish/pages.py"):
        (copy / rel).write_text((copy / rel).read_text() + "\n# an edit\n")
        assert book.environment_hash() == base, rel
    (copy / "models" / "usl.py").write_text((copy / "models" / "usl.py").read_text() + "\n# an edit\n")
    assert book.environment_hash() != base
