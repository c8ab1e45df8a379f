"""Hostile strings a reader's file or arguments may hold, and the checks a page must pass.

Every string here is legal in a CSV cell or on a command line. Wherever one appears (a
sentence, a table, a chart, a page title, a compare label, a fleet row) it must be shown as
the characters it is and run nothing. Used by ``tests/publish/test_injection.py`` (every chapter's
analysis, and the pages of run, compare, fleet --reports and report build in Chromium).
"""

from __future__ import annotations

from mqperf.present.text import visible

#: Each calls ``alert(N)`` (a dialog the browser test listens for) if it ever runs.
CORPUS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '"><svg onload=alert(3)>',
    "</script><script>alert(4)</script>",
    "[a link](javascript:alert(5))",
    '<a href="javascript:alert(6)">click</a>',
    "{raw:html}`<b onmouseover=alert(7)>x</b>`",
    "x\n```{raw} html\n<script>alert(8)</script>\n```",
    "$\\href{javascript:alert(9)}{x}$ \\(\\href{javascript:alert(10)}{y}\\)",
    "*em* _u_ **b** `c` &amp; &lt;i&gt; <!-- c --> {{ 7*7 }}",
    "' onmouseover='alert(11)' x='",
    "ctl\x01\x1b[31mred\u202eevil\u2028line",
    "<style>body{display:none}</style>",
    "L" * 2000,
)


def shown(name: str) -> str:
    """How a page shows ``name``: its visible form (invisible characters as escapes)."""
    return visible(name)


#: JavaScript run in a loaded page: what it would reveal if anything a name held ran or
#: became markup. Elements with an on* attribute, javascript: links, <style> or <script>
#: elements in the body that are not the page's own chart scripts.
PAGE_AUDIT = """() => {
  const bad = [];
  for (const el of document.body.querySelectorAll('*')) {
    for (const a of el.attributes) {
      if (a.name.toLowerCase().startsWith('on')) bad.push(el.tagName + ' ' + a.name);
      if (/^\\s*javascript:/i.test(a.value)) bad.push(el.tagName + ' ' + a.name + '=' + a.value);
    }
    if (el.tagName === 'STYLE' && el.textContent.includes('display:none')) bad.push('STYLE from a name');
    if (el.tagName === 'SCRIPT' && /alert\\(/.test(el.textContent) && !/var spec = /.test(el.textContent)) bad.push('SCRIPT ' + el.textContent.slice(0, 60));
  }
  return bad;
}"""
