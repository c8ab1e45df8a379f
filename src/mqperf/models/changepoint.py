"""Where in a series of runs did a fitted parameter move? Change points with a check.

Each run of a chapter gives an estimate ``y_i`` of a parameter with a standard error
``s_i``. Candidate change points come from ruptures' PELT search on the l2 cost (a shift
in the mean) with the penalty ``2 s̄² ln n``, the Bayesian information criterion for a
Gaussian sequence of known noise variance ``s̄²`` (the mean of the runs' ``s_i²``). ruptures
was chosen over apache-otava (E-divisive, which also tests significance) because it needs
only numpy and scipy; otava pins an older numpy and brings database and chat clients.

PELT alone marks shifts that the runs' own uncertainty explains (about one series in five
of eight runs with no change at all), and a test at a point the search picked is biased
towards a change. So the whole procedure is calibrated: its statistic is the largest
``|z|`` over the points PELT picks, each ``z`` the difference of the inverse-variance
weighted means of the segments on either side over its standard error; its distribution
with no change is simulated (:data:`SIMULATIONS` sequences of normal noise with the runs'
own standard errors, a fixed seed, so every machine gives the same answer). A point is
reported when its ``|z|`` exceeds that distribution's 1 − α quantile, so a series with no
change shows one at most α of the time. The shift's interval uses the same critical value.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from mqperf.errors import ModelError


@dataclass(frozen=True)
class Change:
    """A confirmed change: the first run of the new level, and the two levels with the shift's interval."""

    index: int          # position of the first run after the change
    before: float       # weighted mean of the segment before
    after: float        # weighted mean of the segment after
    lower: float        # interval of after − before
    upper: float


def detect(estimates, std_errors, *, alpha: float = 0.05) -> list[Change]:
    """Confirmed change points in a sequence of estimates (oldest first).

    Raises
    ------
    ModelError
        Fewer than three runs, or a run without a finite, positive standard error (its fit
        had no residual degrees of freedom): without the runs' uncertainty no shift can be
        told from noise.
    """
    import ruptures

    y = np.asarray(estimates, dtype=float)
    s = np.asarray(std_errors, dtype=float)
    if y.size < 3:
        raise ModelError(f"a change point needs three or more runs (have {y.size})")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(s)) and np.all(s > 0)):
        raise ModelError("a run's fit gives no standard error for this parameter, so a shift cannot be told from noise")
    pen = 2.0 * float(np.mean(s**2)) * math.log(y.size)
    found = _scan(ruptures, y, s, pen)
    if not found:
        return []
    critical = _critical(tuple(s.tolist()), pen, alpha)
    return [Change(index=cut, before=m1, after=m2, lower=m2 - m1 - critical * se, upper=m2 - m1 + critical * se)
            for cut, z, m1, m2, se in found if abs(z) > critical]


#: Null sequences simulated to calibrate :func:`detect` (its p-values are multiples of 1/1000).
SIMULATIONS = 999


def _scan(ruptures, y: np.ndarray, s: np.ndarray, pen: float) -> list[tuple]:
    """PELT's change points, each with (index, z, mean before, mean after, standard error of the shift)."""
    cuts = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(y.reshape(-1, 1)).predict(pen=pen)[:-1]
    bounds = [0, *cuts, y.size]
    out = []
    for i, cut in enumerate(cuts):
        (m1, v1), (m2, v2) = _weighted(y[bounds[i]:cut], s[bounds[i]:cut]), _weighted(y[cut:bounds[i + 2]],
                                                                                        s[cut:bounds[i + 2]])
        se = math.sqrt(v1 + v2)
        out.append((int(cut), (m2 - m1) / se, m1, m2, se))
    return out


@functools.lru_cache(maxsize=256)
def _critical(errors: tuple, pen: float, alpha: float) -> float:
    """The 1 − α quantile of the largest |z| the procedure finds in sequences with no change."""
    import ruptures

    s = np.asarray(errors)
    rng = np.random.default_rng(0)
    stats = np.zeros(SIMULATIONS)
    for i in range(SIMULATIONS):
        found = _scan(ruptures, rng.normal(0.0, s), s, pen)
        stats[i] = max((abs(z) for _, z, *_ in found), default=0.0)
    return float(np.quantile(stats, 1 - alpha, method="higher"))


def _weighted(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """Inverse-variance weighted mean and its variance."""
    w = 1.0 / s**2
    return float(np.sum(w * y) / np.sum(w)), float(1.0 / np.sum(w))
