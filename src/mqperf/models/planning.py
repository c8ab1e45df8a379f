"""Planning answers from a fitted curve, once for every chapter: how many units for a target,
what each unit adds, where more stop paying, and whether an answer leaves the data.

The functions take the curve as a callable (``predict(n) -> rate``), so any model a chapter
accepts answers the same questions the same way. Searches are not capped by a table's range:
they follow the curve up to :data:`LIMIT` units (or its peak), and the caller labels an answer
past the largest measured value as an extrapolation (:func:`side`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from mqperf.models.evidence import within

#: The most units a search looks at (tasks, clients, CPUs): far past anything measured.
LIMIT = 4096


def first_reaching(predict: Callable, target: float, *, start: int = 1, limit: int = LIMIT) -> int | None:
    """The smallest whole number of units whose modelled rate reaches ``target``; None when no count
    up to ``limit`` does (the target lies above the curve's peak or limit)."""
    n = np.arange(start, limit + 1, dtype=float)
    hit = np.nonzero(np.asarray(predict(n), dtype=float) >= target)[0]
    return int(n[hit[0]]) if hit.size else None


def gains(predict: Callable, upto: int) -> pd.DataFrame:
    """Per unit from 1 to ``upto``: the modelled rate and what that unit adds, in percent of the rate before it."""
    n = np.arange(1, upto + 1, dtype=float)
    x = np.asarray(predict(n), dtype=float)
    added = np.concatenate([[np.nan], np.diff(x) / x[:-1] * 100])
    return pd.DataFrame({"units": n.astype(int), "rate": x, "added %": added})


def last_adding(predict: Callable, pct: float, *, limit: int = LIMIT) -> int | None:
    """The last unit that still adds at least ``pct`` % to the rate before it; None when the first
    added unit already adds less (or the curve is flat)."""
    table = gains(predict, limit)
    adds = table["added %"].to_numpy()[1:]
    small = np.nonzero(~(adds >= pct))[0]
    if small.size == 0:
        return limit
    return int(small[0] + 1) if small[0] > 0 else None


def side(value: float, low: float, high: float) -> str:
    """Where an answer lies against the measured range: "within", "below" or "above"."""
    return within(value, low, high)


def extrapolated(value: float | None, low: float, high: float) -> bool:
    """True when an answer lies outside the measured range (and so must be labelled)."""
    return value is not None and side(value, low, high) != "within"
