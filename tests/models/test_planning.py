"""Planning from any accepted curve, and ranking the candidates."""

import numpy as np
import pytest

from mqperf.models import planning, selection, usl


def curve(lam=1000.0, sigma=0.05, kappa=0.002):
    return lambda n: usl.throughput(n, lam, sigma, kappa)


def test_first_reaching_follows_the_curve_past_any_table():
    predict = curve()
    n = planning.first_reaching(predict, 6000.0)  # the peak is about 7,400 at N = 21.8
    assert n is not None and n > 8 and predict(n) >= 6000 > predict(n - 1)
    peak = usl.throughput(usl.peak_concurrency(0.05, 0.002), 1000, 0.05, 0.002)
    assert planning.first_reaching(predict, peak * 1.01) is None  # above the peak at any count


def test_last_adding_and_gains():
    predict = curve(sigma=0.1, kappa=0.0)
    last = planning.last_adding(predict, 5.0)
    table = planning.gains(predict, last + 1)
    assert table["added %"].iloc[last - 1] >= 5.0 > table["added %"].iloc[last]
    assert planning.last_adding(lambda n: np.full_like(n, 7.0), 5.0) is None


def test_an_answer_outside_the_measured_range_is_extrapolated():
    assert planning.extrapolated(12, 1, 8) and planning.extrapolated(0.5, 1, 8)
    assert not planning.extrapolated(4, 1, 8) and not planning.extrapolated(None, 1, 8)


def test_rank_accepts_the_best_only_with_evidence():
    clear = selection.rank({"usl": (100.0, 10, 3), "bottleneck": (900.0, 10, 2)})
    assert clear.criterion == "AICc" and clear.accepted == ("usl",) and clear.decided
    close = selection.rank({"usl": (100.0, 10, 3), "amdahl": (170.0, 10, 2)})  # AICc 39.0 against 38.3
    assert set(close.accepted) == {"usl", "amdahl"} and "cannot rank" in close.why
    tiny = selection.rank({"usl": (1.0, 4, 3), "amdahl": (2.0, 4, 2)})  # AICc undefined for 4 points, 3 parameters
    assert tiny.criterion == "AIC"
    none = selection.rank({"a": (0.0, 3, 3), "b": (0.0, 2, 2)})
    assert none.criterion == "none" and set(none.accepted) == {"a", "b"}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_aicc_is_aic_plus_its_correction(k):
    n, ssr = 12, 40.0
    assert selection.gaussian_aicc(ssr, n, k) - selection.gaussian_aic(ssr, n, k) == pytest.approx(
        2 * (k + 1) * (k + 2) / (n - k - 2))


def test_a_reading_answers_by_its_shape_without_a_cap():
    from mqperf.models import bottleneck

    n = np.array([1, 2, 3, 4, 6, 8], dtype=float)
    peak = planning.Reading("USL", usl.fit(n, usl.throughput(n, 1000.0, 0.05, 0.002)), units="tasks")
    assert peak.shape == "peak"
    need, why = peak.units_for(6000.0)
    assert need > 8 and not why and peak.rate([need])[0] >= 6000 > peak.rate([need - 1])[0]  # past the data
    assert peak.units_for(peak.top()[1] * 1.01) == (None, "above the modelled peak")
    limit = planning.Reading("Amdahl", usl.fit(n, 1000.0 * n / (1 + 0.1 * (n - 1)), amdahl_only=True), units="tasks")
    assert limit.shape == "limit" and limit.top()[0] == np.inf
    assert limit.units_for(limit.result.lam / limit.result.sigma)[0] is None
    need, _ = limit.units_for(5000.0)
    assert limit.rate([need])[0] >= 5000 > limit.rate([need - 1])[0]
    gains = limit.gains(planning.LAST_POSSIBLE + 1)
    last = limit.last_paying(5.0)
    assert gains[last - 2] >= 5.0 > gains[last - 1]
    flat = np.minimum(1000.0 * n, 3500.0)
    ceiling = planning.Reading("bottleneck", bottleneck.fit(n, flat), kind="bottleneck", units="tasks")
    assert ceiling.shape == "ceiling" and ceiling.units_for(3000.0) == (3, "")
    assert ceiling.units_for(4000.0) == (None, "above the ceiling")
