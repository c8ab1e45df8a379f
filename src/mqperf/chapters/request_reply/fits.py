"""Request/reply: the Little's-law check, the three models of the rate, their ranking and planning.

A closed loop of N clients, each with one request outstanding and Z seconds of think time,
obeys Little's law N = X·(R + Z) whatever the system inside (Lazowska et al. 1984, §3.2). A
row that breaks it by more than the tolerance was measured over mismatched windows or counts
something else (messages rather than requests, one client's time rather than the mean), so it
is flagged and left out of the fits.

Three models of the rate against clients compete per series: the USL (or Amdahl's law) fitted
to the rates, the one-queue MVA fitted to them (:func:`mqperf.models.mva.fit`: the bottleneck's
demand and the time spent without queueing, named by no resource), and the exact MVA from the
demand figures (the reader's or the book's; nothing fitted). A request and its reply are
``messages`` messages, each put and got once: each costs the queue manager CPU, writes log bytes
(persistent messages) that the log disk takes at its bandwidth, waits for two forced log writes
(the put's commit and the get's), and waits a network round trip; the CPU and the log disk queue,
the forced writes (group commit) and the network delay. The models are ranked by AICc
(:func:`mqperf.models.closed_loop.rank`), and the planning answers come from the model with the
lowest, never from one the ranking rejects. Too few points to rank: the MVA fitted to the
measurements answers (two parameters, the fewest of the fitted models); nothing fitted: the
figures answer only when they are all the reader's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.request_reply import CPU, DELAYS, FITTED, FORCES_PER_MSG, LOG, NET, N, R, X, Z, FORCE
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import closed_loop, mva, queueing, usl
from mqperf.models.closed_loop import Candidate
from mqperf.models.fitset import FitSet
from mqperf.present import prose


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with a ``series`` (split by think time where a series has several) and ``line``."""
    rows = frame.copy()
    rows["line"] = np.asarray(rows.index, dtype=int) + 2  # line 1 is the header; blank lines keep their numbers
    rows["series"] = rows["series"].fillna("").astype(str).replace("", "all") if "series" in rows else "all"
    rows[Z] = rows[Z].fillna(0.0).astype(float) if Z in rows else 0.0
    several = rows.groupby("series", sort=False)[Z].transform("nunique") > 1
    rows.loc[several, "series"] = [f"{s}, think {prose.num(z)} ms" for s, z in zip(rows.loc[several, "series"],
                                                                                 rows.loc[several, Z])]
    return rows.reset_index(drop=True)


def little(rows: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Every row's implied clients X·(R + Z) and its ratio to the stated clients."""
    check = queueing.littles_law_check(rows[N], rows[X], rows[R] / 1e3, rows[Z] / 1e3, tolerance=tolerance)
    return rows.assign(implied=check["implied"].to_numpy(), ratio=check["ratio"].to_numpy(),
                       consistent=check["consistent"].to_numpy())


def flagged_table(checked: pd.DataFrame) -> pd.DataFrame:
    bad = checked[~checked["consistent"]]
    return pd.DataFrame({"line": bad["line"], "series": bad["series"], "clients": bad[N],
                         "rate (requests/s)": bad[X], "response (ms)": bad[R], "think (ms)": bad[Z],
                         "X·(R + Z) (clients)": bad["implied"], "ratio to clients": bad["ratio"]})


def little_summary(checked: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Per series: rows, rows within the tolerance, and the spread of X·(R + Z) / N."""
    g = checked.groupby("series", sort=False)
    return pd.DataFrame({"series": list(g.groups), "rows": g.size().to_numpy(),
                         "within tolerance": g["consistent"].sum().astype(int).to_numpy(),
                         "tolerance %": 100 * tolerance, "smallest ratio": g["ratio"].min().to_numpy(),
                         "median ratio": g["ratio"].median().to_numpy(), "largest ratio": g["ratio"].max().to_numpy()})


def points(checked: pd.DataFrame) -> pd.DataFrame:
    """One point per series and client count, from the rows that agree (all rows if none does)."""
    keep = checked[checked["consistent"]] if checked["consistent"].any() else checked
    return aggregate.means(keep[["series", N, X, R, Z]], ["series", N], [X, R])


def points_table(pts: pd.DataFrame) -> pd.DataFrame:
    cols = {"series": "series", N: "clients", X: "rate (requests/s)", R: "response (ms)", Z: "think (ms)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column(X): "rate sd", aggregate.sd_column(R): "response sd"}
    return pts[[c for c in cols if c in pts]].rename(columns=cols)


def think_s(pts: pd.DataFrame, series: str) -> float:
    return float(pts.loc[pts["series"] == series, Z].iloc[0]) / 1e3


# -- the USL fit and the MVA fitted to the rates --------------------------------------------------

def _fit(rows: pd.DataFrame, **identity):
    distinct = rows[N].nunique()
    if distinct < 2:
        raise ModelError("one client count: a single point says nothing about scaling")
    return usl.fit(rows[N], rows[X], amdahl_only=distinct < 3, **identity)


def fit_all(pts: pd.DataFrame, **identity) -> FitSet:
    return FitSet.fit(pts, "series", lambda rows: _fit(rows, **identity))


def fits_table(fits: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        return {"model": "USL" if r.model == "usl" else "Amdahl", f"{prose.symbol('lam')} (requests/s per client)": r.lam,
                prose.symbol("sigma"): r.sigma, prose.symbol("kappa"): r.kappa, "peak at (clients)": _finite(r.peak_n()),
                "peak or limit (requests/s)": _finite(r.peak_x()),
                "residual df": r.df_resid, "identification": r.identification}

    table = fits.table(columns)
    return table.assign(model=table["model"].fillna("none")) if "model" in table else table


def _finite(v: float) -> float:
    return v if np.isfinite(v) else np.nan


def implied_response(fits: FitSet, pts: pd.DataFrame) -> pd.DataFrame:
    """At every measured point: the response time the USL fit implies, N / X(N) − Z, against the measured."""
    rows = []
    for name, res in fits.results.items():
        z = think_s(pts, name)
        for p in pts[pts["series"] == name].itertuples(index=False):
            n, measured = float(getattr(p, N)), float(getattr(p, R))
            implied = float(closed_loop.response_ms(n, res.predict([n])[0], z))
            rows.append({"series": name, "clients": int(n), "measured response (ms)": measured,
                         "USL-implied response (ms)": implied,
                         "error %": 100 * (implied - measured) / measured if measured > 0 else np.nan})
    return pd.DataFrame(rows)


def calibrate(pts: pd.DataFrame, **identity) -> FitSet:
    def fit(rows):
        return mva.fit(rows[N], rows[X], think_s=float(rows[Z].iloc[0]) / 1e3, **identity)

    return FitSet.fit(pts, "series", fit)


def interval(res, name: str) -> tuple[float, float]:
    if res.df_resid <= 0 or res.cov is None:
        return math.nan, math.nan
    ci = res.conf_int().loc[name]
    return float(ci["lower"]), float(ci["upper"])


def calibrated_table(cal: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        lo, hi = interval(r, "d_queue")
        dlo, dhi = interval(r, "d_delay")
        return {"bottleneck demand D_q (µs)": r.d_queue * 1e6, "D_q 95 % lower": lo * 1e6, "D_q 95 % upper": hi * 1e6,
                "ceiling 1/D_q (requests/s)": r.ceiling, "best measured / ceiling %": 100 * float(np.max(r.y)) * r.d_queue,
                "ceiling 95 % lower": 1 / hi if hi > 0 else math.nan,
                "ceiling 95 % upper": 1 / lo if lo > 0 else math.inf if lo == lo else math.nan,
                "delay D_d (ms)": r.d_delay * 1e3, "D_d 95 % lower": dlo * 1e3, "D_d 95 % upper": dhi * 1e3,
                "residual df": r.df_resid, "identification": r.identification}

    return cal.table(columns).replace([np.inf], np.nan)


# -- the demand figures and the MVA they give -----------------------------------------------------

@dataclass(frozen=True)
class Demands:
    """Per-message figures, whose each is ("book" or "yours"), and the messages per request."""

    cpu_us: float
    log_bytes: float
    log_mb_s: float
    latency_us: float
    rtt_us: float
    messages: int
    whose: dict

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


def figure(frame: pd.DataFrame, name: str) -> pd.Series:
    """The row of a figures table whose ``figure`` starts with ``name``."""
    return frame[frame["figure"].str.startswith(name)].iloc[0]


def resolve(p: dict, figures: dict) -> Demands:
    """The demands: each figure as given, or computed from the book's dataset named in ``p``
    (:func:`mqperf.chapters.request_reply.text.figures_said` says where each came from)."""
    whose = {}
    if p["cpu_us_per_msg"] is None:
        put, get = figure(figures["cpu_costs"], "MQPUT1"), figure(figures["cpu_costs"], "MQGET")
        cpu, whose["CPU"] = (put["low"] + put["high"]) / 2 + (get["low"] + get["high"]) / 2, "book"
    else:
        cpu, whose["CPU"] = float(p["cpu_us_per_msg"]), "yours"
    if p["log_bytes_per_msg"] is None:
        put, get = figure(figures["log_bytes"], "log bytes of a put"), figure(figures["log_bytes"], "log bytes of a get")
        log_bytes, whose["log bytes"] = float(put["low"] + get["low"]), "book"
    else:
        log_bytes, whose["log bytes"] = float(p["log_bytes_per_msg"]), "yours"
    disk = figures["log_disk"]
    mine = p["log_mb_s"] is not None
    mb_s = float(p["log_mb_s"]) if mine else float(figure(disk, "log disk bandwidth")["low"])
    latency = float(p.get("log_latency_us") or 0.0)
    if log_bytes > 0:
        whose["log bandwidth"] = "yours" if mine else "book"
        if p.get("log_latency_us") is None:
            latency, whose["log latency"] = float(figure(disk, "log write latency")["low"]), "book"
        else:
            whose["log latency"] = "yours"
    if p["network_rtt_us"] is None:
        rtt, whose["network"] = float(figure(figures["network"], "network")["low"]), "book"
    else:
        rtt, whose["network"] = float(p["network_rtt_us"]), "yours"
    return Demands(cpu, log_bytes, mb_s, latency, rtt, int(p["messages_per_request"]), whose)


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


def figures_table(figures: dict, p: dict) -> pd.DataFrame:
    frames = [fr.assign(dataset=p[k]) for k, fr in figures.items()]
    return pd.concat(frames, ignore_index=True)[["figure", "low", "high", "unit", "dataset"]]


def solve_all(d: Demands, pts: pd.DataFrame, top: int) -> dict:
    """Series -> :class:`mqperf.models.mva.Result` for 1 … ``top`` clients (ModelError when nothing queues)."""
    think = {str(s): float(g[Z].iloc[0]) / 1e3 for s, g in pts.groupby("series", sort=False)}
    return {s: mva.solve(d.per_request_s(), top, think_s=z, delay=DELAYS) for s, z in think.items()}


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
        first = mine.loc[numbers.idxmin(mine[N])]
        best = float(mine[X].max())
        rows.append({"series": s, "fewest clients": int(first[N]), "response there (ms)": float(first[R]),
                     "D from the figures (ms)": res.total_demand * 1e3, "best rate (requests/s)": best,
                     "D_max at most (µs)": 1e6 / best, "D_max from the figures (µs)": res.demands[res.bottleneck] * 1e6})
    return pd.DataFrame(rows)


# -- the candidates, their ranking, and planning with the accepted one ---------------------------

def candidates(pts: pd.DataFrame, fits: FitSet, cal: FitSet, solved: dict, whose: str) -> dict[str, list[Candidate]]:
    """Series -> the models that can answer for it, in the order the ranking table shows them."""
    out = {}
    for s in dict.fromkeys(pts["series"]):
        mine = pts[pts["series"] == s]
        n, x, z = mine[N].to_numpy(float), mine[X].to_numpy(float), think_s(pts, s)
        models = []
        if s in fits.results:
            res = fits.results[s]
            peak_n = res.peak_n()
            reach = int(min(closed_loop.REACH_MAX, math.ceil(peak_n) + 1)) if math.isfinite(peak_n) else closed_loop.REACH_MAX
            models.append(Candidate(s, "USL fit" if res.model == "usl" else "Amdahl fit", "usl", res.df_model,
                                    res.predict, z, float(res.peak_x()), n, x, reach))
        if s in cal.results:
            res = cal.results[s]
            models.append(Candidate(s, FITTED, "fitted", res.df_model, res.predict, z, res.ceiling, n, x))
        if s in solved:
            models.append(Candidate(s, f"MVA from {whose}", "figures", 0, closed_loop.mva_rate(solved[s], DELAYS), z,
                                    solved[s].max_throughput, n, x, closed_loop.FIGURES_MAX,
                                    given=whose == "your figures"))
        out[s] = models
    return out


def rank(cands: dict[str, list[Candidate]], all_yours: bool) -> tuple[pd.DataFrame, dict[str, Candidate], dict]:
    """The ranking table, the accepted model per series (the lowest criterion; a difference below 2
    is said to be no evidence either way), and per series how it was chosen."""
    rows, accepted, how = [], {}, {}
    for s, models in cands.items():
        ranked = closed_loop.rank(models)
        if ranked.best is not None:
            accepted[s] = ranked.best
            how[s] = "AICc" if ranked.criterion == "AICc" else "AIC (too few points for AICc)"
        else:
            fallback = [c for c in models if c.kind == "fitted"] or [c for c in models if c.kind == "usl"] \
                or [c for c in models if all_yours]
            if fallback:
                accepted[s] = fallback[0]
                how[s] = "too few points to rank: the fitted model with the fewest parameters"
            else:
                how[s] = "no model: nothing could be fitted to one client count, and the figures are not yours"
        for c in models:
            aic, aicc = c.criteria
            rows.append({"series": s, "model": c.model, "fitted parameters": c.k, "points": len(c.measured_x),
                         "SSR": c.ssr, "AICc": aicc, "AIC": aic, "Δ (criterion)": ranked.deltas.get(c.model, math.nan),
                         "accepted": accepted.get(s) is c})
    return pd.DataFrame(rows), accepted, how


def plan(accepted: dict[str, Candidate], target: float, limit: float, top: int) -> pd.DataFrame:
    """Per series, the accepted model's answers; past the measured clients only where it knows its ceiling."""
    rows = []
    for s, c in accepted.items():
        measured = int(np.max(c.measured_n))
        need, why = closed_loop.clients_for(c, target, top)
        most, why_most = closed_loop.most_within(c, limit, top)
        if not c.ceiling_known:
            unknown = f"cannot tell past {measured:,}"
            if (need and need > measured) or why:
                need, why = None, unknown
            if (most and most > measured) or (most is None and why_most.startswith("within")):
                most, why_most = None, unknown
        fewest = int(np.min(c.measured_n))
        rows.append({"series": s, "model": c.model, "fewest measured (clients)": fewest,
                     "largest measured (clients)": measured,
                     "clients for the target": need if need else why,
                     "target: extrapolated": bool(need and (need > measured or need < fewest)),
                     "model ceiling (requests/s)": c.ceiling if math.isfinite(c.ceiling) else np.nan,
                     "best measured / ceiling %": 100 * c.share,
                     "most clients within the limit": most if most else why_most,
                     "limit: extrapolated": bool(most and (most > measured or most < fewest))
                     or (most is None and why_most.startswith("over") and fewest > 1),
                     "rate there (requests/s)": float(c.rate(np.array([most]))[0]) if most else np.nan})
    return pd.DataFrame(rows)


# -- printed peaks (the book's V9.3 data only) ------------------------------------------------------

def peaks_table(peaks: pd.DataFrame) -> pd.DataFrame:
    """Each printed peak with what one point gives: the response time N / X (Little's law, no think time)
    and the CPU share per 100,000 requests/s, cpu_pct / rate × 100,000 (the server's CPU, whatever its cores)."""
    rate, cpu, n = peaks["rate_rt_s"].astype(float), peaks["cpu_pct"].astype(float), peaks["clients"].astype(float)
    return pd.DataFrame({"table": peaks["table_no"].astype(int), "workload": peaks["workload"], "API": peaks["api"],
                         "persistence": peaks["persistence"], "log device": peaks["log_device"],
                         "message size": peaks["message_size"], "clients at the peak": peaks["clients"].astype(int),
                         "peak rate (requests/s)": _as_printed(rate), "CPU %": cpu, "response N / X (ms)": 1e3 * n / rate,
                         "CPU % per 100,000 requests/s": 1e5 * cpu / rate, "basis": peaks["basis"]})


def _as_printed(values: pd.Series) -> pd.Series:
    """Whole printed numbers as integers, so a table shows every printed digit (1,034,401, not 1,034,000)."""
    v = values.astype(float)
    return v.round().astype("int64") if bool((v == v.round()).all() and (v.abs() < 1e15).all()) else v


def peak_key(workload, api, persistence, log_device, size_bytes) -> tuple:
    return (str(workload), str(api), str(persistence).lower(), str(log_device), int(size_bytes))


def peaks_against_fits(peaks: pd.DataFrame, chart_keys: dict, fits: FitSet) -> pd.DataFrame:
    """The printed peaks the chart's series drew, against the USL fitted to the readings at the printed client
    count: a check on points the fits did not use (printed values, not readings)."""
    rows = []
    for p in peaks.itertuples(index=False):
        key = peak_key(p.workload, p.api, p.persistence, p.log_device, p.size_bytes)
        for s in chart_keys.get(key, []):
            if s not in fits.results:
                continue
            res = fits.results[s]
            predicted = float(res.predict([float(p.clients)])[0])
            rows.append({"series": s, "table": int(p.table_no), "printed clients": int(p.clients),
                         "printed rate (requests/s)": _as_printed(pd.Series([p.rate_rt_s])).iloc[0],
                         "USL at those clients (requests/s)": predicted,
                         "error %": 100 * (predicted - float(p.rate_rt_s)) / float(p.rate_rt_s),
                         "USL peak (requests/s)": _finite(res.peak_x()), "USL peak at (clients)": _finite(res.peak_n())})
    return pd.DataFrame(rows)


def readings_table(opened: pd.DataFrame) -> pd.DataFrame:
    """Per series of chart readings: the client counts, the rates' range and the reading's uncertainty."""
    g = opened.groupby("series", sort=False)
    return pd.DataFrame({"series": list(g.groups), "figure": g["figure_no"].first().to_numpy(),
                         "readings": g.size().to_numpy(), "fewest clients": g[N].min().to_numpy(),
                         "most clients": g[N].max().to_numpy(), "lowest rate (requests/s)": g[X].min().to_numpy(),
                         "highest rate (requests/s)": g[X].max().to_numpy(),
                         "chart uncertainty (requests/s)": g["chart_uncertainty"].first().to_numpy()})
