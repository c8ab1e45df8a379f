"""Your queue manager from its statistics: the chapter's sentences, each computed from its tables.

What the file holds, the busy periods found, the log against MP16's figures, the unit of work,
and the CPU of the connection rate; a section without its counts is one sentence saying why.
"""

from __future__ import annotations

import math

import pandas as pd

from mqperf import numbers
from mqperf.chapters.qm_statistics import COUNTS, SAID
from mqperf.chapters.qm_statistics.fits import Busy
from mqperf.present import prose
from mqperf.present.text import markdown as md_text

MISSING_LOG = ("The data has no log bytes (log_write_bytes: SMF statistics have them in QJST; amqsevt and amqsrua "
               "MQI statistics do not), so the log section cannot be shown.")


def what_was_read(stats: pd.DataFrame, *, synthetic: bool) -> str:
    qms = list(dict.fromkeys(stats["qmgr"]))
    cols = [c for c in COUNTS if c in stats and stats[c].notna().any()]
    missing = [c for c in COUNTS if c not in cols]
    text = (f"The data holds statistics intervals from {prose.count(len(qms), 'queue manager')} "
            f"({prose.listing(md_text(q) for q in qms)}; the table below gives each one's time span), with {prose.listing([f'`{c}`' for c in cols]) or 'no counts'}.")
    if missing:
        text += f" It has no {prose.listing([f'`{c}`' for c in missing], 'or')}: the sections that need them say so."
    if synthetic:
        text += (" This is the book's sample, **synthetic**: a generated queue manager day "
                 "(`tools/make_qm_statistics_example.py`, `data/examples/qm_statistics.csv`), not a measurement. "
                 "Run the chapter on your own SMF or amqsevt output to read your queue managers.")
    return text


def _span(start: pd.Timestamp, end: pd.Timestamp, one_day: bool) -> str:
    """A period as sentences give it: clock times on a one-day file, dates and times otherwise."""
    if one_day:
        return f"from {start:%H:%M} to {end:%H:%M}"
    return f"from {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M}"


def busy_reading(found: Busy) -> str:
    per = found.periods
    stats = found.stats
    one_day = stats["time"].dt.normalize().nunique() == 1 if len(stats) else True
    parts = []
    for qm, g in per.groupby("qmgr", sort=False):
        longest = g.loc[numbers.idxmax(g["end"] - g["start"])]
        parts.append(f"{md_text(qm)} has {prose.count(len(g), 'busy period')} (intervals at or above "
                     f"{prose.num(found.thresholds[qm])} {SAID}); the longest runs "
                     f"{_span(longest['start'], longest['end'], one_day)} at {prose.num(longest['mean_msg_s'])} "
                     "per second on average (its puts and gets over its length)")
    text = ("Busy intervals are found per queue manager from its puts + gets per second, by splitting its "
            "interval rates into two groups (Otsu's rule on log rates) and accepted only when the busy group's "
            "median is at least the `min_contrast` multiple of the quiet group's. ")
    if parts:
        text += prose.paragraph(*[p + "." for p in parts])
    flat = [found.reasons[q] for q in found.reasons]
    if flat:
        text += " No busy period: " + "; ".join(flat) + "."
    return text


def log_reading(log: pd.DataFrame, published: pd.DataFrame) -> str:
    if log.empty:
        return ""
    text = []
    for row in log.to_dict("records"):
        where = "in its busy intervals" if row["intervals"] == "busy" else "over all its intervals"
        if not pd.notna(row["log (MB/s) mean"]):
            text.append(f"{md_text(row['queue manager'])} has no log write counts {where}, so its log is not measured.")
            continue
        line = f"{md_text(row['queue manager'])} wrote {prose.num(row['log (MB/s) mean'])} MB/s of log {where}"
        b = row.get("log bytes per persistent message", math.nan)
        if b == b:
            line += f", {prose.num(b)} bytes per persistent message"
            if row.get("MP16 at b (bytes)", math.nan) == row.get("MP16 at b (bytes)", math.nan) and "MP16 at b (bytes)" in row:
                line += (f": {prose.num(row['× MP16 at b'])} times the {prose.num(row['MP16 at b (bytes)'])} bytes the "
                         f"book's MP16 figures give a 1 KB message put and got at its "
                         f"{prose.num(row['messages per commit b'])} operations per commit (l_m + l_c/b for the put "
                         "and the get; larger messages log more)")
            elif "MP16, one per commit (bytes)" in row:
                line += (f"; without commit counts the unit of work is unknown, and the book's MP16 figures give a "
                         f"1 KB message from {prose.num(row['MP16, large units of work (bytes)'])} bytes (large units "
                         f"of work) to {prose.num(row['MP16, one per commit (bytes)'])} (one per commit)")
        text.append(line + ".")
    return prose.paragraph(*text)


def commit_reading(commits: pd.DataFrame, published: pd.DataFrame) -> str:
    if commits.empty:
        return ""
    gets = published[published["operation"] == "get_commit"].sort_values("msgs_per_commit")
    ref = ""
    if len(gets) >= 2:
        a, b = gets.iloc[0], gets.iloc[-1]
        ref = (f" MP16's figures show why it matters: a 1 KB message got with {prose.num(a['msgs_per_commit'])} per "
               f"commit logs {prose.num(a['log_bytes_per_msg'])} bytes, with {prose.num(b['msgs_per_commit'])} per commit "
               f"{prose.num(b['log_bytes_per_msg'])} bytes.")
    parts = [f"{md_text(r['queue manager'])} commits every {prose.num(r['messages per commit'])} messages (puts and gets) "
             f"on average" if pd.notna(r["messages per commit"]) else
             f"{md_text(r['queue manager'])} has no commit or message counts in these intervals, so its unit of work is "
             "not measured" for r in commits.to_dict("records")]
    return prose.paragraph(*[p + "." for p in parts]) + ref


def connection_reading(stats: pd.DataFrame, conn: pd.DataFrame) -> str:
    if conn.empty:
        return ""
    parts = []
    for qm, g in conn.groupby("queue manager", sort=False):
        lo, hi = g["CPU at peak (s/h)"].min(), g["CPU at peak (s/h)"].max()
        if not (pd.notna(g["peak connects/s"].iloc[0]) and pd.notna(lo) and pd.notna(hi)):
            parts.append(f"{md_text(qm)} has no connect counts in its intervals, so its connection cost is not priced")
            continue
        parts.append(f"{md_text(qm)} peaks at {prose.num(g['peak connects/s'].iloc[0])} connects per second: "
                     f"{prose.num(lo)} to {prose.num(hi)} CPU seconds per hour at the published costs, depending on "
                     "the listener and SHARECNV")
    return prose.paragraph(*[p + "." for p in parts]) + (
        " The costs are the client connection costs chapter's measurements (a z/OS queue manager, plain TCP); "
        "TLS adds to them, as that chapter shows.")
