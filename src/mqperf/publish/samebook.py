"""What "the same book" means: the one rule every validation of the book applies.

Two outputs are the same when their text is identical once every number is taken out, and
every number is within one unit in the last place it is shown with (a table cell, a sentence:
"483.13" has its last place at 0.01; a chart's data value: its
:data:`~mqperf.numbers.TABLE_DIGITS`-th significant digit, which is what the charts round to).
A number shown with fewer than three significant digits ("3 tasks", "12 %") and an integer in a
chart's data (counts, keys) must be equal. A value that lies on a rounding boundary shows one
unit apart on two CPUs whose BLAS kernels differ in the last bits; anything more is a result
that moved. nbval over the book (the repository's ``conftest.py``), the determinism test,
``mqperf build`` (which keeps the committed notebook when nothing moved beyond the rule) and
``mqperf report test`` all apply it through :func:`same_outputs`; :mod:`mqperf.publish.drift`
says which number moved when it fails. Pure functions of their inputs.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal, InvalidOperation

from mqperf.numbers import TABLE_DIGITS as CHART_DIGITS

#: A shown number may move by one unit in its last place only when that unit is at most this
#: fraction of it (three or more significant digits shown).
MIN_RELATIVE_UNIT = 0.01

#: What "the same book" means, as the README and the failure messages state it.
RULE = ("text identical; every number within one unit in the last place it is shown with, when it shows "
        f"three or more significant digits (a chart's data: its {CHART_DIGITS}th significant digit; "
        "counts and shorter numbers exactly)")

# For the rule: a comma groups thousands only as ",ddd" (so "[1,2,3]" is three numbers, not 123).
_SHOWN = re.compile(r"[−-]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SPEC = re.compile(r"var spec = (\{.*?\});\n", re.S)

def parse_number(text: str) -> float | None:
    """The number a table cell shows ("60,112", "−0.5", "12 %", "∞"), or None for text."""
    t = text.strip().replace("\u2212", "-").replace(",", "").rstrip("%").strip()
    if t in ("∞", "inf"):
        return math.inf
    if t in ("-∞", "-inf"):
        return -math.inf
    try:
        return float(t)
    except ValueError:
        return None


def parse_chart(html: str) -> dict | None:
    """The Vega-Lite spec a :mod:`mqperf.present.charts` chart embeds in its HTML, or None."""
    m = _SPEC.search(html)
    if not m:
        return None
    try:
        return json.loads(m.group(1).replace("<\\/", "</"))
    except json.JSONDecodeError:
        return None


def shown_unit(token: str) -> float:
    """One unit in the last place of a number as shown: "483.13" → 0.01, "61,588" → 1, "1.5e-05" → 1e-06."""
    t = token.replace("\u2212", "-").replace(",", "").rstrip("%")
    try:
        exponent = Decimal(t).as_tuple().exponent
    except InvalidOperation:
        return 0.0
    return 10.0 ** exponent if isinstance(exponent, int) else 0.0


def same_shown(a: str, b: str) -> bool:
    """Two numbers as shown (strings) agree by the rule: at most one unit in the coarser last place apart."""
    if a == b:
        return True
    na, nb = parse_number(a), parse_number(b)
    if na is None or nb is None or not (math.isfinite(na) and math.isfinite(nb)):
        return False
    unit = max(shown_unit(a), shown_unit(b))
    # A number shown with fewer than three significant digits (3 tasks, 12 %) is a count or a
    # coarse rounding: one unit there is a change a reader sees, so it must not move at all.
    return abs(na - nb) <= unit * (1 + 1e-9) and unit <= MIN_RELATIVE_UNIT * max(abs(na), abs(nb))


def chart_unit(value: float) -> float:
    """One unit in the last place a chart shows a value with (its CHART_DIGITS-th significant digit)."""
    if value == 0 or not math.isfinite(value):
        return 0.0
    return 10.0 ** (math.floor(math.log10(abs(value))) - CHART_DIGITS + 1)


def same_value(a, b) -> bool:
    """Two JSON values (a chart's spec or data) agree by the rule: structure and text equal, floats
    within one unit in their last shown place, integers equal."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if a == b:
            return True
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        return abs(a - b) <= max(chart_unit(a), chart_unit(b)) * (1 + 1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def same_text(a: str, b: str) -> bool:
    """Two texts agree by the rule: identical with the numbers taken out, each number within one unit."""
    if a == b:
        return True
    if _SHOWN.sub("#", a) != _SHOWN.sub("#", b):
        return False
    return all(same_shown(x, y) for x, y in zip(_SHOWN.findall(a), _SHOWN.findall(b)))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else ("" if value is None else str(value))


def _same_data(a, b) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        spec_a, spec_b = _SPEC.search(a), _SPEC.search(b)
        if spec_a and spec_b:
            rest_a, rest_b = _SPEC.sub("var spec = #;\n", a), _SPEC.sub("var spec = #;\n", b)
            return rest_a == rest_b and same_value(parse_chart(a), parse_chart(b))
        return same_text(a, b)
    return same_value(a, b)


def _coalesced(outputs) -> list[dict]:
    """Outputs as compared: consecutive streams of one name joined (as a notebook's reader sees them)."""
    out: list[dict] = []
    for o in outputs or []:
        o = dict(o)
        if o.get("output_type") == "stream" and out and out[-1].get("output_type") == "stream" \
                and out[-1].get("name") == o.get("name"):
            out[-1] = {**out[-1], "text": _text(out[-1].get("text")) + _text(o.get("text"))}
        else:
            out.append(o)
    return out


def same_output(exp: dict, act: dict) -> bool:
    """One output against another by the rule (execution counts and output metadata aside)."""
    if exp.get("output_type") != act.get("output_type"):
        return False
    if exp.get("output_type") == "stream":
        return exp.get("name") == act.get("name") and same_text(_text(exp.get("text")), _text(act.get("text")))
    if exp.get("output_type") == "error":
        return exp.get("ename") == act.get("ename") and same_text(str(exp.get("evalue")), str(act.get("evalue")))
    de, da = exp.get("data") or {}, act.get("data") or {}
    return de.keys() == da.keys() and all(_same_data(_joined(de[k]), _joined(da[k])) for k in de)


def _joined(value):
    return "".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else value


def same_outputs(expected, actual) -> bool:
    """A cell's outputs against the stored ones by the rule: True when nothing moved beyond it."""
    e, a = _coalesced(expected), _coalesced(actual)
    return len(e) == len(a) and all(same_output(x, y) for x, y in zip(e, a))


