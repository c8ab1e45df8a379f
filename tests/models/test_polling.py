"""MQGET calls per message for a get-with-wait consumer, checked against a simulation."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import polling


def simulate_gets_per_message(lam, wait, tau, n_messages=100_000, seed=0):
    """Event-by-event simulation of the connector's get loop with Poisson arrivals."""
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(1 / lam, n_messages))
    t, i, gets = 0.0, 0, 0
    while i < n_messages:
        gets += 1  # MQGET with wait: the queue is empty when it is issued
        if arrivals[i] > t + wait:
            t += wait  # expired: an empty get
            continue
        t = max(t, arrivals[i]) + tau
        i += 1
        while True:  # no-wait gets until one finds the queue empty
            gets += 1
            if i < n_messages and arrivals[i] <= t:
                t += tau
                i += 1
            else:
                break
    return gets / n_messages


@pytest.mark.parametrize(
    "lam, wait, tau",
    [
        (1 / 60, 30.0, 0.0),  # trickle: one message a minute, 30 s waits
        (1 / 43.28, 30.0, 0.0),  # the rate that gives 3 gets per message
        (0.5, 30.0, 0.5),  # busy periods of 1/(1 - 0.25) messages
        (100.0, 30.0, 0.008),  # rho = 0.8
    ],
)
def test_formula_matches_simulation(lam, wait, tau):
    # 100,000 simulated messages: the simulated mean is within about 1 % of its limit.
    assert_allclose(polling.gets_per_message(lam, wait, tau), simulate_gets_per_message(lam, wait, tau), rtol=0.02)


def test_three_gets_per_message_at_the_seed_trickle_rate():
    # Seed 000: "3 MQGETs per successful get" with MQGET-with-wait of 30 s.
    lam = polling.arrival_rate_for_gets_per_message(3, 30)
    assert_allclose(lam, math.log(2) / 30, rtol=1e-12)  # 1 - e^{-30 lam} = 1/2
    assert_allclose(polling.gets_per_message(lam, 30), 3.0, rtol=1e-12)
    assert_allclose(polling.empty_gets_per_message(lam, 30), 2.0, rtol=1e-12)


def test_limits():
    assert polling.gets_per_message(0, 30) == math.inf
    assert_allclose(polling.gets_per_message(1e6, 30), 2.0, rtol=1e-12)  # success + one empty no-wait get
    assert polling.gets_per_message(200, 30, 0.01) == 1.0  # rho >= 1: never finds the queue empty
    assert_allclose(polling.gets_per_message(1e-6, 30), 1 + 1 / (1 - math.exp(-30e-6)), rtol=1e-12)


def test_idle_polling():
    # Seed 000: idle source connector issues MQGETs every 30 seconds; an empty get costs 1-2 CPU µs.
    assert polling.idle_polls_per_hour(30) == 120
    assert polling.idle_polls_per_hour(30, tasks=5) == 600
    assert_allclose(polling.idle_cost_per_hour(30, 2.0, tasks=5), 1200.0, rtol=1e-12)
    assert polling.gets_per_hour(0, 30, tasks=5) == 600


def test_gets_per_hour_splits_arrivals_among_tasks():
    lam = 1 / 60
    assert_allclose(polling.gets_per_hour(lam, 30), lam * 3600 * polling.gets_per_message(lam, 30), rtol=1e-12)
    two = polling.gets_per_hour(lam, 30, tasks=2)
    assert_allclose(two, 2 * (lam / 2) * 3600 * polling.gets_per_message(lam / 2, 30), rtol=1e-12)
    assert two > polling.gets_per_hour(lam, 30)  # more tasks, more empty waits


@pytest.mark.parametrize(
    "call",
    [
        lambda: polling.gets_per_message(-1, 30),
        lambda: polling.gets_per_message(1, 0),
        lambda: polling.gets_per_message(1, 30, -0.1),
        lambda: polling.idle_polls_per_hour(30, tasks=0),
        lambda: polling.idle_cost_per_hour(30, 0),
        lambda: polling.gets_per_hour(1, 30, tasks=1.5),
        lambda: polling.arrival_rate_for_gets_per_message(2, 30),
    ],
)
def test_bad_input_raises_model_error(call):
    with pytest.raises(ModelError):
        call()
