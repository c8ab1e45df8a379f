"""Tables as chapters show them: no index column, numbers rounded, missing shown as "–".

``show(frame)`` returns an object Jupyter and Jupyter Book render as a compact HTML table
(and as plain text elsewhere). The HTML has no random ids, so re-execution is
byte-identical for nbval.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from mqperf.models._base import round_sig


def _fmt(value, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        v = round_sig(value, digits)
        if float(v).is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:,.{max(0, digits - 1 - int(math.floor(math.log10(abs(v)))))}f}".rstrip("0").rstrip(".")
    return str(value)


class Table:
    def __init__(self, frame: pd.DataFrame, digits: int, caption: str | None):
        self.frame = frame
        self.digits = digits
        self.caption = caption

    def _cells(self):
        for row in self.frame.itertuples(index=False):
            yield [_fmt(v.item() if hasattr(v, "item") else v, self.digits) for v in row]

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.frame.columns)
        numeric = [pd.api.types.is_numeric_dtype(self.frame[c]) for c in self.frame.columns]
        body = "".join(
            "<tr>" + "".join(
                f'<td class="{"num" if n else "text"}">{html.escape(v)}</td>' for v, n in zip(cells, numeric)
            ) + "</tr>"
            for cells in self._cells()
        )
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return f'<table class="mqperf-table">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    def __repr__(self) -> str:
        rows = [list(map(str, self.frame.columns))] + list(self._cells())
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows[0] else []
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)


def show(frame: pd.DataFrame, *, digits: int = 5, caption: str | None = None, max_rows: int = 200) -> Table:
    """A display table of ``frame``: numbers to ``digits`` significant digits, at most ``max_rows`` rows."""
    if len(frame) > max_rows:
        raise ValueError(f"{len(frame)} rows: aggregate before showing (limit {max_rows})")
    return Table(frame.reset_index(drop=True), digits, caption)
