"""Chapter analysis for units of work: loading the stated ranges, fits per operation, planning."""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import uow
from mqperf.errors import DataError, ModelError


def synthetic(t_c=2e-3, t_m=40e-6, batches=(1, 5, 20, 100), series="synthetic"):
    b = np.asarray(batches, dtype=float)
    return pd.DataFrame({"series": series, "msgs_per_commit": b, "rate_msg_s": b / (t_c + b * t_m)})


def write(tmp_path, frame, name="uow.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_book_points_keep_the_stated_ranges():
    points = uow.load_throughput("kafka_persistent_uow")
    by = points.set_index("point")
    put1 = by.loc["putter MQPUT/commit"]
    assert (put1["b_low"], put1["b_high"], put1["msgs_per_commit"], put1["rate_msg_s"]) == (2, 3, 2.5, 2271)
    put100 = by.loc["putter 100 MQPUTs/commit"]
    assert (put100["msgs_per_commit"], put100["rate_msg_s"]) == (250, 27396)
    chosen = uow.load_throughput("kafka_persistent_uow", b_put_commit=3)
    assert chosen.set_index("point").loc["putter MQPUT/commit", "msgs_per_commit"] == 3
    with pytest.raises(ModelError, match="2-3"):
        uow.load_throughput("kafka_persistent_uow", b_put_commit=5)


def test_book_fit_solves_the_two_equations_by_hand():
    fits = uow.fit_throughput(uow.load_throughput("kafka_persistent_uow"))
    table = uow.throughput_table(fits).iloc[0]
    # 1/X = t_m + t_c/b at (2.5, 2271) and (250, 27396).
    t_c = (1 / 2271 - 1 / 27396) / (1 / 2.5 - 1 / 250)
    t_m = 1 / 27396 - t_c / 250
    assert table["t_c_ms"] == pytest.approx(t_c * 1e3, rel=1e-3)
    assert table["t_m_us"] == pytest.approx(t_m * 1e6, rel=1e-3)
    assert table["x_max_msg_s"] == pytest.approx(1 / t_m, rel=1e-4)
    assert table["batch_for_90pct"] == pytest.approx(9 * t_c / t_m, rel=1e-3)
    assert table["pct_of_max_at_largest"] == pytest.approx(27396 * t_m * 100, rel=1e-3)
    assert table["df_resid"] == 0


def test_recovers_synthetic_parameters_with_intervals(tmp_path):
    fits = uow.fit_throughput(uow.load_throughput(write(tmp_path, synthetic(t_c=2e-3, t_m=40e-6))))
    row = uow.throughput_table(fits).iloc[0]
    assert row["t_c_ms"] == pytest.approx(2.0, rel=1e-3)
    assert row["t_m_us"] == pytest.approx(40.0, rel=1e-3)
    assert row["df_resid"] == 2


def test_sensitivity_reads_both_ends_of_the_range():
    table = uow.sensitivity(uow.load_throughput("kafka_persistent_uow"))
    assert len(table) == 3 and table["central"].sum() == 1
    # A larger stated unit of work at the slow point means a longer commit and a later 90 %.
    ordered = table.sort_values("t_c_ms")
    assert list(ordered["msgs_per_commit_read_as"]) == ["2 / 250", "2.5 / 250", "3 / 250"]
    assert ordered["batch_for_90pct"].is_monotonic_increasing


def test_sensitivity_is_empty_when_values_are_exact(tmp_path):
    assert uow.sensitivity(uow.load_throughput(write(tmp_path, synthetic()))).empty


def test_band_contains_the_central_fit():
    points = uow.load_throughput("kafka_persistent_uow")
    band = uow.curves(points, uow.fit_throughput(points), b_max=300)
    assert (band["lower"] <= band["fit"] + 1e-9).all() and (band["fit"] <= band["upper"] + 1e-9).all()
    assert (band["upper"] - band["lower"]).max() > 0


def test_log_bytes_fitted_per_operation_only():
    fits = uow.fit_log_bytes(uow.load_log_bytes("kafka_log_bytes"))
    by = {f.series: f for f in fits}
    assert by["put_commit"].result is None  # one point: cannot separate l_m and l_c
    get = by["get_commit"].result
    l_m = (10 * 178 - 492) / 9  # from 492 = l_m + l_c and 178 = l_m + l_c/10
    assert_allclose([get.l_m, get.l_c], [l_m, 492 - l_m], rtol=1e-6)
    table = uow.log_table(fits).set_index("operation")
    assert table.loc["get_commit", "batch_within_10pct_of_l_m"] == pytest.approx((492 - l_m) / (0.1 * l_m), rel=1e-2)


def test_mixed_fit_cannot_tell_put_from_get():
    result, table = uow.mixed_fit(uow.load_log_bytes("kafka_log_bytes"))
    at_one = table[table["msgs_per_commit"] == 1]
    # One curve gives one value at b = 1, the mean of 2088 and 492: wrong for both operations.
    assert at_one["mixed_fit_bytes"].nunique() == 1
    assert at_one["mixed_fit_bytes"].iloc[0] == pytest.approx((2088 + 492) / 2, rel=1e-3)
    assert (at_one["error_pct"].abs() > 30).all()
    assert result.df_resid == 1  # it even claims intervals
    assert uow.mixed_fit(uow.load_log_bytes("kafka_log_bytes").query("operation == 'get_commit'")) is None


def test_reader_log_bytes_come_from_the_data_file(tmp_path):
    frame = synthetic().assign(log_bytes_per_msg=lambda d: 150 + 300 / d["msgs_per_commit"], operation="get_commit")
    path = write(tmp_path, frame)
    log = uow.load_log_bytes("", data=path)
    assert len(log) == 4
    fit = uow.fit_log_bytes(log)[0].result
    assert_allclose([fit.l_m, fit.l_c], [150, 300], rtol=1e-6)
    assert uow.load_log_bytes("", data=write(tmp_path, synthetic(), "nolog.csv")).empty


def test_validate_leave_one_out_and_asymptote(tmp_path):
    points = uow.load_throughput(write(tmp_path, synthetic(t_c=2e-3, t_m=40e-6)))
    fits = uow.fit_throughput(points)
    refs = uow.reference_rates("", rate_msg_s=20000)
    table = uow.validate(points, fits, refs)
    loo = table[table["check"].str.startswith("leave out")]
    assert len(loo) == 4
    assert_allclose(loo["error_pct"].astype(float), 0, atol=0.01)
    asym = table[table["check"].str.startswith("X∞")].iloc[0]
    assert asym["error_pct"] == pytest.approx((25000 - 20000) / 20000 * 100, rel=1e-3)


def test_book_references_are_the_one_task_source_rates():
    refs = uow.reference_rates("book")
    assert sorted(refs["rate_msg_s"]) == [28000, 28776]
    with pytest.raises(ModelError):
        uow.reference_rates("elsewhere")
    with pytest.raises(ModelError):
        uow.reference_rates("", rate_msg_s=-1)


def test_plan_batch_rounds_up_to_reach_the_fraction(tmp_path):
    t_c, t_m = 2e-3, 40e-6
    fits = uow.fit_throughput(uow.load_throughput(write(tmp_path, synthetic(t_c=t_c, t_m=t_m))))
    plan = uow.plan_batch(fits, fraction=0.9, batches=[100])
    row = plan[plan["why"].str.startswith("reaches")].iloc[0]
    assert row["msgs_per_commit"] == math.ceil(9 * t_c / t_m)  # 450
    assert row["beyond_measured"]
    asked = plan[plan["why"] == "asked for"].iloc[0]
    assert asked["rate_msg_s"] == pytest.approx(100 / (t_c + 100 * t_m), rel=1e-4)
    with pytest.raises(ModelError):
        uow.plan_batch(fits, fraction=1.5)


def test_plan_log_bytes_and_rate():
    fits = uow.fit_log_bytes(uow.load_log_bytes("kafka_log_bytes"))
    table = uow.plan_log(fits, [250], rate_msg_s=10000).iloc[0]
    l_m = (10 * 178 - 492) / 9
    expected = l_m + (492 - l_m) / 250
    assert table["log_bytes_per_msg"] == pytest.approx(expected, rel=1e-3)
    assert table["log_mb_s"] == pytest.approx(expected * 10000 / 1024 / 1024, rel=1e-3)
    assert table["beyond_measured"]


def test_commit_time_what_if_reproduces_the_gain_and_predicts_less_at_large_batches():
    points = uow.load_throughput("kafka_persistent_uow")
    fit = uow.fit_throughput(points)[0]
    table = uow.commit_time_what_if(fit, b=2.5, gains_pct=[35, 55], b_other=[250])
    r = fit.result
    for row in table.itertuples():
        t_c_new = row.t_c_ms_after / 1e3
        x_new = 2.5 / (t_c_new + 2.5 * r.t_m)
        assert x_new == pytest.approx(2271 * (1 + row.gain_at_b_pct / 100), rel=1e-3)
    assert (table["gain_at_b250_pct"] < table["gain_at_b_pct"] / 5).all()
    with pytest.raises(ModelError, match="negative commit time"):
        uow.commit_time_what_if(fit, b=2.5, gains_pct=[5000])


def test_reader_errors(tmp_path):
    one_b = pd.DataFrame({"msgs_per_commit": [10, 10], "rate_msg_s": [100, 120]})
    with pytest.raises(ModelError, match="at least 2 distinct"):
        uow.fit_throughput(uow.load_throughput(write(tmp_path, one_b)))
    missing = pd.DataFrame({"msgs_per_commit": [1, 10]})
    with pytest.raises(DataError, match="rate_msg_s"):
        uow.load_throughput(write(tmp_path, missing, "missing.csv"))
