"""Exact mean-value analysis (MVA) of a closed request/reply system with several resources.

N clients each send a request, wait for its reply, think for Z seconds and send the next.
A request visits queueing resources (a queue manager's CPU, its log disk, a network link) with
service demand D_k seconds each (visits × service time). Reiser and Lavenberg's exact
recursion (Lazowska et al., *Quantitative System Performance*, 1984, ch. 6), for n = 1 … N:

    R_k(n) = D_k (1 + Q_k(n − 1))      (delay resources: R_k(n) = D_k)
    X(n)   = n / (Z + Σ_k R_k(n))
    Q_k(n) = X(n) R_k(n)

gives throughput, response time and each resource's utilisation X·D_k for every client count.
The bottleneck is the resource with the largest demand: X(N) never exceeds 1 / D_max, nor
N / (D + Z) with D = Σ D_k (the asymptotic bounds, ch. 5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import _base


@dataclass(frozen=True)
class Result:
    """Per client count: throughput, response time, and per resource residence time and utilisation."""

    table: pd.DataFrame        # clients, throughput, response_s, and <name>_residence_s, <name>_utilisation
    demands: dict              # name -> seconds per request
    think_s: float
    bottleneck: str            # the queueing resource with the largest demand

    def at(self, clients: int) -> pd.Series:
        return self.table.set_index("clients").loc[clients]

    @property
    def max_throughput(self) -> float:
        """1 / D_max: no number of clients gets past it."""
        return 1 / self.demands[self.bottleneck]

    @property
    def total_demand(self) -> float:
        """D = Σ D_k over every resource, delays included: the response time of one client alone."""
        return float(sum(self.demands.values()))

    @property
    def knee(self) -> float:
        """N* = (D + Z) / D_max, where the two asymptotic bounds cross (Lazowska et al. §5.3)."""
        return (self.total_demand + self.think_s) / self.demands[self.bottleneck]

    def bounds(self, clients) -> pd.DataFrame:
        """The asymptotic bounds at ``clients`` (Lazowska et al. §5.3, eqs. 5.1–5.2):

            X(N) ≤ min(N / (D + Z), 1 / D_max)      R(N) ≥ max(D, N·D_max − Z)
        """
        n = np.asarray(clients, dtype=float)
        d, d_max = self.total_demand, self.demands[self.bottleneck]
        return pd.DataFrame({"clients": n, "throughput_bound": np.minimum(n / (d + self.think_s), 1 / d_max),
                             "response_bound_s": np.maximum(d, n * d_max - self.think_s)})


def solve(demands: dict, clients: int, *, think_s: float = 0.0, delay: tuple = ()) -> Result:
    """Exact MVA for 1 … ``clients`` clients.

    Parameters
    ----------
    demands
        Service demand per request of each resource, in seconds (``{"CPU": 0.0004, "log": 0.0012}``).
    clients
        The largest number of clients to solve for.
    think_s
        Time between a reply and the next request.
    delay
        Names of resources that delay without queueing (a network's propagation time).

    Raises
    ------
    ModelError
        No queueing resource, a demand that is not a finite number ≥ 0, or fewer than one client.
    """
    if not isinstance(clients, (int, np.integer)) or clients < 1:
        raise ModelError(f"the number of clients must be a whole number ≥ 1, not {clients!r}")
    if not np.isfinite(think_s) or think_s < 0:
        raise ModelError(f"the think time must be a number ≥ 0, not {think_s!r}")
    for name, d in demands.items():
        if not isinstance(d, (int, float)) or not np.isfinite(d) or d < 0:
            raise ModelError(f"the demand of {name!r} must be a number ≥ 0 seconds, not {d!r}")
    queueing = [k for k in demands if k not in delay]
    if not queueing or max(demands[k] for k in queueing) <= 0:
        raise ModelError("MVA needs at least one queueing resource with a demand greater than 0")
    names = list(demands)
    d = [float(demands[k]) for k in names]
    is_delay = [k in delay for k in names]
    # Python floats, one resource at a time: the element operations and the left-to-right sum
    # NumPy does for fewer than 8 values (so the same bits), without a NumPy call per operation
    # per client count; a truth table to 20,000 clients took 0.22 s, not 0.03.
    q = [0.0] * len(names)
    x_col, r_col = np.empty(clients), np.empty((clients, len(names)))
    resp_col = np.empty(clients)
    for n in range(1, clients + 1):
        r = [dk if dl else dk * (1.0 + qk) for dk, dl, qk in zip(d, is_delay, q)]
        total = _sum(r)
        x = n / (think_s + total)
        q = [x * rk for rk in r]
        x_col[n - 1], resp_col[n - 1], r_col[n - 1] = x, total, r
    columns = {"clients": np.arange(1, clients + 1), "throughput": x_col, "response_s": resp_col}
    for i, k in enumerate(names):
        columns[f"{k}_residence_s"] = r_col[:, i]
        columns[f"{k}_utilisation"] = x_col * demands[k]
    bottleneck = max(queueing, key=lambda k: demands[k])
    return Result(pd.DataFrame(columns), dict(demands), float(think_s), bottleneck)


def _sum(values: list) -> float:
    """Σ values as ``np.sum`` adds them: left to right below 8 values, NumPy's own pairwise sum above."""
    if len(values) < 8:
        total = 0.0
        for v in values:
            total += v
        return total
    return float(np.sum(values))


# -- the MVA the measurements calibrate: one queue and a delay ------------------------------------

FIT_FORMULA = "X(N) = (1 - p0(N)) / D_q, p0(N) = 1 / sum_k N!/(N-k)! (D_q / (Z + D_d))^k"
FIT_NAMES = ("d_queue", "d_delay")


def one_queue(n, d_queue: float, d_delay: float, think_s: float) -> np.ndarray:
    """Exact MVA of a closed loop with one queueing resource (demand ``d_queue`` seconds per
    request) and a delay (``d_delay``: every time a request spends without queueing), at ``n``.

    One queue and a think time Z' = Z + D_d is the machine-repairman model (Kleinrock,
    *Queueing Systems* vol. 1, §3.10): X(N) = (1 − p0)/D_q with
    p0 = 1 / Σ_{k=0}^{N} N!/(N−k)! ρ^k and ρ = D_q / Z'. Up to :data:`RECURSION_MAX` clients it
    is computed by the MVA recursion (one pass serves every N asked), beyond by the closed form
    summed in log space; with Z' = 0 every client queues and X = 1/D_q, with D_q = 0 nothing
    queues and X = N/Z'.
    """
    n = np.atleast_1d(np.asarray(n, dtype=float))
    if np.ndim(d_queue) or np.ndim(d_delay):
        return _one_queue_rows(n, d_queue, d_delay, think_s)
    return _one_queue_at(_Counts(n), d_queue, float(think_s) + float(d_delay))


class _Counts:
    """Client counts as :func:`one_queue` reads them, worked out once: a fit evaluates the curve at
    the same counts thousands of times, and this preparation was half of each evaluation."""

    def __init__(self, n: np.ndarray):
        self.n = n
        self.whole = np.round(n).astype(int)
        self.small = self.whole <= RECURSION_MAX
        self.any_small = bool(self.small.any())
        self.top = int(self.whole[self.small].max()) if self.any_small else 0
        self.at = self.whole[self.small] - 1
        self.large = np.nonzero(~self.small)[0]


def _one_queue_at(counts: _Counts, d_queue, zp: float) -> np.ndarray:
    """:func:`one_queue` at prepared counts, for one pair of demands (``zp`` = Z + D_d)."""
    n = counts.n
    if d_queue <= 0:
        return n / zp if zp > 0 else np.full_like(n, np.inf)
    if zp <= 0:
        return np.full_like(n, 1.0 / d_queue)
    out = np.empty_like(n)
    if counts.any_small:
        top = counts.top
        # Python floats, not NumPy scalars: the same IEEE operations (so the same bits), at a
        # third of the cost; a fit evaluates this recursion thousands of times.
        dq, zp = float(d_queue), float(zp)
        x = [0.0] * top
        q = 0.0
        for k in range(1, top + 1):  # R(k) = D_q (1 + Q(k−1)), X(k) = k / (Z' + R(k)), Q(k) = X(k) R(k)
            r = dq * (1.0 + q)
            xk = k / (zp + r)
            x[k - 1] = xk
            q = xk * r
        out[counts.small] = np.array(x)[counts.at]
    for i in counts.large:
        big = float(counts.whole[i])
        from scipy.special import gammaln

        k = np.arange(counts.whole[i] + 1, dtype=float)
        terms = gammaln(big + 1) - gammaln(big - k + 1) + k * math.log(d_queue / zp)
        peak = float(terms.max())
        log_sum = peak + math.log(float(np.exp(terms - peak).sum()))
        out[i] = -math.expm1(-log_sum) / d_queue
    return out


def _one_queue_rows(n: np.ndarray, d_queue, d_delay, think_s: float) -> np.ndarray:
    """:func:`one_queue` for columns of demands (shape (rows, 1)): shape (rows, len(n)). The
    recursion runs for every row at once (the same operations, so the same values); rows or
    counts outside it (a demand ≤ 0, counts beyond :data:`RECURSION_MAX`) go one row at a time."""
    dq, dd = np.broadcast_arrays(np.asarray(d_queue, dtype=float), np.asarray(d_delay, dtype=float))
    dq, dd = dq.reshape(-1), dd.reshape(-1)
    zp = float(think_s) + dd
    whole = np.round(n).astype(int)
    if np.any(dq <= 0) or np.any(zp <= 0) or whole.max() > RECURSION_MAX:
        return np.vstack([one_queue(n, float(a), float(b), think_s) for a, b in zip(dq, dd)])
    top = int(whole.max())
    # One contiguous row per client count, each step in place: the same element operations as
    # the loop above, without a temporary array per operation.
    x = np.empty((top, dq.size))
    q = np.zeros(dq.size)
    r = np.empty(dq.size)
    for k in range(1, top + 1):
        np.add(q, 1.0, out=r)
        np.multiply(dq, r, out=r)
        xk = x[k - 1]
        np.add(zp, r, out=xk)
        np.divide(k, xk, out=xk)
        np.multiply(xk, r, out=q)
    return x[whole - 1].T


#: Client counts up to which :func:`one_queue` uses the recursion (beyond: the closed form).
RECURSION_MAX = 5000


@dataclass(frozen=True)
class CalibratedResult(_base.FitResult):
    """The one-queue MVA fitted to measured rates: the bottleneck's demand and the delay."""

    think_s: float = 0.0

    @property
    def d_queue(self) -> float:
        return float(self.params["d_queue"])

    @property
    def d_delay(self) -> float:
        return float(self.params["d_delay"])

    @property
    def ceiling(self) -> float:
        """1 / D_q: no number of clients gets past it."""
        return 1.0 / self.d_queue if self.d_queue > 0 else math.inf

    def response_s(self, n) -> np.ndarray:
        """R(N) = N / X(N) − Z (Little's law for the loop)."""
        n = np.asarray(n, dtype=float)
        return n / self.predict(n) - self.think_s

    def derived(self) -> dict:
        return {"ceiling_per_s": _base.round_sig(self.ceiling), "think_s": self.think_s}


def fit(n, x, *, think_s: float = 0.0, data_name: str | None = None, data_hash: str | None = None) -> CalibratedResult:
    """Fit :func:`one_queue` to measured rates ``x`` at ``n`` clients (unweighted least squares).

    The two demands are what the measurements identify without naming resources: D_q, the
    bottleneck's demand, from where the rate levels off; D_d, the time a request spends without
    queueing (the network, a forced write's latency, the other resources while they are lightly
    loaded), from the rate with few clients. Rates that never level off leave D_q unidentified
    (its interval is wide); that is for the caller's evidence rule to read.

    Raises
    ------
    ModelError
        Fewer than two distinct client counts, non-positive values, or no convergence.
    """
    from mqperf.models._nls import nls

    n = _base.as_positive_array(n, "clients N")
    x = _base.as_positive_array(x, "throughput X")
    if n.size != x.size:
        raise ModelError(f"clients has {n.size} values but throughput has {x.size}")
    if np.unique(n).size < 2:
        raise ModelError("the MVA has two demands: it needs at least two distinct client counts")
    if not math.isfinite(think_s) or think_s < 0:
        raise ModelError(f"the think time must be a number ≥ 0, not {think_s!r}")

    counts = _Counts(n)

    def model(nn, d_queue, d_delay):
        if nn is n and not (np.ndim(d_queue) or np.ndim(d_delay)):  # the solver, at the measured counts
            return _one_queue_at(counts, d_queue, float(think_s) + float(d_delay))
        return one_queue(nn, d_queue, d_delay, think_s)

    dq = 1.0 / float(x.max())
    lo = int(np.argmin(n))
    dd = max(float(n[lo] / x[lo]) - think_s - dq, 0.0)
    tiny = dq * 1e-9
    starts = [(dq, dd), (dq * 0.5, dd), (dq * 0.9, dd * 0.5 + dq), (dq * 0.2, dd + dq)]
    box = ([tiny, 0.0], [np.inf, np.inf])
    sol = nls(model, n, x, names=FIT_NAMES, starts=starts, lower=box[0], upper=box[1], label="the MVA")
    notes = []
    if "d_delay" in sol.at_bound:
        notes.append("d_delay is on its bound 0: every time a request spends queues at the bottleneck or is think time")
    return CalibratedResult(model="mva", formula=FIT_FORMULA, params=pd.Series(sol.theta, index=list(FIT_NAMES), dtype=float),
                     cov=sol.cov, x=n, y=x, fn=model, units={"d_queue": "s per request", "d_delay": "s per request"},
                     at_bound=sol.at_bound, active_bounds=sol.active_bounds, bounds=box, notes=tuple(notes),
                     data_name=data_name, data_hash=data_hash, think_s=float(think_s))
