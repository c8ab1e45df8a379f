"""How many significant digits each quantity is shown with: declared once, by unit.

A table column says its unit in its name (``rate (msg/s)``, ``CPU (µs)``); a sentence's number
says it with ``prose.num(value, unit=...)``. Both look the unit up here, so changing how a rate
is rounded everywhere is one line of :data:`TABLE_BY_UNIT`. Sentences round further than tables
(:data:`PROSE`), so a number a sentence states is a rounding of one a table shows; a value a
reader gave (a target rate) is shown as given (:data:`GIVEN`).
"""

from __future__ import annotations

import re

from mqperf.numbers import CARD_DIGITS, TABLE_DIGITS

#: Table digits by unit (as it appears in a column's name or a sentence's ``unit=``).
TABLE_BY_UNIT = {
    # rates: four digits separate 61,588 from 61,600 without claiming the last message
    "msg/s": 4, "requests/s": 4, "round trips/s": 4, "tx/s": 4, "transactions/s": 4, "connects/s": 4,
    "MB/s": 4, "bytes/s": 4, "writes/s": 4,
    # times and costs
    "s": 4, "ms": 4, "µs": 4, "us": 4, "ns": 4, "CPU s/h": 4, "CPU s": 4, "CPU µs": 4,
    # sizes and counts measured, not counted
    "bytes": 4, "KB": 4, "MB": 4, "GB": 4,
    # shares
    "%": 3,
}
#: Tables whose column names say no unit.
TABLE = 4
#: Sentences: one digit fewer than a table at most, so a stated number is a rounding of a shown one.
PROSE = 3
#: Model cards and fit summaries.
CARD = CARD_DIGITS
#: Chart data (the charts' own rounding, checked by the rule for "the same book").
CHART = TABLE_DIGITS
#: A value the reader gave (a parameter): all its digits.
GIVEN = 12

_UNIT = re.compile(r"\(([^()]*)\)\s*$")


def unit_of(column: str) -> str | None:
    """The unit a column's name ends with in parentheses: ``"rate (msg/s)"`` -> ``"msg/s"``."""
    m = _UNIT.search(str(column))
    return m.group(1).strip() if m else None


def table_digits(column: str, default: int = TABLE) -> int:
    """Digits a table shows a column with: by the unit its name states, else ``default``."""
    return TABLE_BY_UNIT.get(unit_of(column) or "", default)


def prose_digits(unit: str | None = None) -> int:
    """Digits a sentence shows a number with: never more than a table would show it with."""
    return min(PROSE, TABLE_BY_UNIT.get(unit or "", PROSE))
