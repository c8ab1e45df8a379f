"""Chapter analysis for latch contention and more CPUs: loading, M/M/c against RMF, the
load-factor calibration and its cross-validation, CPU planning, latch growth."""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import latches
from mqperf.errors import DataError, ModelError


def erlang_c_textbook(c: int, a: float) -> float:
    """Erlang C from the factorial formula (Kleinrock), independent of mqperf.models.queueing."""
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def share_textbook(c: int, a: float) -> float:
    """P(N ≤ c) in M/M/c = 1 − ρ·C(c, A), in percent."""
    return (1 - a / c * erlang_c_textbook(c, a)) * 100


def write(tmp_path, frame, name="mine.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


# -- CPU runs -------------------------------------------------------------------------------

def test_book_cpu_runs_combine_rmf_figures_and_rates():
    runs = latches.load_cpu_runs("kafka_cpu_experiment")
    assert list(runs["gp_cpus"]) == [3, 6]
    # Seed 000: 3 CPUs 75 % busy at 30,592 msg/s, 6 CPUs 47 % busy at 41,995 msg/s.
    assert_allclose(runs["busy_cpus"], [2.25, 2.82])
    assert_allclose(runs["rate_msg_s"], [30592, 41995])
    assert_allclose(runs["sufficient_pct"], [45, 65])
    assert_allclose(runs["cpu_us_per_msg"], [2.25 / 30592 * 1e6, 2.82 / 41995 * 1e6])


def test_mmc_comparison_matches_the_factorial_formula():
    runs = latches.load_cpu_runs("kafka_cpu_experiment")
    table = latches.mmc_comparison(runs)
    assert_allclose(table["mmc_sufficient_pct"], [share_textbook(3, 2.25), share_textbook(6, 2.82)], rtol=2e-3)
    assert_allclose(table["mmc_prob_wait"], [erlang_c_textbook(3, 2.25), erlang_c_textbook(6, 2.82)], rtol=2e-3)
    # Poisson work would have had enough CPUs more often than RMF saw, at both CPU counts.
    assert (table["difference_pts"] > 0).all()


def test_calibrated_load_factor_reproduces_its_run():
    k = latches.calibrate_load_factor(3, 2.25, 45)
    assert k > 1  # burstier than Poisson: more waiting than M/M/c at the measured load
    assert_allclose(share_textbook(3, 2.25 * k), 45, rtol=1e-6)


@pytest.mark.parametrize("share", [0, 100])
def test_calibration_refuses_shares_no_k_reproduces(share):
    with pytest.raises(ModelError, match="cannot be calibrated"):
        latches.calibrate_load_factor(3, 2.25, share)


def test_cross_calibration_predicts_each_run_from_the_other():
    runs = latches.load_cpu_runs("kafka_cpu_experiment")
    table = latches.cross_calibration(runs)
    assert len(table) == 2
    k3 = latches.calibrate_load_factor(3, 2.25, 45)
    row = table[table["calibrated_on"].str.startswith("3 CPUs")].iloc[0]
    assert_allclose(row["predicted_pct"], share_textbook(6, 2.82 * k3), rtol=2e-3)
    # The correction calibrated on 3 CPUs does not carry over: it predicts far more than 65 %.
    assert row["error_pts"] > 20


def test_cpus_for_share_is_the_smallest_count_meeting_the_target():
    need = latches.cpus_for_share(80, 2.82)
    assert share_textbook(need, 2.82) >= 80
    assert need - 1 <= 2.82 or share_textbook(need - 1, 2.82) < 80
    # Scaling the load up can only raise the answer.
    assert latches.cpus_for_share(80, 2.82, load_factor=1.6) >= need
    assert latches.cpus_for_share(99.999, 50, max_cpus=4) is None
    with pytest.raises(ModelError):
        latches.cpus_for_share(100, 2.0)


def test_more_cpus_table_changes():
    t = latches.more_cpus_table(latches.load_cpu_runs("kafka_cpu_experiment")).set_index("quantity")
    assert_allclose(t.loc["throughput (msg/s)", "change_pct"], (41995 / 30592 - 1) * 100, rtol=1e-2)
    assert_allclose(t.loc["busy CPUs", "change_pct"], (2.82 / 2.25 - 1) * 100, rtol=1e-2)
    assert t.loc["CPU per message (us)", "change_pct"] < 0


def test_reader_cpu_file(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [70, 40], "sufficient_pct": [50, 85]}))
    runs = latches.load_cpu_runs(path)
    assert list(runs["label"]) == ["4 CPUs", "8 CPUs"]
    assert_allclose(runs["busy_cpus"], [2.8, 3.2])
    assert runs["cpu_us_per_msg"].isna().all()
    assert len(latches.cross_calibration(runs)) == 2


def test_reader_cpu_file_missing_column(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4], "busy_pct": [70]}))
    with pytest.raises(DataError, match="sufficient_pct"):
        latches.load_cpu_runs(path)


# -- latches --------------------------------------------------------------------------------

def test_book_latch_growth_uses_the_seconds_and_keeps_the_printed_percentage():
    data = latches.load_latches("kafka_latch_contention")
    assert data.run_s == 180  # "for 3 minutes"
    g = latches.growth_table(data).set_index("latch")
    l19 = g.loc[[i for i in g.index if i.startswith("latch 19")][0]]
    assert l19["printed_pct"] == 50
    assert_allclose(l19["measured_pct"], (449 / 293 - 1) * 100, rtol=1e-3)  # erratum E002: 53 %, not 50 %
    assert_allclose(l19["exponent_b"], math.log(449 / 293) / math.log(5 / 4), rtol=1e-3)
    # N(N-1) from 4 to 5: 20/12 = +66.7 %; proportional to N: +25 %.
    assert_allclose(g["coherency_pct"], (20 / 12 - 1) * 100, rtol=1e-3)
    assert_allclose(g["proportional_pct"], 25)
    l12 = g.loc[[i for i in g.index if i.startswith("latch 12")][0]]
    assert l12["from"] == "printed %" and l12["measured_pct"] == 160


def test_coherency_check_errors_and_verdicts():
    check = latches.coherency_check(latches.growth_table(latches.load_latches("kafka_latch_contention")))
    by = {r.latch.split()[1]: r for r in check.itertuples()}
    assert_allclose(by["12"].error_pct, (20 / 12 - 2.6) / 2.6 * 100, rtol=1e-3)
    assert by["12"].verdict == "faster than pairwise"
    assert by["31"].verdict == "about pairwise (coherency)"


def test_little_law_waiters():
    data = latches.load_latches("kafka_latch_contention")
    w = latches.waiters(data, data.run_s)
    assert_allclose(w["mean_waiting"], [293 / 180, 449 / 180], rtol=1e-2)


def test_cpu_effects_from_the_book():
    effects = latches.load_latches("kafka_latch_contention").cpu_effect
    avg = effects[effects["statistic"] == "avg latch time"].iloc[0]
    assert (avg["decrease_low_pct"], avg["decrease_high_pct"]) == (75, 90)


def test_reader_latch_file_fits_and_validates(tmp_path):
    n = np.array([2, 3, 4, 6, 8])
    frame = pd.DataFrame({"latch": "L1", "tasks": n, "latch_s": 3.0 * n * (n - 1)})
    data = latches.load_latches(write(tmp_path, frame))
    fits = latches.fit_power_laws(data)
    assert not fits["L1"].exactly_identified
    loo = latches.power_law_loo(data)
    assert len(loo) == 5 and loo["predicted_s"].notna().all()
    g = latches.growth_table(data)
    assert len(g) == 4  # consecutive task counts
    # The data are exactly N(N-1): the parameter-free check has no error.
    assert_allclose(latches.coherency_check(g)["error_pct"], 0, atol=1e-6)


def test_no_latch_data_gives_empty_tables():
    data = latches.load_latches("")
    assert data.times.empty and latches.growth_table(data).empty
    assert latches.waiters(data, 180).empty
