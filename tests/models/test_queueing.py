"""Queueing formulas against published Erlang C values (../shared/reference-data) and closed forms."""

import csv
import math
import re
from fractions import Fraction

import pytest
from numpy.testing import assert_allclose

from conftest import need_shared
from mqperf.errors import ModelError
from mqperf.models import queueing as q


@pytest.fixture(scope="module")
def reference_rows():
    path = need_shared("reference-data/erlang_c_reference.csv")
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _rows(rows, quantity_prefix):
    found = [r for r in rows if r["quantity"].split(" (")[0] == quantity_prefix]
    assert found, f"no {quantity_prefix!r} rows in the reference file"
    return found


def test_queue_length_and_response_match_octave_queueing(reference_rows):
    # mmarzolla/queueing inst/qsmmm.m tests (ETH ASL 2017 slides); published to 3 decimals,
    # checked there with an absolute tolerance of 1e-3, which we keep.
    for row in _rows(reference_rows, "Lq") + _rows(reference_rows, "R"):
        lam, mu = (float(v) for v in re.search(r"lambda=(\S+) mu=(\S+)\)", row["quantity"]).groups())
        c = int(row["c"])
        assert_allclose(lam / mu, float(row["A"]), rtol=1e-12)
        fn = q.mmc_queue_length if row["quantity"].startswith("Lq") else q.mmc_response
        assert_allclose(fn(lam, mu, c), float(row["published_value"]), atol=1e-3)


def test_log_erlang_c_matches_mathematica_values(reference_rows):
    # Published with 12 significant digits; includes c = 10,000 and ln C = -36157 (C underflows).
    for row in _rows(reference_rows, "ln C"):
        assert_allclose(q.log_erlang_c(int(row["c"]), float(row["A"])), float(row["published_value"]), rtol=1e-10)


def test_erlang_c_exact_fractions(reference_rows):
    # Rows without a published value carry an exact fraction (81/95, 2187/17015, 4/9, 9/14).
    exact = [r for r in _rows(reference_rows, "C") if not r["published_value"]]
    assert len(exact) >= 4
    for row in exact:
        assert_allclose(q.erlang_c(int(row["c"]), float(row["A"])), float(row["check_value"]), rtol=1e-9)


def test_erlang_c_table_examples(reference_rows):
    # Printed Erlang C table: A is read to 3 significant digits and P_Q given as 0.05 / 0.01,
    # so agreement is to about 1 % (weak provenance, see erlang_c_reference.md §3).
    table = [r for r in _rows(reference_rows, "C") if r["published_value"]]
    for row in table:
        assert_allclose(q.erlang_c(int(row["c"]), float(row["A"])), float(row["published_value"]), rtol=0.01)


def test_conditional_wait_beyond_one_holding_time():
    # Same table: P(wait > T | queued) = exp(-(c - A)) with T the mean holding time: 0.016 for c = 8.
    c, a, mu = 8, 3.87, 1.0
    conditional = q.prob_wait_exceeds(1 / mu, a * mu, mu, c) / q.erlang_c(c, a)
    assert_allclose(conditional, 0.016, rtol=0.01)  # published to 2 significant digits
    assert_allclose(conditional, math.exp(-(c - a)), rtol=1e-12)


def test_closed_forms():
    assert_allclose(q.erlang_c(1, 0.5), 0.5, rtol=1e-12)  # C(1, A) = rho
    assert_allclose(q.erlang_c(10, 8), 0.4091801508, rtol=1e-9)
    assert_allclose(q.erlang_c(55, 48), 0.2387009364, rtol=1e-9)
    assert_allclose(q.erlang_b(2, 1.0), 0.2, rtol=1e-12)  # (1/2) / (1 + 1 + 1/2)


def test_erlang_c_is_stable_for_thousands_of_servers():
    values = [q.erlang_c(5000, a) for a in (4000, 4900, 4990, 4999)]
    assert all(0 < v < 1 for v in values)
    assert values == sorted(values)
    assert q.erlang_c(5000, 100) == 0.0  # below the smallest float, log form still finite
    assert math.isfinite(q.log_erlang_c(5000, 100))


def test_mm1_against_textbook_formulas():
    lam, mu = 3.0, 5.0
    assert_allclose(q.mm1_response(lam, mu), 1 / (mu - lam), rtol=1e-12)
    assert_allclose(q.mm1_wait(lam, mu), (lam / mu) / (mu - lam), rtol=1e-12)
    assert_allclose(q.utilisation(lam, mu), 0.6, rtol=1e-12)
    assert_allclose(q.mmc_queue_length(lam, mu), 0.6**2 / 0.4, rtol=1e-12)


def test_unstable_queue_waits_forever():
    assert q.erlang_c(3, 3.0) == 1.0
    assert q.mmc_wait(10, 5, 2) == math.inf
    assert q.prob_wait_exceeds(1.0, 10, 5, 2) == 1.0
    assert q.share_time_sufficient_servers(2, 2.5) == 0.0


def test_allen_cunneen_reduces_to_exact_cases():
    lam, mu = 4.0, 5.0
    rho = lam / mu
    # M/D/1 (cs = 0): Pollaczek-Khinchine, Wq = rho / (2 mu (1 - rho)).
    assert_allclose(q.gg_wait(lam, mu, ca=1, cs=0), rho / (2 * mu * (1 - rho)), rtol=1e-12)
    assert_allclose(q.gg_wait(9, 5, 2, ca=1, cs=1), q.mmc_wait(9, 5, 2), rtol=1e-12)
    # Kingman, c = 1: rho/(1-rho) (ca² + cs²)/2 / mu.
    assert_allclose(q.gg_wait(lam, mu, ca=2, cs=0.5), rho / (1 - rho) * (4 + 0.25) / 2 / mu, rtol=1e-12)


def test_littles_law_solves_for_the_missing_term():
    assert q.little(rate=20, time=0.5) == 10
    assert q.little(number=10, time=0.5) == 20
    assert q.little(number=10, rate=20) == 0.5
    with pytest.raises(ModelError, match="exactly two"):
        q.little(number=1, rate=2, time=3)
    with pytest.raises(ModelError, match="exactly two"):
        q.little(number=1)


def _p_n_at_most_c(c, a):
    """P(N <= c) in M/M/c from the stationary distribution, in exact arithmetic."""
    a = Fraction(a)
    rho = a / c
    terms = [a**n / math.factorial(n) for n in range(c + 1)]
    total = sum(terms[:-1]) + terms[-1] / (1 - rho)
    return float(sum(terms) / total)


@pytest.mark.parametrize("c, a", [(1, Fraction(1, 2)), (3, Fraction(9, 4)), (6, Fraction(141, 50)), (10, 8)])
def test_share_time_sufficient_servers_is_p_n_at_most_c(c, a):
    assert_allclose(q.share_time_sufficient_servers(c, float(a)), _p_n_at_most_c(c, a), rtol=1e-12)


def test_share_time_sufficient_servers_single_server():
    # M/M/1: P(N >= 2) = rho², so P(N <= 1) = 1 - rho².
    assert_allclose(q.share_time_sufficient_servers(1, 0.7), 1 - 0.49, rtol=1e-12)


@pytest.mark.parametrize("servers", [0, -1, 2.5, True, "3"])
def test_servers_must_be_a_whole_number(servers):
    with pytest.raises(ModelError, match="servers"):
        q.erlang_c(servers, 1.0)


def test_bad_loads_and_rates_raise():
    with pytest.raises(ModelError, match="offered load"):
        q.erlang_c(2, -1.0)
    with pytest.raises(ModelError, match="service rate"):
        q.mmc_wait(1.0, 0.0, 1)
    with pytest.raises(ModelError, match="arrival rate"):
        q.mm1_response(float("nan"), 1.0)
    assert q.erlang_c(4, 0.0) == 0.0


def test_the_array_share_equals_the_scalar_one_everywhere():
    import numpy as np

    from mqperf.models import queueing

    rng = np.random.default_rng(22)
    c = rng.integers(1, 80, 3000).astype(float)
    a = rng.uniform(0, 1.3, 3000) * c
    a[:20] = 0.0
    a[20:40] = c[20:40]  # saturated: no time with sufficient servers
    many = queueing.share_time_sufficient_servers_array(c, a)
    one = np.array([queueing.share_time_sufficient_servers(int(s), load) for s, load in zip(c, a)])
    # Equal to rounding, not bit for bit: on a CPU with AVX-512 numpy's vectorised log, exp and
    # log1p differ from the scalar ones in the last bits (seen: 69 of 3,000 values, 1.4e-14 apart).
    np.testing.assert_allclose(many, one, rtol=1e-12, atol=0)
    assert np.all(many[:20] == 1.0) and np.all(many[20:40] == 0.0)
    # Rows of parameters at once: shape (m, points).
    grid = queueing.share_time_sufficient_servers_array(c[:5], a[:5] * np.array([[0.5], [1.0]]))
    assert grid.shape == (2, 5)
    np.testing.assert_allclose(grid[1], one[:5], rtol=1e-12, atol=0)


@pytest.mark.parametrize("servers, load", [(0, 1.0), (2.5, 1.0), (3, -1.0), (3, float("nan"))])
def test_the_array_share_refuses_what_the_scalar_one_refuses(servers, load):
    import numpy as np

    from mqperf.models import queueing

    with pytest.raises(ModelError):
        queueing.share_time_sufficient_servers_array(np.array([servers]), np.array([load]))
    with pytest.raises(ModelError):
        queueing.share_time_sufficient_servers(servers, load)
