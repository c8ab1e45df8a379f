"""The setup a tool's files state, in words, for ``frame.attrs["setup"]``.

A reader records what its files say about how they were made: the MQ version, the platform,
the queue managers, the interval length, the tool. :mod:`mqperf.data.ingest` writes it into
``conversion.json`` and "How this report was made" shows it (``present.howmade``), with "not
stated" for what the files do not say. Only what the files state goes in: nothing is inferred
from the tool's usual habits.

Keys a report looks for first: ``MQ version``, ``platform``, ``interval length``; any others
(``queue managers``, ``tool``, ...) follow.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

#: Names listed one by one before "and N more".
LISTED = 6


def attach(frame: pd.DataFrame, **setup) -> pd.DataFrame:
    """``frame`` with ``setup`` (keys with ``_`` read as spaces, empty values left out) in its attrs."""
    found = {k.replace("_", " "): v for k, v in setup.items() if v not in (None, "", [])}
    frame.attrs["setup"] = {**frame.attrs.get("setup", {}), **found}
    return frame


def carry(source: pd.DataFrame, out: pd.DataFrame) -> pd.DataFrame:
    """``out`` (an adapter's new frame) with the setup the reader recorded on ``source``."""
    if source.attrs.get("setup"):
        out.attrs["setup"] = dict(source.attrs["setup"])
    return out


def seconds(values) -> str:
    """Interval lengths in words: ``"900 s"``, or ``"60 to 1,800 s (most often 1,800 s)"``."""
    v = pd.to_numeric(pd.Series(list(values)), errors="coerce")
    v = v[np.isfinite(v) & (v > 0)]
    if v.empty:
        return ""
    shown = [_num(x) for x in v]
    common = Counter(shown).most_common(1)[0][0]
    if len(set(shown)) == 1:
        return f"{common} s"
    return f"{_num(v.min())} to {_num(v.max())} s (most often {common} s)"


def _num(x: float) -> str:
    x = float(x)
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.3g}" if x < 10 else f"{x:,.1f}"


def names(values) -> str:
    """Distinct names, in order: ``"QM1, QM2"``, or the first few and how many more."""
    seen = [str(v).strip() for v in dict.fromkeys(values) if v is not None and str(v).strip() and str(v) != "nan"]
    if len(seen) <= LISTED:
        return ", ".join(seen)
    return f"{', '.join(seen[:LISTED])} and {len(seen) - LISTED:,} more"


def mq_version(code) -> str:
    """MQ's version codes as a version: ``"100000"`` (VVRRMM) → 10.0.0, ``"800"`` (VRM) → 8.0.0;
    a command level (``802``, ``940``) → 8.0, 9.4. Anything else is given as it is."""
    text = str(code).strip().lstrip("=").strip('"').strip()
    if text.isdigit() and len(text) == 6:
        return f"MQ {int(text[:2])}.{int(text[2:4])}.{int(text[4:])}"
    if text.isdigit() and len(text) == 3:
        return f"MQ {text[0]}.{text[1]}.{text[2]}"
    return text


def command_level(level) -> str:
    """A PCF command level (``802``, ``940``) as the MQ release it belongs to."""
    try:
        value = int(level)
    except (TypeError, ValueError):
        return ""
    return f"MQ {value // 100}.{value // 10 % 10} (command level {value})"


def versions(values, convert=mq_version) -> str:
    """Distinct version codes in words, each converted."""
    return names(convert(v) for v in values if str(v).strip())
