"""Cost regression on configuration factors (statsmodels) and the capacity calculator."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import costs

# Seed 003, "Summary cost of connecting a client": BASIC row, CPU µs per MQCONNX + MQDISC.
BASIC = pd.DataFrame(
    {
        "sharecnv": [0, 0, 1, 1],
        "listener": ["local", "shared", "local", "shared"],
        "cpu_us": [510.0, 1100.0, 590.0, 1350.0],
    }
)


def test_interaction_model_on_the_seed_table_is_exactly_identified():
    res = costs.fit(BASIC, costs.interaction_formula("cpu_us", ["sharecnv", "listener"]))
    # Four cells, four parameters; treatment coding read off the table by hand:
    # base 510, SHARECNV(1) +80, shared listener +590, both together a further 1350 - 1100 - 80 = 170.
    assert_allclose(res.params.to_numpy(), [510.0, 80.0, 590.0, 170.0], rtol=1e-10)
    assert res.exactly_identified
    assert res.bse.isna().all() and res.conf_int().isna().all().all()
    card = res.to_card()
    assert all(p["ci95"] == [None, None] for p in card["parameters"].values())
    band = res.conf_band(BASIC[["sharecnv", "listener"]])
    assert band[["lower", "upper"]].isna().all().all()


def test_additive_model_on_the_seed_table():
    res = costs.fit(BASIC, costs.additive_formula("cpu_us", ["sharecnv", "listener"]))
    # Balanced 2x2: each effect is the mean of its two differences; residuals are ±interaction/4.
    listener = ((1100 - 510) + (1350 - 590)) / 2
    sharecnv = ((590 - 510) + (1350 - 1100)) / 2
    intercept = np.mean(BASIC["cpu_us"]) - listener / 2 - sharecnv / 2
    assert_allclose(res.params.to_numpy(), [intercept, sharecnv, listener], rtol=1e-10)
    assert_allclose(np.abs(res.resid), 170 / 4, rtol=1e-10)
    assert res.df_resid == 1
    # s² = 4·42.5² / 1; an effect is a difference of two means of two cells: var = s²(1/2 + 1/2).
    assert_allclose(res.bse.iloc[1:].to_numpy(), [np.sqrt(4 * 42.5**2)] * 2, rtol=1e-10)
    assert_allclose(res.cost_for(sharecnv=1, listener="shared"), intercept + sharecnv + listener, rtol=1e-10)
    band = res.conf_band(pd.DataFrame({"sharecnv": [0], "listener": ["local"]}))
    assert band["lower"].iloc[0] < intercept < band["upper"].iloc[0]


def test_recovers_effects_from_replicated_noisy_factorial():
    rng = np.random.default_rng(42)
    grid = pd.MultiIndex.from_product([[0, 1], ["local", "shared"], ["no", "yes"]], names=["sharecnv", "listener", "tls"]).to_frame(index=False)
    data = pd.concat([grid] * 5, ignore_index=True)
    truth = 500 + 80 * data["sharecnv"] + 600 * (data["listener"] == "shared") + 380 * (data["tls"] == "yes")
    data["cpu_us"] = truth + rng.normal(0, 10, len(data))
    res = costs.fit(data, costs.additive_formula("cpu_us", ["sharecnv", "listener", "tls"]))
    # Each estimate within 4 standard errors of the truth (not the 95 % interval: with four
    # parameters one of them misses it one time in five).
    assert np.all(np.abs(res.params.to_numpy() - [500, 80, 600, 380]) < 4 * res.bse.to_numpy())
    assert_allclose(res.rmse, 10, rtol=0.3)
    # Balanced design: each main effect is the difference of the two level means.
    shared = data.groupby("listener")["cpu_us"].mean()
    assert_allclose(res.params["C(listener)[T.shared]"], shared["shared"] - shared["local"], rtol=1e-10)


def test_missing_cell_makes_the_interaction_unidentified():
    with pytest.raises(ModelError, match="identify only"):
        costs.fit(pd.concat([BASIC.iloc[:3]] * 2, ignore_index=True), costs.interaction_formula("cpu_us", ["sharecnv", "listener"]))


@pytest.mark.parametrize(
    "mutate, formula, match",
    [
        (lambda d: d.assign(cpu_us=[510.0, 0.0, 590.0, 1350.0]), "cpu_us ~ C(listener)", "greater than zero"),
        (lambda d: d.assign(cpu_us=[510.0, np.nan, 590.0, 1350.0]), "cpu_us ~ C(listener)", "missing"),
        (lambda d: d, "cost ~ C(listener)", "not in the data"),
        (lambda d: d.iloc[:3], "cpu_us ~ C(sharecnv) * C(listener)", "parameters but only"),
        (lambda d: d, "cpu_us ~ C(nonexistent)", "cannot build"),
    ],
)
def test_bad_input_raises_model_error(mutate, formula, match):
    with pytest.raises(ModelError, match=match):
        costs.fit(mutate(BASIC), formula)


def test_capacity_calculator():
    # 100 connections/s at seed 003's 510 µs: 0.051 CPU s per s = 183.6 CPU s per hour.
    assert_allclose(costs.cpu_seconds_per_hour(100, 510), 100 * 510e-6 * 3600, rtol=1e-12)
    busy, engines = costs.engines_needed(2000, 1100, max_utilisation=0.75)
    assert_allclose(busy, 2.2, rtol=1e-12)
    assert engines == 3  # 2.2 / 0.75 = 2.93
    busy, engines = costs.engines_needed(1000, 1000)
    assert engines == 1  # exactly one engine busy is one engine, not two
    table = costs.capacity_table([0, 1000, 5000], 890)
    assert list(table["engines_needed"]) == [0, 1, 5]


@pytest.mark.parametrize("rate, cost, util", [(-1, 500, 1.0), (100, 0, 1.0), (100, 500, 0.0), (100, 500, 1.2)])
def test_capacity_calculator_rejects_bad_input(rate, cost, util):
    with pytest.raises(ModelError):
        costs.engines_needed(rate, cost, max_utilisation=util)
