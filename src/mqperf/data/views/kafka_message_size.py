"""The book's message-size dataset in the shape a reader's file has (contract columns only)."""

from __future__ import annotations

import pandas as pd

COLUMNS = ["connector", "series", "tasks", "msg_size_kb", "rate_msg_s", "approx_mb_s", "basis"]


def points(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Rates by connector and size, with the article's printed MB/s; quotes and seeds dropped.

    The book's workload identifiers become words (peak_nonpersistent → peak nonpersistent); a
    reader's series names are shown as given, so only the book's view maps them."""
    out = frame[COLUMNS].reset_index(drop=True)
    return out.assign(series=out["series"].str.replace("_", " ", regex=False))


VIEWS = {"data": points}
