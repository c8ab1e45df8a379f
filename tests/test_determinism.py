"""Every machine builds the same book: chapters re-executed under perturbed conditions are
byte-identical to the committed notebooks.

The committed notebooks were executed by ``mqperf build`` with the machine's default BLAS
threads and the fits' starts in their normal order, each worker's chapters in one warm kernel
(nbval re-executes them each in a cold kernel, and compares too). This test executes every
chapter once more as the build does (a warm kernel per worker, then
:func:`mqperf.publish.build.normalise`, the chapters' folder as working directory), with
everything that may legitimately vary changed: one BLAS/OpenMP thread, the multi-start fits'
starts reversed (``MQPERF_PERTURB=1``, see :func:`mqperf.models._nls.start_order`), another
hash seed, and the chapters in reverse order, so each runs after different ones.

Model cards go to ``tmp_path`` (every chapter's ``cards_dir`` parameter). Papermill records
that parameter as an extra cell, which is removed again (with the execution counts it
shifted) before comparing, so the result is the notebook the build would have written.
A difference is reported by chapter, cell and number (:mod:`mqperf.publish.drift`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from mqperf.publish import build as book
from mqperf.publish import drift

pytestmark = pytest.mark.slow

#: Lines reported per chapter; the rest are counted.
MAX_LINES = 10

PERTURBED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             "MQPERF_PERTURB": "1", "PYTHONHASHSEED": "1"}

# Runs in a fresh interpreter so that each pass has its own environment (the kernel inherits
# it), and its chapters one after another in one warm kernel, as the build's workers do: so
# each chapter also runs after others, in another order than the build's.
_WORKER = r"""
import sys
from pathlib import Path
import nbformat
from mqperf.publish import build as book, engine

out, env_hash, names = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
cards = out / "cards"
with engine.Kernel(book.chapters_dir()) as kernel:
    for name in names:
        source, target = book.find(name).path, out / f"{name}.ipynb"
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


def _execute(names: list[str], out: Path, env: dict, env_hash: str) -> None:
    (out / "cards").mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", _WORKER, str(out), env_hash, *names],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"{', '.join(names)}: a chapter failed to execute: {proc.stderr.strip()[-1500:]}")


def _run_pass(chapters, out: Path, env: dict, env_hash: str) -> dict[str, Path]:
    names = [c.name for c in reversed(chapters)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(_execute, names[i::2], out, env, env_hash) for i in range(2)]:
            future.result()
    return {name: out / f"{name}.ipynb" for name in names}


def differences(name: str, left: Path, right: Path, what: str) -> list[str]:
    """Lines saying where two executed notebooks differ (empty when byte-identical)."""
    if left.read_bytes() == right.read_bytes():
        return []
    a, b = nbformat.read(left, as_version=4), nbformat.read(right, as_version=4)
    lines = []
    if len(a.cells) != len(b.cells):
        lines.append(f"{name} ({what}): {len(a.cells)} cells → {len(b.cells)} cells")
    for n, (ca, cb) in enumerate(zip(a.cells, b.cells), start=1):
        if ca == cb:
            continue
        moved = drift.describe(ca.get("outputs", []), cb.get("outputs", []))
        if ca.get("source") != cb.get("source"):
            moved.insert(0, "the cell's source differs")
        if not moved:
            keys = sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
            moved = [f"differs in {', '.join(keys)} (not in a shown number)"]
        lines.extend(f"{name} ({what}), cell {n}: {m}" for m in moved)
    if a.metadata != b.metadata:
        lines.append(f"{name} ({what}): notebook metadata differs in {', '.join(_changed_keys(a.metadata, b.metadata))}")
    lines = lines or [f"{name} ({what}): the files differ in their bytes only (formatting)"]
    return lines if len(lines) <= MAX_LINES else lines[:MAX_LINES] + [f"{name}: … and {len(lines) - MAX_LINES} more"]


def _changed_keys(a: dict, b: dict, prefix: str = "") -> list[str]:
    """Dotted names of the keys whose values differ, one level into nested dicts."""
    out = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if va == vb:
            continue
        if isinstance(va, dict) and isinstance(vb, dict) and not prefix:
            out.extend(_changed_keys(va, vb, f"{key}."))
        else:
            out.append(prefix + key)
    return out


def test_chapters_are_byte_identical_under_perturbed_conditions(tmp_path):
    chapters = book.discover()
    assert chapters, "no chapters found"
    # Hashed once, as the build does, so the run records the code it ran.
    env_hash = book.environment_hash()
    runs = _run_pass(chapters, tmp_path, PERTURBED, env_hash)
    moved = [line for c in chapters for line in differences(c.name, c.path, runs[c.name], "committed → perturbed")]
    assert not moved, ("chapters re-executed with 1 BLAS thread and the fits' starts reversed differ from the "
                       "committed ones (if a change is intended, re-execute with `make book`; if not, a number "
                       "depends on the machine):\n" + "\n".join(moved))
