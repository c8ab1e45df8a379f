"""The book's message-size dataset in the shape a reader's file has (contract columns only)."""

from __future__ import annotations

import pandas as pd

COLUMNS = ["connector", "series", "tasks", "msg_size_kb", "rate_msg_s", "approx_mb_s", "basis"]


def points(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Rates by connector and size, with the article's printed MB/s; quotes and seeds dropped."""
    return frame[COLUMNS].reset_index(drop=True)


VIEWS = {"data": points}
