"""Storage bounds for a queue manager's recovery log: serial writes, replication, timeouts.

Serial log writer. A commit waits for its forced log write; if the log writes one block
at a time, at most ``1 / latency`` forced writes complete per second and the log moves at
most ``write_size / latency`` bytes per second, whatever the CPU or the network:

    writes/s ≤ 1 / t_w,        bytes/s ≤ S_w / t_w

Seed 001's ``amqsrua`` figures (write latency 53,425 µs, write size 6,025 bytes) give a
bound of about 113 KB/s, against 104 KB/s physically written: that log was ~92 % of the way
to its serial limit, so the latency, not the load, set the throughput.
(Bounds of this kind: Lazowska et al., *Quantitative System Performance*, 1984, ch. 5.)

Replication on replication. An application that keeps ``n_app`` copies (MQ Native HA: 3
instances) on storage that keeps ``n_storage`` copies of every block (ODF replica=3)
writes ``n_app · n_storage`` copies of each log block (9), i.e. ``n_app · n_storage − 1``
(8) beyond the first; seed 001 calls this "a total of eight replicas". Seed 001 adds that
"the system is required to await the completion of all these synchronous write operations",
but the two layers wait differently. Replicated block storage (ODF/Ceph) acknowledges a
write when all its copies are written, so one instance's write takes the slowest of its
storage copies. Native HA acknowledges a log write once a quorum holds it: the active
instance's own write and one of the two replicas'. (IBM MQ documentation, *Native HA*: "Each
replica writes to its own log, acknowledges the data"; the quorum of two of three is the
review's statement in issue 9, and ``dspmq`` reports a QUORUM of in-sync instances; seed
001's sentence names no quorum.) So the write takes
``max(active, fastest replica)``, an order statistic of the copies (:func:`quorum_write_mean`),
not the slowest of the three.

Group commit. A queue manager's log writer does not serve commits one at a time: a commit
that arrives while a write is in progress waits for that write to end and then goes out with
every other record that arrived meanwhile, in the next write. So a forced write costs a commit
one write t if the writer is idle (probability 1 − ρ) and the residual of the write in progress
plus one write if it is busy (probability ρ): t(1 + ρ/2) on average with writes of fixed length
(a uniform residual), t(1 + ρ) with exponential ones. It never grows without limit as ρ → 1: the
writes grow larger instead (seed 001's ODF log, 92 % busy, wrote 5,021 bytes of records per
write with write amplification 1.2). A chain of k forced writes then takes between k·t and 2k·t
(:func:`group_commit_completed_fraction`); the M/M/1 wait t/(1 − ρ) per commit (668 ms at 92 %
busy for 53 ms writes) describes a log that writes one commit per write, which this log did not.

Timeouts. When a request is abandoned after a timeout T, work completed is the share of
requests whose response time is ≤ T; with exponential response times (M/M/1 is exactly
so: R ~ Exp(μ − λ)) that share is 1 − exp(−T/R̄). A request that passes k such stages
in turn takes their sum, which is not exponential: with equal rates it is Erlang-k (a
gamma distribution), with unequal rates hypoexponential (:func:`chain_completed_fraction`).
For the same mean, the sum is far less spread than one exponential, so it finishes within T
less often when its mean exceeds T and more often when the mean is below T (8 stages of mean
0.67 s, 5.34 s in all, against T = 5 s: 47 %, not 61 %). Work the
server does for a request that then times out is wasted, so under overload a timeout does
not raise the completed rate above the capacity.
"""

from __future__ import annotations

from math import comb

import numpy as np
from scipy import integrate, linalg, stats

from mqperf.errors import ModelError


def _pos(value, name):
    value = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(value)) or np.any(value <= 0):
        raise ModelError(f"{name} must be finite and greater than zero")
    return value


def max_forced_writes(write_latency):
    """Upper bound on forced (serial) log writes per unit time: 1 / latency."""
    return 1.0 / _pos(write_latency, "write latency")


def log_bandwidth_bound(write_latency, write_size):
    """Upper bound on log bytes per unit time for a serial writer: write size / latency."""
    return _pos(write_size, "write size") / _pos(write_latency, "write latency")


def log_writer_utilisation(bytes_per_time, write_latency, write_size):
    """Measured log rate as a share of the serial bound: rate · latency / write size.

    Near 1 the log is writing back to back: shorter writes (lower latency) are the only way
    to more throughput. Far below 1, the log is not what limits the workload.
    """
    rate = np.asarray(bytes_per_time, dtype=float)
    if np.any(rate < 0):
        raise ModelError("the measured log rate must be ≥ 0")
    return rate / log_bandwidth_bound(write_latency, write_size)


def total_copies(app_copies: int, storage_copies: int) -> int:
    """Copies of each block written: application copies × storage copies (3 × 3 = 9)."""
    for name, v in (("app_copies", app_copies), ("storage_copies", storage_copies)):
        if isinstance(v, bool) or not float(v).is_integer() or v < 1:
            raise ModelError(f"{name} must be a whole number ≥ 1, not {v!r}")
    return int(app_copies) * int(storage_copies)


def extra_copies(app_copies: int, storage_copies: int) -> int:
    """Copies beyond the first: app × storage − 1 (seed 001: "a total of eight replicas")."""
    return total_copies(app_copies, storage_copies) - 1


def completed_fraction(timeout, mean_response):
    """Share of requests finishing within ``timeout`` for exponential response times: 1 − exp(−T/R̄)."""
    timeout = np.asarray(timeout, dtype=float)
    if np.any(timeout < 0):
        raise ModelError("timeout must be ≥ 0")
    return -np.expm1(-timeout / _pos(mean_response, "mean response time"))


def mm1_completed_fraction(timeout, arrival_rate, service_rate) -> float:
    """P(R ≤ T) in M/M/1, where R ~ Exp(μ − λ): 1 − exp(−(μ − λ)T); 0 when λ ≥ μ (overload)."""
    lam = float(arrival_rate)
    mu = float(_pos(service_rate, "service rate"))
    if lam < 0:
        raise ModelError("arrival rate must be ≥ 0")
    if lam >= mu:
        return 0.0
    return float(completed_fraction(timeout, 1.0 / (mu - lam)))


def completed_rate_bound(offered_rate, capacity_rate):
    """Completed work per unit time ≤ min(offered, capacity): a timeout cannot lift it."""
    offered = np.asarray(offered_rate, dtype=float)
    if np.any(offered < 0):
        raise ModelError("offered rate must be ≥ 0")
    return np.minimum(offered, _pos(capacity_rate, "capacity"))


def chain_completed_fraction(timeout, stage_means):
    """P(S ≤ T) for S, the sum of independent exponential stages with the given means.

    Equal means give an Erlang-k distribution, evaluated as a gamma CDF (shape k, scale the
    stage mean). Unequal means give a hypoexponential distribution, evaluated exactly as the
    absorption probability of the stages' Markov chain, 1 − e₁ᵀ·exp(Q·T)·1, with Q the
    sub-generator that has −1/mᵢ on the diagonal and 1/mᵢ above it. The matrix exponential
    avoids the closed form Σ Πⱼ≠ᵢ λⱼ/(λⱼ − λᵢ)·e^(−λᵢT), which cancels catastrophically when
    two rates are close. A single stage reduces to :func:`completed_fraction`.

    Parameters
    ----------
    timeout : float or array of float
        T, in the unit of the means; ≥ 0.
    stage_means : sequence of float
        The mean of each stage, each finite and > 0. An unstable stage (ρ ≥ 1) has no
        finite mean and never finishes: the caller returns 0 for it rather than calling this.
    """
    timeout = np.asarray(timeout, dtype=float)
    if np.any(timeout < 0) or not np.all(np.isfinite(timeout)):
        raise ModelError("timeout must be finite and ≥ 0")
    means = np.atleast_1d(_pos(stage_means, "stage mean"))
    if means.ndim != 1 or means.size == 0:
        raise ModelError("stage means must be a non-empty list")
    if np.allclose(means, means[0], rtol=1e-12, atol=0):
        return stats.gamma.cdf(timeout, a=means.size, scale=means[0])
    rates = 1.0 / means
    q = np.diag(-rates) + np.diag(rates[:-1], k=1)
    out = np.array([1.0 - linalg.expm(q * t)[0].sum() for t in timeout.ravel()])
    return np.clip(out, 0.0, 1.0).reshape(timeout.shape)


def exponential_kth_fastest_mean(copy_mean, k: int, n: int) -> float:
    """Mean of the k-th fastest of n independent Exp copies of mean m: m · Σᵢ₌₀^{k−1} 1/(n − i).

    k = 1 is the fastest copy (m/n), k = n the slowest (m·Hₙ, e.g. 11m/6 for three copies).
    """
    _whole(k, "k")
    _whole(n, "n")
    if k > n:
        raise ModelError(f"k ({k}) cannot exceed the number of copies n ({n})")
    return float(_pos(copy_mean, "copy mean")) * sum(1.0 / (n - i) for i in range(k))


def quorum_write_mean(copy_mean, *, replicas: int = 2, acks: int = 1, storage_copies: int = 1) -> float:
    """Mean latency of a quorum write: the active's own write and ``acks`` of ``replicas`` replicas.

    T = max(W₀, W₍acks:replicas₎), where W₀ is the active instance's write and W₍k:r₎ the
    k-th fastest of the replicas' writes (acknowledgements). Native HA is ``replicas=2,
    acks=1``: the active and one replica; ``acks=replicas`` is "wait for the slowest copy".
    Each instance's write lands on storage that keeps ``storage_copies`` copies and
    acknowledges when all are written (ODF/Ceph replication), so Wᵢ = max of its storage
    copies.

    Assumptions: every storage copy's latency is independent and exponential with mean
    ``copy_mean`` (with ``storage_copies=1`` that is the instance's write latency); the
    active ships the data to the replicas as it writes, so the writes run in parallel; the
    network round trip is not included. Then, with G(t) = (1 − e^(−t/m))^s the CDF of one
    instance's write,

        P(T ≤ t) = G(t) · Σⱼ₌ₖ^r C(r, j) G(t)ʲ (1 − G(t))^(r−j),   E[T] = ∫₀^∞ 1 − P(T ≤ t) dt,

    integrated numerically (for s = 1, r = 2, k = 1 the closed form is 7m/6, against 11m/6
    for the slowest of three).
    """
    mean = float(_pos(copy_mean, "copy mean"))
    for name, v in (("replicas", replicas), ("acks", acks), ("storage_copies", storage_copies)):
        _whole(v, name)
    if acks > replicas:
        raise ModelError(f"acks ({acks}) cannot exceed the number of replicas ({replicas})")

    def survival(u):  # in units of the mean, so the integral is scale free
        g = (-np.expm1(-u)) ** storage_copies
        quorum = sum(comb(replicas, j) * g ** j * (1 - g) ** (replicas - j) for j in range(acks, replicas + 1))
        return 1.0 - g * quorum

    value, _ = integrate.quad(survival, 0.0, np.inf, epsabs=1e-12, epsrel=1e-10)
    return mean * value


def _whole(value, name):
    if isinstance(value, bool) or not float(value).is_integer() or value < 1:
        raise ModelError(f"{name} must be a whole number ≥ 1, not {value!r}")


def group_commit_mean(write_time, utilisation, forced_writes: int, *, spread: str = "fixed"):
    """Mean time of ``forced_writes`` commits under group commit: k·t·(1 + ρ/2) (fixed writes) or k·t·(1 + ρ)."""
    rho = np.clip(np.asarray(utilisation, dtype=float), 0.0, 1.0)
    _whole(forced_writes, "forced_writes")
    factor = 0.5 if spread == "fixed" else 1.0
    return forced_writes * float(_pos(write_time, "write time")) * (1 + factor * rho)


def group_commit_completed_fraction(timeout, write_time, utilisation, forced_writes: int, *, spread: str = "fixed"):
    """P(a chain of ``forced_writes`` commits ends within ``timeout``) under group commit.

    Each commit finds the writer busy with probability ρ (the log writer's utilisation, capped at
    1: a busier log writes larger blocks, not longer queues) and then waits the residual of the
    write in progress before its own write; else its own write alone. Commits are independent,
    so with J ~ Binomial(k, ρ) busy arrivals:

    * ``spread="fixed"`` (every write takes t; the residual is uniform on [0, t]):
      S = k·t + t·(U₁ + … + U_J), P(S ≤ T) = Σⱼ P(J = j)·IH_j((T − k·t)/t), IH_j the Irwin–Hall
      distribution of j uniforms (a normal approximation beyond 20, where its alternating sum
      loses precision and the normal is within 1e-3);
    * ``spread="exponential"`` (writes exponential with mean t, so is the residual):
      S ~ Gamma(k + J, t), P(S ≤ T) = Σⱼ P(J = j)·Γ_{k+j}(T/t).
    """
    from math import factorial, floor

    timeout = float(timeout)
    t = float(_pos(write_time, "write time"))
    _whole(forced_writes, "forced_writes")
    k = int(forced_writes)
    rho_in = np.asarray(utilisation, dtype=float)
    if np.any(rho_in < 0):
        raise ModelError("utilisation must be ≥ 0")
    rho = np.clip(rho_in, 0.0, 1.0)
    j = np.arange(k + 1)
    if spread == "exponential":
        per_j = stats.gamma.cdf(timeout, a=k + j, scale=t)
    elif spread == "fixed":
        x = (timeout - k * t) / t
        per_j = np.empty(k + 1)
        for n in j:
            if x < 0:
                per_j[n] = 0.0
            elif n == 0 or x >= n:
                per_j[n] = 1.0
            elif n > 20:
                per_j[n] = float(stats.norm.cdf(x, loc=n / 2, scale=np.sqrt(n / 12)))
            else:
                per_j[n] = sum((-1) ** m * comb(n, m) * (x - m) ** n for m in range(floor(x) + 1)) / factorial(n)
        per_j = np.clip(per_j, 0.0, 1.0)
    else:
        raise ModelError(f"spread must be 'fixed' or 'exponential', not {spread!r}")
    weights = stats.binom.pmf(j[None, :], k, np.atleast_1d(rho).ravel()[:, None])
    out = np.clip(weights @ per_j, 0.0, 1.0)
    return out.reshape(rho.shape) if rho.shape else float(out[0])


def group_commit_utilisation_for_share(write_time: float, forced_writes: int, timeout: float, share: float = 0.9,
                                       *, spread: str = "fixed") -> float:
    """Log utilisation above which fewer than ``share`` of chains finish within ``timeout``.

    The share :func:`group_commit_completed_fraction` gives falls with ρ, so there is one root
    (brentq on ρ in [0, 1]). 0 when even an idle log misses it; NaN when no utilisation up to a
    writer busy all the time does (a chain is at most twice its idle length).
    """
    from scipy.optimize import brentq

    def gap(rho):
        return float(group_commit_completed_fraction(timeout, write_time, rho, forced_writes, spread=spread)) - share

    if gap(0.0) < 0:
        return 0.0
    if gap(1.0) >= 0:
        return float("nan")
    return float(brentq(gap, 0.0, 1.0, xtol=1e-9))


def max_write_latency(bytes_per_time: float, write_size: float, max_utilisation: float) -> float:
    """Longest write latency that keeps a serial log writer at most ``max_utilisation`` busy: ρ·S/rate.

    The inverse of :func:`log_writer_utilisation` at a target rate; in the time unit of the rate.
    """
    if not 0 < max_utilisation <= 1:
        raise ModelError("max_utilisation must be in (0, 1]")
    if bytes_per_time <= 0 or write_size <= 0:
        raise ModelError("target rate and write size must be greater than zero")
    return max_utilisation * write_size / bytes_per_time
