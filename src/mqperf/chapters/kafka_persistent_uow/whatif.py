"""Persistent messages: what a shorter commit (faster log I/O) explains, and what it would add.

The book's data state throughput gains from zHPF without the unit of work or the base rate;
:func:`log_io_what_if` applies them at the slow run's unit of work, where commits dominate, and
prices the same commit at other units of work. A reader's file has no such column.
"""

from __future__ import annotations

import pandas as pd

from mqperf.chapters.kafka_persistent_uow import B
from mqperf.models import batching
from mqperf.models.fitset import FitSet
from mqperf.present import prose


def log_io_what_if(src, points: pd.DataFrame, fits: FitSet, plan_b: float):
    """(table, None) when the data state throughput gains from faster log I/O, else (None, why)."""
    if not src.book_data:
        return None, ("a reader's file has no column for a measured throughput gain from faster log I/O, "
                      "so there is no commit-time what-if")
    from mqperf.data.views import kafka_persistent_uow as book

    name, r = next(iter(fits.results.items()))
    b = float(points.loc[points["series"] == name, B].min())
    x_b = float(r.predict([b])[0])
    rows = []
    for g in book.zhpf_gains(src.name):
        t_c = b / (x_b * (1 + g / 100)) - b * r.t_m
        if t_c < 0:
            return None, f"a gain of {prose.pct(g)} needs a negative commit time: the model cannot explain it"
        row = {"gain at b (%)": g, "messages per commit b": b, "commit time before (µs)": r.t_c * 1e6,
               "commit time after (µs)": t_c * 1e6, "commit time cut (%)": (1 - t_c / r.t_c) * 100}
        for other in sorted({10.0, float(plan_b)}):
            row[f"gain at {prose.given(other)} per commit (%)"] = (
                batching.throughput(other, t_c, r.t_m) / batching.throughput(other, r.t_c, r.t_m) - 1) * 100
        rows.append(row)
    return pd.DataFrame(rows), None


def _msgs(b: float) -> str:
    return f"{prose.num(b)} message{'' if b == 1 else 's'}"


def what_if_sentence(table: pd.DataFrame, plan_b: float) -> str:
    cut, gain = table["commit time cut (%)"], table["gain at b (%)"]
    at_plan = table[f"gain at {prose.given(float(plan_b))} per commit (%)"]
    return (f"A commit {prose.num(cut.min())} to {prose.pct(cut.max())} shorter explains gains of "
            f"{prose.num(gain.min())} to {prose.pct(gain.max())} at {_msgs(table['messages per commit b'].iloc[0])} "
            f"per commit; the same commit would add only {prose.num(at_plan.min())} to "
            f"{prose.pct(at_plan.max())} at {prose.num(plan_b)} messages per commit: faster log I/O matters most "
            "when units of work are small.")
