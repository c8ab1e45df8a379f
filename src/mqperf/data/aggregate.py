"""Many rows per setting: one mean per setting, with its count and spread, and a sentence saying so.

A reader's file may hold one row per measurement interval: thousands to millions of rows
for a handful of settings (tasks values, message sizes, ...). A chapter that fits a curve
through one value per setting calls :func:`means` on it. The result keeps, per setting,
the mean of each measured column, the number of rows averaged (``n``) and their sample
standard deviation (``<column>_sd``), so every table shows how much each point rests on.

Where no setting has more than one row (the book's own datasets), :func:`means` returns
the frame unchanged and :func:`note` is empty: nothing was aggregated, so nothing is said.

Fits through the means are unweighted: a setting is one experiment, and its intervals are
successive, correlated samples of that one run (warm-up, drift), not independent repeats;
weighting by ``n`` would let a setting that simply ran longer pull the curve. The fits'
degrees of freedom therefore come from the distinct settings, not the raw rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

COUNT = "n"


def sd_column(value: str) -> str:
    """The name of the standard-deviation column :func:`means` writes for ``value``."""
    return f"{value}_sd"


def means(frame: pd.DataFrame, by: Sequence[str], values: Sequence[str], *, weight: str | None = None,
          rates: Sequence[str] = ()) -> pd.DataFrame:
    """One row per distinct ``by``: the mean of each of ``values``, ``n`` and each ``<value>_sd``.

    Parameters
    ----------
    frame
        Rows as loaded. A missing value in a ``by`` column is a setting of its own.
    by
        The setting: the columns whose combination is one point (e.g. series and tasks).
    values
        Numeric columns to average (missing values skipped; ``n`` counts rows). Other
        columns keep their first non-missing value per setting (labels such as a note
        that are constant within a setting).

    weight, rates
        A rate is a count over a time: the rate of a setting is its total count over its total
        time, which is its rows' rates weighted by their interval length. With ``weight`` (a
        column of interval lengths, e.g. ``interval_s``) the ``rates`` columns are averaged so,
        and ``attrs["weighted_by"]`` says it; rows without a length count as equally long.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when every setting has a single row; otherwise the means, in the
        order the settings first appear, with ``n`` (rows averaged) and the sample standard
        deviation of each value column (missing where ``n`` is 1).
    """
    by = list(by)
    values = [v for v in values if v in frame]
    if frame.empty or not frame.duplicated(subset=by).any():
        return frame
    groups = frame.groupby(by, sort=False, dropna=False)
    # Means, counts and spreads are vectorised per column: a million rows take well under a second.
    out = groups.first()
    weighted = weight is not None and weight in frame and frame[weight].notna().any()
    if weighted:
        w = frame[weight].astype(float)
        w = w.fillna(w.median())
    for value in values:
        column = groups[value]
        if weighted and value in rates:
            # Total count over total time: Σ rate·t / Σ t over the rows that have the rate.
            present = frame[value].notna()
            num = (frame[value] * w).where(present, 0.0).groupby([frame[b] for b in by], sort=False, dropna=False).sum()
            den = w.where(present, 0.0).groupby([frame[b] for b in by], sort=False, dropna=False).sum()
            out[value] = (num / den.where(den > 0)).reindex(out.index)
        else:
            out[value] = column.mean()
        out[sd_column(value)] = column.std(ddof=1)
    out[COUNT] = groups.size()
    out = out.reset_index()
    order = [c for c in frame.columns if c in out] + [COUNT] + [sd_column(v) for v in values]
    out = out[list(dict.fromkeys(order))]
    for col in by:
        if col in frame and pd.api.types.is_integer_dtype(frame[col]):
            out[col] = out[col].astype(frame[col].dtype)
    if weighted and any(v in rates for v in values):
        out.attrs["weighted_by"] = f"their {weight}"
    return out


def aggregated(frame: pd.DataFrame) -> bool:
    """True when ``frame`` came from :func:`means` averaging at least one setting's rows."""
    return COUNT in frame and len(frame) > 0 and int(frame[COUNT].max()) > 1


def note(frame: pd.DataFrame, *, per: str, value: str | None = None, rows: int | None = None) -> str:
    """The sentence a report shows when rows were averaged; empty when they were not.

    Parameters
    ----------
    frame
        The output of :func:`means`.
    per
        What one point is, in words: "series and tasks value".
    value
        The averaged column whose spread the tables show (for the sentence's wording).
    rows
        The file's rows, where they are not the sum of ``n`` (a file row that feeds
        several points, e.g. two measured columns reshaped into two effects).
    """
    if not aggregated(frame):
        return ""
    rows = int(frame[COUNT].sum()) if rows is None else int(rows)
    points = len(frame)
    counts = frame[COUNT].to_numpy()
    spread = "standard deviation" + (f" of {value}" if value else "")
    lo, hi = int(counts.min()), int(counts.max())
    each = f"{lo:,} rows each" if lo == hi else f"{lo:,} to {hi:,} rows each"
    return (
        f"Your file's {rows:,} rows were averaged into {points:,} point{'s' if points != 1 else ''}, "
        f"one per {per} ({each}); the tables show each mean with its count (n) and {spread} "
        f"(sd), and the fits go through the means."
    )


class Note:
    """A sentence shown as Markdown in a notebook, or nothing when it is empty."""

    def __init__(self, text: str):
        self.text = text

    def _ipython_display_(self) -> None:
        # Nothing at all when empty: a notebook on the book's own data gets no blank output.
        if self.text:
            from IPython.display import Markdown, display

            display(Markdown(self.text))

    def __repr__(self) -> str:
        return self.text

    def __bool__(self) -> bool:
        return bool(self.text)


class AggregationNote(Note):
    """The sentence saying rows were averaged: a :class:`Note` that tests and readers can
    tell apart from the chapter's other computed sentences."""


def sample(frame: pd.DataFrame, limit: int, *, by: Sequence[str] = ()) -> pd.DataFrame:
    """At most ``limit`` rows of ``frame``, chosen deterministically (evenly spaced).

    With ``by``, each group keeps its share, so a small series is not crowded out by a
    large one. The same frame always gives the same rows (no random state).
    """
    if len(frame) <= limit:
        return frame
    if not by:
        keep = np.unique(np.linspace(0, len(frame) - 1, limit).round().astype(int))
        return frame.iloc[keep]
    sizes = frame.groupby(list(by), sort=False, dropna=False).size()
    share = max(1, limit // len(sizes))
    parts = [sample(group, share) for _, group in frame.groupby(list(by), sort=False, dropna=False)]
    return pd.concat(parts).head(limit) if parts else frame.head(0)
