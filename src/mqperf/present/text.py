"""A reader's strings are text: series names, labels, ids, file names and column values.

They come from a reader's files and arguments and reach HTML pages, Markdown (rendered as
MyST in the book, as CommonMark in standalone reports), chart specs and PDFs. Each context
gets its own escaping here, applied where the string is placed, so that whatever a name
holds (``<script>``, ``</script>``, a ``javascript:`` link, a MyST role or directive, TeX,
control characters) it is shown as the characters it is and runs nothing:

- :func:`visible`: characters that cannot be seen (controls, line and paragraph separators,
  bidirectional overrides) as their escape (``\\x01``, ``\\n``, ``\\u202e``), so a name can
  neither hide part of itself nor break a line or a layout;
- :func:`markdown`: :func:`visible`, then every ASCII punctuation character backslash-escaped
  (CommonMark lets any of them be escaped, and MyST's roles, directives and dollar math are
  built from them), so the name is one run of literal text in any Markdown;
- :func:`html`: :func:`visible`, then HTML-escaped (quotes too, for attributes).

Chart specs are JSON inside a ``<script>`` element: :func:`mqperf.present.charts.render`
escapes ``<``, ``>`` and ``&`` in the JSON itself, so no string in a chart can end the element.
"""

from __future__ import annotations

import html as _html
import re
import string
import unicodedata

_PUNCTUATION = frozenset(string.punctuation)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") and ch not in ("\u00ad",)


def visible(value) -> str:
    """``value`` as text with every character that cannot be seen written as its escape.

    >>> visible("QM1\\x01\\nb")
    'QM1\\\\x01\\\\nb'
    """
    text = str(value)
    if not any(_hidden(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if not _hidden(ch):
            out.append(ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out)


def markdown(value) -> str:
    """``value`` as literal text inside Markdown or MyST: no markup, link, role, directive or math.

    >>> markdown("<b>*x*</b> {ref}`y`")
    '\\\\<b\\\\>\\\\*x\\\\*\\\\<\\\\/b\\\\> \\\\{ref\\\\}\\\\`y\\\\`'
    """
    return "".join("\\" + ch if ch in _PUNCTUATION else ch for ch in visible(value))


def html(value) -> str:
    """``value`` as HTML text or an attribute value."""
    return _html.escape(visible(value), quote=True)


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescape(markdown_text: str) -> str:
    """A Markdown passage with the backslash escapes :func:`markdown` added taken out again: the
    names as a reader reads them (other Markdown, such as ``**bold**`` or roles, stays)."""
    return _ESCAPED.sub(r"\1", markdown_text)
