"""Planning answers from a fitted curve, once for every chapter: how many units for a target,
what each unit adds, where more stop paying, and whether an answer leaves the data.

The functions take the curve as a callable (``predict(n) -> rate``), so any model a chapter
accepts answers the same questions the same way. Searches are not capped by a table's range:
they follow the curve up to :data:`LIMIT` units (or its peak), and the caller labels an answer
past the largest measured value as an extrapolation (:func:`side`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from mqperf.models.evidence import within
from mqperf.numbers import tie_noise

#: The most units a search looks at (tasks, clients, CPUs): far past anything measured.
LIMIT = 4096


def first_reaching(predict: Callable, target: float, *, start: int = 1, limit: int = LIMIT) -> int | None:
    """The smallest whole number of units whose modelled rate reaches ``target``; None when no count
    up to ``limit`` does (the target lies above the curve's peak or limit)."""
    n = np.arange(start, limit + 1, dtype=float)
    hit = np.nonzero(np.asarray(predict(n), dtype=float) >= target)[0]
    return int(n[hit[0]]) if hit.size else None


def gains(predict: Callable, upto: int) -> pd.DataFrame:
    """Per unit from 1 to ``upto``: the modelled rate and what that unit adds, in percent of the rate before it."""
    n = np.arange(1, upto + 1, dtype=float)
    x = np.asarray(predict(n), dtype=float)
    added = np.concatenate([[np.nan], np.diff(x) / x[:-1] * 100])
    return pd.DataFrame({"units": n.astype(int), "rate": x, "added %": added})


def last_adding(predict: Callable, pct: float, *, limit: int = LIMIT) -> int | None:
    """The last unit that still adds at least ``pct`` % to the rate before it; None when the first
    added unit already adds less (or the curve is flat)."""
    table = gains(predict, limit)
    adds = table["added %"].to_numpy()[1:]
    small = np.nonzero(~(adds >= pct))[0]
    if small.size == 0:
        return limit
    return int(small[0] + 1) if small[0] > 0 else None


def side(value: float, low: float, high: float) -> str:
    """Where an answer lies against the measured range: "within", "below" or "above"."""
    return within(value, low, high)


def extrapolated(value: float | None, low: float, high: float) -> bool:
    """True when an answer lies outside the measured range (and so must be labelled)."""
    return value is not None and side(value, low, high) != "within"


# -- one fitted curve's answers, by its shape ---------------------------------------------------

#: Unit N adds at most 1/(N−1) of X(N−1) when X(N)/N does not grow: below 5 % from N = 22 on.
LAST_POSSIBLE = 21


@dataclass(frozen=True)
class Reading:
    """One model's reading of a series (a USL, Amdahl or bottleneck fit): its rate at any N and the
    planning answers it gives, without a cap: the units for a target follow the model's own shape
    (the USL's peak, Amdahl's limit λ/σ, the bottleneck's ceiling).

    ``model`` is the reading's name as the report says it; ``result`` a fit with ``predict`` and,
    for ``kind`` "usl" (USL or Amdahl), ``lam``, ``sigma``, ``kappa``, ``peak_n()``, ``peak_x()``,
    for ``kind`` "bottleneck", ``lam``, ``x_max``, ``knee()`` and ``at_bound``.
    """

    model: str
    result: object
    kind: str = "usl"
    units: str = "units"  # what N counts, in the reasons (tasks, clients, CPUs)

    def rate(self, n) -> np.ndarray:
        return np.asarray(self.result.predict(np.asarray(n, dtype=float)), dtype=float)

    @property
    def shape(self) -> str:
        """"peak" (USL with κ > 0), "limit" (Amdahl's λ/σ, approached), "ceiling" (bottleneck) or "none"."""
        if self.kind == "bottleneck":
            return "ceiling"
        if self.result.kappa > 0:
            return "peak"
        return "limit" if self.result.sigma > 0 else "none"

    def top(self) -> tuple[float, float]:
        """(N, X) of the modelled peak or ceiling's knee; (inf, λ/σ) for a limit; (inf, inf) for none."""
        if self.kind == "bottleneck":
            return float(self.result.knee()), float(self.result.x_max)
        return float(self.result.peak_n()), float(self.result.peak_x())

    def best_whole(self) -> tuple[int, float]:
        """The whole N with the highest modelled rate, and that rate (a peak falls between two whole N)."""
        n_star, _ = self.top()
        if not math.isfinite(n_star):
            return math.inf, self.top()[1]
        lo = max(1, math.floor(n_star))
        cands = np.array([lo, lo + 1], dtype=float)
        rates = self.rate(cands)
        i = int(np.argmax(tie_noise(rates)))  # equal but for float noise: the smaller N, on every CPU
        return int(cands[i]), float(rates[i])

    def units_for(self, target: float) -> tuple[int | None, str]:
        """Smallest whole N whose modelled rate reaches ``target``, or None and why not."""
        r = self.result
        if self.kind == "bottleneck":
            if target > r.x_max * (1 + 1e-12):
                if "x_max" in r.at_bound:
                    return None, "above the highest rate measured, and the points show no ceiling to plan against"
                return None, "above the ceiling"
            return max(1, math.ceil(target / r.lam - 1e-9)), ""
        if self.shape == "peak":
            n_best, x_best = self.best_whole()
            if x_best < target:
                return None, "above the modelled peak"
            return first_reaching(self.rate, target, limit=n_best), ""
        lam, sigma = r.lam, r.sigma
        if sigma > 0 and target >= lam / sigma:
            return None, "at or above the modelled limit λ/σ, which more " + self.units + " approach but never reach"
        # λN / (1 + σ(N − 1)) ≥ T  ⇔  N ≥ T(1 − σ) / (λ − σT): the search ends one past the closed form
        need = target * (1 - sigma) / (lam - sigma * target)
        return first_reaching(self.rate, target, limit=max(1, math.ceil(need - 1e-9)) + 2), ""

    def gains(self, upto: int) -> np.ndarray:
        """What unit N adds, in % of X(N − 1), for N = 2..upto."""
        return gains(self.rate, upto)["added %"].to_numpy()[1:]

    def last_paying(self, pct: float) -> int:
        """The last unit N that adds at least ``pct`` % (1 when the second already adds less)."""
        return min(last_adding(self.rate, pct, limit=LAST_POSSIBLE + 1) or 1, LAST_POSSIBLE)
