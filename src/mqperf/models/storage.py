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
(8) beyond the first; seed 001 calls this "a total of eight replicas". A synchronous write
waits for the slowest copy at each layer, so the layers' latencies add.

Timeouts. When a request is abandoned after a timeout T, work completed is the share of
requests whose response time is ≤ T; with exponential response times (M/M/1 is exactly
so: R ~ Exp(μ − λ)) that share is 1 − exp(−T/R̄). Work the server does for a request that
then times out is wasted, so under overload a timeout does not raise the completed rate
above the capacity.
"""

from __future__ import annotations

import numpy as np

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

