"""Universal Scalability Law (Gunther) and Amdahl's law.

    X(N) = λ N / (1 + σ (N − 1) + κ N (N − 1))

N is the concurrency (here: Kafka connector tasks), X the throughput, λ the throughput of
one unit with no contention (not normalised by a measured X(1)), σ the contention
(serialisation) share and κ the coherency (crosstalk) cost. Amdahl's law is κ = 0.

The fit is three-parameter nonlinear least squares with σ ∈ [0, 1], κ ∈ [0, 1], λ ≥ 0,
the estimator of the R ``usl`` package (≥ 2.0) and of the usl4j/Go/Rust ports, so it
reproduces their published coefficients (tests/models/test_usl.py). A fit that would need
σ > 1 or κ < 0 ends on a bound: that is a sign of a bottleneck (a fixed capacity, a
contended resource outside the model), not of USL behaviour, and ``at_bound`` says so.
A fit that would need σ < 0 (super-linear scaling) or κ < 0 ends on 0. A parameter the data
press against its bound is fixed there (``active_bounds``): it takes no degree of freedom
and gets no interval, and the others' intervals are conditional on it (see
:mod:`mqperf.models._base`). So three points with σ held at 0 leave one residual degree of
freedom, not an exactly identified fit.

References: N. J. Gunther, *Guerrilla Capacity Planning* (2007), ch. 4–6; the R package
``usl`` (smoeding/usl): ``peak.scalability`` = sqrt((1 − α)/β).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._base import NOISE_SSR, FitResult, as_positive_array
from mqperf.models._nls import solve

FORMULA = "X(N) = lam*N / (1 + sigma*(N-1) + kappa*N*(N-1))"
AMDAHL_FORMULA = "X(N) = lam*N / (1 + sigma*(N-1))"
NAMES = ("lam", "sigma", "kappa")


def box(k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """The bounds every USL fit (weighted or not) solves within, for its first ``k`` parameters:
    lam ≥ 0, sigma and kappa in [0, 1]."""
    return np.zeros(k), np.array([np.inf, 1.0, 1.0][:k])


def throughput(n, lam: float, sigma: float, kappa: float):
    """USL throughput X(N) for given parameters."""
    n = np.asarray(n, dtype=float)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def gradient(n, lam: float, sigma: float, kappa: float) -> np.ndarray:
    """∂X/∂(λ, σ, κ) at each N, one row per N: with D = 1 + σ(N−1) + κN(N−1),
    ∂X/∂λ = N/D, ∂X/∂σ = −λN(N−1)/D², ∂X/∂κ = −λN²(N−1)/D²."""
    n = np.asarray(n, dtype=float)
    d = 1 + sigma * (n - 1) + kappa * n * (n - 1)
    common = -lam * n * (n - 1) / d**2
    return np.column_stack([n / d, common, common * n])


def amdahl(n, lam: float, sigma: float):
    """Amdahl's law: USL with κ = 0."""
    return throughput(n, lam, sigma, 0.0)


def peak_concurrency(sigma: float, kappa: float) -> float:
    """N* = sqrt((1 − σ) / κ), where X(N) is largest (Gunther GCaP eq. 4.33); inf when κ = 0."""
    if kappa <= 0:
        return math.inf
    return math.sqrt(max(1 - sigma, 0.0) / kappa)


def amdahl_limit(lam: float, sigma: float) -> float:
    """X(∞) = λ / σ under Amdahl's law (κ = 0); inf when σ = 0."""
    return math.inf if sigma <= 0 else lam / sigma


@dataclass(frozen=True)
class Equal:
    """A published statement "no gain from N=a to N=b", used as the equation X(b) = r·X(a).

    It enters the fit as one more residual, X(b) − r·X(a), weighted like a measured point:
    the statement is as precise as the measurements it summarises, no more. ``ratio``
    r = 1 reads "no gain" literally; r = 1.03 or 0.97 read it loosely (see
    :func:`mqperf.chapters.kafka_task_scaling.fits.sensitivity_table`).
    """

    a: float
    b: float
    label: str = ""
    ratio: float = 1.0


@dataclass(frozen=True)
class USLResult(FitResult):
    """A fitted USL (or Amdahl) model; derived quantities accept what-if overrides."""

    @property
    def lam(self) -> float:
        """λ: throughput of one unit without contention, X(1) = λ."""
        return float(self.params["lam"])

    @property
    def sigma(self) -> float:
        """σ: contention (the serial share)."""
        return float(self.params["sigma"])

    @property
    def kappa(self) -> float:
        """κ: coherency cost (0 for an Amdahl fit)."""
        return float(self.params["kappa"]) if "kappa" in self.params else 0.0

    def peak_n(self, sigma: float | None = None, kappa: float | None = None) -> float:
        """Concurrency of peak throughput, sqrt((1 − σ)/κ); what-if σ, κ override the fit."""
        return peak_concurrency(self.sigma if sigma is None else sigma, self.kappa if kappa is None else kappa)

    def peak_x(self, **overrides) -> float:
        """Throughput at the peak concurrency (the Amdahl limit λ/σ when κ = 0)."""
        lam, sigma, kappa = self._with(**overrides)
        n = peak_concurrency(sigma, kappa)
        return amdahl_limit(lam, sigma) if math.isinf(n) else float(throughput(n, lam, sigma, kappa))

    def efficiency(self, n=None) -> np.ndarray:
        """X(N) / (λ N): measured efficiency at the data's N, or the model's at given n."""
        if n is None:
            return self.y / (self.lam * self.x)
        n = np.asarray(n, dtype=float)
        return self.predict(n) / (self.lam * n)

    def n_for_rate(self, target: float, *, n_max: int = 1024) -> int | None:
        """Smallest whole N ≤ ``n_max`` whose modelled throughput reaches ``target``; None if none does
        (:func:`mqperf.models.planning.first_reaching`)."""
        from mqperf.models import planning

        return planning.first_reaching(self.predict, target, limit=n_max)

    def marginal_gain(self, n) -> np.ndarray:
        """X(N) − X(N − 1): what the N-th unit adds (negative past the peak)."""
        n = np.asarray(n, dtype=float)
        return self.predict(n) - self.predict(n - 1)

    def coherency_crossover(self, sigma: float | None = None, kappa: float | None = None) -> float:
        """N from which coherency costs more than contention, σ/κ (:func:`coherency_crossover`);
        what-if σ, κ override the fit."""
        return coherency_crossover(self.sigma if sigma is None else sigma, self.kappa if kappa is None else kappa)

    def derived(self) -> dict:
        return {"peak_n": self.peak_n(), "peak_x": self.peak_x()}

    def _with(self, lam=None, sigma=None, kappa=None):
        return (
            self.lam if lam is None else lam,
            self.sigma if sigma is None else sigma,
            self.kappa if kappa is None else kappa,
        )


def fit(
    n,
    x,
    *,
    constraints: tuple[Equal, ...] | list[Equal] = (),
    amdahl_only: bool = False,
    data_name: str | None = None,
    data_hash: str | None = None,
) -> USLResult:
    """Fit the USL (or Amdahl's law with ``amdahl_only=True``) by bounded least squares.

    Parameters
    ----------
    n, x
        Concurrency (≥ 1, need not be whole) and measured throughput (> 0).
    constraints
        :class:`Equal` statements used as extra equations (see its docstring).

    Returns
    -------
    USLResult
        With ``exactly_identified`` True (and no intervals) when points plus constraints
        equal the number of parameters and the curve passes through the points; a parameter
        pressed against its bound is in ``active_bounds`` and adds a degree of freedom.

    Raises
    ------
    ModelError
        Fewer points (plus constraints) than parameters, fewer distinct N than needed,
        non-positive values, or no convergence.
    """
    n = as_positive_array(n, "concurrency N")
    x = as_positive_array(x, "throughput X")
    if n.size != x.size:
        raise ModelError(f"concurrency has {n.size} values but throughput has {x.size}")
    if np.any(n < 1):
        raise ModelError(f"concurrency N must be at least 1 (found {n.min():g})")
    names = NAMES[:2] if amdahl_only else NAMES
    constraints = tuple(constraints)
    k = len(names)
    distinct = np.unique(n).size
    label = "Amdahl's law" if amdahl_only else "the USL"
    if n.size + len(constraints) < k or distinct + len(constraints) < k:
        raise ModelError(
            f"{label} has {k} parameters: it needs at least {k} distinct concurrency levels "
            f"(points plus constraints); got {distinct} distinct N and {len(constraints)} constraint(s)"
        )

    def model(nn, *theta):
        return throughput(nn, *theta) if not amdahl_only else amdahl(nn, *theta)

    def residuals(theta):
        r = model(n, *theta) - x
        extra = [model(c.b, *theta) - c.ratio * model(c.a, *theta) for c in constraints]
        return np.concatenate([r, np.asarray(extra, dtype=float)])

    def residual_rows(thetas):
        cols = [thetas[:, j:j + 1] for j in range(k)]
        extra = [model(c.b, *cols) - c.ratio * model(c.a, *cols) for c in constraints]
        return np.hstack([model(n, *cols) - x, *[np.reshape(e, (-1, 1)) for e in extra]])

    def grad(nn, theta):
        full = gradient(nn, *theta) if not amdahl_only else gradient(nn, *theta, 0.0)
        return full[:, :k]

    def jac(theta):
        rows = [grad(n, theta)] + [grad([c.b], theta) - c.ratio * grad([c.a], theta) for c in constraints]
        return np.vstack(rows)

    lower, upper = box(k)
    lam0 = float(np.max(x / n))
    starts = [(lam0, 0.01, 1e-4), (lam0, 0.1, 0.01), (float(x[np.argmin(n)] / n.min()), 0.3, 0.05), (lam0, 0.9, 1e-6)]
    # kappa lives near 1e-4: a Jacobian step relative to 1e-6 at the least, not 1e-9.
    sol = solve(residuals, names=names, starts=[s[:k] for s in starts], lower=lower, upper=upper,
                equations=n.size + len(constraints), scale=float(x @ x), label=label,
                tol=1e-15, max_nfev=20000, jac_floor=1e-6, jac=jac, rows=residual_rows)
    theta, at_bound, active, df_resid, cov = sol.theta, sol.at_bound, sol.active_bounds, sol.df_resid, sol.cov
    tol = 1e-7
    dof = f"{df_resid} residual degree{'s' if df_resid != 1 else ''} of freedom"
    fixed = f"; it is fixed there and the other parameters are estimated with {dof}"
    notes = []
    point_ssr = float(np.sum((model(n, *theta) - x) ** 2))
    if df_resid == 0 and point_ssr <= NOISE_SSR * float(x @ x):
        notes.append("exactly identified: as many equations as parameters, so no standard errors or intervals")
    elif df_resid == 0:
        notes.append("no residual degrees of freedom, yet the curve misses the points: no standard errors or intervals")
    if "sigma" in at_bound and theta[1] >= 1 - tol:
        notes.append("sigma reached its bound 1: the data want sigma > 1, a sign of a bottleneck, not of USL behaviour"
                     + (fixed if "sigma" in active else ""))
    if "kappa" in at_bound:
        notes.append("kappa is on its bound 0: no coherency cost detectable (Amdahl behaviour); "
                     + ("the data want kappa < 0" + fixed if "kappa" in active else "an unbounded fit may want kappa < 0"))
    if "sigma" in at_bound and theta[1] <= tol:
        notes.append("sigma is on its bound 0: " + ("the data want sigma < 0 (super-linear scaling)" + fixed
                                                     if "sigma" in active else "no contention detectable"))
    for c in constraints:
        rel = "" if c.ratio == 1 else f"{c.ratio:g} * "
        notes.append(f"constraint X({c.b:g}) = {rel}X({c.a:g}) used as an equation" + (f": {c.label}" if c.label else ""))
    units = {"lam": "throughput units per unit of N", "sigma": "1", "kappa": "1"}
    return USLResult(
        model="amdahl" if amdahl_only else "usl",
        formula=AMDAHL_FORMULA if amdahl_only else FORMULA,
        params=pd.Series(theta, index=list(names), dtype=float),
        cov=cov,
        x=n,
        y=x,
        fn=model,
        units=units,
        at_bound=at_bound,
        active_bounds=active,
        bounds=(lower, upper),
        notes=tuple(notes),
        n_constraints=len(constraints),
        data_name=data_name,
        data_hash=data_hash,
    )


def overhead(n, sigma: float, kappa: float):
    """The parts of 1/C(N), the processing time relative to one unit, as R ``usl::overhead`` gives them.

    With C(N) = X(N)/λ = N / (1 + σ(N−1) + κN(N−1)):

        1/C(N) = 1/N  +  σ(N−1)/N  +  κ(N−1)
                 ideal   contention   coherency

    so the three columns add up to λ/X(N). (R's usl package writes the coherency part as
    κ(N−1)/2: its κ is twice the κ of the form used here.)
    """
    import pandas as pd

    n = np.asarray(n, dtype=float)
    if np.any(n < 1):
        raise ValueError("concurrency N must be ≥ 1")
    return pd.DataFrame({"n": n, "ideal": 1 / n, "contention": sigma * (n - 1) / n, "coherency": kappa * (n - 1)})


def coherency_crossover(sigma: float, kappa: float) -> float:
    """N from which the coherency part of :func:`overhead` exceeds the contention part: σ/κ.

    κ(N − 1) > σ(N − 1)/N for N > 1 exactly when N > σ/κ; inf when κ = 0 (coherency never
    overtakes). A value at or below 1 means coherency is the larger part from the first unit added.
    """
    if kappa <= 0:
        return math.inf
    return sigma / kappa
