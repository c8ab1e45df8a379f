"""Channel throughput bounds for bulk transfer (Q Replication planning).

Bandwidth–delay bound. A TCP connection has at most one window of unacknowledged data in
flight, so a channel moves at most ``window / RTT`` bytes per second, however fast the link:

    B_eff = min(B_link, W_tcp / RTT)

Seed 002 recommends TCPSENDBFRSIZE/TCPRCVBUFRSIZE 65536 "to allow dynamic rightsizing":
with a fixed 64 KB window and a 1 ms round trip the bound is 65.5 MB/s, at 10 ms 6.6 MB/s.
(Stevens, *TCP/IP Illustrated* vol. 1, §20.7, "bandwidth-delay product".)

Batches. A sender channel sends ``b`` messages, then waits for the receiver to confirm the
batch (a round trip plus the receiver's commit):

    T(b) = t_batch + b·s / B_eff,      X(b) = b / T(b) messages per second

the units-of-work form of :mod:`mqperf.models.batching` with t_c = t_batch and
t_m = s/B_eff; so the batch size reaching a fraction f of the bandwidth limit is
b = f/(1 − f) · t_batch·B_eff/s. Q Replication's advice (seed 002) is 200 messages per batch
with messages of 10 KB to 1 MB.

Link from two pings: a ping echo carries its payload both ways, so
RTT(s) = RTT₀ + 2s/B_link; two sizes give both (seed 002 suggests 256 and 4096 bytes).

When it misleads: windows are scaled dynamically by modern stacks (the bound then moves with
the autotuned window), the batch may end early on BATCHLIM bytes or an empty transmission
queue, and t_batch includes log forces at both ends that grow with message persistence.
"""

from __future__ import annotations

import math

import numpy as np

from mqperf.errors import ModelError
from mqperf.models.batching import batch_for_fraction


def _pos(value, name):
    value = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(value)) or np.any(value <= 0):
        raise ModelError(f"{name} must be finite and greater than zero")
    return value


def window_bound(window_bytes, rtt):
    """W / RTT: the most one TCP connection can carry per unit time."""
    return _pos(window_bytes, "window") / _pos(rtt, "round-trip time")


def effective_bandwidth(link_bandwidth, window_bytes, rtt):
    """min(B_link, W / RTT)."""
    return np.minimum(_pos(link_bandwidth, "link bandwidth"), window_bound(window_bytes, rtt))


def batch_time(batch_size, message_size, bandwidth, per_batch_overhead):
    """T(b) = t_batch + b·s / B."""
    b = _pos(batch_size, "batch size")
    overhead = np.asarray(per_batch_overhead, dtype=float)
    if np.any(overhead < 0):
        raise ModelError("per-batch overhead must be ≥ 0")
    return overhead + b * _pos(message_size, "message size") / _pos(bandwidth, "bandwidth")


def batch_throughput(batch_size, message_size, bandwidth, per_batch_overhead):
    """X(b) = b / T(b), messages per unit time."""
    return np.asarray(batch_size, dtype=float) / batch_time(batch_size, message_size, bandwidth, per_batch_overhead)


def batch_size_for_fraction(fraction, message_size, bandwidth, per_batch_overhead) -> float:
    """Batch size whose throughput is ``fraction`` of B/s: f/(1 − f) · t_batch·B/s (not rounded)."""
    t_m = float(_pos(message_size, "message size") / _pos(bandwidth, "bandwidth"))
    return batch_for_fraction(fraction, float(_pos(per_batch_overhead, "per-batch overhead")), t_m)


def link_from_pings(size_small, rtt_small, size_large, rtt_large) -> tuple[float, float]:
    """(RTT₀, B_link) from two ping round trips: RTT(s) = RTT₀ + 2s/B.

    Raises
    ------
    ModelError
        Equal sizes, a larger ping that is not slower (no bandwidth is then identified), or
        times that imply a negative base round trip.
    """
    s1, t1, s2, t2 = (float(_pos(v, n)) for v, n in ((size_small, "size"), (rtt_small, "round-trip time"),
                                                      (size_large, "size"), (rtt_large, "round-trip time")))
    if s2 == s1:
        raise ModelError("two different ping sizes are needed")
    if (t2 - t1) / (s2 - s1) <= 0:
        raise ModelError("the larger ping is not slower: the bandwidth is not identified (noise? repeat the pings)")
    bandwidth = 2 * (s2 - s1) / (t2 - t1)
    rtt0 = t1 - 2 * s1 / bandwidth
    if rtt0 < 0:
        raise ModelError("the pings imply a negative base round trip: the times are too noisy to separate")
    return rtt0, bandwidth


def messages_per_batch(batch_size, batchlim_bytes, message_size):
    """min(BATCHSZ, ⌈BATCHLIM / s⌉): a batch ends at BATCHSZ messages or after the message
    that reaches BATCHLIM bytes, whichever comes first (MQ counts BATCHLIM in KB of 1024)."""
    b = np.asarray(batch_size, dtype=float)
    lim = np.asarray(batchlim_bytes, dtype=float)
    s = np.asarray(message_size, dtype=float)
    if np.any(~np.isfinite(b)) or np.any(b < 1) or np.any(~(lim > 0)) or np.any(~(s > 0)):
        raise ModelError("batch size must be ≥ 1, BATCHLIM and message size greater than zero")
    return np.minimum(b, np.ceil(lim / s))


def window_needed(rate, rtt):
    """The bandwidth–delay product rate × RTT: the window a rate needs at a round trip."""
    return _pos(rate, "rate") * _pos(rtt, "round-trip time")


def batch_for_rate(target, message_size, bandwidth, per_batch_overhead) -> int | None:
    """The smallest whole batch whose modelled rate reaches ``target`` bytes/s (None: none does,
    the bandwidth itself being at or below the target).

    Starts from the closed form of :func:`batch_size_for_fraction` at f = target / bandwidth and
    steps to the whole batch, so rounding never leaves the answer one short.
    """
    if target >= bandwidth:
        return None
    f = target / bandwidth
    b = max(1, math.ceil(f / (1 - f) * per_batch_overhead * bandwidth / message_size))

    def rate(n):
        return float(batch_throughput(n, message_size, bandwidth, per_batch_overhead)) * message_size

    while rate(b) < target:
        b += 1
    while b > 1 and rate(b - 1) >= target:
        b -= 1
    return b
