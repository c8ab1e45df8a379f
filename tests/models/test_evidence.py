"""Evidence rules: each claim is made at about its stated false-alarm rate, and found when true."""

from __future__ import annotations

import numpy as np
import pytest

from mqperf.models import evidence, usl


def _rate(verdicts) -> float:
    return float(np.mean([bool(v) for v in verdicts]))


def test_decline_is_not_claimed_for_points_that_level_off():
    """A ceiling with 2 % noise: the USL fit bends, but the points do not fall beyond their noise.

    With the level set at 5 %, a flat tail makes the claim in at most about one set in ten
    (the minimum of several noisy points after the maximum is tested, which the t-test's
    single drop does not account for; the bound leaves room for that)."""
    rng = np.random.default_rng(7)
    n = np.arange(1, 13, dtype=float)
    verdicts = []
    for _ in range(120):
        x = np.minimum(1000 * n, 2500) * (1 + rng.normal(0, 0.02, n.size))
        fit = usl.fit(n, x)
        verdicts.append(evidence.decline(n, x, noise_sd=fit.rmse, df=fit.df_resid))
    assert _rate(verdicts) <= 0.15


def test_a_real_decline_is_found():
    rng = np.random.default_rng(8)
    n = np.array([1, 2, 4, 6, 8, 12, 16], dtype=float)
    verdicts = []
    for _ in range(80):
        x = usl.throughput(n, 1000, 0.05, 0.02) * (1 + rng.normal(0, 0.01, n.size))  # falls 25 % by 16
        fit = usl.fit(n, x)
        verdicts.append(evidence.decline(n, x, noise_sd=fit.rmse, df=fit.df_resid))
    assert _rate(verdicts) >= 0.95


def test_decline_edge_cases_say_why():
    assert not evidence.decline([1], [5.0], noise_sd=1.0, df=3)
    rising = evidence.decline([1, 2, 3], [1.0, 2.0, 3.0], noise_sd=0.1, df=1)
    assert not rising and "largest rate is at the largest measured" in rising.test
    unknown = evidence.decline([1, 2, 3], [1.0, 3.0, 2.0], noise_sd=None, df=0)
    assert not unknown and "cannot be told from scatter" in unknown.test
    exact = evidence.decline([1, 2, 3], [1.0, 3.0, 2.0], noise_sd=0.0, df=0)
    assert exact and "any drop is real" in exact.test


def test_sign_and_identification():
    assert evidence.sign(0.1, 2.0) == "positive" and evidence.sign(-3, -1) == "negative"
    assert evidence.sign(-2.24, 1.45) == "cannot tell" and evidence.sign(float("nan"), 1) == "cannot tell"
    assert evidence.identified(200.0, 300.0)
    assert not evidence.identified(-20.8e6, 21.3e6)  # the TLS size constant when every ratio is 1
    assert not evidence.identified(1.0, 50.0)
    assert "spans a factor" in evidence.identified(1.0, 50.0).test


def _two_way(effect: float, rng, reps: int = 3):
    """SHARECNV (3 levels) × listener (2 levels), ``reps`` replicates per cell, 3 µs noise."""
    rows = []
    for a, base_a in enumerate((0.0, 20.0, 40.0)):
        for b, base_b in enumerate((0.0, 60.0)):
            mean = 500 + base_a + base_b + effect * a * b
            rows += [(a, b, mean + rng.normal(0, 3.0)) for _ in range(reps)]
    return np.array(rows)


def _f_inputs(data):
    import pandas as pd
    import statsmodels.formula.api as smf

    frame = pd.DataFrame(data, columns=["a", "b", "y"])
    additive = smf.ols("y ~ C(a) + C(b)", frame).fit()
    cells = frame.groupby(["a", "b"])["y"]
    pure = float(((frame["y"] - cells.transform("mean")) ** 2).sum())
    return additive.ssr, int(additive.df_resid), pure, int(len(frame) - cells.ngroups)


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
@pytest.mark.parametrize("effect,low,high", [(0.0, 0.0, 0.10), (15.0, 0.9, 1.0)], ids=["additive", "interaction"])
def test_interaction_is_claimed_at_its_level_and_found_when_there(effect, low, high):
    rng = np.random.default_rng(11)
    verdicts = [evidence.interaction(*_f_inputs(_two_way(effect, rng))) for _ in range(200)]
    assert low <= _rate(verdicts) <= high


def test_interaction_needs_replicates():
    rng = np.random.default_rng(1)
    v = evidence.interaction(*_f_inputs(_two_way(0.0, rng, reps=1)))
    assert not v and "no cell has replicates" in v.test


def test_within():
    assert evidence.within(0.763, 1, 8) == "below"
    assert evidence.within(9, 1, 8) == "above" and evidence.within(4, 1, 8) == "within"
