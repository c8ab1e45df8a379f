"""The share of time with sufficient CPUs (M/M/c, its load factor, the line in per-CPU busy) and a
processor pool's headroom, against textbook formulas and hand arithmetic."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import cpu_share


def erlang_c_textbook(c: int, a: float) -> float:
    """Erlang C from the factorial formula (Kleinrock), independent of mqperf.models.queueing."""
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def share_textbook(c: int, a: float) -> float:
    """P(N ≤ c) in M/M/c = 1 − ρ·C(c, A), in percent."""
    return (1 - a / c * erlang_c_textbook(c, a)) * 100


def test_share_and_wait_match_the_factorial_formula():
    assert_allclose(cpu_share.share_pct(6, 2.82), share_textbook(6, 2.82), rtol=1e-9)
    assert_allclose(cpu_share.share_pct(3, 2.25, 1.2), share_textbook(3, 2.7), rtol=1e-9)
    assert_allclose(cpu_share.wait_bursts(3, 2.25), erlang_c_textbook(3, 2.25) / 0.75, rtol=1e-9)
    assert cpu_share.wait_bursts(3, 3.0) == math.inf
    assert_allclose(cpu_share.scaled_share([[3, 2.25], [6, 2.82]], 1.0),
                    [share_textbook(3, 2.25), share_textbook(6, 2.82)], rtol=1e-9)


def test_calibrated_load_factor_reproduces_its_run():
    k = cpu_share.calibrate_load_factor(3, 2.25, 45)
    assert k > 1  # burstier than Poisson: more waiting than M/M/c at the measured load
    assert_allclose(share_textbook(3, 2.25 * k), 45, rtol=1e-6)
    fit = cpu_share.load_factor_fit(3, 2.25, 45, "3 CPUs")
    assert fit.params["k"] == k and fit.cov is None and "calibrated on 3 CPUs" in fit.notes


@pytest.mark.parametrize("share", [0, 100])
def test_calibration_refuses_shares_no_k_reproduces(share):
    with pytest.raises(ModelError, match="cannot be calibrated"):
        cpu_share.calibrate_load_factor(3, 2.25, share)


def test_one_load_factor_for_every_run():
    k = cpu_share.calibrate_load_factor(3, 2.25, 45)
    one = cpu_share.load_factor_all([3], [2.25], [45])
    assert_allclose(one.params["k"], k) and one.cov is None
    # Two runs generated at the same k give it back, with an interval from the (zero) misses.
    y = [share_textbook(3, 2.25 * 1.3), share_textbook(6, 2.82 * 1.3)]
    both = cpu_share.load_factor_all([3, 6], [2.25, 2.82], y)
    assert_allclose(both.params["k"], 1.3, rtol=1e-5)
    with pytest.raises(ModelError, match="0 or 100"):
        cpu_share.load_factor_all([3, 6], [2.0, 3.0], [0, 100])


def test_cpus_for_share_is_the_smallest_count_meeting_the_target():
    need = cpu_share.cpus_for_share(80, 2.82)
    assert share_textbook(need, 2.82) >= 80
    assert need - 1 <= 2.82 or share_textbook(need - 1, 2.82) < 80
    # Scaling the load up can only raise the answer.
    assert cpu_share.cpus_for_share(80, 2.82, load_factor=1.6) >= need
    assert cpu_share.cpus_for_share(99.999, 50, max_cpus=4) is None


def test_line_in_per_cpu_busy_and_the_cpus_it_plans():
    line = cpu_share.fit_line([75, 47], [45, 65])
    b = (65 - 45) / (47 - 75)
    assert_allclose(line.params[["a", "b"]], [45 - b * 75, b])
    limit = cpu_share.busy_limit_pct(line, 80)
    assert_allclose(45 + b * (limit - 75), 80)
    assert cpu_share.cpus_from_line(3.0, 50.0) == 6.0  # an exact multiple does not round up
    assert cpu_share.cpus_from_line(3.0, math.nan) != cpu_share.cpus_from_line(3.0, math.nan)  # NaN
    assert_allclose(cpu_share.line_share(line, [[4, 3.0]]), [45 + b * 0])
    rising = cpu_share.fit_line([40, 70], [50, 85])
    assert math.isnan(cpu_share.busy_limit_pct(rising, 80))
    with pytest.raises(ModelError, match="two or more busy"):
        cpu_share.fit_line([50, 50], [40, 60])


def test_headroom_of_a_pool_measured_at_one_point():
    per_unit = cpu_share.time_per_unit_us(75, 4, 21400)
    assert_allclose(per_unit, 0.75 * 4 / 21400 * 1e6)
    assert cpu_share.processors_needed(21400, per_unit, 0.75) == 4
    assert cpu_share.processors_needed(30000, per_unit, 0.5) == math.ceil(30000 * per_unit / 1e6 / 0.5)
    table = cpu_share.headroom(per_unit, [21400], processors=[4, 5], max_utilisation=0.7)
    assert_allclose(table["busy_pct"], [75, 60])
    assert_allclose(table["p_wait_pct"].iloc[0], 100 * erlang_c_textbook(4, 3.0), rtol=1e-9)
    assert list(table["within_max"]) == [False, True] and table["stable"].all()
    over = cpu_share.headroom(per_unit, [30000], processors=[4], max_utilisation=0.7)
    assert not over["stable"].iloc[0] and np.isnan(over["wait"].iloc[0])
    with pytest.raises(ModelError):
        cpu_share.headroom(per_unit, [1], processors=[1], max_utilisation=1.0)
