"""Closed request/reply loops: candidates, their ranking by AICc, and the two planning answers."""

import math

import numpy as np
import pytest

from mqperf.models import closed_loop, mva
from mqperf.models.closed_loop import Candidate


def _usl(n, lam=100.0, sigma=0.05, kappa=0.001):
    n = np.asarray(n, dtype=float)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def _candidate(rate, k=2, n=(1, 2, 4, 8, 16), noise=None, think_s=0.0, ceiling=None, **kw):
    n = np.asarray(n, dtype=float)
    x = _usl(n) if noise is None else _usl(n) * noise
    top = ceiling if ceiling is not None else float(np.max(rate(np.arange(1, 5000))))
    return Candidate("s", kw.pop("model", "m"), kw.pop("kind", "usl"), k, rate, think_s, top, n, x, **kw)


def test_response_time_is_littles_law_read_backwards():
    assert closed_loop.response_ms(10, 1000.0, 0.002) == pytest.approx(8.0)


def test_mva_rate_extends_its_table_on_demand():
    solved = mva.solve({"cpu": 0.001, "net": 0.002}, 10, delay=("net",))
    rate = closed_loop.mva_rate(solved, ("net",))
    longer = mva.solve({"cpu": 0.001, "net": 0.002}, 50, delay=("net",)).table["throughput"].to_numpy()
    assert rate(np.array([3, 40])) == pytest.approx(longer[[2, 39]])


def test_the_true_model_ranks_first_and_ties_go_to_fewer_parameters():
    rng = np.random.default_rng(1)
    noise = rng.normal(1, 0.01, 5)
    right = _candidate(_usl, k=3, noise=noise, model="right")
    wrong = _candidate(lambda n: 90.0 * np.asarray(n, float), k=1, noise=noise, model="wrong")
    ranked = closed_loop.rank([wrong, right])
    assert ranked.best is right and ranked.decided and ranked.deltas["right"] == 0
    same_a = _candidate(_usl, k=2, model="a")
    same_b = _candidate(_usl, k=1, model="b")
    assert closed_loop.rank([same_a, same_b]).best is same_b


def test_too_few_points_ranks_nothing():
    one = _candidate(_usl, k=3, n=(1, 2, 3), model="usl")
    assert closed_loop.rank([one]).best is None


def test_planning_answers_on_the_grid_and_past_it():
    c = _candidate(_usl)
    n, why = closed_loop.clients_for(c, 500.0, 4)
    assert why == "" and n == int(np.nonzero(_usl(np.arange(1, 100)) >= 500)[0][0]) + 1
    assert closed_loop.clients_for(c, 1e9, 4) == (None, "above the ceiling")
    most, why = closed_loop.most_within(c, 100.0, 50)
    resp = closed_loop.response_ms(np.arange(1, 5000), _usl(np.arange(1, 5000)), 0.0)
    assert why == "" and most == int(np.nonzero(resp > 100.0)[0][0])
    assert closed_loop.most_within(c, 1e-9, 10) == (None, "over the limit with one client")


def test_a_ceiling_is_known_only_when_the_rates_approach_it():
    c = _candidate(_usl, ceiling=1e6)
    assert not c.ceiling_known and math.isclose(c.share, float(np.max(c.measured_x)) / 1e6)
    assert _candidate(_usl, ceiling=1e6, given=True).ceiling_known
