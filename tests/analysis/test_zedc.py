"""zEDC chapter analysis: effects by size, Hill fits, leave-one-out, recovery and zEDC capacity."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import zedc
from mqperf.errors import DataError, ModelError


def write(tmp_path, frame, name="zedc.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_book_effects_are_the_articles_table():
    e = zedc.load_effects("zedc_log_compression")
    tcb = e[e["metric"] == "qm_tcb_increase"]
    # "4KB 32KB 1MB 4MB ... +7% +26% +90% +100%"
    assert tcb["size_kb"].tolist() == [4, 32, 1024, 4096]
    assert tcb["pct"].tolist() == [7, 26, 90, 100]
    assert e[e["metric"] == "peak_throughput_increase"]["pct"].tolist() == [1, 2, 30, 45]


def test_hill_fit_recovers_a_known_curve(tmp_path):
    sizes = np.array([1, 4, 16, 64, 256, 1024, 4096])
    y = 80 / (1 + (100 / sizes) ** 1.2)  # y_max 80 %, half effect at 100 KB, steepness 1.2
    path = write(tmp_path, pd.DataFrame({"message_size_bytes": sizes * 1024, "qm_tcb_increase_pct": y}))
    fits = zedc.fit_effects(zedc.load_effects(path))
    r = fits["qm_tcb_increase"]
    assert_allclose([r.y_max, r.s50, r.h], [80, 100, 1.2], rtol=1e-4)


def test_book_fits_have_one_residual_degree_of_freedom():
    fits = zedc.fit_effects(zedc.load_effects("zedc_log_compression"))
    table = zedc.fits_table(fits).set_index("effect")
    # Four sizes, three parameters.
    assert (table["df_resid"] == 1).all()
    lo_hi = table.loc["queue manager TCB cost increase", "s50_ci95_kb"]
    assert "to" in lo_hi  # an interval exists with one degree of freedom


def test_leave_one_out_predicts_the_held_out_size_only():
    loo = zedc.leave_one_out(zedc.load_effects("zedc_log_compression"))
    assert len(loo) == 8
    # Each refit has three sizes for three parameters: it passes through them, so a held-out
    # prediction equal to the measurement would mean the point was not held out.
    assert (loo["error_points"].abs() > 0).all()


def test_cpu_per_message_by_hand():
    table = zedc.cpu_per_message(zedc.load_effects("zedc_log_compression")).set_index("size_kb")
    assert table.loc[4096, "cpu_per_message_increase_pct"] == pytest.approx((2.00 / 1.45 - 1) * 100, abs=0.05)  # 3 significant digits
    assert table.loc[4, "cpu_per_message_increase_pct"] == pytest.approx((1.07 / 1.01 - 1) * 100, abs=0.005)


def test_recovery_plan_reads_e039_both_ways():
    rec = zedc.load_recovery()
    plan = zedc.recovery_plan(rec, 4096, cost_unit="us")
    us = plan.set_index("archives")
    assert us.loc["uncompressed", "recovery_s"] == pytest.approx(4096 / 88, rel=1e-3)
    assert us.loc["zedc_compressed", "cpu_s"] == pytest.approx(4096 * 1900e-6, rel=1e-3)
    assert us["possible_on_measured_3_cps"].all()
    ms = zedc.recovery_plan(rec, 4096, cost_unit="ms").set_index("archives")
    # 860 CPU ms per MB at 88 MB/s is 75.7 CPU seconds a second: not on a 3-CP z13.
    assert ms.loc["uncompressed", "cpu_share_of_one_cp"] == pytest.approx(0.860 * 88, rel=1e-3)
    assert not ms["possible_on_measured_3_cps"].any()
    assert zedc.recovery_ratio(plan)["time_ratio"] == pytest.approx(88 / 27, rel=1e-3)
    with pytest.raises(ModelError):
        zedc.recovery_plan(rec, 4096, cost_unit="s")


def test_zedc_capacity_features():
    table = zedc.zedc_capacity({"incompressible": 65.0}, queue_managers=2, max_util=0.5)
    # 2 x 65 % = 1.3 features' worth of work; at most 50 % busy needs 3 features.
    best = table[table["meets_max_util"]].iloc[0]
    assert best["features"] == 3
    assert table[table["features"] == 1]["stretch_R_over_S"].iloc[0] == "unstable"


def test_reader_file_errors(tmp_path):
    bad = write(tmp_path, pd.DataFrame({"message_size_bytes": [4096], "throughput": [1]}))
    with pytest.raises(DataError, match="qm_tcb_increase_pct"):
        zedc.load_effects(bad)
    two = write(tmp_path, pd.DataFrame({"message_size_bytes": [4096, 8192], "qm_tcb_increase_pct": [5, 9]}), "two.csv")
    with pytest.raises(ModelError, match="3 distinct sizes"):
        zedc.fit_effects(zedc.load_effects(two))
