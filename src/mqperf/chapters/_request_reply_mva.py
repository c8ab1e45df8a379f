"""Request/reply from service demands: where the figures come from, the exact MVA, its bounds.

A request and its reply are ``messages`` messages, each put and got once: each costs the queue
manager CPU, writes log bytes (persistent messages) that the log disk takes at its bandwidth,
waits for two forced log writes (the put's commit and the get's), and waits a network round
trip. Per request the CPU and the log disk's bandwidth queue; the network and the forced
writes' latency delay without queueing (a round trip is mostly propagation; with group commit
concurrent commits share a write, so its latency is not a queue). :mod:`mqperf.models.mva`
solves the closed system for each series' think time.

The figures are the reader's where given (``cpu_us_per_msg``, ...) and the book's otherwise;
every sentence about what they imply says whose they are: they describe the systems the book's
sources measured, not the reader's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.models import mva
from mqperf.present import prose

CPU, LOG, FORCE, NET = "queue manager CPU", "log disk", "log force", "network"
DELAYS = (FORCE, NET)
N, X, R, Z = "clients", "rate_msg_s", "response_time_ms", "think_time_ms"
#: Forced log writes a persistent message waits for: its put's commit and its get's.
FORCES_PER_MSG = 2


@dataclass(frozen=True)
class Demands:
    """Per-message figures, whose each is ("book" or "yours"), where each came from (a sentence),
    and the messages per request."""

    cpu_us: float
    log_bytes: float
    log_mb_s: float
    latency_us: float
    rtt_us: float
    messages: int
    whose: dict
    said: tuple = ()

    @property
    def forces(self) -> int:
        """Forced writes per message: none for a non-persistent workload (no log bytes)."""
        return FORCES_PER_MSG if self.log_bytes > 0 else 0

    def per_message_us(self) -> dict:
        return {CPU: self.cpu_us, LOG: self.log_bytes / self.log_mb_s, FORCE: self.forces * self.latency_us,
                NET: self.rtt_us}

    def per_request_s(self) -> dict:
        return {k: v * self.messages * 1e-6 for k, v in self.per_message_us().items()}

    @property
    def all_yours(self) -> bool:
        return all(w == "yours" for w in self.whose.values())

    def attribution(self) -> str:
        """Whose figures, as a sentence names them: "the book's figures", "your figures", or both."""
        yours = [k for k, w in self.whose.items() if w == "yours"]
        book = [k for k, w in self.whose.items() if w == "book"]
        if not yours:
            return "the book's figures"
        if not book:
            return "your figures"
        return f"your figures for {prose.listing(yours)} and the book's for {prose.listing(book)}"


def _figure(frame: pd.DataFrame, figure: str) -> pd.Series:
    return frame[frame["figure"].str.startswith(figure)].iloc[0]


def resolve(p: dict, figures: dict) -> Demands:
    """The demands: each figure as given, or computed from the book's dataset named in ``p``."""
    said, whose = [], {}
    if p["cpu_us_per_msg"] is None:
        put, get = _figure(figures["cpu_costs"], "MQPUT1"), _figure(figures["cpu_costs"], "MQGET")
        mid = (put["low"] + put["high"]) / 2
        cpu = mid + (get["low"] + get["high"]) / 2
        whose["CPU"] = "book"
        said.append(f"Queue manager CPU, {prose.num(cpu)} µs per message (the book's figure): MQPUT1's "
                    f"{prose.num(put['low'])} to {prose.num(put['high'])} µs (midpoint {prose.num(mid)}) plus MQGET's "
                    f"{prose.num(get['low'])} µs, as class(3) accounting measured them for 1 KB messages on the Kafka "
                    f"connector article's z16 (`{p['cpu_costs']}`).")
    else:
        cpu = float(p["cpu_us_per_msg"])
        whose["CPU"] = "yours"
        said.append(f"Queue manager CPU, {prose.num(cpu)} µs per message, as you gave it (`cpu_us_per_msg`).")
    if p["log_bytes_per_msg"] is None:
        put, get = _figure(figures["log_bytes"], "log bytes of a put"), _figure(figures["log_bytes"], "log bytes of a get")
        log_bytes = float(put["low"] + get["low"])
        whose["log bytes"] = "book"
        said.append(f"Log, {prose.num(log_bytes, 4)} bytes per message (the book's figure): a put and commit "
                    f"({prose.num(put['low'], 4)} bytes) plus a get and commit ({prose.num(get['low'])} bytes) of a "
                    f"1 KB persistent message, one per unit of work (MP16, quoted in the Kafka connector article; "
                    f"`{p['log_bytes']}`).")
    else:
        log_bytes = float(p["log_bytes_per_msg"])
        whose["log bytes"] = "yours"
        said.append(f"Log, {prose.num(log_bytes, 4)} bytes per message, as you gave it (`log_bytes_per_msg`)"
                    + ("; 0 is a non-persistent workload, with no forced writes." if log_bytes == 0 else "."))
    disk = figures["log_disk"]
    if p["log_mb_s"] is None:
        row = _figure(disk, "log disk bandwidth")
        mb_s = float(row["low"])
        if log_bytes > 0:
            whose["log bandwidth"] = "book"
            said.append(f"Log disk, {prose.num(mb_s)} MB/s (the book's figure): {row['figure']} on the NativeHA "
                        f"article's VM (`{p['log_disk']}`); a log on faster storage takes less time per byte.")
    else:
        mb_s = float(p["log_mb_s"])
        if log_bytes > 0:
            whose["log bandwidth"] = "yours"
            said.append(f"Log disk, {prose.num(mb_s)} MB/s, as you gave it (`log_mb_s`).")
    if log_bytes > 0:
        if p.get("log_latency_us") is None:
            row = _figure(disk, "log write latency")
            latency = float(row["low"])
            whose["log latency"] = "book"
            said.append(f"Log force, {prose.num(latency)} µs per forced write (the book's figure): {row['figure']} on "
                        f"the same VM (`{p['log_disk']}`). A persistent message waits for two of them (its "
                        "put's commit and its get's); concurrent commits share a write (group commit), so the "
                        "latency delays a request without queueing.")
        else:
            latency = float(p["log_latency_us"])
            whose["log latency"] = "yours"
            said.append(f"Log force, {prose.num(latency)} µs per forced write, as you gave it (`log_latency_us`); a "
                        "persistent message waits for two forced writes.")
    else:
        latency = float(p.get("log_latency_us") or 0.0)
    if p["network_rtt_us"] is None:
        rtt = float(_figure(figures["network"], "network")["low"])
        whose["network"] = "book"
        said.append(f"Network, {prose.num(rtt, 4)} µs per message (the book's figure): one round trip at the Q "
                    f"Replication notes' threshold for a healthy channel `nettime` (`{p['network']}`), an upper "
                    "figure for a healthy network rather than a measurement.")
    else:
        rtt = float(p["network_rtt_us"])
        whose["network"] = "yours"
        said.append(f"Network, {prose.num(rtt, 4)} µs per message (one round trip), as you gave it (`network_rtt_us`).")
    return Demands(cpu, log_bytes, mb_s, latency, rtt, int(p["messages_per_request"]), whose, tuple(said))


def demands_table(d: Demands) -> pd.DataFrame:
    per_msg, per_req = d.per_message_us(), d.per_request_s()
    return pd.DataFrame({"resource": list(per_msg), "figure per message": [d.cpu_us, d.log_bytes, d.latency_us, d.rtt_us],
                         "unit": ["µs of CPU", f"bytes at {prose.num(d.log_mb_s, 4)} MB/s",
                                  f"µs per forced write, {d.forces} per message", "µs (one round trip)"],
                         "whose": [_whose(d, k) for k in ("CPU", "log bytes", "log latency", "network")],
                         "time per message (µs)": list(per_msg.values()),
                         "messages per request": d.messages,
                         "demand per request (µs)": [v * 1e6 for v in per_req.values()],
                         "kind": ["queues", "queues", "delays (commits share writes)", "delays (no queue)"],
                         "alone, at most (requests/s)": [1 / per_req[k] if per_req[k] > 0 else np.nan for k in (CPU, LOG)]
                         + [np.nan, np.nan]})


def _whose(d: Demands, key: str) -> str:
    """Whose figure a row of the demands table rests on (the log disk's on two: bytes and bandwidth)."""
    words = {"book": "the book's", "yours": "yours"}
    if key == "log bytes" and "log bandwidth" in d.whose:
        a, b = d.whose.get("log bytes"), d.whose.get("log bandwidth")
        return words[a] if a == b else f"{words[a]} (bytes), {words[b]} (bandwidth)"
    return words.get(d.whose.get(key), "not used")


def series_think(pts: pd.DataFrame) -> dict:
    """Each series' think time in seconds (one per series: see the fits module's ``prepare``)."""
    return {str(s): float(g[Z].iloc[0]) / 1e3 for s, g in pts.groupby("series", sort=False)}


def solve_all(d: Demands, pts: pd.DataFrame, top: int) -> dict:
    """Series -> :class:`mqperf.models.mva.Result` for 1 … ``top`` clients (ModelError when nothing queues)."""
    return {s: mva.solve(d.per_request_s(), top, think_s=z, delay=DELAYS) for s, z in series_think(pts).items()}


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
        delays = sum(at[f"{k}_residence_s"] for k in DELAYS)
        rows.append({"series": p.series, "clients": int(getattr(p, N)),
                     **{f"{k} busy %": 100 * at[f"{k}_utilisation"] for k in (CPU, LOG)},
                     "delays' share of response %": 100 * delays / at["response_s"]})
    return pd.DataFrame(rows)


def implied_table(results: dict, pts: pd.DataFrame) -> pd.DataFrame:
    """What the measurements alone say about the demands (operational laws, Lazowska et al. ch. 5)."""
    rows = []
    for s, res in results.items():
        mine = pts[pts["series"] == s]
        first = mine.loc[mine[N].idxmin()]
        best = float(mine[X].max())
        rows.append({"series": s, "fewest clients": int(first[N]), "response there (ms)": float(first[R]),
                     "D from the figures (ms)": res.total_demand * 1e3, "best rate (requests/s)": best,
                     "D_max at most (µs)": 1e6 / best, "D_max from the figures (µs)": res.demands[res.bottleneck] * 1e6})
    return pd.DataFrame(rows)


def mva_reading(summary: pd.DataFrame, compare: pd.DataFrame, d: Demands, example: bool) -> str:
    """What the figures imply, each sentence saying whose figures they are."""
    whose = d.attribution()
    out = []
    for s in summary.to_dict("records"):
        out.append(f"{prose.quoted(s['series'])}: by {whose}, the {s['bottleneck']} would be the bottleneck, with a "
                   f"ceiling of {prose.num(s['ceiling 1/D_max (requests/s)'])} requests/s, and the figures' bounds "
                   f"meet at N* = {prose.num(s['bounds meet at N* (clients)'])} clients. The best measured rate is "
                   f"{prose.pct(s['best / ceiling %'])} of that ceiling.")
    worst_x = compare.loc[compare["rate error %"].abs().idxmax()]
    resp = compare.dropna(subset=["response error %"])
    tail = ""
    if len(resp):
        worst_r = resp.loc[resp["response error %"].abs().idxmax()]
        tail = f"; its response time within {prose.pct(abs(worst_r['response error %']))}"
    if example:
        meaning = ("The example was generated from these same figures, so this agreement checks the generator and "
                   "the chapter's arithmetic, not MQ.")
    elif d.all_yours:
        meaning = ("The MVA uses no measurement: agreement says your figures describe the system, disagreement that "
                   "a figure is wrong or a resource is missing.")
    else:
        meaning = ("The MVA uses no measurement, and the book's figures among these describe the systems the book's "
                   "sources measured, not yours: agreement would be a coincidence of two systems, disagreement is "
                   "expected. Give your own figures (`-p cpu_us_per_msg`, ...) to test them against your "
                   "measurements.")
    out.append(f"At the measured client counts the MVA's rate is within {prose.pct(abs(worst_x['rate error %']))} of "
               f"the measurements{tail}. {meaning}")
    return prose.bullets(out)


def implied_reading(implied: pd.DataFrame, tolerance: float) -> str:
    out = []
    for row in implied.to_dict("records"):
        name, d, measured = prose.quoted(row["series"]), row["D from the figures (ms)"], row["response there (ms)"]
        if row["fewest clients"] == 1:
            verdict = ("agree" if abs(d / measured - 1) <= tolerance else "do not agree") if measured > 0 else "cannot be compared"
            first = (f"one client's response time, {prose.num(measured)} ms, is the total demand D; the figures give "
                     f"{prose.num(d)} ms: they {verdict} within {prose.pct(100 * tolerance)}")
        else:
            over = d > measured * (1 + tolerance)
            first = (f"with {prose.count(row['fewest clients'], 'client')} the response time, {prose.num(measured)} ms, "
                     f"bounds D from above; the figures' {prose.num(d)} ms "
                     + ("exceeds it: the figures overstate a demand" if over else "is within it, allowing the tolerance"))
        cap, given = row["D_max at most (µs)"], row["D_max from the figures (µs)"]
        second = (f"the best rate caps D_max at {prose.num(cap)} µs, and the figures' {prose.num(given)} µs "
                  + ("exceeds it: the figures overstate the bottleneck's demand" if given > cap * (1 + tolerance)
                     else "is within it, allowing the tolerance"))
        out.append(f"{name}: {first}; {second}.")
    return prose.bullets(out)


def curves(results: dict, grid: np.ndarray) -> pd.DataFrame:
    frames = []
    for s, res in results.items():
        t = res.table.set_index("clients").loc[grid]
        b = res.bounds(grid)
        frames.append(pd.DataFrame({"series": s, "clients": grid, "curve": "MVA from the figures",
                                    "rate": t["throughput"].to_numpy(), "response_ms": t["response_s"].to_numpy() * 1e3}))
        frames.append(pd.DataFrame({"series": s, "clients": grid, "curve": "the figures' asymptotic bound",
                                    "rate": b["throughput_bound"].to_numpy(),
                                    "response_ms": b["response_bound_s"].to_numpy() * 1e3}))
    return pd.concat(frames, ignore_index=True)
