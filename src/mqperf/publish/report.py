"""A standalone, offline HTML report from an executed chapter notebook.

Used by ``mqperf run``: one HTML file with the vega bundle inlined (and MathJax when the
chapter has formulas), so a reader can open it anywhere without a network.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from mqperf.present import text
from mqperf.publish import assets

_CSS = """
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; max-width: 980px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.5; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; font-size: 90%; }
pre.input { border-left: 3px solid #1f5fa8; }
table { border-collapse: collapse; font-size: 90%; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .2em .5em; }
th { background: #f0f0f0; }
.output { margin: .5em 0 1.5em; overflow-x: auto; }
.meta { color: #666; font-size: 90%; }
"""

def _book_css() -> str:
    """The book's table and chart rules, so a report's tables look and fit as the book's do."""
    from mqperf.paths import book_root

    path = book_root() / "_static" / "mqperf.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


# MyST roles: {ref}`text <target>`, {doc}`text <target>`, {doc}`target`, {numref}, ...
_ROLE = re.compile(r"\{(?:ref|doc|numref|eq|term|download)\}`([^`<]*?)\s*(?:<([^>]*)>)?`")


def _role_text(match: re.Match) -> str:
    # Cross-references point into the book, which a standalone report does not have: keep
    # the words, drop the link.
    return match.group(1).strip() or (match.group(2) or "").strip() or "(see the book)"


def _math(content: str, options: dict) -> str:
    # Delimited for MathJax, escaped for HTML; without this, CommonMark eats the backslashes
    # and underscores of the TeX (B\,s/(s+s_{1/2}) came out as B,s/(s+s_1/2)). MathJax typesets
    # only these spans (see MATHJAX_CONFIG): a "\(" in a reader's name elsewhere stays text.
    if options.get("display_mode"):
        return f'<div class="math">\\[{html.escape(content)}\\]</div>'
    return f'<span class="math">\\({html.escape(content)}\\)</span>'


# The same dollar-math rules as the book's MyST parser (dollarmath with its defaults). Raw HTML
# is shown as text, never passed through (no sentence of the book's needs it, and a reader's
# name must never become markup); link targets such as javascript: are refused by markdown-it.
_MD = MarkdownIt("commonmark", {"html": False}).enable("table").use(dollarmath_plugin, renderer=_math)

#: MathJax typesets only the math the Markdown renderer marked (class "math"); the rest of the
#: page (a reader's names among it) is ignored, and nothing is fetched (autoload, the menu).
MATHJAX_CONFIG = ("<script>window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']], "
                  "packages: {'[-]': ['autoload', 'require']}}, loader: {load: []}, "
                  "options: {enableMenu: false, ignoreHtmlClass: 'mqperf-report', processHtmlClass: 'math'}};</script>")


def _markdown(source: str) -> str:
    return _MD.render(_ROLE.sub(_role_text, source))


def _output(out) -> str:
    if out.output_type == "stream":
        return f"<pre>{html.escape(out.text)}</pre>"
    if out.output_type == "error":
        return f"<pre>{html.escape(out.ename)}: {html.escape(out.evalue)}</pre>"
    data = out.get("data", {})
    if "text/html" in data:
        return data["text/html"]
    if "image/png" in data:
        return f'<img alt="figure" src="data:image/png;base64,{data["image/png"]}"/>'
    if "text/markdown" in data:
        return _markdown(data["text/markdown"])
    if "text/plain" in data:
        return f"<pre>{html.escape(data['text/plain'])}</pre>"
    return ""


def standalone(title: str, body: list[str], *, charts: bool = True) -> str:
    """A standalone offline page of HTML parts (with charts, the vega bundle inlined; no external URL)."""
    script = f"<script>{assets.vega_bundle()}</script>" if charts else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}{_book_css()}</style>"
            f"{script}</head><body class=\"mqperf-report\">" + "\n".join(body) + "</body></html>\n")


def write_report(notebook: Path, target: Path, *, title: str, subtitle: str = "") -> None:
    """Render ``notebook`` to ``target`` (HTML); hidden and removed cells stay hidden."""
    nb = nbformat.read(notebook, as_version=4)
    body = []
    has_math = False
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        # A standalone report is a reader's run: the book's own remarks (book-only) are not about
        # it, and its parameters are the "This run" table, not code.
        if tags & {"remove-cell", "book-only", "parameters", "injected-parameters"}:
            continue
        if cell.cell_type == "markdown":
            has_math = has_math or "$" in cell.source
            body.append(_markdown(cell.source))
            continue
        if cell.cell_type != "code":
            continue
        if not ({"hide-input", "remove-input"} & tags):
            body.append(f'<pre class="input">{html.escape(cell.source)}</pre>')
        if "remove-output" not in tags:
            body.append('<div class="output">' + "".join(_output(o) for o in cell.get("outputs", [])) + "</div>")
    head = [f"<script>{assets.vega_bundle()}</script>"]
    if has_math:
        mathjax = (assets.mathjax_root() / "tex-svg.js").read_text(encoding="utf-8")
        # Inlined, MathJax cannot tell where it was loaded from and would fetch extensions
        # (autoload, the menu) from its default CDN: switch those off, so nothing is fetched.
        head.insert(0, MATHJAX_CONFIG)
        head.append(f"<script>{mathjax}</script>")
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{text.html(title)}</title><style>{_CSS}{_book_css()}</style>{''.join(head)}</head>"
        f'<body class="mqperf-report"><p class="meta">{text.html(subtitle)}</p>' + "\n".join(body) + "</body></html>\n"
    )
    target.write_text(page, encoding="utf-8")
