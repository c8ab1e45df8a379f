"""Which of several fits to the same points a report accepts: ranked by AICc, once for every chapter.

A planning answer comes from the model the report accepts, never from one its own comparison
rejects. :func:`rank` orders candidate fits of the same points by the small-sample Akaike
criterion (AICc; plain AIC when AICc needs more points than there are) and accepts the best
only when the next is at least ``threshold`` worse; otherwise every candidate within the
threshold is kept, and the report gives their answers side by side ("the data cannot rank
them"). Candidates without residual degrees of freedom cannot be ranked at all.

Burnham & Anderson (2002): a difference below 2 is no evidence either way, 4 to 7 is
considerably less support; chapters pass the threshold they use and say it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

#: Below this difference in AICc two models are not told apart (Burnham & Anderson).
THRESHOLD = 2.0


def gaussian_aic(ssr: float, n: int, k: int) -> float:
    """AIC of a least-squares fit with Gaussian errors: n·ln(SSR/n) + 2(k + 1) (σ² counted)."""
    if n <= 0 or ssr < 0:
        return math.nan
    return n * math.log(max(ssr, 1e-300) / n) + 2 * (k + 1)


def gaussian_aicc(ssr: float, n: int, k: int) -> float:
    """AICc: AIC + 2(k+1)(k+2)/(n − k − 2); NaN when n ≤ k + 2 (AICc undefined)."""
    p = k + 1
    if n - p - 1 <= 0:
        return math.nan
    return gaussian_aic(ssr, n, k) + 2 * p * (p + 1) / (n - p - 1)


@dataclass(frozen=True)
class Ranking:
    """Candidates ordered best first, the criterion used, and which the report accepts."""

    table: pd.DataFrame
    criterion: str               # "AICc", "AIC" or "none"
    accepted: tuple = ()         # names; several when the data cannot rank them
    why: str = ""                # the ranking in words, for the report
    scores: dict = field(default_factory=dict)

    @property
    def decided(self) -> bool:
        return len(self.accepted) == 1


def rank(candidates: dict, *, threshold: float = THRESHOLD) -> Ranking:
    """Rank fits of the same points: ``{name: (ssr, nobs, k)}`` or ``{name: FitResult}``.

    Returns the ranking; ``accepted`` holds the best alone when every other is at least
    ``threshold`` worse, else every candidate within ``threshold`` of the best. With AICc
    undefined for some candidate (too few points) plain AIC ranks them all; with no residual
    degrees of freedom anywhere nothing is ranked and every candidate is accepted.
    """
    stats = {}
    for name, c in candidates.items():
        if isinstance(c, tuple):
            ssr, n, k = c
        else:
            ssr, n, k = float(c.ssr), int(c.nobs) + int(getattr(c, "n_constraints", 0)), int(c.df_model)
        stats[name] = (ssr, n, k)
    if not stats:
        return Ranking(pd.DataFrame(columns=["model", "criterion", "Δ"]), "none")
    if all(n - k <= 0 for _, n, k in stats.values()):
        table = pd.DataFrame({"model": list(stats), "criterion": math.nan, "Δ": math.nan})
        return Ranking(table, "none", tuple(stats), "no candidate has residual degrees of freedom: none can be ranked")
    aicc = {name: gaussian_aicc(*s) for name, s in stats.items()}
    criterion = "AICc" if all(math.isfinite(v) for v in aicc.values()) else "AIC"
    scores = aicc if criterion == "AICc" else {name: gaussian_aic(*s) for name, s in stats.items()}
    best = min(scores.values())
    order = sorted(scores, key=lambda name: (scores[name], name))
    table = pd.DataFrame({"model": order, "criterion": [scores[n] for n in order],
                          "Δ": [scores[n] - best for n in order]})
    within = tuple(n for n in order if scores[n] - best < threshold)
    if len(within) == 1:
        runner = order[1] if len(order) > 1 else None
        why = (f"{criterion} prefers {order[0]}" + (f" by {scores[runner] - best:.3g} (at least {threshold:g}: "
                                                     "evidence)" if runner else ""))
    else:
        why = (f"{criterion} cannot rank {', '.join(within)}: they lie within {threshold:g} of each other, "
               "no evidence either way")
    return Ranking(table, criterion, within, why, scores)
