"""Task scaling's planning answers, from the model the chapter's own comparison accepts.

Each fitted series has two readings: its USL (or Amdahl) fit and the bottleneck model
X = min(λN, X_max). :func:`rank` compares them by AICc (AIC when AICc needs more points) on
the same weights: a difference of 2 or more accepts the lower; below 2, or when the points
leave no residual degrees of freedom to compare, the data cannot rank them and both readings
answer, side by side. No answer comes from a reading the comparison rejects.

A :class:`Reading` answers without a cap: the tasks for a target come from the model's own
shape (the USL's peak, Amdahl's limit λ/σ, the bottleneck's ceiling), so a target above the
modelled peak is said to be above it "at any task count", and the last task that adds at least
5 % is found wherever it lies (never beyond task 21: a task adds at most 1/(N − 1) of the rate
when the rate per task does not grow). Whether an answer leaves the measured range is
:func:`beyond`'s to say; the chapter labels such answers "extrapolated".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mqperf.models import weighting

#: A task that adds less than this share of the rate before it "stops paying".
PAYING_PCT = 5.0
#: An AICc difference below this is no evidence either way (Burnham & Anderson 2002, §2.6).
DECISIVE = 2.0
#: Task N adds at most 1/(N−1) of X(N−1) when X(N)/N does not grow: below 5 % from N = 22 on.
LAST_POSSIBLE = 21


@dataclass(frozen=True)
class Reading:
    """One model's reading of a series: its rate at any N and the planning answers it gives."""

    model: str  # "USL", "Amdahl" or "bottleneck"
    result: object

    def rate(self, n) -> np.ndarray:
        return np.asarray(self.result.predict(np.asarray(n, dtype=float)), dtype=float)

    @property
    def shape(self) -> str:
        """"peak" (USL with κ > 0), "limit" (Amdahl's λ/σ, approached), "ceiling" (bottleneck) or "none"."""
        if self.model == "bottleneck":
            return "ceiling"
        if self.result.kappa > 0:
            return "peak"
        return "limit" if self.result.sigma > 0 else "none"

    def top(self) -> tuple[float, float]:
        """(N, X) of the modelled peak or ceiling's knee; (inf, λ/σ) for a limit; (inf, inf) for none."""
        if self.model == "bottleneck":
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
        i = int(np.argmax(rates))
        return int(cands[i]), float(rates[i])

    def tasks_for(self, target: float) -> tuple[int | None, str]:
        """Smallest whole N whose modelled rate reaches ``target``, or None and why not."""
        r = self.result
        if self.model == "bottleneck":
            if target > r.x_max * (1 + 1e-12):
                if "x_max" in r.at_bound:
                    return None, "above the highest rate measured, and the points show no ceiling to plan against"
                return None, "above the ceiling"
            return max(1, math.ceil(target / r.lam - 1e-9)), ""
        if self.shape == "peak":
            n_best, x_best = self.best_whole()
            if x_best < target:
                return None, "above the modelled peak"
            n = np.arange(1, n_best + 1, dtype=float)
            return int(n[np.nonzero(self.rate(n) >= target)[0][0]]), ""
        lam, sigma = r.lam, r.sigma
        if sigma > 0 and target >= lam / sigma:
            return None, "at or above the modelled limit λ/σ, which more tasks approach but never reach"
        # λN / (1 + σ(N − 1)) ≥ T  ⇔  N ≥ T(1 − σ) / (λ − σT)
        need = target * (1 - sigma) / (lam - sigma * target)
        n = max(1, math.ceil(need - 1e-9))
        while n > 1 and self.rate([n - 1])[0] >= target:  # guard the rounding
            n -= 1
        while self.rate([n])[0] < target:
            n += 1
        return n, ""

    def gains(self, upto: int) -> np.ndarray:
        """What task N adds, in % of X(N − 1), for N = 2..upto."""
        n = np.arange(1, upto + 1, dtype=float)
        x = self.rate(n)
        return (x[1:] / x[:-1] - 1) * 100

    def last_paying(self) -> int:
        """The last task N that adds at least 5 % (1 when the second task already adds less)."""
        g = self.gains(LAST_POSSIBLE + 1)
        small = np.nonzero(g < PAYING_PCT)[0]
        return int(small[0] + 1) if small.size else LAST_POSSIBLE


@dataclass(frozen=True)
class Ranking:
    """The readings of one series and which of them answer."""

    series: str
    readings: tuple  # (fit's reading, bottleneck reading or None)
    accepted: tuple  # the readings that answer: one, or both when the data cannot rank them
    criterion: str  # "AICc", "AIC" or "" (none available)
    delta: float  # the criterion's difference (NaN without one)
    weights: weighting.Weighting | None = None
    why: str = ""  # in words, for the sentence and the table
    notes: list = field(default_factory=list)

    @property
    def ranked(self) -> bool:
        return len(self.accepted) == 1 and self.readings[1] is not None


def _aic(result, weights: str) -> float:
    nobs, k = int(np.size(result.y)), int(result.df_model) + 1
    ssr = weighting.weighted_ssr(result, weights)
    if not ssr > 0 or nobs <= result.df_model:
        return math.nan
    return nobs * math.log(ssr / nobs) + 2 * k


def rank(series: str, fit, neck, weights: weighting.Weighting | None = None) -> Ranking:
    """Which of the series' fit and its bottleneck reading answer (see the module docstring)."""
    kind = weights.kind if weights is not None else weighting.NONE
    own = Reading("USL" if fit.model == "usl" else "Amdahl", fit)
    if neck is None:
        return Ranking(series, (own, None), (own,), "", math.nan, weights,
                       "the bottleneck model could not be fitted, so the fit is the only reading")
    other = Reading("bottleneck", neck)
    crit, scores = "AICc", (weighting.aicc(fit, kind), weighting.aicc(neck, kind))
    if not all(math.isfinite(s) for s in scores):
        crit, scores = "AIC", (_aic(fit, kind), _aic(neck, kind))
    if not all(math.isfinite(s) for s in scores):
        return Ranking(series, (own, other), (own, other), "", math.nan, weights,
                       f"too few points to rank the {own.model} and bottleneck readings (AICc and AIC need "
                       "residual degrees of freedom in both)")
    from mqperf.present.prose import num

    delta = abs(scores[0] - scores[1])
    best = own if scores[0] < scores[1] else other
    if delta < DECISIVE:
        return Ranking(series, (own, other), (own, other), crit, delta, weights,
                       f"{crit} leans to the {best.model} reading by only {num(delta)}: below about 2, the data "
                       "cannot rank the two")
    return Ranking(series, (own, other), (best,), crit, delta, weights,
                   f"{crit} prefers the {best.model} reading by {num(delta)}")


def beyond(n: float, low: float, high: float) -> str:
    """"" inside the measured counts, else "above" or "below" them."""
    if n > high:
        return "above"
    if n < low:
        return "below"
    return ""


# -- the planning table ------------------------------------------------------------------------------

#: The planning table's columns that hold an answer (numbers, or a reason where there is none).
TARGET, PAYING, TOP_X, TOP_N = "tasks for the target", "last task adding ≥ 5 %", "modelled peak or ceiling (msg/s)", \
    "at (tasks)"


def measured(pts, series: str) -> tuple[float, float]:
    g = pts.loc[pts["series"] == series, "tasks"]
    return float(g.min()), float(g.max())


def answer(reading: Reading, target: float, low: float, high: float) -> dict:
    """One reading's answers, with where each lies against the measured counts."""
    need, why = reading.tasks_for(target)
    n_top, x_top = reading.top()
    last = reading.last_paying()
    out = {"need": need, "why": why, "n_top": n_top, "x_top": x_top, "last": last, "beyond": []}
    if need is not None and beyond(need, low, high):
        out["beyond"].append("tasks for the target")
    if need is None and reading.shape in ("peak", "limit") and (not math.isfinite(n_top) or beyond(n_top, low, high)):
        out["beyond"].append("the modelled peak" if reading.shape == "peak" else "the modelled limit")
    # "Task L is the last that adds 5 %" speaks of tasks up to L + 1 (the first that adds less).
    if beyond(last + 1, low, high) or beyond(last, low, high):
        out["beyond"].append("last task adding ≥ 5 %")
    return out


def table(ranks: dict, pts, target: float) -> "pd.DataFrame":
    """One row per series and answering reading: the tasks for the target (or why none), the
    modelled peak or ceiling, the last task adding 5 %, and whether an answer is extrapolated."""
    import pandas as pd

    rows = []
    for name, rk in ranks.items():
        low, high = measured(pts, name)
        for reading in rk.accepted:
            a = answer(reading, target, low, high)
            rows.append({"series": name, "model": reading.model,
                         "chosen by": ("the only reading" if rk.readings[1] is None else
                                       f"{rk.criterion}, by {rk.delta:.3g}" if rk.ranked else
                                       "both answer: the data cannot rank them"),
                         TARGET: a["need"] if a["need"] is not None else f"none: {a['why']}",
                         TOP_X: a["x_top"] if math.isfinite(a["x_top"]) else np.nan,
                         TOP_N: a["n_top"] if math.isfinite(a["n_top"]) else "none: a limit, approached",
                         "largest measured (tasks)": int(high), PAYING: a["last"],
                         "extrapolated": bool(a["beyond"]),
                         "beyond the measured counts": "; ".join(a["beyond"]) or "nothing"})
    return pd.DataFrame(rows)


def span(ranks: dict, pts, max_tasks: int) -> int:
    """The tables' range of tasks: max_tasks, or further when the data or the answers go further."""
    top = int(pts["tasks"].max())
    lasts = [x.last_paying() + 1 for rk in ranks.values() for x in rk.accepted]
    return int(max(max_tasks, top, *lasts))


def gains(ranks: dict, upto: int) -> "pd.DataFrame":
    """What each task adds by every reading the planning uses, for N = 2..upto."""
    import pandas as pd

    parts = []
    for name, rk in ranks.items():
        for reading in rk.accepted:
            label = name if len(rk.accepted) == 1 else f"{name} ({reading.model})"
            n = np.arange(2, upto + 1)
            parts.append(pd.DataFrame({"series": label, "tasks": n, "modelled rate (msg/s)": reading.rate(n),
                                       "added by this task (%)": reading.gains(upto)}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
