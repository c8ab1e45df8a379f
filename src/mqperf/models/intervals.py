"""Busy intervals in a rate series, found from the data rather than assumed.

:func:`busy` splits a queue manager's interval rates into a quiet and a busy group with
Otsu's rule on log rates (the threshold that maximises the between-group variance), which
needs no knob for "how busy is busy". A split is only accepted when the groups really
differ: the busy group's median must be at least ``min_contrast`` times the quiet group's,
else the series is called flat and nothing is busy. :func:`periods` merges consecutive busy
intervals (a gap of up to half a typical interval) into periods.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: A busy group whose median rate is less than this multiple of the quiet group's is no busy group.
MIN_CONTRAST = 2.0


@dataclass(frozen=True)
class Split:
    """The outcome of :func:`busy` for one series."""

    busy: np.ndarray          # bool per interval
    threshold: float | None   # rate at and above which an interval is busy; None: no split
    contrast: float | None    # busy median / quiet median (None when there is no quiet or busy group)
    reason: str               # why there is no split, "" when there is one


def busy(rates, *, min_contrast: float = MIN_CONTRAST) -> Split:
    """Which intervals are busy: Otsu's two-group split of ``log(1 + rate)``.

    Fewer than 3 intervals, or all rates equal, give no split (with the reason).
    """
    x = np.asarray(rates, dtype=float)
    none = np.zeros(len(x), dtype=bool)
    if len(x) < 3:
        few = {0: "no interval is", 1: "one interval is", 2: "two intervals are"}[len(x)]
        return Split(none, None, None, f"{few} too few to tell busy from quiet")
    logs = np.log1p(np.clip(x, 0, None))
    values = np.unique(logs)
    if len(values) < 2:
        return Split(none, None, None, "every interval has the same rate")
    best, cut = -1.0, None
    for t in (values[:-1] + values[1:]) / 2:  # every distinct split point
        hi = logs > t
        w1 = hi.mean()
        between = w1 * (1 - w1) * (logs[hi].mean() - logs[~hi].mean()) ** 2
        if between > best:
            best, cut = between, t
    hi = logs > cut
    quiet, loud = np.median(x[~hi]), np.median(x[hi])
    contrast = loud / quiet if quiet > 0 else np.inf
    if contrast < min_contrast:
        return Split(none, None, float(contrast),
                     f"the busiest intervals' median rate is only {contrast:.3g} times the others' "
                     f"(at least {min_contrast:g} counts as busy)")
    return Split(hi, float(x[hi].min()), float(contrast), "")


def periods(start: pd.Series, interval_s: pd.Series, flags) -> pd.DataFrame:
    """Consecutive busy intervals merged into periods: start, end, intervals.

    Intervals are consecutive when the next starts no later than half a typical interval after
    the previous one ends (clock jitter does not split a period; a missing record does).
    """
    start = pd.to_datetime(start).reset_index(drop=True)
    length = pd.Series(interval_s, dtype=float).reset_index(drop=True)
    flags = np.asarray(flags, dtype=bool)
    order = np.argsort(start.to_numpy(), kind="stable")
    typical = float(np.median(length)) if len(length) else 0.0
    out, current = [], None
    for i in order:
        if not flags[i]:
            if current is not None:
                out.append(current)
                current = None
            continue
        begin, end = start[i], start[i] + pd.to_timedelta(length[i], unit="s")
        if current is not None and (begin - current["end"]).total_seconds() <= 0.5 * typical:
            current.update(end=end, intervals=current["intervals"] + 1, members=current["members"] + [i])
        else:
            if current is not None:
                out.append(current)
            current = {"start": begin, "end": end, "intervals": 1, "members": [i]}
    if current is not None:
        out.append(current)
    return pd.DataFrame(out, columns=["start", "end", "intervals", "members"])
