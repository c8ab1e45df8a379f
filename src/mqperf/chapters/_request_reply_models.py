"""Request/reply: the MVA the measurements calibrate, the models ranked by AICc, planning from the winner.

Three models of the rate against clients compete per series: the USL (or Amdahl's law) fitted
to the rates, the one-queue MVA fitted to them (:func:`mqperf.models.mva.fit`: the bottleneck's
demand and the time spent without queueing, named by no resource), and the MVA from the demand
figures (the reader's or the book's; nothing fitted). They are ranked by AICc on the measured
rates (Burnham & Anderson 2002: ``n ln(SSR/n) + 2K + 2K(K+1)/(n−K−1)``, K = parameters + 1),
and the planning answers come from the model with the lowest, never from one the ranking
rejects. Too few points to rank: the MVA fitted to the measurements answers (two parameters,
the fewest of the fitted models); nothing fitted: the figures answer only when they are all
the reader's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import evidence, mva
from mqperf.models._base import NOISE_SSR
from mqperf.chapters._request_reply_mva import DELAYS
from mqperf.models.fitset import FitSet
from mqperf.present import prose

N, X, R, Z = "clients", "rate_msg_s", "response_time_ms", "think_time_ms"
FITTED = "MVA fitted to the measurements"
#: How far past the planning range an answer is looked for (a multiple of it), and at most.
REACH, REACH_MAX = 100, 1_000_000
#: The MVA from the figures is solved client by client: it is looked for this far at most.
FIGURES_MAX = 20_000
#: A model's ceiling is known from the data only when the best measured rate reaches this share
#: of it: below, the bottleneck has barely begun to queue and the rates cannot place the ceiling.
LEVELLED = 0.8


# -- the MVA fitted to the measurements ---------------------------------------------------------

def think_s(pts: pd.DataFrame, series: str) -> float:
    return float(pts.loc[pts["series"] == series, Z].iloc[0]) / 1e3


def calibrate(pts: pd.DataFrame, **identity) -> FitSet:
    def fit(rows):
        return mva.fit(rows[N], rows[X], think_s=float(rows[Z].iloc[0]) / 1e3, **identity)

    return FitSet.fit(pts, "series", fit)


def _interval(res, name: str) -> tuple[float, float]:
    if res.df_resid <= 0 or res.cov is None:
        return math.nan, math.nan
    ci = res.conf_int().loc[name]
    return float(ci["lower"]), float(ci["upper"])


def calibrated_table(cal: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        lo, hi = _interval(r, "d_queue")
        dlo, dhi = _interval(r, "d_delay")
        return {"bottleneck demand D_q (µs)": r.d_queue * 1e6, "D_q 95 % lower": lo * 1e6, "D_q 95 % upper": hi * 1e6,
                "ceiling 1/D_q (requests/s)": r.ceiling, "best measured / ceiling %": 100 * float(np.max(r.y)) * r.d_queue,
                "ceiling 95 % lower": 1 / hi if hi > 0 else math.nan,
                "ceiling 95 % upper": 1 / lo if lo > 0 else math.inf if lo == lo else math.nan,
                "delay D_d (ms)": r.d_delay * 1e3, "D_d 95 % lower": dlo * 1e3, "D_d 95 % upper": dhi * 1e3,
                "residual df": r.df_resid, "identification": r.identification}

    return fits_frame(cal.table(columns))


def fits_frame(table: pd.DataFrame) -> pd.DataFrame:
    return table.replace([np.inf], np.nan)


def calibrated_identification(cal: FitSet) -> str:
    """What the MVA fits can claim, in words of their own (the USL's identification sentence is beside them)."""
    res = cal.results
    if not res:
        return "No series has two or more client counts, so the MVA cannot be fitted to the measurements."
    exact = [s for s, r in res.items() if r.exactly_identified]
    stuck = [s for s, r in res.items() if r.df_resid <= 0 and not r.exactly_identified]
    rest = [s for s, r in res.items() if r.df_resid > 0]
    out = []
    if stuck:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in stuck)} has no residual degrees of "
                   "freedom, yet misses its points: read it as a description, not an estimate.")
    if exact:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in exact)} is exactly identified (two "
                   "client counts for two demands): it has no intervals.")
    if rest:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in rest)} leaves residual degrees of "
                   "freedom, and its demands have intervals.")
    return " ".join(out)


def calibrated_reading(cal: FitSet, pts: pd.DataFrame, ranking: pd.DataFrame, accepted: dict) -> list[str]:
    """Per series: the bottleneck's demand and the ceiling, said only when the ranking does not prefer the
    USL by 2 or more (rates that do not behave like a closed loop with one bottleneck), the interval
    identifies D_q, and the rates reach :data:`LEVELLED` of the ceiling. When the MVA from the figures
    wins, both are MVAs and the fitted one still reads the measured system."""
    def line(group, r) -> str:
        name, top = prose.quoted(group), int(pts.loc[pts["series"] == group, N].max())
        mine = ranking[(ranking["series"] == group) & (ranking["model"] == FITTED)]
        delta = float(mine["Δ (criterion)"].iloc[0]) if len(mine) else math.nan
        chosen = accepted.get(group)
        if chosen is not None and chosen.kind == "usl" and delta >= 2:
            return (f"{name}: the rates follow the {chosen.model} better than this one-queue MVA (its criterion is "
                    f"{prose.num(delta)} higher in the ranking below): they do not behave like a closed loop with "
                    "one bottleneck, so its demand is no verdict on the system.")
        lo, hi = _interval(r, "d_queue")
        verdict = evidence.identified(lo * 1e6, hi * 1e6)
        share = 100 * float(np.max(r.y)) * r.d_queue
        if not verdict or share < 100 * LEVELLED:
            if r.df_resid <= 0:
                why = "two client counts fit the model exactly, with nothing left to estimate its uncertainty"
            elif not verdict:
                why = (f"its {prose.interval(lo * 1e6, hi * 1e6, 'µs')} "
                       + ("reaches zero" if not lo > 0 else "spans more than a factor 10")
                       if math.isfinite(lo) and math.isfinite(hi) else "it has no finite interval")
            else:
                why = (f"the best measured rate is {prose.pct(share)} of the ceiling the fit puts there, so the "
                       "bottleneck has barely begun to queue")
            return (f"{name}: the data cannot tell the bottleneck's demand ({why}): up to "
                    f"{prose.count(top, 'client')} the rate has not levelled off enough to show a ceiling.")
        return (f"{name}: the measurements put the bottleneck's demand at {prose.num(r.d_queue * 1e6)} µs per "
                f"request ({prose.interval(lo * 1e6, hi * 1e6, 'µs')}), so no number of clients gets past "
                f"{prose.num(r.ceiling)} requests/s ({prose.interval(1 / hi, 1 / lo, 'requests/s')}); the rates "
                "alone cannot name the resource.")

    return prose.per_fit(cal, line)


# -- the candidates and their ranking -------------------------------------------------------------

@dataclass
class Candidate:
    """One model of one series: rate and response time at any client count, and its fit to the rates."""

    series: str
    model: str                              # as the report names it
    kind: str                               # "usl", "fitted" or "figures"
    k: int                                  # fitted parameters (0 for the figures)
    rate: Callable[[np.ndarray], np.ndarray]
    think_s: float
    ceiling: float                          # the highest rate the model reaches at any client count
    measured_n: np.ndarray
    measured_x: np.ndarray
    search_max: int = REACH_MAX

    def response_ms(self, n) -> np.ndarray:
        n = np.asarray(n, dtype=float)
        return (n / self.rate(n) - self.think_s) * 1e3

    #: The ceiling comes from figures the reader gave (not from the rates).
    given: bool = False

    @property
    def share(self) -> float:
        """The best measured rate as a share of the model's ceiling."""
        return float(np.max(self.measured_x)) / self.ceiling if self.ceiling > 0 else math.nan

    @property
    def ceiling_known(self) -> bool:
        """Whether the rates (or the reader's own figures) place the ceiling: see :data:`LEVELLED`."""
        return self.given or self.share >= LEVELLED

    @property
    def ssr(self) -> float:
        resid = self.rate(self.measured_n) - self.measured_x
        return max(float(resid @ resid), NOISE_SSR * float(self.measured_x @ self.measured_x))


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
            models.append(Candidate(s, "USL fit" if res.model == "usl" else "Amdahl fit", "usl", res.df_model, res.predict, z,
                                    float(res.peak_x()), n, x,
                                    int(min(REACH_MAX, math.ceil(peak_n) + 1)) if math.isfinite(peak_n) else REACH_MAX))
        if s in cal.results:
            res = cal.results[s]
            models.append(Candidate(s, FITTED, "fitted", res.df_model, res.predict, z, res.ceiling, n, x))
        if s in solved:
            models.append(Candidate(s, f"MVA from {whose}", "figures", 0, _figures_rate(solved[s]), z,
                                    solved[s].max_throughput, n, x, FIGURES_MAX, given=whose == "your figures"))
        out[s] = models
    return out


def _figures_rate(result) -> Callable:
    """The figures' MVA rate at any client count (solved further when asked past its table)."""
    cache = {"table": result.table["throughput"].to_numpy()}

    def rate(n):
        n = np.asarray(n, dtype=float)
        need = int(np.max(n)) if n.size else 1
        if need > len(cache["table"]):
            longer = mva.solve(result.demands, max(need, 2 * len(cache["table"])), think_s=result.think_s,
                               delay=DELAYS)
            cache["table"] = longer.table["throughput"].to_numpy()
        return cache["table"][np.clip(np.round(n).astype(int), 1, None) - 1]

    return rate


def _criteria(c: Candidate) -> tuple[float, float]:
    """(AIC, AICc) of a candidate on its series' measured rates; NaN where undefined."""
    n, big_k = len(c.measured_x), c.k + 1
    if n <= c.k:
        return math.nan, math.nan
    aic = n * math.log(c.ssr / n) + 2 * big_k
    return aic, (aic + 2 * big_k * (big_k + 1) / (n - big_k - 1) if n > big_k + 1 else math.nan)


def rank(cands: dict[str, list[Candidate]], all_yours: bool) -> tuple[pd.DataFrame, dict[str, Candidate], dict]:
    """The ranking table, the accepted model per series, and per series how it was chosen."""
    rows, accepted, how = [], {}, {}
    for s, models in cands.items():
        crit = [(c, *_criteria(c)) for c in models]
        with_aicc = [t for t in crit if math.isfinite(t[2])]
        with_aic = [t for t in crit if math.isfinite(t[1])]
        if len(with_aicc) >= 2:
            used, col = with_aicc, 2
            how[s] = "AICc"
        elif len(with_aic) >= 2:
            used, col = with_aic, 1
            how[s] = "AIC (too few points for AICc)"
        else:
            used, col = [], None
        best = min(used, key=lambda t: (round(t[col], 9), t[0].k)) if used else None
        if best is not None:
            accepted[s] = best[0]
        else:
            fallback = [c for c in models if c.kind == "fitted"] or [c for c in models if c.kind == "usl"] \
                or [c for c in models if all_yours]
            if fallback:
                accepted[s] = fallback[0]
                how[s] = "too few points to rank: the fitted model with the fewest parameters"
            else:
                how[s] = "no model: nothing could be fitted to one client count, and the figures are not yours"
        low = best[col] if best is not None else math.nan
        for c, aic, aicc in crit:
            score = (aicc if col == 2 else aic) if col is not None else math.nan
            rows.append({"series": s, "model": c.model, "fitted parameters": c.k, "points": len(c.measured_x),
                         "SSR": c.ssr, "AICc": aicc, "AIC": aic,
                         "Δ (criterion)": score - low if math.isfinite(score) else math.nan,
                         "accepted": accepted.get(s) is c})
    return pd.DataFrame(rows), accepted, how


def ranking_reading(table: pd.DataFrame, accepted: dict, how: dict, example: bool) -> list[str]:
    out = []
    for s, g in table.groupby("series", sort=False):
        name = prose.quoted(s)
        if s not in accepted:
            out.append(f"{name}: {how[s]}, so there is no planning answer.")
            continue
        chosen = accepted[s].model
        if not how[s].startswith("AIC"):
            out.append(f"{name}: {how[s]}, the {chosen}, answers the planning questions.")
            continue
        crit = "AICc" if how[s] == "AICc" else "AIC"
        others = g[(g["model"] != chosen) & g["Δ (criterion)"].notna()]
        close = others[others["Δ (criterion)"] < 2]
        text = (f"{name}: the {chosen} has the lowest {crit}"
                + (f" ({how[s].split(' (')[1].rstrip(')')})" if "(" in how[s] else "")
                + "; " + prose.listing(f"the {o['model']} is {prose.num(o['Δ (criterion)'])} higher"
                                       for o in others.to_dict("records")) + ".")
        if len(close):
            text += " A difference below 2 is no evidence either way."
        kind = accepted[s].kind
        if kind == "figures" and example:
            text += (" The example was generated from these figures, so their winning checks the generator, "
                     "not MQ.")
        elif kind == "figures":
            out.append(text + " The planning answers below come from the figures, which these measurements prefer.")
            continue
        out.append(text + " The planning answers below come from it.")
    return out


# -- planning with the accepted model ---------------------------------------------------------------

def _first(values: np.ndarray, test) -> int | None:
    hit = np.nonzero(test(values))[0]
    return int(hit[0]) + 1 if hit.size else None


def _bracket(fn, good, start: int, stop: int) -> int | None:
    """The first N in (start, stop] where ``good(fn(N))``, for a test that stays true once true."""
    lo, hi = start, start
    while hi < stop:
        hi = min(stop, max(hi * 2, hi + 1))
        if good(fn(np.array([hi]))[0]):
            break
        lo = hi
    else:
        return None
    if not good(fn(np.array([hi]))[0]):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if good(fn(np.array([mid]))[0]) else (mid, hi)
    return hi


def clients_for(c: Candidate, target: float, top: int) -> tuple[int | None, str]:
    """The fewest clients whose rate reaches ``target``: (N, "") or (None, why not)."""
    grid = np.arange(1, top + 1)
    found = _first(c.rate(grid), lambda x: x >= target)
    if found:
        return found, ""
    if not target < c.ceiling:
        return None, "above the ceiling"
    stop = min(c.search_max, REACH * top)
    found = _bracket(c.rate, lambda x: x >= target, top, stop)
    return (found, "") if found else (None, f"not within {stop:,}")


def most_within(c: Candidate, limit: float, top: int) -> tuple[int | None, str]:
    """The most clients up to which the response time stays within ``limit`` ms."""
    grid = np.arange(1, top + 1)
    resp = c.response_ms(grid)
    if resp[0] > limit:
        return None, "over the limit with one client"
    over = _first(resp, lambda r: r > limit)
    if over:
        return over - 1, ""
    stop = min(c.search_max, REACH * top)
    first_over = _bracket(c.response_ms, lambda r: r > limit, top, stop)
    return (first_over - 1, "") if first_over else (None, f"within it up to {stop:,}")


def plan(accepted: dict[str, Candidate], target: float, limit: float, top: int) -> pd.DataFrame:
    """Per series, the accepted model's answers; past the measured clients only where it knows its ceiling."""
    rows = []
    for s, c in accepted.items():
        measured = int(np.max(c.measured_n))
        need, why = clients_for(c, target, top)
        most, why_most = most_within(c, limit, top)
        if not c.ceiling_known:
            unknown = f"cannot tell past {measured:,}"
            if (need and need > measured) or why:
                need, why = None, unknown
            if (most and most > measured) or (most is None and why_most.startswith("within")):
                most, why_most = None, unknown
        rows.append({"series": s, "model": c.model, "largest measured (clients)": measured,
                     "clients for the target": need if need else why,
                     "target: extrapolated": bool(need and need > measured),
                     "model ceiling (requests/s)": c.ceiling if math.isfinite(c.ceiling) else np.nan,
                     "best measured / ceiling %": 100 * c.share,
                     "most clients within the limit": most if most else why_most,
                     "limit: extrapolated": bool(most and most > measured),
                     "rate there (requests/s)": float(c.rate(np.array([most]))[0]) if most else np.nan})
    return pd.DataFrame(rows)


def plan_reading(table: pd.DataFrame, target: float, limit: float, top: int) -> list[str]:
    out = []
    t, lim = prose.num(target, 12), prose.num(limit, 12)
    for row in table.to_dict("records"):
        name = f"{prose.quoted(row['series'])} by the {row['model']}"
        need, most = row["clients for the target"], row["most clients within the limit"]
        blind = (f"the rates reach only {prose.pct(row['best measured / ceiling %'])} of its ceiling, too little to "
                 "place it")
        if isinstance(need, (int, np.integer)):
            first = prose.extrapolated(f"reaches {t} requests/s with {prose.count(int(need), 'client')}",
                                       row["target: extrapolated"])
        elif need == "above the ceiling":
            first = (f"does not reach {t} requests/s with any number of clients: {t} requests/s lies above its "
                     f"ceiling ({prose.num(row['model ceiling (requests/s)'])} requests/s)")
        elif need.startswith("cannot tell"):
            first = (f"cannot tell how many clients reach {t} requests/s: more than the "
                     f"{prose.count(int(row['largest measured (clients)']), 'client')} measured, and {blind}")
        else:
            first = f"does not reach {t} requests/s with up to {need.split()[-1]} clients"
        if isinstance(most, (int, np.integer)):
            there = f"{prose.num(row['rate there (requests/s)'])} requests/s there"
            second = (f"keeps the response time within {lim} ms up to {prose.count(int(most), 'client')} "
                      + (f"(extrapolated; {there})" if row["limit: extrapolated"] else f"({there})"))
        elif most.startswith("within"):
            second = f"keeps the response time within {lim} ms at every client count up to {most.split()[-1]}"
        elif most.startswith("cannot tell"):
            second = (f"keeps the response time within {lim} ms at every measured client count; past them it cannot "
                      "tell" + ("" if isinstance(need, str) and need.startswith("cannot tell") else f", as {blind}"))
        else:
            second = f"exceeds {lim} ms even with one client"
        out.append(f"{name} {first}, and {second}.")
    return out
