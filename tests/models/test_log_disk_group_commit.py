"""The group-commit log model: write size, write time, rate, its limit and one block size's bounds."""

import numpy as np
import pytest

from mqperf.errors import ModelError
from mqperf.models import latency_bandwidth, log_disk


def test_rate_and_latency_follow_group_commit():
    a, B = 100e-6, 500e6
    S = log_disk.write_bytes(10, 2, 1000)
    assert S == 20_000
    t = log_disk.write_time(S, a, B)
    assert t == pytest.approx(100e-6 + 40e-6)
    assert log_disk.message_rate(10, 2, t) == pytest.approx(20 / 140e-6)


def test_many_committers_approach_the_bandwidth_in_messages():
    a, B, L = 200e-6, 300e6, 4096
    n = np.array([1, 10, 100, 10_000, 1_000_000])
    rates = log_disk.message_rate(n, 1, log_disk.write_time(log_disk.write_bytes(n, 1, L), a, B))
    assert np.all(np.diff(rates) > 0)
    assert rates[-1] < log_disk.rate_limit(L, B)
    assert rates[-1] == pytest.approx(log_disk.rate_limit(L, B), rel=1e-3)


def test_one_block_bounds_hold_every_split_of_the_measured_time():
    b0, t0 = 65536.0, 300e-6
    for size in (4096.0, 65536.0, 1048576.0):
        lo, hi = log_disk.one_block_bounds(size, b0, t0)
        for share in np.linspace(0, 1, 11):  # the share of t0 that is fixed time
            a = share * t0
            B = np.inf if share == 1 else b0 / (t0 - a)
            t = a + size / B
            assert lo - 1e-15 <= t <= hi + 1e-15


def test_bad_inputs_are_refused():
    with pytest.raises(ModelError):
        log_disk.write_bytes(0, 1, 100)
    with pytest.raises(ModelError):
        log_disk.one_block_bounds(100, 0, 1e-3)


def test_a_sweep_recovers_the_disk_it_was_made_from():
    a, B = 150e-6, 800e6
    sizes = np.array([4096, 16384, 65536, 262144, 1048576], dtype=float)
    rng = np.random.default_rng(5)
    t = (a + sizes / B) * (1 + rng.normal(0, 0.01, sizes.size))
    fit = latency_bandwidth.fit(sizes, 1 / t)
    assert fit.a == pytest.approx(a, rel=0.05) and fit.bandwidth == pytest.approx(B, rel=0.05)
    exact = latency_bandwidth.fit(sizes, 1 / (a + sizes / B))
    assert exact.a == pytest.approx(a, rel=1e-6) and exact.bandwidth == pytest.approx(B, rel=1e-6)
