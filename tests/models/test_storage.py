"""Serial log writer bound, replication copies, and timeouts."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import storage

# Seed 001, amqsrua "DISK Log": write latency (µs), write size (bytes), physical bytes written per second.
NATIVEHA = (53425e-6, 6025, 103809)
RESILIENT = (46177e-6, 6622, 111694)
VM = (526e-6, 4612, 403939)


def test_serial_writer_bounds_from_seed_001():
    latency, size, _ = NATIVEHA
    assert_allclose(storage.max_forced_writes(latency), 1 / 0.053425, rtol=1e-12)  # 18.7 writes/s
    assert_allclose(storage.log_bandwidth_bound(latency, size), 6025 / 0.053425, rtol=1e-12)  # 112.8 KB/s


def test_log_writer_utilisation_separates_saturated_from_idle_logs():
    util = [storage.log_writer_utilisation(rate, lat, size) for lat, size, rate in (NATIVEHA, RESILIENT, VM)]
    # By hand: 103809 x 0.053425 / 6025 = 0.920; 111694 x 0.046177 / 6622 = 0.779; 403939 x 0.000526 / 4612 = 0.046.
    assert_allclose(util, [0.920, 0.779, 0.0461], rtol=2e-3)  # hand values rounded to 3 digits


def test_replication_copies_match_seed_001():
    # NativeHA (3 instances) on ODF replica=3: "a total of eight replicas" beyond the original write.
    assert storage.total_copies(3, 3) == 9
    assert storage.extra_copies(3, 3) == 8
    assert storage.extra_copies(3, 1) == 2  # ODF's non-resilient storage class: NativeHA's own copies only


def test_completed_fraction_for_exponential_response_times():
    assert storage.completed_fraction(0.0, 1.0) == 0.0
    assert_allclose(storage.completed_fraction(5.0, 5.0), 1 - math.exp(-1), rtol=1e-12)
    assert_allclose(storage.completed_fraction([1.0, 10.0], 0.5), 1 - np.exp(-np.array([2.0, 20.0])), rtol=1e-12)


def test_mm1_completed_fraction():
    # M/M/1 response time is exponential with rate mu - lambda.
    assert_allclose(storage.mm1_completed_fraction(5.0, 18.0, 18.7), 1 - math.exp(-0.7 * 5.0), rtol=1e-12)
    assert storage.mm1_completed_fraction(5.0, 20.0, 18.7) == 0.0  # overload: the queue grows without bound


def test_timeout_cannot_lift_completed_work_above_capacity():
    assert_allclose(storage.completed_rate_bound([5.0, 50.0], 18.7), [5.0, 18.7], rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: storage.max_forced_writes(0),
        lambda: storage.log_bandwidth_bound(-1e-3, 4096),
        lambda: storage.log_bandwidth_bound(1e-3, 0),
        lambda: storage.log_writer_utilisation(-5, 1e-3, 4096),
        lambda: storage.total_copies(0, 3),
        lambda: storage.total_copies(2.5, 3),
        lambda: storage.completed_fraction(-1, 1.0),
        lambda: storage.completed_fraction(1, 0.0),
        lambda: storage.mm1_completed_fraction(1, -1, 2),
        lambda: storage.completed_rate_bound(-1, 10),
    ],
)
def test_bad_input_raises_model_error(call):
    with pytest.raises(ModelError):
        call()
