"""Bottleneck (min-of-capacities) model: linear scaling up to a fixed ceiling.

    X(N) = min(λ N, X_max)

Each unit of concurrency adds λ until a shared resource with capacity X_max (a log, a
CPU pool, a network link) saturates; past the knee N* = X_max / λ adding units adds
nothing. It is the asymptotic bound of operational analysis (Denning & Buzen 1978;
Lazowska et al., *Quantitative System Performance*, 1984, ch. 5: X(N) ≤ min(N/D, 1/D_max)).

Why it is here: when the USL needs implausible parameters to follow a curve that rises
and then goes flat (σ on its bound 1, or a κ that only bends the last point), the data
may simply show a bottleneck. :func:`compare_with_usl` puts both fits side by side with
their AIC when the degrees of freedom allow.

The fit is exact least squares, not a local search: for a knee between two measured
concurrencies the model is linear in (λ, X_max) on each side, so every split of the
points and every knee placed on a measured N is solved in closed form and the smallest
sum of squares wins (a grid on the knee that cannot miss the optimum).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import usl
from mqperf.models._base import FitResult, covariance
from mqperf.models._nls import check_pairs

FORMULA = "X(N) = min(lam*N, x_max)"
NAMES = ("lam", "x_max")


def throughput(n, lam: float, x_max: float):
    """X(N) = min(λN, X_max)."""
    return np.minimum(lam * np.asarray(n, dtype=float), x_max)


def knee(lam: float, x_max: float) -> float:
    """N* = X_max / λ: the concurrency at which the bottleneck saturates."""
    return x_max / lam


@dataclass(frozen=True)
class BottleneckResult(FitResult):
    """A fitted bottleneck model; derived quantities accept what-if overrides."""

    @property
    def lam(self) -> float:
        """λ: throughput added by each unit below the knee (X(1) = λ when N* ≥ 1)."""
        return float(self.params["lam"])

    @property
    def x_max(self) -> float:
        """X_max: capacity of the bottleneck."""
        return float(self.params["x_max"])

    def knee(self, lam: float | None = None, x_max: float | None = None) -> float:
        """N* = X_max / λ; what-if λ or X_max override the fit."""
        return knee(self.lam if lam is None else lam, self.x_max if x_max is None else x_max)

    def n_for_rate(self, target: float, *, lam: float | None = None, x_max: float | None = None) -> int | None:
        """Smallest whole N with λN ≥ target; None when the target exceeds X_max."""
        lam = self.lam if lam is None else lam
        x_max = self.x_max if x_max is None else x_max
        if target > x_max:
            return None
        return max(1, math.ceil(target / lam - 1e-12))

    def derived(self) -> dict:
        return {"knee_n": self.knee()}


def fit(n, x, *, constraints=(), data_name: str | None = None, data_hash: str | None = None) -> BottleneckResult:
    """Fit X(N) = min(λN, X_max) by exact least squares over the knee position.

    Parameters
    ----------
    n, x
        Concurrency (> 0) and measured throughput (> 0).
    constraints
        :class:`mqperf.models.usl.Equal` statements ("no gain from a to b"). For this model
        such a statement is the inequality N* ≤ min(a, b), not an extra equation, so it
        limits the knee but adds no degree of freedom.

    Returns
    -------
    BottleneckResult
        ``exactly_identified`` with two points; a parameter the data cannot pin down (no
        plateau, or no rising part, in the data) is in ``at_bound`` with a NaN interval.

    Raises
    ------
    ModelError
        Fewer than two distinct concurrencies, or non-positive values.
    """
    n, x = check_pairs(n, x, "concurrency N", "throughput X", k=2, label="the bottleneck model")
    kmax = min((min(c.a, c.b) for c in constraints), default=math.inf)
    levels = np.unique(n)
    candidates = []  # (ssr, lam, x_max, kind)

    def add(lam, x_max, kind):
        if lam > 0 and x_max > 0:
            candidates.append((float(np.sum((throughput(n, lam, x_max) - x) ** 2)), lam, x_max, kind))

    # Knee strictly between two measured levels: separate linear fits on each side.
    for lo, hi in zip(levels[:-1], levels[1:]):
        left, right = n <= lo, n >= hi
        lam = float(np.sum(n[left] * x[left]) / np.sum(n[left] ** 2))
        x_max = float(np.mean(x[right]))
        if lo <= x_max / lam <= min(hi, kmax):
            add(lam, x_max, "interior")
    # Knee on a measured level (or on the constraint): one parameter, X = λ·min(N, t).
    for t in [*levels[levels <= kmax], *([kmax] if math.isfinite(kmax) else [])]:
        m = np.minimum(n, t)
        lam = float(np.sum(m * x) / np.sum(m**2))
        add(lam, lam * t, "kink")
    if not candidates:
        raise ModelError("the bottleneck model: no admissible knee (check the constraints)")
    ssr, lam, x_max, kind = min(candidates, key=lambda c: (c[0], c[3] != "interior"))
    n_star = x_max / lam

    notes, at_bound, unidentified = [], [], []
    eps = 1e-9 * max(1.0, n_star)
    if n_star >= levels[-1] - eps:
        at_bound.append("x_max")
        unidentified.append("x_max")
        notes.append(
            "no plateau in the data: X_max is only known to be at least the fitted value "
            "(the knee is at or beyond the largest N measured)"
        )
    if n_star <= levels[0] + eps:
        at_bound.append("lam")
        unidentified.append("lam")
        notes.append(
            "no rising part in the data: every point is on the plateau, so lam is only known to be "
            "at least the fitted value"
        )
    if math.isfinite(kmax) and abs(n_star - kmax) <= eps:
        notes.append(f"the knee sits on the limit N* <= {kmax:g} set by a no-gain statement")
    if kind == "kink" and not unidentified:
        notes.append("the knee falls on a measured N, where the model has a kink: its intervals are rough")

    df_resid = n.size - 2
    cov = _covariance(n, x, lam, x_max, df_resid, unidentified)
    if df_resid == 0:
        notes.append("exactly identified: two points for two parameters, so no standard errors or intervals")
    for c in constraints:
        notes.append(f"statement X({c.a:g}) = X({c.b:g}) used as the inequality N* <= {min(c.a, c.b):g}"
                     + (f": {c.label}" if c.label else ""))
    return BottleneckResult(
        model="bottleneck",
        formula=FORMULA,
        params=pd.Series([lam, x_max], index=list(NAMES), dtype=float),
        cov=cov,
        x=n,
        y=x,
        fn=throughput,
        units={"lam": "throughput units per unit of N", "x_max": "throughput units"},
        at_bound=tuple(at_bound),
        notes=tuple(notes),
        data_name=data_name,
        data_hash=data_hash,
    )


def _covariance(n, x, lam, x_max, df_resid, unidentified) -> pd.DataFrame | None:
    """Wald covariance with each point on its side of the knee (a point on the knee: half each)."""
    n_star = x_max / lam
    on_knee = np.isclose(n, n_star, rtol=1e-9)
    left = np.where(on_knee, 0.5, (n < n_star).astype(float))
    jac = np.column_stack([left * n, 1.0 - left])
    resid = throughput(n, lam, x_max) - x
    keep = [i for i, p in enumerate(NAMES) if p not in unidentified]
    if not keep:
        return None
    sub = covariance(jac[:, keep], resid, df_resid, [NAMES[i] for i in keep])
    if sub is None:
        return None
    return sub.reindex(index=list(NAMES), columns=list(NAMES))


def compare_with_usl(n, x, *, constraints=()) -> pd.DataFrame:
    """USL and bottleneck fits side by side: parameters on bounds, SSR, AIC and AICc.

    ``AIC = n ln(SSR/n) + 2K`` with ``K`` = parameters + 1 (the noise variance) and
    ``AICc = AIC + 2K(K+1)/(n−K−1)`` (Burnham & Anderson 2002, eqs. 2.1, 2.14), over the
    measured points only (the USL's constraint equations are not observations). AIC is NaN
    unless SSR > 0 and the model has a residual degree of freedom; AICc also needs
    n > K + 1. ``preferred`` marks the lower AICc (AIC when AICc is unavailable) and is
    False everywhere when the two cannot be compared.

    Notes
    -----
    AIC assumes smooth models with independent Gaussian errors. The bottleneck model has
    a kink and a USL parameter on a bound is not a free parameter in the usual sense, so
    treat differences below about 2 as no evidence either way.
    """
    rows = []
    for name, fitter in (("usl", usl.fit), ("bottleneck", fit)):
        try:
            res = fitter(n, x, constraints=constraints)
        except ModelError as exc:
            rows.append({"model": name, "k": len(usl.NAMES) if name == "usl" else 2, "nobs": np.size(n),
                         "df_resid": np.nan, "ssr": np.nan, "aic": np.nan, "aicc": np.nan,
                         "at_bound": "", "note": str(exc)})
            continue
        k, nobs = res.df_model, res.nobs
        big_k = k + 1
        ok = res.ssr > 0 and nobs > k
        aic = nobs * math.log(res.ssr / nobs) + 2 * big_k if ok else math.nan
        aicc = aic + 2 * big_k * (big_k + 1) / (nobs - big_k - 1) if ok and nobs > big_k + 1 else math.nan
        rows.append({"model": name, "k": k, "nobs": nobs, "df_resid": res.df_resid, "ssr": res.ssr,
                     "aic": aic, "aicc": aicc, "at_bound": ",".join(res.at_bound), "note": "; ".join(res.notes)})
    table = pd.DataFrame(rows).set_index("model")
    crit = "aicc" if table["aicc"].notna().all() else "aic"
    if table[crit].notna().all():
        table["delta"] = table[crit] - table[crit].min()
        table["preferred"] = table[crit] == table[crit].min()
    else:
        table["delta"] = np.nan
        table["preferred"] = False
    table["criterion"] = crit if table[crit].notna().all() else "none: too few degrees of freedom"
    return table
