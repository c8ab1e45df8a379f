"""Tables as chapters show them: no index column, numbers rounded, missing shown as "–".

``show(frame)`` returns an object Jupyter and Jupyter Book render as a compact HTML table
(and as plain text elsewhere). The HTML has no random ids, so re-execution is
byte-identical for nbval.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from mqperf import numbers
from mqperf.present import precision, text


def _fmt(value, digits: int, scale: float | None = None) -> str:
    """One cell as text; numbers by :func:`mqperf.numbers.format_number`, with
    ``scale`` the largest magnitude of the cell's column (noise relative to it shows as 0)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return numbers.format_number(value, digits, scale=scale)
    # A reader's names and labels may hold characters that cannot be seen: shown as escapes.
    return text.visible(value)


class Table:
    def __init__(self, frame: pd.DataFrame, digits: int | None, caption: str | None, omitted: int = 0):
        self.frame = frame
        self.digits = digits
        self.caption = caption
        self.omitted = omitted  # rows of the caller's frame not shown

    def _more(self) -> str:
        total = len(self.frame) + self.omitted
        return f"… and {self.omitted:,} more row{'s' if self.omitted != 1 else ''} not shown ({total:,} in all)"

    def _cells(self):
        scales = [numbers.column_scale(self.frame.iloc[:, j]) for j in range(self.frame.shape[1])]
        # Digits by column: the table's own when a chapter gave them, else by the unit each column
        # states (mqperf.present.precision: declared once per unit).
        digits = [self.digits if self.digits is not None else precision.table_digits(c) for c in self.frame.columns]
        for row in self.frame.itertuples(index=False):
            yield [_fmt(v.item() if hasattr(v, "item") else v, d, sc) for v, d, sc in zip(row, digits, scales)]

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{text.html(c)}</th>" for c in self.frame.columns)
        numeric = [pd.api.types.is_numeric_dtype(self.frame[c]) for c in self.frame.columns]
        body = "".join(
            "<tr>" + "".join(
                f'<td class="{"num" if n else "text"}">{html.escape(v)}</td>' for v, n in zip(cells, numeric)
            ) + "</tr>"
            for cells in self._cells()
        )
        if self.omitted:
            body += f'<tr class="more"><td class="text" colspan="{len(self.frame.columns)}">{html.escape(self._more())}</td></tr>'
        cap = f"<caption>{text.html(self.caption)}</caption>" if self.caption else ""
        return f'<table class="mqperf-table">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    def __repr__(self) -> str:
        rows = [list(map(str, self.frame.columns))] + list(self._cells())
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows[0] else []
        text = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)
        return text + ("\n" + self._more() if self.omitted else "")


def show(frame: pd.DataFrame, *, digits: int | None = None, caption: str | None = None, max_rows: int = 200,
         head: int = 20) -> Table:
    """A display table of ``frame``: numbers to ``digits`` significant digits, or (None) to the
    digits :mod:`mqperf.present.precision` declares for each column's unit.

    A frame longer than ``max_rows`` never fails: its first ``head`` rows are shown, then
    one line saying how many more rows there are. A long table is rarely read past its
    first screen, and a report must stay small however large the reader's file.
    """
    omitted = 0
    if len(frame) > max_rows:
        shown = min(head, max_rows)
        omitted = len(frame) - shown
        frame = frame.head(shown)
    return Table(frame.reset_index(drop=True), digits, caption, omitted)


def as_table(frame: pd.DataFrame, *, digits: int | None = None) -> Table:
    """``show`` for a frame a chapter displays as it is: a meaningful index becomes columns."""
    index = frame.index
    plain = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    if not plain:
        frame = frame.reset_index()
        if index.nlevels == 1 and index.name is None:
            frame = frame.rename(columns={"index": ""})
    if isinstance(frame.columns, pd.MultiIndex):
        frame = frame.set_axis([" ".join(str(p) for p in c if str(p)) for c in frame.columns], axis=1)
    return show(frame, digits=digits)


def register_dataframe_display() -> None:
    """Make a bare DataFrame in a notebook cell render through :func:`show` too.

    Chapters that display a frame directly would otherwise get pandas' own rendering (full
    float digits, index columns, ``NaN``), whose last digits differ between machines: one
    display rule for every number means every table goes through here. Does nothing
    outside IPython.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(pd.DataFrame, lambda frame: as_table(frame)._repr_html_())
    formatters["text/plain"].for_type(pd.DataFrame, lambda frame, p, cycle: p.text(repr(as_table(frame))))
    formatters["text/html"].for_type(pd.Series, lambda s: as_table(s.to_frame())._repr_html_())
    formatters["text/plain"].for_type(pd.Series, lambda s, p, cycle: p.text(repr(as_table(s.to_frame()))))


register_dataframe_display()
