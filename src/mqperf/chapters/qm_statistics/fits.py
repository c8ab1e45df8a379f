"""Your queue manager from its statistics: intervals, busy periods, and the rates, log, commits,
connections and CPU they add up to.

Busy periods come from :mod:`mqperf.models.intervals` (Otsu's split of log rates, accepted only
with the ``min_contrast``); a rate over several intervals is their total count over their total
length, never a mean of rates. The log bytes per persistent message are set beside MP16's figures
(:func:`mp16`: the get's two points give l_m and l_c of L(b) = l_m + l_c/b exactly, the put takes
the get's l_c), the connection rate is priced with the client connection costs chapter's figures.
Frames come out with the column names the report shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.chapters.qm_statistics import ALL, APART, COUNTS, RATE, TOTAL
from mqperf.errors import DataError
from mqperf.models import intervals
from mqperf.present.text import markdown as md_text


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


def rates_frame(stats: pd.DataFrame, periods: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(rates, bands) for the rates chart: per queue manager, the rate the busy periods are found from
    (puts + gets per second), and with few queue managers puts and gets apart (the sentences' rate is a
    line of the chart); the busy periods as bands. Times are ISO strings."""
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
    return frame, bands


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
