"""Every machine builds the same book: every chapter re-executed under each OpenBLAS kernel
family is the same book as the committed notebooks, by :data:`mqperf.publish.samebook.RULE`.

CPUs run different BLAS kernels (numpy's OpenBLAS picks one at run time), so the last bits of
a fit differ between machines and a value on a rounding boundary shows one unit apart. The
rule (text identical, every number within one unit in the last place it is shown with) is
what "the same book" means; this test holds every chapter to it under each of
``OPENBLAS_CORETYPE`` = Prescott, Haswell, SkylakeX and Zen, which make one machine behave
like several. The family this CPU picks itself is the one nbval's run of the chapters uses (in
``make test``): that pass is skipped as covered when nbval runs the chapters folder in the same
session. A family this CPU cannot run (SkylakeX needs AVX-512) is skipped with that
reason; one that loads the same kernels as an earlier one here (Zen loads Haswell's) is
skipped as covered, so each pass tests something new.

Each pass executes the chapters as the build does (one warm kernel, then
:func:`mqperf.publish.build.normalise`, the chapters' folder as working directory); the first
pass also changes what else may legitimately vary: numpy's element-wise loops those of its
oldest CPU (:func:`blas_kernels.numpy_baseline`: numpy, too, picks SIMD loops by CPU, and its
AVX-512 exp and log differ from the others in the last bits), one BLAS/OpenMP thread, the
multi-start fits' starts reversed (:func:`mqperf.models._nls.reverse_starts`, set in the
kernel's preload), another hash seed, and the chapters in reverse order, so each runs after
different ones.

Model cards go to ``tmp_path`` (every chapter's ``cards_dir`` parameter) and are held to the
same rule against the committed ones in ``models/`` (a card's p-value once followed the CPU:
tied residuals ranked one way or the other). Papermill records
that parameter as an extra cell, which is removed again (with the execution counts it
shifted) before comparing. A difference is reported by chapter, cell and number
(:mod:`mqperf.publish.drift`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from blas_kernels import kernel_of, numpy_baseline
from mqperf import catalog
from mqperf.paths import models_dir
from mqperf.publish import build as book
from mqperf.publish import drift, samebook

pytestmark = pytest.mark.slow

#: Lines reported per chapter; the rest are counted.
MAX_LINES = 10

#: The OpenBLAS kernel families every chapter is validated under.
FAMILIES = ("Prescott", "Haswell", "SkylakeX", "Zen")

PERTURBED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "1"}
#: Said to the worker: reverse the fits' starts (in the kernel, through its preload).
REVERSE = "reverse-starts"

# Runs in a fresh interpreter so that each pass has its own environment (the kernel inherits
# it), and its chapters one after another in one warm kernel, as the build's workers do.
_WORKER = r"""
import sys
from pathlib import Path
import nbformat
from mqperf import catalog
from mqperf.publish import build as book, engine

out, env_hash, reverse, names = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "reverse-starts", sys.argv[4:]
cards = out / "cards"
preload = engine.PRELOAD + ("; __import__('mqperf.models._nls', fromlist=['_']).reverse_starts(True)" if reverse else "")
with engine.Kernel(book.chapters_dir(), preload=preload) as kernel:
    for name in names:
        source, target = catalog.find(name).path, out / f"{name}.ipynb"
        kernel.execute(source, target, parameters={"cards_dir": str(cards)})
        nb = nbformat.read(target, as_version=4)
        kept, shift = [], 0
        for cell in nb.cells:
            if "injected-parameters" in cell.metadata.get("tags", []):
                shift += 1 if cell.get("execution_count") else 0
                continue
            if cell.cell_type == "code" and shift and cell.get("execution_count"):
                cell.execution_count -= shift
                for o in cell.outputs:
                    if o.get("execution_count"):
                        o["execution_count"] -= shift
            kept.append(cell)
        nb.cells = kept
        book.normalise(nb, inputs=book.chapter_inputs(name), env_hash=env_hash)
        nbformat.write(nb, target)
"""

def _execute(names: list[str], out: Path, env: dict, env_hash: str, reverse: bool) -> None:
    (out / "cards").mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", _WORKER, str(out), env_hash, REVERSE if reverse else "-", *names],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"{', '.join(names)}: a chapter failed to execute: {proc.stderr.strip()[-1500:]}")


def _run_pass(chapters, out: Path, env: dict, env_hash: str, reverse: bool) -> dict[str, Path]:
    names = [c.name for c in reversed(chapters)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(_execute, names[i::2], out, env, env_hash, reverse) for i in range(2)]:
            future.result()
    return {name: out / f"{name}.ipynb" for name in names}


def _nbval_runs_the_chapters(config) -> bool:
    """Whether this pytest run validates the chapters' notebooks with nbval (as ``make test`` does)."""
    if not getattr(config.option, "nbval", False):
        return False
    from mqperf.paths import chapters_dir

    here = Path(config.invocation_params.dir)
    return any((here / str(a)).resolve() == chapters_dir().resolve() for a in config.args)


def card_differences(committed: Path, made: Path, what: str) -> list[str]:
    """Lines saying where the model cards a pass wrote differ from the committed ones beyond the rule."""
    import json

    old = {p.name: p for p in committed.glob("*.json")}
    new = {p.name: p for p in made.glob("*.json")}
    lines = [f"models/{n} ({what}): not written" for n in sorted(old.keys() - new.keys())]
    lines += [f"models/{n} ({what}): written, not committed" for n in sorted(new.keys() - old.keys())]
    for name in sorted(old.keys() & new.keys()):
        lines += [f"models/{name} ({what}), {line}" for line in
                  drift.card_differences(json.loads(old[name].read_text(encoding="utf-8")),
                                         json.loads(new[name].read_text(encoding="utf-8")))]
    return lines if len(lines) <= MAX_LINES else lines[:MAX_LINES] + [f"cards: … and {len(lines) - MAX_LINES} more"]


def differences(name: str, committed: Path, executed: Path, what: str) -> list[str]:
    """Lines saying where an executed notebook differs from the committed one beyond the rule."""
    lines = [f"{name} ({what}), {line}" for line in
             drift.notebook_differences(nbformat.read(committed, as_version=4), nbformat.read(executed, as_version=4))]
    return lines if len(lines) <= MAX_LINES else lines[:MAX_LINES] + [f"{name}: … and {len(lines) - MAX_LINES} more"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_chapter_is_the_same_book_under_each_blas_kernel(family, tmp_path, request):
    core = kernel_of(family)
    if core is None:
        pytest.skip(f"OPENBLAS_CORETYPE={family}: this CPU cannot run those kernels (illegal instruction; "
                    "SkylakeX needs AVX-512): a machine that can runs this pass")
    earlier = [f for f in FAMILIES[: FAMILIES.index(family)] if kernel_of(f) == core]
    if earlier:
        pytest.skip(f"OPENBLAS_CORETYPE={family} loads the {core} kernels on this CPU, as {earlier[0]} does: "
                    f"the {earlier[0]} pass covers it")
    if family != FAMILIES[0] and core == kernel_of(None) and _nbval_runs_the_chapters(request.config):
        pytest.skip(f"OPENBLAS_CORETYPE={family} loads the {core} kernels this CPU picks itself: nbval, in this "
                    "run, executes every chapter with them and holds it to the same rule")
    chapters = catalog.chapters()
    assert chapters, "no chapters found"
    env = {"OPENBLAS_CORETYPE": family, **(PERTURBED | numpy_baseline() if family == FAMILIES[0] else {})}
    # Hashed once, as the build does, so the run records the code it ran.
    runs = _run_pass(chapters, tmp_path, env, book.environment_hash(), reverse=family == FAMILIES[0])
    what = f"committed → OPENBLAS_CORETYPE={family} ({core} kernels)" + (
        f", {env['NPY_DISABLE_CPU_FEATURES']} off in numpy" if "NPY_DISABLE_CPU_FEATURES" in env else "")
    moved = [line for c in chapters for line in differences(c.name, c.path, runs[c.name], what)]
    moved += card_differences(models_dir(), tmp_path / "cards", what)
    assert not moved, (f"chapters re-executed under another BLAS kernel differ from the committed ones beyond the "
                       f"rule ({samebook.RULE}); if a change is intended, re-execute with `make book`; if not, a "
                       "number depends on the machine:\n" + "\n".join(moved))


def test_the_rule_catches_a_real_change(tmp_path):
    """Tamper: a committed number moved by more than the rule allows is reported, with where and how much."""
    chapter = catalog.find("ims_bridge")
    nb = nbformat.read(chapter.path, as_version=4)
    tampered = nbformat.read(chapter.path, as_version=4)
    for cell in tampered.cells:
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            if "-483.1" in html:
                out["data"]["text/html"] = html.replace("-483.1", "-480.1", 1)
                break
        else:
            continue
        break
    else:
        pytest.fail("the IMS bridge chapter no longer charts -483.1x; pick another number for this test")
    path = tmp_path / "tampered.ipynb"
    nbformat.write(tampered, path)
    lines = differences("ims_bridge", chapter.path, path, "committed → tampered")
    assert lines and "chart 'Rate against CPUs" in lines[0] and "→ -480.1" in lines[0], lines
    assert differences("ims_bridge", chapter.path, chapter.path, "committed → itself") == []
    assert nb == nbformat.read(chapter.path, as_version=4)


def test_the_rule_catches_a_moved_card(tmp_path):
    """Tamper: a model card whose p-value moved is reported with where; an unchanged copy is not."""
    import json
    import shutil

    made = tmp_path / "cards"
    shutil.copytree(models_dir(), made)
    assert card_differences(models_dir(), made, "copy") == []
    card = made / "request_reply__Figure_7_RR_BB_2KB_persistent_SSD_mva.json"
    data = json.loads(card.read_text(encoding="utf-8"))
    text = data["residual_checks"]
    assert "Spearman p = 0.12)" in text, "pick another card or number for this test"
    data["residual_checks"] = text.replace("Spearman p = 0.12)", "Spearman p = 0.42)")
    data["parameters"]["d_queue"]["estimate"] *= 1.0000001  # within one unit of its 6 digits: the same
    card.write_text(json.dumps(data), encoding="utf-8")
    (made / "request_reply__Figure_4_RR_CB_2KB_non_persistent_mva.json").unlink()
    lines = card_differences(models_dir(), made, "tampered")
    assert len(lines) == 2, lines
    assert "Figure_4" in lines[0] and "not written" in lines[0]
    assert "card.residual_checks" in lines[1] and "0.42" in lines[1]
