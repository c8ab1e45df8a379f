"""A recovery log on one disk under group commit: persistent message rate and commit latency.

MQ's log writer forces one write at a time; a commit waits for the write that carries its log
records. With ``n`` applications each committing ``k`` messages of ``L`` log bytes, and nothing
but the disk in the way (no application time), every write carries one unit of work of each:

    S = n·k·L            bytes per write
    t(S) = a + S/B       the write's time on a disk with per-write latency a and bandwidth B
    X = n·k / t(S)       persistent messages per second, the most this disk carries
    commit latency       t(S) when the commit starts a write; up to 2·t(S) when it arrives
                         just after one started (it waits for that write, then its own)

As n grows, X approaches B/L (the disk's bandwidth in messages) and the commit latency grows
without bound; with n = 1 each commit pays the whole fixed latency a.

One block size measures one t(b₀) and cannot split it into a and S/B. Since a ≥ 0 and B > 0,
t(S) then lies between t(b₀) (all fixed time) and t(b₀)·S/b₀ (all per-byte time): below b₀
between t(b₀)·S/b₀ and t(b₀), above it between t(b₀) and t(b₀)·S/b₀ (:func:`one_block_bounds`).
"""

from __future__ import annotations

import numpy as np

from mqperf.errors import ModelError


def write_bytes(committers, messages_per_commit, log_bytes_per_message):
    """S = n·k·L: the bytes one forced write carries under group commit."""
    n, k, L = (np.asarray(v, dtype=float) for v in (committers, messages_per_commit, log_bytes_per_message))
    if np.any(n < 1) or np.any(k < 1) or np.any(L <= 0):
        raise ModelError("committers and messages per commit must be at least 1, log bytes per message above 0")
    return n * k * L


def write_time(size, a: float, B: float):
    """t(S) = a + S/B (seconds, for a in seconds and B in bytes per second)."""
    return a + np.asarray(size, dtype=float) / B


def message_rate(committers, messages_per_commit, time_per_write):
    """X = n·k / t: persistent messages per second when every write carries n units of work of k."""
    return np.asarray(committers, dtype=float) * np.asarray(messages_per_commit, dtype=float) / np.asarray(
        time_per_write, dtype=float)


def rate_limit(log_bytes_per_message, B: float):
    """B / L: the rate many committers approach, the disk's bandwidth in messages per second."""
    return B / np.asarray(log_bytes_per_message, dtype=float)


def one_block_bounds(size, block: float, time_at_block: float):
    """(lower, upper) time of a write of ``size`` bytes from one measured block size.

    The write time is a + S/B with a ≥ 0, B > 0 and a + b₀/B = t₀; it lies between the two
    extremes, all fixed time (t₀) and all per-byte time (t₀·S/b₀).
    """
    if block <= 0 or time_at_block <= 0:
        raise ModelError("one block size's time and size must be above 0")
    size = np.asarray(size, dtype=float)
    scaled = time_at_block * size / block
    return np.minimum(time_at_block, scaled), np.maximum(time_at_block, scaled)
