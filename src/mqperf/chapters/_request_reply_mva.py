"""Request/reply from service demands: where the defaults come from, the exact MVA, its bounds.

A request and its reply are ``messages`` messages, each put and got once: each costs the queue
manager CPU, writes log bytes (persistent messages) that the log disk takes at its bandwidth,
and waits a network round trip. Per request the CPU and the log disk queue; the network delays
without queueing (a round trip is mostly propagation). :mod:`mqperf.models.mva` solves the
closed system for each series' think time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.models import mva
from mqperf.present import prose

CPU, LOG, NET = "queue manager CPU", "log disk", "network"
N, X, R, Z = "clients", "rate_msg_s", "response_time_ms", "think_time_ms"


@dataclass(frozen=True)
class Demands:
    """Per-message figures and where each came from (a sentence), and the messages per request."""

    cpu_us: float
    log_bytes: float
    log_mb_s: float
    rtt_us: float
    messages: int
    said: tuple = ()

    def per_message_us(self) -> dict:
        return {CPU: self.cpu_us, LOG: self.log_bytes / self.log_mb_s, NET: self.rtt_us}

    def per_request_s(self) -> dict:
        return {k: v * self.messages * 1e-6 for k, v in self.per_message_us().items()}


def _figure(frame: pd.DataFrame, figure: str) -> pd.Series:
    return frame[frame["figure"].str.startswith(figure)].iloc[0]


def resolve(p: dict, figures: dict) -> Demands:
    """The demands: each figure as given, or computed from the book's dataset named in ``p``."""
    said = []
    if p["cpu_us_per_msg"] is None:
        put, get = _figure(figures["cpu_costs"], "MQPUT1"), _figure(figures["cpu_costs"], "MQGET")
        mid = (put["low"] + put["high"]) / 2
        cpu = mid + (get["low"] + get["high"]) / 2
        said.append(f"Queue manager CPU, {prose.num(cpu)} µs per message: MQPUT1's {prose.num(put['low'])} to "
                    f"{prose.num(put['high'])} µs (midpoint {prose.num(mid)}) plus MQGET's {prose.num(get['low'])} µs, "
                    f"as class(3) accounting measured them for 1 KB messages in the Kafka connector article "
                    f"(`{p['cpu_costs']}`).")
    else:
        cpu = float(p["cpu_us_per_msg"])
        said.append(f"Queue manager CPU, {prose.num(cpu)} µs per message, as given (`cpu_us_per_msg`).")
    if p["log_bytes_per_msg"] is None:
        put, get = _figure(figures["log_bytes"], "log bytes of a put"), _figure(figures["log_bytes"], "log bytes of a get")
        log_bytes = float(put["low"] + get["low"])
        said.append(f"Log, {prose.num(log_bytes, 4)} bytes per message: a put and commit ({prose.num(put['low'], 4)} "
                    f"bytes) plus a get and commit ({prose.num(get['low'])} bytes) of a 1 KB persistent message, one "
                    f"per unit of work (MP16, quoted in the Kafka connector article; `{p['log_bytes']}`).")
    else:
        log_bytes = float(p["log_bytes_per_msg"])
        said.append(f"Log, {prose.num(log_bytes, 4)} bytes per message, as given (`log_bytes_per_msg`)"
                    + ("; 0 is a non-persistent workload." if log_bytes == 0 else "."))
    if p["log_mb_s"] is None:
        disk = _figure(figures["log_disk"], "log disk bandwidth")
        mb_s = float(disk["low"])
        said.append(f"Log disk, {prose.num(mb_s)} MB/s: {disk['figure']} on the NativeHA article's VM "
                    f"(`{p['log_disk']}`); a log on faster storage takes less time per byte.")
    else:
        mb_s = float(p["log_mb_s"])
        said.append(f"Log disk, {prose.num(mb_s)} MB/s, as given (`log_mb_s`).")
    if p["network_rtt_us"] is None:
        rtt = float(_figure(figures["network"], "network")["low"])
        said.append(f"Network, {prose.num(rtt, 4)} µs per message: one round trip at the Q Replication notes' "
                    f"threshold for a healthy channel `nettime` (`{p['network']}`), an upper figure for a healthy "
                    "network rather than a measurement.")
    else:
        rtt = float(p["network_rtt_us"])
        said.append(f"Network, {prose.num(rtt, 4)} µs per message (one round trip), as given (`network_rtt_us`).")
    return Demands(cpu, log_bytes, mb_s, rtt, int(p["messages_per_request"]), tuple(said))


def demands_table(d: Demands) -> pd.DataFrame:
    per_msg, per_req = d.per_message_us(), d.per_request_s()
    return pd.DataFrame({"resource": list(per_msg), "figure per message": [d.cpu_us, d.log_bytes, d.rtt_us],
                         "unit": ["µs of CPU", f"bytes at {prose.num(d.log_mb_s, 4)} MB/s", "µs (one round trip)"],
                         "time per message (µs)": list(per_msg.values()),
                         "messages per request": d.messages,
                         "demand per request (µs)": [v * 1e6 for v in per_req.values()],
                         "kind": ["queues", "queues", "delays (no queue)"],
                         "alone, at most (requests/s)": [1 / v if v > 0 else np.nan for v in list(per_req.values())[:2]]
                         + [np.nan]})


def series_think(pts: pd.DataFrame) -> dict:
    """Each series' think time in seconds (one per series: see the fits module's ``prepare``)."""
    return {str(s): float(g[Z].iloc[0]) / 1e3 for s, g in pts.groupby("series", sort=False)}


def solve_all(d: Demands, pts: pd.DataFrame, top: int) -> dict:
    """Series -> :class:`mqperf.models.mva.Result` for 1 … ``top`` clients (ModelError when nothing queues)."""
    return {s: mva.solve(d.per_request_s(), top, think_s=z, delay=(NET,)) for s, z in series_think(pts).items()}


def summary_table(results: dict, pts: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for s, res in results.items():
        best = float(pts.loc[pts["series"] == s, X].max())
        rows.append({"series": s, "think (ms)": res.think_s * 1e3, "total demand D (ms)": res.total_demand * 1e3,
                     "bottleneck": res.bottleneck, "its demand (µs)": res.demands[res.bottleneck] * 1e6,
                     "ceiling 1/D_max (requests/s)": res.max_throughput, "bounds meet at N* (clients)": res.knee,
                     "best measured (requests/s)": best, "best / ceiling %": 100 * best / res.max_throughput})
    return pd.DataFrame(rows)


def compare_table(results: dict, pts: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for p in pts.itertuples(index=False):
        res, n = results[p.series], int(getattr(p, N))
        at = res.at(n)
        x, r = float(getattr(p, X)), float(getattr(p, R))
        rows.append({"series": p.series, "clients": n, "measured rate": x, "MVA rate": at["throughput"],
                     "rate error %": 100 * (at["throughput"] - x) / x, "measured response (ms)": r,
                     "MVA response (ms)": at["response_s"] * 1e3,
                     "response error %": 100 * (at["response_s"] * 1e3 - r) / r if r > 0 else np.nan})
    return pd.DataFrame(rows)


def utilisation_table(results: dict, pts: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for p in pts.itertuples(index=False):
        at = results[p.series].at(int(getattr(p, N)))
        rows.append({"series": p.series, "clients": int(getattr(p, N)),
                     **{f"{k} busy %": 100 * at[f"{k}_utilisation"] for k in (CPU, LOG)},
                     "network share of response %": 100 * at[f"{NET}_residence_s"] / at["response_s"]})
    return pd.DataFrame(rows)


def implied_table(results: dict, pts: pd.DataFrame) -> pd.DataFrame:
    """What the measurements alone say about the demands (operational laws, Lazowska et al. ch. 5)."""
    rows = []
    for s, res in results.items():
        mine = pts[pts["series"] == s]
        first = mine.loc[mine[N].idxmin()]
        best = float(mine[X].max())
        rows.append({"series": s, "fewest clients": int(first[N]), "response there (ms)": float(first[R]),
                     "D from the demands (ms)": res.total_demand * 1e3, "best rate (requests/s)": best,
                     "D_max at most (µs)": 1e6 / best, "D_max from the demands (µs)": res.demands[res.bottleneck] * 1e6})
    return pd.DataFrame(rows)


def mva_reading(summary: pd.DataFrame, compare: pd.DataFrame) -> str:
    out = []
    for s in summary.to_dict("records"):
        out.append(f"{prose.quoted(s['series'])}: the {s['bottleneck']} is the bottleneck; it holds any number of "
                   f"clients to {prose.num(s['ceiling 1/D_max (requests/s)'])} requests/s, and the bounds meet at "
                   f"N* = {prose.num(s['bounds meet at N* (clients)'])} clients. The best measured rate is "
                   f"{prose.pct(s['best / ceiling %'])} of that ceiling.")
    worst_x = compare.loc[compare["rate error %"].abs().idxmax()]
    resp = compare.dropna(subset=["response error %"])
    tail = ""
    if len(resp):
        worst_r = resp.loc[resp["response error %"].abs().idxmax()]
        tail = f"; its response time within {prose.pct(abs(worst_r['response error %']))}"
    out.append(f"At the measured client counts the MVA's rate is within {prose.pct(abs(worst_x['rate error %']))} of "
               f"the measurements{tail}. The MVA uses no measurement: agreement says the demands describe the "
               "system, disagreement that a demand is wrong or a resource is missing.")
    return prose.bullets(out)


def implied_reading(implied: pd.DataFrame, tolerance: float) -> str:
    out = []
    for row in implied.to_dict("records"):
        name, d, measured = prose.quoted(row["series"]), row["D from the demands (ms)"], row["response there (ms)"]
        if row["fewest clients"] == 1:
            verdict = ("agree" if abs(d / measured - 1) <= tolerance else "do not agree") if measured > 0 else "cannot be compared"
            first = (f"one client's response time, {prose.num(measured)} ms, is the total demand D; the demands give "
                     f"{prose.num(d)} ms: they {verdict} within {prose.pct(100 * tolerance)}")
        else:
            over = d > measured * (1 + tolerance)
            first = (f"with {prose.count(row['fewest clients'], 'client')} the response time, {prose.num(measured)} ms, "
                     f"bounds D from above; the demands' {prose.num(d)} ms "
                     + ("exceeds it: a demand is overstated" if over else "is within it, allowing the tolerance"))
        cap, given = row["D_max at most (µs)"], row["D_max from the demands (µs)"]
        second = (f"the best rate caps D_max at {prose.num(cap)} µs, and the demands' {prose.num(given)} µs "
                  + ("exceeds it: the bottleneck's demand is overstated" if given > cap * (1 + tolerance)
                     else "is within it, allowing the tolerance"))
        out.append(f"{name}: {first}; {second}.")
    return prose.bullets(out)


def curves(results: dict, grid: np.ndarray) -> pd.DataFrame:
    frames = []
    for s, res in results.items():
        t = res.table.set_index("clients").loc[grid]
        b = res.bounds(grid)
        frames.append(pd.DataFrame({"series": s, "clients": grid, "curve": "MVA from the demands",
                                    "rate": t["throughput"].to_numpy(), "response_ms": t["response_s"].to_numpy() * 1e3}))
        frames.append(pd.DataFrame({"series": s, "clients": grid, "curve": "asymptotic bound",
                                    "rate": b["throughput_bound"].to_numpy(),
                                    "response_ms": b["response_bound_s"].to_numpy() * 1e3}))
    return pd.concat(frames, ignore_index=True)
