"""Generated pages list everything they are generated from; chapters link their errata."""

import csv
import functools
import json
import re

import pytest

from conftest import ROOT
from mqperf import data
from mqperf.publish import pages

ERRATA = list(csv.DictReader((ROOT / "data" / "errata.csv").open(encoding="utf-8")))


def test_data_catalog_lists_every_dataset_with_its_row_count():
    text = pages.data_catalog()
    for name in data.resource_names():
        rows = len(data.load(name))
        assert f"(data-{name})=" in text
        assert f"*rows* {rows} " in text, name


def test_errata_page_has_every_erratum():
    text = pages.errata()
    for row in ERRATA:
        assert f"(errata-{row['erratum_id'].lower()})=" in text
        # The whole quote, every line of it inside the one blockquote, as literal text.
        from mqperf.present.text import markdown

        assert "\n".join(f"> {markdown(line)}".rstrip() for line in row["quote"].strip().splitlines()) in text


def test_errata_page_reads_as_text():
    text = pages.errata()
    assert "(printed: )" not in text and "printed: )" not in text
    for row in ERRATA:
        formula, value = row["implied_formula"], row["implied_value"]
        if formula and formula.replace(",", "") == value.replace(",", ""):
            assert f"`{formula}` = " not in text, row["erratum_id"]  # no "4382523 = 4382523"
    # Sources are named by the article's title, not only by the seed's file name.
    assert "— *IBM MQ for z/OS 9.3.3 - Performance of Kafka Connectors on z/OS" in text


def test_errata_numbers_keep_every_printed_digit():
    assert pages._number("26169344") == "26,169,344"
    assert pages._number("-405.027") == "-405.027" and pages._number("1KB") == "1KB"


def test_model_cards_page_lists_every_card():
    text = pages.model_cards()
    for path in sorted((ROOT / "models").glob("*.json")):
        assert json.loads(path.read_text())["name"] in text


@functools.cache
def _chapter_texts():
    texts = {}
    for path in sorted((ROOT / "chapters").glob("*")):
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text())
            texts[path.stem] = "\n".join("".join(c["source"]) for c in nb["cells"])
        elif path.suffix == ".md":
            texts[path.stem] = path.read_text()
    # A chapter's errata links may live in its module's about-passages (shown on the book's data).
    home = ROOT / "src" / "mqperf" / "chapters"
    for path in sorted(home.rglob("*.py")):
        # A package's modules belong to the package's chapter; an old-style module to its own.
        stem = path.parent.name if path.parent != home else path.stem.lstrip("_")
        name = next((c for c in texts if stem.startswith(c)), stem)
        texts[name] = texts.get(name, "") + "\n" + path.read_text(encoding="utf-8")
    return texts


def _views() -> dict[str, str]:
    """Each chapter's view of the book's data (which datasets it reads), by chapter name."""
    return {p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "src" / "mqperf" / "data" / "views").glob("*.py")}


@functools.cache
def _words() -> dict[str, frozenset]:
    """The words (``\\w+``) of each chapter's texts and view, read once for every erratum."""
    texts, views = _chapter_texts(), _views()
    return {name: frozenset(re.findall(r"\w+", text + "\n" + views.get(name, ""))) for name, text in texts.items()}


@pytest.mark.parametrize("row", ERRATA, ids=[r["erratum_id"] for r in ERRATA])
def test_every_erratum_is_linked_from_the_chapters_that_read_its_data(row):
    """A chapter that reads a dataset an erratum affects links the erratum; an erratum on data no
    chapter reads yet is on the errata page only (test_errata_page_has_every_erratum)."""
    target = f"errata-{row['erratum_id'].lower()}"
    texts = _chapter_texts()
    affected = row["affects"].split()
    assert all(re.fullmatch(r"\w+", d) for d in affected), f"{row['erratum_id']}: a dataset name is not one word"
    readers = [name for name, words in _words().items() if any(d in words for d in affected)]
    if not readers:
        return
    linked = [name for name in readers if target in texts[name]]
    assert linked, f"{row['erratum_id']} ({row['affects']}) is not linked from the chapters that read it: {readers}"


def test_a_quote_is_text_whatever_its_lines_start_with():
    from mqperf.publish.pages import _blockquote

    quoted = _blockquote("rates must be\n> 0 and *more* than `x`\n- a list? {ref}`no`")
    lines = quoted.splitlines()
    assert all(line.startswith("> ") for line in lines)
    # Not a nested quote, emphasis, code, a list item or a role: each character is literal.
    assert lines[1] == r"> \> 0 and \*more\* than \`x\`" and lines[2].startswith(r"> \- a list")
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(quoted)
    assert html.count("<blockquote>") == 1 and "<em>" not in html and "<code>" not in html
