"""Every chapter's reader example runs: the Bring-your-own-data page stays true.

The page's contract sections are generated from ``data/contracts/`` and ``data/examples/``;
each example file is run here with `mqperf run CHAPTER --data FILE --out DIR`, as a reader
would (in this process and the session's warm kernel), and its report must be self-contained and say nothing about the published
measurements (the example is not the book's data).
"""

import re

import pytest

from conftest import ROOT
from mqperf import catalog
from mqperf.publish import pages
from mqperf.present.results import ABOUT_TITLE

EXAMPLES = ROOT / "data" / "examples"
CHAPTERS = sorted(c.name for c in catalog.chapters() if c.contract)


def test_every_chapter_has_an_example_and_a_generated_section():
    assert sorted(p.stem for p in EXAMPLES.glob("*.csv") if "." not in p.stem) == CHAPTERS
    text = pages.contracts()
    for chapter in CHAPTERS:
        assert f"### {chapter}: " in text and f"data/examples/{chapter}.csv" in text
    page = (ROOT / "chapters" / "bring_your_own_data.md").read_text(encoding="utf-8")
    assert "_generated/contracts.md" in page


def test_every_example_passes_its_contract():
    from mqperf.data import views

    for path in EXAMPLES.glob("*.csv"):
        chapter, _, param = path.stem.partition(".")
        frame = views.open(str(path), chapter, param or "data")
        assert len(frame) >= 2, path.name


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_example_runs(tmp_path, chapter, warm_mqperf):
    out = tmp_path / "report"
    args = ["run", chapter, "--data", str(EXAMPLES / f"{chapter}.csv"), "--out", str(out), "-q"]
    for extra in EXAMPLES.glob(f"{chapter}.*.csv"):
        args += ["-p", extra.stem.split(".", 1)[1], str(extra)]
    status, _, err = warm_mqperf(*args)
    assert status == 0, err
    html = (out / f"{chapter}.html").read_text(encoding="utf-8")
    # Nothing loaded from elsewhere (the inlined libraries mention CDNs in their code;
    # tests/publish/test_browser.py checks that the report makes no request).
    markup = re.sub(r"<script>.*?</script>", "", html, flags=re.S)  # library code quotes URLs in strings
    assert not re.search(r'(src|href)="https?://', markup) and len(html) > 10_000
    assert ABOUT_TITLE not in markup, "a reader's report shows a passage about the published measurements"
    assert "{ref}" not in markup and "{doc}" not in markup
    assert "Traceback" not in markup
    assert (out / f"{chapter}.ipynb").exists()
