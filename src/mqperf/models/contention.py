"""Growth of latch wait time with the number of tasks: a power law beside USL coherency.

    w(N) = a · N^b          fitted as   ln w = ln a + b ln N   (ordinary least squares)

``w`` is the total time spent waiting for a latch over a fixed-length run (seed 000 gives
latch times summed over all tasks in a 3-minute run), ``N`` the number of tasks. The
exponent ``b`` is what matters: each of N tasks meeting the other N − 1 gives total waits
growing like the USL coherency term N(N − 1) (Gunther, *Guerrilla Capacity Planning*,
2007, §4.4), whose local log–log slope (2N − 1)/(N − 1) falls from 3 at N = 2 towards 2.
So b ≈ 2 says pairwise crosstalk; b ≈ 1 says waits in proportion to work (no contention
growth); b > 2 says something worse than pairwise (e.g. a latch held longer as it gets
hotter, or a CPU shortage stretching hold times).

The fit is in log space, so errors are taken as multiplicative (log-normal) and every
point weighs the same in relative terms; the fitted curve is the *median* wait, which is
below the mean by the factor exp(s²/2). Intervals for ``ln_a`` and ``b`` are exact
Student-t intervals under that assumption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._base import FitResult, covariance
from mqperf.models._nls import check_pairs

FORMULA = "w(N) = exp(ln_a) * N^b"


def power_law(n, ln_a: float, b: float):
    """w(N) = exp(ln a)·N^b."""
    return np.exp(ln_a) * np.asarray(n, dtype=float) ** b


def power_growth(n_from, n_to, b: float):
    """w(n_to)/w(n_from) = (n_to/n_from)^b."""
    return (np.asarray(n_to, dtype=float) / np.asarray(n_from, dtype=float)) ** b


def coherency_growth(n_from, n_to):
    """Growth of the USL coherency term: n_to(n_to − 1) / (n_from(n_from − 1)); needs n_from > 1."""
    n_from = np.asarray(n_from, dtype=float)
    n_to = np.asarray(n_to, dtype=float)
    if np.any(n_from <= 1):
        raise ModelError("coherency growth needs n_from > 1: N(N-1) is zero at N = 1")
    return n_to * (n_to - 1) / (n_from * (n_from - 1))


def coherency_exponent(n):
    """Local log–log slope of N(N − 1): d ln[N(N−1)] / d ln N = (2N − 1)/(N − 1)."""
    n = np.asarray(n, dtype=float)
    if np.any(n <= 1):
        raise ModelError("the coherency exponent needs N > 1")
    return (2 * n - 1) / (n - 1)


def exponent_from_ratio(ratio: float, n_from: float, n_to: float) -> float:
    """The b of a power law through two points: ln(ratio) / ln(n_to/n_from)."""
    if ratio <= 0 or n_from <= 0 or n_to <= 0 or n_from == n_to:
        raise ModelError("exponent_from_ratio needs a positive ratio and two different positive N")
    return math.log(ratio) / math.log(n_to / n_from)


@dataclass(frozen=True)
class PowerLawResult(FitResult):
    """A fitted power law; ``resid``/``ssr`` are in w's units, ``log_resid`` on the fitted scale."""

    @property
    def a(self) -> float:
        """a = exp(ln_a): the wait at N = 1 (median)."""
        return math.exp(float(self.params["ln_a"]))

    @property
    def b(self) -> float:
        """b: the growth exponent."""
        return float(self.params["b"])

    @property
    def log_resid(self) -> np.ndarray:
        """ln w − ln ŵ: the residuals the fit minimised."""
        return np.log(self.y) - np.log(self.fittedvalues)

    @property
    def log_rmse(self) -> float:
        """sqrt(Σ log_resid² / df_resid): the typical multiplicative error (NaN if exact)."""
        return math.sqrt(float(np.sum(self.log_resid**2)) / self.df_resid) if self.df_resid > 0 else math.nan

    def growth(self, n_from, n_to, b: float | None = None):
        """w(n_to)/w(n_from) = (n_to/n_from)^b; what-if b overrides the fit."""
        return power_growth(n_from, n_to, self.b if b is None else b)

    def compare_with_coherency(self, n, b: float | None = None) -> pd.DataFrame:
        """Growth from N to N + 1: this power law against N(N − 1), for each N > 1."""
        n = np.asarray(n, dtype=float)
        return pd.DataFrame({
            "n_from": n,
            "n_to": n + 1,
            "power_law_growth": self.growth(n, n + 1, b),
            "coherency_growth": coherency_growth(n, n + 1),
            "coherency_exponent": coherency_exponent(n),
        })

    def derived(self) -> dict:
        return {"a": self.a}


def fit(n, w, *, data_name: str | None = None, data_hash: str | None = None) -> PowerLawResult:
    """Fit w(N) = a·N^b by least squares on ln w = ln a + b ln N.

    Raises
    ------
    ModelError
        Fewer than two distinct N, or any N or w ≤ 0 (a log-space fit cannot use a zero
        wait: drop it, and say so, rather than replace it with a small number).
    """
    n, w = check_pairs(n, w, "tasks N", "wait time w", k=2, label="the power law")
    design = np.column_stack([np.ones_like(n), np.log(n)])
    theta, *_ = np.linalg.lstsq(design, np.log(w), rcond=None)
    resid = np.log(w) - design @ theta
    df_resid = n.size - 2
    cov = covariance(design, resid, df_resid, ["ln_a", "b"])
    notes = ["ordinary least squares in log space: multiplicative errors; the curve is the median"]
    if df_resid == 0:
        notes.append("exactly identified: two points for two parameters, so no standard errors or intervals")
    if theta[1] < 0:
        notes.append("b < 0: the wait falls as tasks are added, not a contention pattern")
    return PowerLawResult(
        model="latch_power_law", formula=FORMULA,
        params=pd.Series(theta, index=["ln_a", "b"], dtype=float), cov=cov, x=n, y=w,
        fn=power_law, units={"ln_a": "ln(wait time unit)", "b": "1"},
        notes=tuple(notes), data_name=data_name, data_hash=data_hash,
    )
