"""The qm_statistics chapter's arithmetic, tables and sentences (see :mod:`mqperf.chapters.qm_statistics`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import DataError
from mqperf.models import intervals
from mqperf.present import charts, prose
from mqperf.present.text import markdown as md_text

COUNTS = ["puts", "persistent_puts", "gets", "commits", "log_write_bytes", "connects", "disconnects", "cpu_s"]
MISSING_LOG = ("The data has no log bytes (log_write_bytes: SMF statistics have them in QJST; amqsevt and amqsrua "
               "MQI statistics do not), so the log section cannot be shown.")
ALL = "(one queue manager)"
#: The rate busy periods are found from, as the chart's lines and the sentences name it.
TOTAL = "puts + gets/s"
RATE = "puts + gets/s"
SAID = "messages put and got per second"


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """Intervals in time order with a queue manager label and rates per second."""
    out = frame.copy()
    out["qmgr"] = out["qmgr"].astype("string").fillna("").replace("", ALL) if "qmgr" in out else ALL
    out["time"] = pd.to_datetime(out["start"], format="ISO8601")
    for col in COUNTS:
        if col in out:
            out[col] = out[col].astype(float)
    have = [c for c in ("puts", "gets") if c in out]
    out["msg_s"] = out[have].sum(axis=1, min_count=1) / out["interval_s"] if have else np.nan
    dup = out.duplicated(["qmgr", "time"])
    if dup.any():
        row = out[dup].iloc[0]
        raise DataError(str(row.get("source", "data")), f"queue manager {row['qmgr']} has two intervals starting "
                                                        f"at {row['start']}", column="start")
    return out.sort_values(["qmgr", "time"]).reset_index(drop=True)


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


@dataclass
class Busy:
    stats: pd.DataFrame
    periods: pd.DataFrame
    reasons: dict
    thresholds: dict
    contrasts: dict


def find_busy(stats: pd.DataFrame, *, min_contrast: float) -> Busy:
    stats = stats.copy()
    stats["busy"] = False
    found, reasons, thresholds, contrasts = [], {}, {}, {}
    for qm, group in stats.groupby("qmgr", sort=False):
        split = intervals.busy(group["msg_s"].fillna(0).to_numpy(), min_contrast=min_contrast)
        stats.loc[group.index, "busy"] = split.busy
        contrasts[qm] = split.contrast
        if split.threshold is None:
            reasons[qm] = f"{md_text(qm)}: {split.reason}"
            continue
        thresholds[qm] = split.threshold
        per = intervals.periods(group["time"], group["interval_s"], split.busy)
        for row in per.itertuples():
            members = group.iloc[row.members]
            found.append({"qmgr": qm, "start": row.start, "end": row.end, "intervals": row.intervals,
                          "mean_msg_s": float((members["msg_s"] * members["interval_s"]).sum() / members["interval_s"].sum()),
                          "peak_msg_s": float(members["msg_s"].max())})
    cols = ["qmgr", "start", "end", "intervals", "mean_msg_s", "peak_msg_s"]
    return Busy(stats, pd.DataFrame(found, columns=cols), reasons, thresholds, contrasts)


#: Queue managers up to which the chart draws puts and gets apart beside their sum.
APART = 4


def rates_chart(stats: pd.DataFrame, periods: pd.DataFrame):
    """Per queue manager, the rate the busy periods are found from (puts + gets per second), and with few
    queue managers puts and gets apart: the sentences' rate is a line of the chart."""
    rows = []
    when = stats["time"].dt.strftime("%Y-%m-%dT%H:%M:%S")
    qm = stats["qmgr"].astype(str)
    rows.append(pd.DataFrame({"time": when, "rate": stats["msg_s"], "line": qm + " " + TOTAL}))
    if stats["qmgr"].nunique() <= APART and all(c in stats for c in ("puts", "gets")):
        for col, label in (("puts", "puts/s"), ("gets", "gets/s")):
            rows.append(pd.DataFrame({"time": when, "rate": stats[col] / stats["interval_s"], "line": qm + " " + label}))
    frame = pd.concat(rows, ignore_index=True).dropna()
    bands = periods.assign(start=periods["start"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
                           end=periods["end"].dt.strftime("%Y-%m-%dT%H:%M:%S"))[["start", "end"]] if len(periods) else None
    return charts.timeline(frame, time="time", y="rate", colour="line", y_title="messages per second",
                           title="Message rates per interval: puts + gets (busy periods shaded)", bands=bands)


def total_rate(s: pd.DataFrame, col: str) -> float:
    """A count's rate over several intervals: their total count over their total length (rows without
    the count left out of both), never the mean of their rates."""
    ok = s[col].notna()
    return float(s.loc[ok, col].sum() / s.loc[ok, "interval_s"].sum()) if ok.any() else np.nan


def _weighted(values: pd.Series, weights: pd.Series) -> float:
    ok = values.notna()
    return float((values[ok] * weights[ok]).sum() / weights[ok].sum()) if ok.any() else np.nan


def rates_table(stats: pd.DataFrame, found: Busy) -> pd.DataFrame:
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        end = g["time"] + pd.to_timedelta(g["interval_s"], unit="s")
        rows.append({"queue manager": qm, "from": f"{g['time'].min():%Y-%m-%d %H:%M}", "to": f"{end.max():%Y-%m-%d %H:%M}",
                     "intervals": len(g), f"median ({RATE})": float(g["msg_s"].median()),
                     f"peak ({RATE})": float(g["msg_s"].max()),
                     "busy / quiet median": found.contrasts.get(qm, np.nan),
                     f"busy from ({RATE})": found.thresholds.get(qm, np.nan), "busy intervals": int(g["busy"].sum()),
                     f"busy mean ({RATE})": _weighted(g.loc[g["busy"], "msg_s"], g.loc[g["busy"], "interval_s"])})
    return pd.DataFrame(rows)


def periods_table(periods: pd.DataFrame) -> pd.DataFrame:
    if periods.empty:
        return periods
    return pd.DataFrame({"queue manager": periods["qmgr"], "from": periods["start"].dt.strftime("%Y-%m-%d %H:%M"),
                         "to": periods["end"].dt.strftime("%Y-%m-%d %H:%M"), "intervals": periods["intervals"],
                         f"mean ({RATE})": periods["mean_msg_s"], f"peak ({RATE})": periods["peak_msg_s"]})


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
        longest = g.loc[(g["end"] - g["start"]).idxmax()]
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


def _scope(g: pd.DataFrame) -> pd.DataFrame:
    """The busy intervals of one queue manager where it has any, else all of them."""
    return g[g["busy"]] if g["busy"].any() else g


def mp16(published: pd.DataFrame) -> dict | None:
    """MP16's log bytes as L(b) = l_m + l_c/b for a put and for a get (the book's figures, 1 KB messages).

    The get's two points (1 and 10 per commit) give its l_m and l_c exactly; the put has one point
    (one per commit), and takes the get's l_c: a commit record logs the same whether its unit of
    work put or got. None when the figures lack a point.
    """
    gets = published[published["operation"] == "get_commit"].sort_values("msgs_per_commit")
    put = published[(published["operation"] == "put_commit") & (published["msgs_per_commit"] == 1)]
    if len(gets) < 2 or put.empty:
        return None
    (b1, y1), (b2, y2) = gets[["msgs_per_commit", "log_bytes_per_msg"]].astype(float).to_numpy()[[0, -1]]
    l_c = (y1 - y2) / (1 / b1 - 1 / b2)
    return {"l_c": l_c, "l_m_get": y1 - l_c / b1, "l_m_put": float(put["log_bytes_per_msg"].iloc[0]) - l_c}


def expected_bytes(model: dict, b: float) -> float:
    """Log bytes of one persistent message, its put and its get, with b operations per commit:
    l_m,put + l_m,get + 2·l_c/b (the message's two operations share 2/b commits)."""
    return model["l_m_put"] + model["l_m_get"] + 2 * model["l_c"] / b


def log_table(stats: pd.DataFrame, found: Busy, published: pd.DataFrame) -> pd.DataFrame:
    if "log_write_bytes" not in stats or stats["log_write_bytes"].isna().all():
        return pd.DataFrame()
    model = mp16(published)
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        s = _scope(g)
        row = {"queue manager": qm, "intervals": "busy" if g["busy"].any() else "all",
               "log (MB/s) mean": total_rate(s, "log_write_bytes") / 1e6,
               "log (MB/s) peak": float((g["log_write_bytes"] / g["interval_s"]).max() / 1e6)}
        if "persistent_puts" in s and s["persistent_puts"].sum() > 0:
            row["log bytes per persistent message"] = float(s["log_write_bytes"].sum() / s["persistent_puts"].sum())
            per = (s["log_write_bytes"] / s["persistent_puts"]).replace([np.inf, -np.inf], np.nan).dropna()
            row["per interval: lowest"] = float(per.min()) if len(per) else np.nan
            row["per interval: highest"] = float(per.max()) if len(per) else np.nan
            b = _batch(s)
            if model:
                row["messages per commit b"] = b
                if b == b:
                    row["MP16 at b (bytes)"] = expected_bytes(model, b)
                    row["× MP16 at b"] = row["log bytes per persistent message"] / row["MP16 at b (bytes)"]
                else:
                    row["MP16, one per commit (bytes)"] = expected_bytes(model, 1.0)
                    row["MP16, large units of work (bytes)"] = expected_bytes(model, math.inf)
        rows.append(row)
    return pd.DataFrame(rows)


def _batch(s: pd.DataFrame) -> float:
    """Operations (puts + gets) per commit over the scope: total over total; NaN without commit counts."""
    if "commits" not in s or not (s["commits"] > 0).any():
        return math.nan
    ok = s["commits"] > 0
    msgs = s.loc[ok, [c for c in ("puts", "gets") if c in s]].sum(axis=1).sum()
    return float(msgs / s.loc[ok, "commits"].sum()) if msgs > 0 else math.nan


def published_log_table(published: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"operation": published["operation"].str.replace("_", " then "),
                         "messages per commit": published["msgs_per_commit"],
                         "message size (KB)": published.get("msg_size_kb", np.nan),
                         "log bytes per message": published["log_bytes_per_msg"]})


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


def commit_table(stats: pd.DataFrame, found: Busy) -> pd.DataFrame:
    if "commits" not in stats or not (stats["commits"] > 0).any():
        return pd.DataFrame()
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        s = _scope(g)
        msgs = s[[c for c in ("puts", "gets") if c in s]].sum(axis=1)
        ok = s["commits"] > 0
        per = msgs[ok] / s.loc[ok, "commits"]
        rows.append({"queue manager": qm, "intervals": "busy" if g["busy"].any() else "all",
                     "messages per commit": _batch(s),
                     "lowest interval": float(per.min()) if len(per) else np.nan,
                     "highest interval": float(per.max()) if len(per) else np.nan,
                     "commits/s": total_rate(s, "commits")})
    return pd.DataFrame(rows)


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


def connection_table(stats: pd.DataFrame, found: Busy, costs: pd.DataFrame) -> pd.DataFrame:
    if "connects" not in stats or stats["connects"].isna().all():
        return pd.DataFrame()
    basic = costs[~costs.get("tls", False).astype(bool) & ~costs.get("suppress_x511", False).astype(bool)]
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        rate = g["connects"] / g["interval_s"]
        peak = float(rate.max())
        for c in basic.itertuples():
            rows.append({"queue manager": qm, "listener": c.listener, "SHARECNV": int(c.sharecnv),
                         "CPU per connect (µs)": float(c.cpu_us), "peak connects/s": peak,
                         "CPU at peak (s/h)": peak * c.cpu_us * 3600 / 1e6})
    return pd.DataFrame(rows)


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


def cpu_table(stats: pd.DataFrame, found: Busy) -> pd.DataFrame:
    if "cpu_s" not in stats or stats["cpu_s"].isna().all():
        return pd.DataFrame()
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        s = _scope(g)
        msgs = s[[c for c in ("puts", "gets") if c in s]].sum(axis=1).sum()
        rows.append({"queue manager": qm, "intervals": "busy" if g["busy"].any() else "all",
                     "CPU (s/h)": total_rate(s, "cpu_s") * 3600,
                     "CPU per message (µs)": float(s["cpu_s"].sum() / msgs * 1e6) if msgs > 0 else np.nan})
    return pd.DataFrame(rows)
