"""Chapter analysis for client connection costs: configurations, regressions, increments,
address spaces, refused connections and the connection-storm calculator."""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import connections as cc
from mqperf.errors import DataError, ModelError


def write(tmp_path, frame, name="mine.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def configs():
    return cc.load_configurations("client_conn_costs")


def cost(frame, sharecnv, listener, tls=False, suppress=False):
    row = frame[(frame["sharecnv"] == sharecnv) & (frame["listener"] == listener) & (frame["tls"] == tls)
                & (frame["suppress_x511"] == suppress)]
    assert len(row) == 1
    return float(row["cpu_us"].iloc[0])


def test_book_configurations(configs):
    assert len(configs) == 12
    # Seed 003's worked example: local listener, SHARECNV(0), with TLS "for a total of 890".
    assert cost(configs, 0, "local", tls=True) == 890
    assert cost(configs, 1, "shared", suppress=True) == 1350 - 140
    assert set(configs.loc[configs["tls"] | configs["suppress_x511"], "basis"]) == {"derived"}


def test_regressions_on_the_basic_table(configs):
    fits = cc.fit_basic(cc.basic_rows(configs))
    inter, _ = fits["interaction"]
    add, _ = fits["additive"]
    assert inter.exactly_identified and add.df_resid == 1
    # Read off the table by hand: 510 base, +80 SHARECNV(1), +590 shared, 1350-1100-590+510 = 170 together.
    assert_allclose(inter.params.to_numpy(), [510, 80, 590, 170], atol=1e-9)
    table = cc.models_table(fits).set_index("model")
    assert table.loc["interaction", "max_abs_resid_us"] == 0
    assert_allclose(table.loc["additive", "max_abs_resid_us"], 170 / 4)
    fitted = cc.fitted_table(fits, cc.basic_rows(configs))
    assert (fitted["interaction_resid_us"] == 0).all()


def test_leave_one_cell_out_shows_the_interaction(configs):
    loo = cc.leave_one_cell_out(cc.basic_rows(configs)).set_index(["sharecnv", "listener"])
    # Without the SHARECNV(1) shared cell the additive model says 1100 + 590 - 510.
    assert_allclose(loo.loc[(1, "shared"), "predicted_us"], 1180)
    assert_allclose(loo.loc[(1, "shared"), "error_pct"], (1180 - 1350) / 1350 * 100, rtol=1e-3)
    assert loo["note"].eq("").all()


def test_increments(configs):
    inc = cc.increments(configs).set_index(["sharecnv", "listener"])
    assert list(inc["tls_increment_us"]) == [380, 400, 380, 400]
    assert list(inc["suppress_x511_increment_us"]) == [-130, -140, -130, -140]
    assert_allclose(inc.loc[(0, "local"), "tls_increment_pct"], 380 / 510 * 100, rtol=1e-3)


def test_address_spaces_match_sharecnv_0(configs):
    spaces = cc.address_spaces("client_conn_address_space")
    check = cc.address_space_check(spaces, cc.basic_rows(configs))
    local0 = check[(check["sharecnv"] == 0) & (check["listener"] == "local")].iloc[0]
    assert local0["address_spaces_us"] == 13 + 460 + 1
    inc0 = check[(check["sharecnv"] == 0) & (check["listener"] == "shared − local")].iloc[0]
    assert inc0["address_spaces_us"] == (348 - 13) + (527 - 460) + (181 - 1)
    assert inc0["not_in_those_spaces_us"] == 590 - 582


def test_refused_connections_against_successful(configs):
    blocked = cc.load_blocked("client_conn_blocked")
    table = cc.blocked_table(blocked, cc.basic_rows(configs))
    chl = table[table["method"] == "CHLAUTH block"].set_index("sharecnv")
    # Erratum E038: the printed "300-400 microsecond increase" against 800-510 and 1500-590.
    assert list(chl["difference_us"]) == [290, 910]
    assert table[table["method"] == "invalid protocol"]["sharecnv"].iloc[0] == "not stated"


def test_refusal_models(configs):
    fits = cc.fit_blocked(cc.load_blocked("client_conn_blocked"))
    mult = fits["multiplicative (log µs)"]
    # Balanced 2x2 in logs: the SHARECNV effect is the mean of the two log ratios.
    assert_allclose(math.exp(mult.params["C(sharecnv)[T.1]"]), math.sqrt(1500 / 800 * 850 / 440), rtol=1e-9)
    t = cc.blocked_fit_table(fits).set_index("model")
    assert t.loc["multiplicative (log µs)", "max_abs_resid_pct"] < t.loc["additive (µs)", "max_abs_resid_pct"]


def test_storm_calculator(configs):
    table = pd.DataFrame({"scenario": ["a", "b"], "cpu_us": [510.0, 1750.0]})
    out = cc.storm(1000, table, max_utilisation=0.8).set_index("scenario")
    assert_allclose(out.loc["a", "busy_engines"], 0.51)
    assert_allclose(out.loc["a", "cpu_s_per_hour"], 1000 * 510e-6 * 3600)
    assert out.loc["a", "engines_needed"] == 1
    out2 = cc.storm(2000, table, max_utilisation=0.8).set_index("scenario")
    assert out2.loc["b", "engines_needed"] == math.ceil(2000 * 1750e-6 / 0.8)
    assert_allclose(cc.rate_for_engines(1, 500), 2000)
    with pytest.raises(ModelError):
        cc.storm(-1, table, max_utilisation=0.8)


def test_scenarios_cover_successful_and_refused(configs):
    s = cc.scenarios(configs, cc.load_blocked("client_conn_blocked"))
    assert (s["kind"] == "successful").sum() == 12 and (s["kind"] == "refused").sum() == 5


def test_reader_file_with_one_factor(tmp_path):
    path = write(tmp_path, pd.DataFrame({"sharecnv": [0, 1, 0, 1], "listener": ["local"] * 4,
                                         "cpu_us": [500, 600, 520, 580], "tls": ["false"] * 4}))
    configs = cc.load_configurations(path)
    # Repeated rows of a configuration are one observation: their mean, with the count kept.
    assert list(configs["n"]) == [2, 2] and list(configs["cpu_us"]) == [510.0, 590.0]
    fits = cc.fit_basic(cc.basic_rows(configs))
    assert fits["interaction"][0] is None and "one factor" in fits["interaction"][1]
    add = fits["additive"][0]
    assert_allclose(add.params["C(sharecnv)[T.1]"], (600 + 580) / 2 - (500 + 520) / 2)
    assert add.df_resid == 0 and add.exactly_identified


def test_reader_file_missing_listener(tmp_path):
    path = write(tmp_path, pd.DataFrame({"sharecnv": [0], "cpu_us": [500]}))
    with pytest.raises(DataError, match="listener"):
        cc.load_configurations(path)


def test_nothing_varies(tmp_path):
    path = write(tmp_path, pd.DataFrame({"sharecnv": [0, 0], "listener": ["local", "local"], "cpu_us": [500, 510]}))
    with pytest.raises(ModelError, match="neither"):
        cc.fit_basic(cc.basic_rows(cc.load_configurations(path)))


def test_replicates_enter_increments_and_scenarios_once(tmp_path):
    path = write(tmp_path, pd.DataFrame({"sharecnv": [0, 0, 0, 1], "listener": ["local"] * 4,
                                         "cpu_us": [500, 520, 890, 600], "tls": ["false", "false", "true", "false"]}))
    configs = cc.load_configurations(path)
    inc = cc.increments(configs)
    assert len(inc) == 2
    assert_allclose(inc.set_index("sharecnv").loc[0, "tls_increment_us"], 890 - 510)
    s = cc.scenarios(configs, cc.load_blocked(""))
    assert len(s) == 3
    assert_allclose(s.set_index("scenario").loc["connect SHARECNV(0) local", "cpu_us"], 510)


def test_storm_curves_are_rate_times_cost_and_capped_in_series():
    table = pd.DataFrame({"scenario": [f"s{i}" for i in range(10)], "cpu_us": np.arange(1, 11) * 100.0})
    curves = cc.storm_curves(table, max_rate=2000)
    assert curves["scenario"].nunique() == 8
    last = curves[(curves["scenario"] == "s1") & (curves["attempts_per_s"] == 2000)]
    assert_allclose(last["busy_engines"], 2000 * 200e-6)
