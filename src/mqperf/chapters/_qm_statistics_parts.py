"""The qm_statistics chapter's arithmetic, tables and sentences (see :mod:`mqperf.chapters.qm_statistics`)."""

from __future__ import annotations

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


def rates_chart(stats: pd.DataFrame, periods: pd.DataFrame):
    rows = []
    for col, label in (("puts", "puts/s"), ("gets", "gets/s")):
        if col in stats:
            rows.append(pd.DataFrame({"time": stats["time"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
                                      "rate": stats[col] / stats["interval_s"],
                                      "line": stats["qmgr"].astype(str) + " " + label}))
    frame = pd.concat(rows, ignore_index=True).dropna()
    bands = periods.assign(start=periods["start"].dt.strftime("%Y-%m-%dT%H:%M:%S"),
                           end=periods["end"].dt.strftime("%Y-%m-%dT%H:%M:%S"))[["start", "end"]] if len(periods) else None
    return charts.timeline(frame, time="time", y="rate", colour="line", y_title="messages per second",
                           title="Message rates per interval (busy periods shaded)", bands=bands)


def _weighted(values: pd.Series, weights: pd.Series) -> float:
    ok = values.notna()
    return float((values[ok] * weights[ok]).sum() / weights[ok].sum()) if ok.any() else np.nan


def rates_table(stats: pd.DataFrame, found: Busy) -> pd.DataFrame:
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        end = g["time"] + pd.to_timedelta(g["interval_s"], unit="s")
        rows.append({"queue manager": qm, "from": f"{g['time'].min():%Y-%m-%d %H:%M}", "to": f"{end.max():%Y-%m-%d %H:%M}",
                     "intervals": len(g), "median (msg/s)": float(g["msg_s"].median()),
                     "peak (msg/s)": float(g["msg_s"].max()),
                     "busy / quiet median": found.contrasts.get(qm, np.nan),
                     "busy from (msg/s)": found.thresholds.get(qm, np.nan), "busy intervals": int(g["busy"].sum()),
                     "busy mean (msg/s)": _weighted(g.loc[g["busy"], "msg_s"], g.loc[g["busy"], "interval_s"])})
    return pd.DataFrame(rows)


def periods_table(periods: pd.DataFrame) -> pd.DataFrame:
    if periods.empty:
        return periods
    return pd.DataFrame({"queue manager": periods["qmgr"], "from": periods["start"].dt.strftime("%Y-%m-%d %H:%M"),
                         "to": periods["end"].dt.strftime("%Y-%m-%d %H:%M"), "intervals": periods["intervals"],
                         "mean (msg/s)": periods["mean_msg_s"], "peak (msg/s)": periods["peak_msg_s"]})


def busy_reading(found: Busy) -> str:
    per = found.periods
    parts = []
    for qm, g in per.groupby("qmgr", sort=False):
        longest = g.loc[(g["end"] - g["start"]).idxmax()]
        parts.append(f"{md_text(qm)} has {prose.count(len(g), 'busy period')} (intervals at or above "
                     f"{prose.num(found.thresholds[qm])} msg/s); the longest runs from {longest['start']:%H:%M} to "
                     f"{longest['end']:%H:%M} at {prose.num(longest['mean_msg_s'])} msg/s on average")
    text = ("Busy intervals are found per queue manager by splitting its interval rates into two groups "
            "(Otsu's rule on log rates) and accepted only when the busy group's median is at least the "
            "`min_contrast` multiple of the quiet group's. ")
    if parts:
        text += prose.paragraph(*[p + "." for p in parts])
    flat = [found.reasons[q] for q in found.reasons]
    if flat:
        text += " No busy period: " + "; ".join(flat) + "."
    return text


def _scope(g: pd.DataFrame) -> pd.DataFrame:
    """The busy intervals of one queue manager where it has any, else all of them."""
    return g[g["busy"]] if g["busy"].any() else g


def log_table(stats: pd.DataFrame, found: Busy, published: pd.DataFrame) -> pd.DataFrame:
    if "log_write_bytes" not in stats or stats["log_write_bytes"].isna().all():
        return pd.DataFrame()
    rows = []
    for qm, g in stats.groupby("qmgr", sort=False):
        s = _scope(g)
        log_s = s["log_write_bytes"] / s["interval_s"]
        row = {"queue manager": qm, "intervals": "busy" if g["busy"].any() else "all",
               "log (MB/s) mean": _weighted(log_s, s["interval_s"]) / 1e6,
               "log (MB/s) peak": float((g["log_write_bytes"] / g["interval_s"]).max() / 1e6)}
        if "persistent_puts" in s and s["persistent_puts"].sum() > 0:
            row["log bytes per persistent put"] = float(s["log_write_bytes"].sum() / s["persistent_puts"].sum())
            per = (s["log_write_bytes"] / s["persistent_puts"]).replace([np.inf, -np.inf], np.nan).dropna()
            row["per interval: lowest"] = float(per.min()) if len(per) else np.nan
            row["per interval: highest"] = float(per.max()) if len(per) else np.nan
            ref = _put_get_reference(published)
            if ref:
                row["MP16 put + get, 1 KB (bytes)"] = ref
                row["× MP16"] = row["log bytes per persistent put"] / ref
        rows.append(row)
    return pd.DataFrame(rows)


def published_log_table(published: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"operation": published["operation"].str.replace("_", " then "),
                         "messages per commit": published["msgs_per_commit"],
                         "message size (KB)": published.get("msg_size_kb", np.nan),
                         "log bytes per message": published["log_bytes_per_msg"]})


def _put_get_reference(published: pd.DataFrame) -> float | None:
    one = published[published["msgs_per_commit"] == 1].set_index("operation")["log_bytes_per_msg"]
    return float(one["put_commit"] + one["get_commit"]) if {"put_commit", "get_commit"} <= set(one.index) else None


def log_reading(log: pd.DataFrame, published: pd.DataFrame) -> str:
    if log.empty:
        return ""
    ref = _put_get_reference(published)
    text = []
    for row in log.to_dict("records"):
        where = "in its busy intervals" if row["intervals"] == "busy" else "over all its intervals"
        line = f"{md_text(row['queue manager'])} wrote {prose.num(row['log (MB/s) mean'])} MB/s of log {where}"
        if "log bytes per persistent put" in row and row["log bytes per persistent put"] == row["log bytes per persistent put"]:
            b = row["log bytes per persistent put"]
            line += f", {prose.num(b)} bytes per persistent put"
            if ref:
                line += (f": {prose.num(row['× MP16'])} times the {prose.num(ref)} bytes a 1 KB message costs when it is put "
                         "and got with a commit each (MP16's figures below); larger messages, or fewer messages per "
                         "commit, log more per message")
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
                     "messages per commit": float(msgs[ok].sum() / s.loc[ok, "commits"].sum()) if ok.any() else np.nan,
                     "lowest interval": float(per.min()) if len(per) else np.nan,
                     "highest interval": float(per.max()) if len(per) else np.nan,
                     "commits/s": _weighted(s["commits"] / s["interval_s"], s["interval_s"])})
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
             f"on average" for r in commits.to_dict("records")]
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
                     "CPU (s/h)": _weighted(s["cpu_s"] / s["interval_s"], s["interval_s"]) * 3600,
                     "CPU per message (µs)": float(s["cpu_s"].sum() / msgs * 1e6) if msgs > 0 else np.nan})
    return pd.DataFrame(rows)
