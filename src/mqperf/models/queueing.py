"""Open queueing formulas: Erlang B and C, M/M/1, M/M/c, Allen–Cunneen, Little's law.

Notation: arrival rate λ, service rate μ per server, c servers, offered load A = λ/μ
(erlangs), utilisation ρ = A/c. All formulas need ρ < 1 for a steady state; an unstable
queue gives a probability of waiting of 1 and infinite waits rather than an error, so a
what-if sweep can run past saturation.

Erlang C (probability that an arrival waits in M/M/c) is computed from Erlang B by the
recursion B(0) = 1, 1/B(k) = 1 + (k/A)/B(k−1), carried in log space, and
C = B / (1 − ρ(1 − B)). There are no factorials or powers, so it holds for thousands of
servers and for probabilities far below the smallest float (``log_erlang_c``).
References: L. Kleinrock, *Queueing Systems* vol. 1 (1975) §3.5; D. Gross et al.,
*Fundamentals of Queueing Theory* (4th ed., 2008) §2.3; the recursion: Jagerman (1974).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

from mqperf.errors import ModelError

if TYPE_CHECKING:  # numpy is imported where it is used: this module stays cheap to import
    import numpy as np


def _servers(c) -> int:
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not float(c).is_integer() or c < 1:
        raise ModelError(f"servers must be a whole number ≥ 1, not {c!r}")
    return int(c)


def _nonneg(value, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ModelError(f"{name} must be finite and ≥ 0, not {value:g}")
    return value


def _pos(value, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ModelError(f"{name} must be finite and greater than zero, not {value:g}")
    return value


def log_erlang_b(servers, offered_load) -> float:
    """ln B(c, A), the Erlang B blocking probability of M/M/c/c, by the stable recursion."""
    c, a = _servers(servers), _nonneg(offered_load, "offered load")
    if a == 0:
        return -math.inf
    y = 0.0  # y_k = ln(1/B(k)); y_k = ln(1 + exp(ln(k/A) + y_{k−1}))
    log_a = math.log(a)
    for k in range(1, c + 1):
        z = math.log(k) - log_a + y
        y = z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))
    return -y


def erlang_b(servers, offered_load) -> float:
    """B(c, A): probability that all c servers are busy in a loss system (no queue)."""
    return math.exp(log_erlang_b(servers, offered_load))


def log_erlang_c(servers, offered_load) -> float:
    """ln C(c, A); 0 (C = 1) when A ≥ c. Usable where C itself underflows to 0."""
    c, a = _servers(servers), _nonneg(offered_load, "offered load")
    if a >= c:
        return 0.0
    log_b = log_erlang_b(c, a)
    rho = a / c
    return log_b - math.log1p(-rho * (1 - math.exp(log_b)))


def erlang_c(servers, offered_load) -> float:
    """C(c, A): probability that an arrival waits in M/M/c (Erlang's delay formula).

    Parameters
    ----------
    servers
        Number of servers c (whole, ≥ 1).
    offered_load
        A = λ/μ in erlangs (≥ 0). For A ≥ c the queue is unstable and C = 1.

    Examples
    --------
    >>> round(erlang_c(2, 1.8), 6)  # 81/95
    0.852632
    """
    return math.exp(log_erlang_c(servers, offered_load))


def utilisation(arrival_rate, service_rate, servers=1) -> float:
    """ρ = λ / (c μ)."""
    return _nonneg(arrival_rate, "arrival rate") / (_servers(servers) * _pos(service_rate, "service rate"))


def mmc_wait(arrival_rate, service_rate, servers=1) -> float:
    """Mean time in queue W_q = C(c, A) / (cμ − λ) for M/M/c (M/M/1: ρ/(μ − λ)); inf if unstable."""
    lam, mu, c = _nonneg(arrival_rate, "arrival rate"), _pos(service_rate, "service rate"), _servers(servers)
    if lam >= c * mu:
        return math.inf
    return erlang_c(c, lam / mu) / (c * mu - lam)


def mmc_response(arrival_rate, service_rate, servers=1) -> float:
    """Mean response time R = W_q + 1/μ (M/M/1: 1/(μ − λ))."""
    return mmc_wait(arrival_rate, service_rate, servers) + 1 / _pos(service_rate, "service rate")


def mmc_queue_length(arrival_rate, service_rate, servers=1) -> float:
    """Mean number waiting L_q = C·ρ/(1 − ρ) (= λ W_q by Little's law)."""
    return _nonneg(arrival_rate, "arrival rate") * mmc_wait(arrival_rate, service_rate, servers)


def mm1_wait(arrival_rate, service_rate) -> float:
    """M/M/1 mean time in queue ρ/(μ − λ)."""
    return mmc_wait(arrival_rate, service_rate, 1)


def mm1_response(arrival_rate, service_rate) -> float:
    """M/M/1 mean response time 1/(μ − λ)."""
    return mmc_response(arrival_rate, service_rate, 1)


def prob_wait_exceeds(t, arrival_rate, service_rate, servers=1) -> float:
    """P(W_q > t) = C(c, A)·exp(−(cμ − λ)t) for M/M/c, FIFO; 1 if unstable."""
    lam, mu, c = _nonneg(arrival_rate, "arrival rate"), _pos(service_rate, "service rate"), _servers(servers)
    t = _nonneg(t, "t")
    if lam >= c * mu:
        return 1.0
    return erlang_c(c, lam / mu) * math.exp(-(c * mu - lam) * t)


def gg_wait(arrival_rate, service_rate, servers=1, *, ca=1.0, cs=1.0) -> float:
    """Approximate mean wait in G/G/c: Allen–Cunneen, W_q ≈ W_q(M/M/c)·(c_a² + c_s²)/2.

    ``ca`` and ``cs`` are the coefficients of variation (standard deviation / mean) of the
    inter-arrival and service times. For c = 1 this is Kingman's formula
    W_q ≈ ρ/(1 − ρ)·(c_a² + c_s²)/2·(1/μ). Exact for M/M/c (c_a = c_s = 1) and for M/G/1
    (c_a = 1, Pollaczek–Khinchine); otherwise an approximation that is best at high load.
    References: A. O. Allen, *Probability, Statistics, and Queueing Theory* (2nd ed., 1990)
    §6.6; J. F. C. Kingman, Proc. Camb. Phil. Soc. 57 (1961) 902–904.
    """
    ca, cs = _nonneg(ca, "ca"), _nonneg(cs, "cs")
    return mmc_wait(arrival_rate, service_rate, servers) * (ca**2 + cs**2) / 2


def little(*, number=None, rate=None, time=None) -> float:
    """Little's law L = λ W: give two of ``number``, ``rate``, ``time``; returns the third."""
    given = {k: v for k, v in (("number", number), ("rate", rate), ("time", time)) if v is not None}
    if len(given) != 2:
        raise ModelError(f"Little's law needs exactly two of number, rate, time; got {sorted(given) or 'none'}")
    for k, v in given.items():
        _nonneg(v, k)
    if number is None:
        return float(rate) * float(time)
    if rate is None:
        return float(number) / _pos(time, "time")
    return float(number) / _pos(rate, "rate")


def share_time_sufficient_servers(servers, offered_load) -> float:
    """Share of time with no work waiting for a server in M/M/c: P(N ≤ c) = 1 − ρ·C(c, A).

    N counts the jobs in the system, running or waiting. With N ≤ c every job has a
    server; with N > c at least one is ready but not dispatched. (P(N ≥ c) = C(c, A), the
    Erlang C value; P(N > c) = ρ·C because the tail above c is geometric with ratio ρ.)

    Relation to RMF: the CPU Activity report's "Distribution of in-ready work unit queue"
    gives the percentage of time with ≤ N, N+1, … N+150 in-ready work units (running or
    waiting for a processor), N being the online processors; IBM reads the sum of the N+1
    and higher rows as the time "when at least one task could not be dispatched". This
    function models the "≤ N" row, taking c = N, λ the rate of CPU requests and 1/μ their
    mean length, so A = the mean number of busy processors (utilisation × c).

    When it misleads: RMF samples real work units (TCBs, SRBs) that arrive in bursts, are
    few and closed (a task waits for its own I/O and latches), and its distribution mixes
    CP and zIIP work; M/M/c assumes an open Poisson stream. Bursty work has less time with
    sufficient CPUs than this value at the same utilisation. Use it for the shape of the
    trend (more CPUs, same load), not to reproduce an RMF percentage.
    """
    c = _servers(servers)
    a = _nonneg(offered_load, "offered load")
    if a >= c:
        return 0.0
    return 1.0 - (a / c) * erlang_c(c, a)


def share_time_sufficient_servers_array(servers, offered_load) -> np.ndarray:
    """:func:`share_time_sufficient_servers` for arrays that broadcast together (one recursion
    over k = 1 … max c, each element stopping at its own c): what a curve evaluated at many
    points, or for many parameter values at once, needs without a Python loop per point."""
    import numpy as np

    c = np.asarray(servers, dtype=float)
    a = np.asarray(offered_load, dtype=float)
    c, a = np.broadcast_arrays(c, a)
    if c.size and (np.any(c < 1) or np.any(c != np.floor(c)) or not np.all(np.isfinite(c))):
        raise ModelError("servers must be whole numbers ≥ 1")
    if a.size and (not np.all(np.isfinite(a)) or np.any(a < 0)):
        raise ModelError("offered loads must be finite and ≥ 0")
    out = np.zeros(c.shape)
    live = (a > 0) & (a < c)
    out[a == 0] = 1.0
    if not live.any():
        return out
    cl, al = c[live], a[live]
    log_a = np.log(al)
    y = np.zeros(cl.shape)
    # The stable recursion of log_erlang_b, element by element: y_k = ln(1 + exp(ln(k/A) + y_{k−1})).
    for k in range(1, int(cl.max()) + 1):
        z = math.log(k) - log_a + y
        step = np.where(z > 0, z + np.log1p(np.exp(-np.abs(z))), np.log1p(np.exp(np.minimum(z, 0))))
        y = np.where(k <= cl, step, y)
    log_b = -y
    rho = al / cl
    log_c = log_b - np.log1p(-rho * (1 - np.exp(log_b)))
    out[live] = 1.0 - rho * np.exp(log_c)
    return out


def littles_law_check(concurrency, throughput, response_s, think_s=0.0, *, tolerance: float = 0.1):
    """Rows where N = X·(R + Z) fails by more than ``tolerance`` (relative), before any fit.

    Returns a DataFrame with the implied concurrency X·(R + Z), its ratio to the stated N,
    and ``consistent`` (|ratio − 1| ≤ tolerance). Measurements that break Little's law were
    taken over different windows, or the response time leaves out part of the cycle.
    """
    import numpy as np
    import pandas as pd

    if not tolerance > 0:
        raise ModelError(f"the tolerance must be greater than 0, not {tolerance!r}")
    n, x = np.asarray(concurrency, dtype=float), np.asarray(throughput, dtype=float)
    r = np.asarray(response_s, dtype=float) + np.asarray(think_s, dtype=float)
    if np.any(n <= 0) or np.any(x < 0) or np.any(r < 0):
        raise ModelError("Little's law check: concurrency must be > 0, throughput and times ≥ 0")
    implied = x * r
    ratio = implied / n
    return pd.DataFrame({"concurrency": n, "implied": implied, "ratio": ratio,
                         "consistent": np.abs(ratio - 1) <= tolerance})
