"""Closed request/reply loops: models of the rate against clients, ranked and planned.

N clients, each with one request outstanding and Z seconds of think time between a reply and
the next request, obey Little's law N = X·(R + Z) whatever the system inside (Lazowska et al.
1984, §3.2); so any model of the rate X(N) also gives the response time R(N) = N / X(N) − Z.
A :class:`Candidate` is one such model of one series' measured rates: the USL fitted to them,
the one-queue MVA fitted to them (the machine-repairman model, :func:`mqperf.models.mva.fit`),
or an exact MVA solved from demand figures (:func:`mqperf.models.mva.solve`, extended on
demand by :func:`mva_rate`). :func:`rank` orders a series' candidates by AICc
(:mod:`mqperf.models.selection`), and :func:`clients_for` and :func:`most_within` answer the
two planning questions of a closed loop, following the curve past the planning range where the
model knows its ceiling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mqperf.models import mva, selection
from mqperf.models._base import NOISE_SSR
from mqperf.models.planning import first_reaching

#: How far past the planning range an answer is looked for (a multiple of it), and at most.
REACH, REACH_MAX = 100, 1_000_000
#: An MVA from figures is solved client by client: it is looked for this far at most.
FIGURES_MAX = 20_000
#: A model's ceiling is known from the data only when the best measured rate reaches this share
#: of it: below, the bottleneck has barely begun to queue and the rates cannot place the ceiling.
LEVELLED = 0.8


def response_ms(n, rate, think_s: float) -> np.ndarray:
    """R(N) = N / X(N) − Z in milliseconds, for rates ``rate`` (per second) at ``n`` clients."""
    n = np.asarray(n, dtype=float)
    return (n / np.asarray(rate, dtype=float) - think_s) * 1e3


@dataclass
class Candidate:
    """One model of one series: rate and response time at any client count, and its fit to the rates."""

    series: str
    model: str                              # as the report names it
    kind: str                               # e.g. "usl", "fitted" or "figures"
    k: int                                  # fitted parameters (0 for figures)
    rate: Callable[[np.ndarray], np.ndarray]
    think_s: float
    ceiling: float                          # the highest rate the model reaches at any client count
    measured_n: np.ndarray
    measured_x: np.ndarray
    search_max: int = REACH_MAX
    #: The ceiling comes from figures the reader gave (not from the rates).
    given: bool = False

    def response_ms(self, n) -> np.ndarray:
        return response_ms(n, self.rate(np.asarray(n, dtype=float)), self.think_s)

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

    @property
    def criteria(self) -> tuple[float, float]:
        """(AIC, AICc) on the measured rates; NaN where undefined (no more points than parameters)."""
        n = len(self.measured_x)
        if n <= self.k:
            return math.nan, math.nan
        return selection.gaussian_aic(self.ssr, n, self.k), selection.gaussian_aicc(self.ssr, n, self.k)


def mva_rate(result: mva.Result, delay: tuple = ()) -> Callable:
    """An exact MVA's rate at any client count, solved further when asked past its table."""
    cache = {"table": result.table["throughput"].to_numpy()}

    def rate(n):
        n = np.asarray(n, dtype=float)
        need = int(np.max(n)) if n.size else 1
        if need > len(cache["table"]):
            longer = mva.solve(result.demands, max(need, 2 * len(cache["table"])), think_s=result.think_s,
                               delay=delay)
            cache["table"] = longer.table["throughput"].to_numpy()
        return cache["table"][np.clip(np.round(n).astype(int), 1, None) - 1]

    return rate


@dataclass(frozen=True)
class Ranked:
    """A series' candidates ranked: the criterion used ("AICc", "AIC" or None), each candidate's
    score and Δ to the best (NaN when unranked), the best, and whether the others all lie at
    least the threshold above it."""

    criterion: str | None
    scores: dict
    deltas: dict
    best: Candidate | None
    decided: bool


def rank(models: list[Candidate], *, threshold: float = selection.THRESHOLD) -> Ranked:
    """Rank one series' candidates by AICc where two or more have it, else by AIC where two or more
    have it (too few points for AICc); fewer: nothing is ranked. Ties go to fewer parameters."""
    crit = {id(c): c.criteria for c in models}
    with_aicc = [c for c in models if math.isfinite(crit[id(c)][1])]
    with_aic = [c for c in models if math.isfinite(crit[id(c)][0])]
    used = with_aicc if len(with_aicc) >= 2 else with_aic if len(with_aic) >= 2 else []
    if not used:
        return Ranked(None, {}, {}, None, False)
    names = {c.model: c for c in used}
    ranking = selection.rank({c.model: (c.ssr, len(c.measured_x), c.k) for c in used}, threshold=threshold)
    best = min(used, key=lambda c: (round(ranking.scores[c.model], 9), c.k))
    low = ranking.scores[best.model]
    deltas = {c.model: ranking.scores[c.model] - low for c in names.values()}
    return Ranked(ranking.criterion, dict(ranking.scores), deltas, best, ranking.decided)


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
    found = first_reaching(c.rate, target, limit=top)
    if found:
        return found, ""
    if not target < c.ceiling:
        return None, "above the ceiling"
    stop = min(c.search_max, REACH * top)
    found = _bracket(c.rate, lambda x: x >= target, top, stop)
    return (found, "") if found else (None, f"not within {stop:,}")


def most_within(c: Candidate, limit: float, top: int) -> tuple[int | None, str]:
    """The most clients up to which the response time stays within ``limit`` ms."""
    resp = c.response_ms(np.arange(1, top + 1))
    if resp[0] > limit:
        return None, "over the limit with one client"
    over = np.nonzero(resp > limit)[0]
    if over.size:
        return int(over[0]), ""
    stop = min(c.search_max, REACH * top)
    first_over = _bracket(c.response_ms, lambda r: r > limit, top, stop)
    return (first_over - 1, "") if first_over else (None, f"within it up to {stop:,}")
