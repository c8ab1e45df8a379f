"""Cross-references in chapter text name things that exist, so a rename fails here, in seconds,
rather than in the strict book build (where Sphinx reports an undefined label)."""

from __future__ import annotations

import json
import re

from conftest import ROOT

_DATASET_REF = re.compile(r"<data-([A-Za-z0-9_]+)>")


def _datasets() -> set[str]:
    package = json.loads((ROOT / "data" / "datapackage.json").read_text())
    return {res["name"] for res in package["resources"]} | {"catalog"}


def test_every_dataset_reference_names_a_dataset():
    known = _datasets()
    sources = sorted((ROOT / "src" / "mqperf" / "chapters").rglob("*.py")) + sorted((ROOT / "chapters").glob("*.ipynb"))
    wrong = [f"{p.relative_to(ROOT)}: data-{name}"
             for p in sources for name in _DATASET_REF.findall(p.read_text()) if name not in known]
    assert not wrong, "references to datasets that do not exist:\n" + "\n".join(wrong)


def test_no_committed_output_names_a_path_of_the_machine_that_built_it():
    """Outputs hold no absolute path: another clone (or CI) would execute to different text."""
    bad = []
    for nb_path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            text = json.dumps(cell.get("outputs", []))
            for mark in ("PosixPath(", str(ROOT), "/tmp/", "/home/"):
                if mark in text:
                    bad.append(f"{nb_path.name} cell {i}: {mark}")
    assert not bad, "\n".join(bad)
