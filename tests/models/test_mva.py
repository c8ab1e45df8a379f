"""Exact MVA against the machine-repairman closed form, the asymptotic bounds, and edge cases."""

import math

import numpy as np
import pytest

from mqperf.errors import ModelError
from mqperf.models import mva


def _repairman(n: int, d: float, z: float) -> float:
    """Finite-source M/M/1//N (one server, think time z): X = (1 − p0) / d, with
    p0 = 1 / Σ_k N!/(N−k)! (d/z)^k, an independent textbook closed form."""
    terms = [math.perm(n, k) * (d / z) ** k for k in range(n + 1)]
    return (1 - 1 / sum(terms)) / d


@pytest.mark.parametrize("n, d, z", [(1, 0.5, 2.0), (5, 0.2, 1.0), (30, 0.05, 1.0), (12, 1.0, 3.0)])
def test_one_resource_with_think_time_is_the_repairman_model(n, d, z):
    result = mva.solve({"cpu": d}, n, think_s=z)
    assert result.at(n)["throughput"] == pytest.approx(_repairman(n, d, z), rel=1e-12)
    # Little's law for the whole loop: N = X (R + Z).
    row = result.at(n)
    assert row["throughput"] * (row["response_s"] + z) == pytest.approx(n)


def test_several_resources_respect_the_bounds_and_name_the_bottleneck():
    demands = {"QM CPU": 0.0004, "log disk": 0.0012, "network": 0.0003}
    result = mva.solve(demands, 200, think_s=0.01, delay=("network",))
    x = result.table["throughput"].to_numpy()
    total = sum(demands.values())
    assert np.all(np.diff(x) >= -1e-9 * x[1:])  # more clients never lower throughput (product-form network)
    assert np.all(x <= result.table["clients"] / (total + 0.01) + 1e-12)
    assert np.all(x <= 1 / 0.0012 + 1e-9)
    assert result.bottleneck == "log disk" and result.max_throughput == pytest.approx(1 / 0.0012)
    assert x[-1] == pytest.approx(1 / 0.0012, rel=1e-3)  # saturated at 200 clients
    assert result.at(200)["log disk_utilisation"] == pytest.approx(x[-1] * 0.0012)
    assert result.at(1)["response_s"] == pytest.approx(total)  # one client never queues


def test_a_delay_resource_adds_time_but_no_queue():
    queued = mva.solve({"cpu": 0.1, "wire": 0.1}, 10)
    delayed = mva.solve({"cpu": 0.1, "wire": 0.1}, 10, delay=("wire",))
    assert delayed.at(10)["wire_residence_s"] == pytest.approx(0.1)
    assert queued.at(10)["wire_residence_s"] > 0.1


def _numpy_recursion(demands: dict, clients: int, think_s: float, delay: tuple) -> dict:
    """The recursion of the module docstring in NumPy, a vector per client count: how the table
    was computed before it moved to Python floats (the chapters' committed numbers came from it)."""
    d = np.array(list(demands.values()), dtype=float)
    is_delay = np.array([k in delay for k in demands])
    q, out = np.zeros(d.size), {"throughput": [], "response_s": [], "residence": []}
    for n in range(1, clients + 1):
        r = np.where(is_delay, d, d * (1 + q))
        x = n / (think_s + r.sum())
        q = x * r
        out["throughput"].append(x), out["response_s"].append(r.sum()), out["residence"].append(r)
    return out


@pytest.mark.parametrize("resources", [1, 3, 7, 8, 11])
def test_the_table_is_the_numpy_recursion_to_the_bit(resources):
    # Sums of 8 values and more are NumPy's pairwise sum, fewer left to right: both are covered.
    rng = np.random.default_rng(resources)
    names = [f"r{i}" for i in range(resources)]
    demands = {k: float(rng.lognormal(-7, 2)) for k in names}
    demands[names[-1]] = 0.0 if resources > 2 else demands[names[-1]]
    delay = tuple(names[1:resources // 2])
    result = mva.solve(demands, 300, think_s=0.004, delay=delay)
    want = _numpy_recursion(demands, 300, 0.004, delay)
    assert np.array_equal(result.table["throughput"], want["throughput"])
    assert np.array_equal(result.table["response_s"], want["response_s"])
    residence = np.array(want["residence"])
    for i, k in enumerate(names):
        assert np.array_equal(result.table[f"{k}_residence_s"], residence[:, i])
        assert np.array_equal(result.table[f"{k}_utilisation"], np.array(want["throughput"]) * demands[k])
    assert result.table["clients"].tolist() == list(range(1, 301))


@pytest.mark.parametrize("demands, clients, kwargs, match", [
    ({"cpu": 0.1}, 0, {}, "whole number"),
    ({"cpu": -1.0}, 3, {}, "≥ 0"),
    ({"cpu": float("nan")}, 3, {}, "≥ 0"),
    ({"wire": 0.1}, 3, {"delay": ("wire",)}, "queueing resource"),
    ({"cpu": 0.0}, 3, {}, "queueing resource"),
    ({"cpu": 0.1}, 3, {"think_s": -1.0}, "think time"),
])
def test_bad_inputs_are_model_errors(demands, clients, kwargs, match):
    with pytest.raises(ModelError, match=match):
        mva.solve(demands, clients, **kwargs)


def test_asymptotic_bounds_hold_and_meet_at_the_knee():
    # Bounds worked by hand (Lazowska et al. 1984, §5.3): D = 0.2 + 0.5 + 0.3 = 1.0 s,
    # D_max = 0.5 s, Z = 4 s, so N* = (1 + 4) / 0.5 = 10 and X ≤ min(N/5, 2), R ≥ max(1, N/2 − 4).
    result = mva.solve({"cpu": 0.2, "disk": 0.5, "wire": 0.3}, 40, think_s=4.0, delay=("wire",))
    assert result.total_demand == pytest.approx(1.0) and result.knee == pytest.approx(10.0)
    b = result.bounds([1, 10, 40])
    np.testing.assert_allclose(b["throughput_bound"], [0.2, 2.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(b["response_bound_s"], [1.0, 1.0, 16.0], rtol=1e-12)
    every = result.bounds(result.table["clients"])
    assert np.all(result.table["throughput"].to_numpy() <= every["throughput_bound"].to_numpy() * (1 + 1e-12))
    assert np.all(result.table["response_s"].to_numpy() >= every["response_bound_s"].to_numpy() * (1 - 1e-12))
    assert result.at(1)["throughput"] == pytest.approx(0.2)  # one client meets the light-load bound exactly


# -- the one-queue MVA the measurements calibrate ---------------------------------------------------

@pytest.mark.parametrize("d, dd, z", [(0.002, 0.008, 0.0), (0.5, 0.0, 2.0), (1e-5, 4e-5, 1e-3)])
def test_one_queue_is_the_recursion_and_the_repairman_closed_form(d, dd, z):
    solved = mva.solve({"q": d, "delay": dd}, 60, think_s=z, delay=("delay",))
    n = np.arange(1, 61)
    np.testing.assert_allclose(mva.one_queue(n, d, dd, z), solved.table["throughput"], rtol=1e-12)
    if z + dd > 0:
        np.testing.assert_allclose(mva.one_queue([7], d, dd, z), [_repairman(7, d, z + dd)], rtol=1e-12)


@pytest.mark.parametrize("d, zp", [(1e-3, 10.0), (2e-3, 0.01), (0.3, 0.3)])
def test_the_closed_form_past_the_recursion_agrees_with_it(monkeypatch, d, zp):
    n = np.array([1, 3, 40, 700])
    by_recursion = mva.one_queue(n, d, zp, 0.0)
    monkeypatch.setattr(mva, "RECURSION_MAX", 0)  # every N by the closed form in log space
    np.testing.assert_allclose(mva.one_queue(n, d, zp, 0.0), by_recursion, rtol=1e-9)


def test_fit_recovers_the_demands_of_exact_rates_and_their_ceiling():
    n = np.array([1, 2, 4, 8, 16, 32, 64])
    x = mva.one_queue(n, 250e-6, 3e-3, 5e-3)
    res = mva.fit(n, x, think_s=5e-3)
    assert res.d_queue == pytest.approx(250e-6, rel=1e-6) and res.d_delay == pytest.approx(3e-3, rel=1e-6)
    assert res.ceiling == pytest.approx(4000, rel=1e-6)
    np.testing.assert_allclose(res.response_s(n), n / x - 5e-3, rtol=1e-6)


def test_fit_on_noisy_rates_covers_the_true_demand():
    rng = np.random.default_rng(3)
    n = np.array([1, 2, 4, 6, 8, 12, 16, 24, 32, 48])
    x = mva.one_queue(n, 400e-6, 2e-3, 0.0) * rng.normal(1, 0.01, n.size)
    res = mva.fit(n, x)
    lo, hi = res.conf_int().loc["d_queue"]
    assert lo < 400e-6 < hi and hi / lo < 1.2


def test_fit_needs_two_client_counts():
    with pytest.raises(ModelError, match="two distinct client counts"):
        mva.fit([4, 4], [100.0, 101.0])


def test_rows_of_demands_give_the_same_throughputs_as_one_at_a_time():
    import numpy as np

    from mqperf.models import mva

    n = np.array([1, 2, 5, 10, 50, 200, 6000], dtype=float)
    rng = np.random.default_rng(22)
    dq, dd = rng.uniform(1e-4, 1e-2, 30), rng.uniform(0, 0.05, 30)
    for counts in (n[:-1], n):  # within the recursion, and one count beyond it (row by row)
        rows = mva.one_queue(counts, dq[:, None], dd[:, None], 0.01)
        one = np.vstack([mva.one_queue(counts, a, b, 0.01) for a, b in zip(dq, dd)])
        assert rows.shape == (30, counts.size) and np.array_equal(rows, one)
    edge = mva.one_queue(n[:3], np.array([[0.0], [1e-3]]), np.array([[0.01], [0.0]]), 0.0)
    assert np.array_equal(edge, np.vstack([mva.one_queue(n[:3], 0.0, 0.01, 0.0), mva.one_queue(n[:3], 1e-3, 0.0, 0.0)]))


def test_the_fit_evaluates_its_counts_as_one_queue_does_to_the_bit(monkeypatch):
    # The fit prepares its client counts once (rounding, the recursion's reach); at those counts
    # its curve must be one_queue's, bit for bit, on both sides of the recursion's limit.
    monkeypatch.setattr(mva, "RECURSION_MAX", 40)
    n = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 48.0, 64.0])
    x = mva.one_queue(n, 0.002, 0.004, 0.01) * np.random.default_rng(2).normal(1, 0.01, n.size)
    result = mva.fit(n, x, think_s=0.01)
    for dq, dd in [(0.002, 0.004), (1e-5, 0.0), (0.3, 2.0), (result.d_queue, result.d_delay)]:
        assert np.array_equal(result.fn(result.x, dq, dd), mva.one_queue(n.copy(), dq, dd, 0.01))
