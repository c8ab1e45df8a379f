"""Serial log writer bound, replication copies, and timeouts."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

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


def _erlang_cdf_by_poisson(t, k, mean):
    # P(sum of k Exp(mean) <= t) = P(Poisson(t/mean) >= k), written out term by term.
    x = t / mean
    return 1 - sum(math.exp(-x) * x**n / math.factorial(n) for n in range(k))


@pytest.mark.parametrize("k, mean, t", [(1, 0.5, 1.0), (2, 1.0, 0.3), (8, 0.668, 5.0), (8, 0.05, 0.4), (20, 0.1, 1.5)])
def test_erlang_chain_matches_scipy_and_the_poisson_sum(k, mean, t):
    got = storage.chain_completed_fraction(t, [mean] * k)
    assert_allclose(got, stats.erlang.cdf(t, k, scale=mean), rtol=1e-10)
    assert_allclose(got, _erlang_cdf_by_poisson(t, k, mean), rtol=1e-9)


def test_erlang_chain_matches_a_seeded_simulation():
    rng = np.random.default_rng(20261123)
    sums = rng.exponential(0.668, size=(200_000, 8)).sum(axis=1)
    simulated = np.mean(sums <= 5.0)
    # Binomial standard error at p ~ 0.47 and n = 200,000 is 0.0011: 4 standard errors.
    assert abs(storage.chain_completed_fraction(5.0, [0.668] * 8) - simulated) < 0.0045


def test_one_stage_is_the_exponential():
    t = np.array([0.0, 0.1, 1.0, 7.5])
    assert_allclose(storage.chain_completed_fraction(t, [2.0]), storage.completed_fraction(t, 2.0), rtol=1e-12, atol=1e-15)


def test_a_chain_is_not_its_mean_as_one_exponential():
    # Issue 9, item 4: 8 stages whose total mean is 5.34 s finish within 5 s 47 % of the time, not 61 %.
    stage = 0.053425 / (1 - 103809 * 0.053425 / 6025)
    assert_allclose(storage.completed_fraction(5.0, 8 * stage), 0.61, atol=0.005)
    assert_allclose(storage.chain_completed_fraction(5.0, [stage] * 8), 0.47, atol=0.005)


def test_hypoexponential_matches_closed_form_and_simulation():
    means = np.array([0.2, 0.5, 1.1])
    rates = 1 / means
    t = np.array([0.3, 1.0, 2.5])
    # Distinct rates: P(S > t) = sum_i prod_{j != i} r_j / (r_j - r_i) exp(-r_i t), safe for well-separated rates.
    tail = sum(np.prod([rates[j] / (rates[j] - rates[i]) for j in range(3) if j != i]) * np.exp(-rates[i] * t) for i in range(3))
    assert_allclose(storage.chain_completed_fraction(t, means), 1 - tail, rtol=1e-9)
    rng = np.random.default_rng(7)
    sums = sum(rng.exponential(m, size=200_000) for m in means)
    assert_allclose(storage.chain_completed_fraction(t, means), [np.mean(sums <= v) for v in t], atol=0.005)


def test_hypoexponential_is_stable_when_rates_nearly_coincide():
    # The closed form divides by r_j - r_i; the matrix exponential must approach the Erlang value smoothly.
    near = [0.5, 0.5 * (1 + 1e-9), 0.5 * (1 - 1e-9)]
    assert_allclose(storage.chain_completed_fraction(1.2, near), stats.erlang.cdf(1.2, 3, scale=0.5), rtol=1e-6)


def test_kth_fastest_exponential_copy():
    assert_allclose(storage.exponential_kth_fastest_mean(3.0, 1, 3), 1.0, rtol=1e-12)  # min of 3: m/3
    assert_allclose(storage.exponential_kth_fastest_mean(6.0, 3, 3), 6.0 * (1 + 1 / 2 + 1 / 3), rtol=1e-12)
    rng = np.random.default_rng(3)
    second = np.sort(rng.exponential(1.0, size=(200_000, 3)), axis=1)[:, 1]
    assert_allclose(storage.exponential_kth_fastest_mean(1.0, 2, 3), second.mean(), rtol=0.01)


def test_quorum_write_mean_by_hand_and_by_simulation():
    # max(X, Y) with X ~ Exp(1/m) and Y = min of two ~ Exp(2/m): m + m/2 - m/3 = 7m/6.
    assert_allclose(storage.quorum_write_mean(46.177), 46.177 * 7 / 6, rtol=1e-8)
    # Waiting for every copy is the slowest of three: m (1 + 1/2 + 1/3) = 11m/6.
    assert_allclose(storage.quorum_write_mean(46.177, acks=2), 46.177 * 11 / 6, rtol=1e-8)
    rng = np.random.default_rng(11)
    n = 200_000
    # Each instance's write is the slowest of its 3 storage copies; Native HA needs the active and one replica.
    inst = rng.exponential(1.0, size=(n, 3, 3)).max(axis=2)
    simulated = np.maximum(inst[:, 0], inst[:, 1:].min(axis=1)).mean()
    assert_allclose(storage.quorum_write_mean(1.0, storage_copies=3), simulated, rtol=0.01)
    # A quorum of one of four replicas is faster than one of two.
    assert storage.quorum_write_mean(1.0, replicas=4, acks=1) < storage.quorum_write_mean(1.0)


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
        lambda: storage.chain_completed_fraction(-1.0, [1.0]),
        lambda: storage.chain_completed_fraction(1.0, []),
        lambda: storage.chain_completed_fraction(1.0, [1.0, 0.0]),
        lambda: storage.exponential_kth_fastest_mean(1.0, 4, 3),
        lambda: storage.quorum_write_mean(1.0, replicas=2, acks=3),
        lambda: storage.quorum_write_mean(-1.0),
        lambda: storage.quorum_write_mean(1.0, storage_copies=0),
    ],
)
def test_bad_input_raises_model_error(call):
    with pytest.raises(ModelError):
        call()


# -- group commit (issue 21, §2.5) ------------------------------------------------------------------------


@pytest.mark.parametrize("spread", ["fixed", "exponential"])
@pytest.mark.parametrize("k, t, rho, T", [(8, 0.053425, 0.92, 0.6), (3, 1.0, 0.7, 4.0), (30, 0.1, 0.6, 4.0)])
def test_group_commit_chain_against_monte_carlo(spread, k, t, rho, T):
    # Each commit: its own write, plus the rest of the write in progress when it finds the writer busy.
    rng = np.random.default_rng(7)
    n = 60_000
    busy = rng.random((n, k)) < rho
    if spread == "fixed":
        chain = k * t + t * (busy * rng.random((n, k))).sum(axis=1)
    else:
        chain = rng.exponential(t, (n, k)).sum(axis=1) + (busy * rng.exponential(t, (n, k))).sum(axis=1)
    share = float(storage.group_commit_completed_fraction(T, t, rho, k, spread=spread))
    assert share == pytest.approx(float((chain <= T).mean()), abs=0.01)
    assert storage.group_commit_mean(t, rho, k, spread=spread) == pytest.approx(chain.mean(), rel=0.01)


def test_group_commit_is_bounded_where_mm1_is_not():
    # Seed 001's ODF log: 53.4 ms writes, 92 % busy. M/M/1 gives 668 ms per commit; group commit at most two writes.
    t, rho = 0.053425, 0.92
    assert t / (1 - rho) == pytest.approx(0.668, abs=0.001)
    assert storage.group_commit_mean(t, rho, 1) == pytest.approx(t * 1.46)
    assert storage.group_commit_completed_fraction(2 * t, t, 1.0, 1) == 1.0  # never more than two writes
    assert storage.group_commit_completed_fraction(0.99 * t, t, 0.0, 1) == 0.0  # never less than one
    # A writer "more than busy" (ρ > 1) writes larger blocks: the wait is capped as at ρ = 1.
    assert storage.group_commit_completed_fraction(1.5 * t, t, 3.0, 4) == storage.group_commit_completed_fraction(
        1.5 * t, t, 1.0, 4)
    with pytest.raises(ModelError):
        storage.group_commit_completed_fraction(1.0, t, 0.5, 8, spread="gamma")


def test_group_commit_utilisation_for_share_is_the_root():
    rho = storage.group_commit_utilisation_for_share(0.4, 8, 5, 0.9)
    assert 0 < rho < 1
    assert storage.group_commit_completed_fraction(5, 0.4, rho, 8) == pytest.approx(0.9, abs=1e-6)
    assert storage.group_commit_utilisation_for_share(0.7, 8, 5) == 0.0  # 8 x 0.7 s > 5 s even when idle
    assert math.isnan(storage.group_commit_utilisation_for_share(0.053425, 8, 5))  # a chain of at most 0.855 s


def test_max_write_latency_inverts_the_utilisation():
    t = storage.max_write_latency(403939, 6025, 0.5)
    assert t == pytest.approx(0.5 * 6025 / 403939)
    assert storage.log_writer_utilisation(403939, t, 6025) == pytest.approx(0.5)
    for bad in ((403939, 6025, 0), (0, 6025, 0.5), (403939, -1, 0.5)):
        with pytest.raises(ModelError):
            storage.max_write_latency(*bad)


def test_timeout_share_under_group_commit_by_hand():
    # Issue 21, §2.5: a commit waits at most the write in progress and its own write (group commit), not
    # an M/M/1 queue. Two commits of fixed 1 s writes against T = 3 s: S = 2 + B1·U1 + B2·U2, so
    # P(S ≤ 3) = (1 − ρ)² + 2ρ(1 − ρ) + ρ²/2 (two uniforms sum to at most 1 with probability 1/2).
    for rho in (0.0, 0.3, 0.9, 1.0):
        expected = (1 - rho) ** 2 + 2 * rho * (1 - rho) + rho**2 / 2
        assert storage.group_commit_completed_fraction(3.0, 1.0, rho, 2) == pytest.approx(expected, abs=1e-12)
    # Exponential writes, one commit: Exp(t) alone (idle), or Exp(t) + Exp(t) (busy): a gamma of shape 2.
    t, T, rho = 0.5, 1.0, 0.4
    expected = (1 - rho) * (1 - math.exp(-T / t)) + rho * (1 - math.exp(-T / t) * (1 + T / t))
    assert storage.group_commit_completed_fraction(T, t, rho, 1, spread="exponential") == pytest.approx(expected)
    # The share falls as the log gets busier, but a saturated log only doubles the chain.
    share = storage.group_commit_completed_fraction(5, 0.4, np.array([0.0, 0.5, 0.9, 1.0]), 8)
    assert np.all(np.diff(share) <= 0) and share[0] == 1.0
    assert storage.group_commit_completed_fraction(5, 0.3, 1.0, 8) == 1.0  # 2 × 8 × 0.3 s = 4.8 s < 5 s
    assert storage.group_commit_mean(0.05, 0.92, 8) == pytest.approx(8 * 0.05 * 1.46)
    with pytest.raises(ModelError):
        storage.group_commit_mean(0.05, 0.5, 0)
