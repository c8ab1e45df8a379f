"""Every example in the Bring-your-own-data chapter runs: the docs stay true.

For each chapter's section, the first CSV example is written to a file and run with
`mqperf run CHAPTER --data FILE --out DIR`, as a reader would copy it.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from mqperf.publish import build as book

TEXT = (ROOT / "chapters" / "bring_your_own_data.md").read_text(encoding="utf-8")
SECTIONS = {s.split(":")[0].strip(): s for s in re.split(r"^### ", TEXT, flags=re.M)[1:]}


def first_csv(section: str) -> str:
    for block in re.findall(r"```(?:text|csv)?\n(.*?)```", section, flags=re.S):
        if "," in block.splitlines()[0] and not block.lstrip().startswith(("mqperf", ".venv", "papermill")):
            return block
    raise AssertionError("no CSV example in the section")


def test_every_chapter_has_a_section():
    assert sorted(SECTIONS) == sorted(c.name for c in book.discover() if c.contract)


@pytest.mark.parametrize("chapter", sorted(SECTIONS))
def test_example_runs(tmp_path, chapter):
    data = tmp_path / f"{chapter}.csv"
    data.write_text(first_csv(SECTIONS[chapter]), encoding="utf-8")
    out = tmp_path / "report"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("mqperf")), "run", chapter, "--data", str(data), "--out", str(out), "-q"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert proc.returncode == 0, proc.stderr
    html = (out / f"{chapter}.html").read_text(encoding="utf-8")
    # Nothing loaded from elsewhere (the inlined libraries mention CDNs in their code;
    # tests/test_browser.py checks that the report makes no request).
    markup = re.sub(r"<script>.*?</script>", "", html, flags=re.S)  # library code quotes URLs in strings
    assert not re.search(r'(src|href)="https?://', markup) and len(html) > 10_000
    assert (out / f"{chapter}.ipynb").exists()
