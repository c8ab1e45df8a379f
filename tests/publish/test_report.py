"""The standalone report renders a chapter's Markdown as the book does: math intact for
MathJax, MyST cross-references reduced to their words (the book's pages are not there)."""

import re

import nbformat

from mqperf import catalog
from mqperf.publish import report


def test_math_keeps_its_tex_for_mathjax():
    html = report._markdown("the half size $B\\,s/(s+s_{1/2})$\n\n$$X(N) = \\frac{\\lambda N}{1+\\sigma(N-1)}$$\n")
    assert r"\(B\,s/(s+s_{1/2})\)" in html  # CommonMark alone gave B,s/(s+s_1/2)
    assert r"\[X(N) = \frac{\lambda N}{1+\sigma(N-1)}\]" in html


def test_math_is_escaped_for_html():
    assert r"\(a &lt; b\)" in report._markdown("$a < b$")


def test_cross_references_keep_their_words():
    html = report._markdown("see {doc}`TLS channel costs <tls_channel_costs>`, {doc}`methods` "
                            "and {ref}`erratum E001 <errata-e001>`")
    assert "{doc}" not in html and "{ref}" not in html
    assert "TLS channel costs" in html and "methods" in html and "erratum E001" in html


def test_report_of_every_chapter_has_no_raw_role_or_broken_math(tmp_path):
    # Every committed chapter, rendered as a standalone report: no MyST role survives, and
    # every formula reaches MathJax with its delimiters.
    for chapter in catalog.chapters():
        target = tmp_path / f"{chapter.name}.html"
        report.write_report(chapter.path, target, title=chapter.title)
        text = target.read_text(encoding="utf-8")
        # The page's own text: the inlined libraries' code has backticks of its own.
        body = re.sub(r"<script.*?</script>", "", text[text.index('<p class="meta">'):], flags=re.S)
        assert "}`" not in body, chapter.name
        nb = nbformat.read(chapter.path, as_version=4)
        if any("$" in c.source for c in nb.cells if c.cell_type == "markdown"):
            assert "\\(" in body or "\\[" in body, chapter.name
