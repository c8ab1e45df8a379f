"""Chapter analysis for message size: unit conversions, validation, planning, reader files."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.analysis import message_size as ms
from mqperf.errors import DataError, ModelError


def synthetic(a_s=20e-6, bw_mb_s=150.0, sizes_kb=(1, 4, 16, 64), series="synthetic"):
    """Rates exactly on t(s) = a + s/B, computed here, not by the module."""
    sizes = np.asarray(sizes_kb, dtype=float)
    bw = bw_mb_s * 1024 * 1024
    rate = 1.0 / (a_s + sizes * 1024 / bw)
    return pd.DataFrame({"series": series, "msg_size_kb": sizes, "rate_msg_s": rate})


def write(tmp_path, frame, name="mine.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_book_data_labels_series_and_keeps_printed_mb(tmp_path):
    points = ms.load_points("kafka_message_size")
    assert list(points["series"].unique()) == ["source peak nonpersistent", "sink peak nonpersistent"]
    assert len(points) == 6
    # The sink's 1 KB row: 38,355 msg/s x 1 KB = 37.46 MB/s, printed as 38 (erratum E010).
    row = points[(points["series"].str.startswith("sink")) & (points["msg_size_kb"] == 1)].iloc[0]
    assert row["approx_mb_s"] == 38
    assert_allclose(row["mb_s"], 38355 / 1024)


def test_printed_mb_check_flags_only_the_erratum_row():
    check = ms.printed_mb_check(ms.load_points("kafka_message_size"))
    wrong = check[~check["agrees"]]
    assert len(wrong) == 1
    assert wrong.iloc[0]["series"].startswith("sink") and wrong.iloc[0]["msg_size_kb"] == 1


def test_recovers_parameters_in_chapter_units(tmp_path):
    points = ms.load_points(write(tmp_path, synthetic(a_s=25e-6, bw_mb_s=120.0)))
    fits = ms.fit_series(points)
    table = ms.fits_table(fits).iloc[0]
    assert table["fixed_us_per_msg"] == pytest.approx(25.0, rel=1e-3)
    assert table["bandwidth_mb_s"] == pytest.approx(120.0, rel=1e-3)
    # Half-size a*B in KB: 25e-6 s * 120 MB/s = 3e-3 MB = 3.072 KB.
    assert table["half_size_kb"] == pytest.approx(25e-6 * 120 * 1024, rel=1e-2)
    # 90 % of B at 9 x the half size.
    assert table["size_for_90pct_kb"] == pytest.approx(9 * 25e-6 * 120 * 1024, rel=1e-2)
    assert table["df_resid"] == 2


def test_two_sizes_are_exactly_identified_with_no_interval(tmp_path):
    frame = pd.DataFrame({"msg_size_kb": [1, 32], "rate_msg_s": [28776, 3750]})
    fits = ms.fit_series(ms.load_points(write(tmp_path, frame)))
    params = ms.parameter_table(fits)
    assert params["ci95_lower"].isna().all() and params["ci95_upper"].isna().all()
    # Straight line through the times per message, solved by hand.
    t1, t2 = 1 / 28776, 1 / 3750
    slope = (t2 - t1) / (31 * 1024)  # seconds per byte
    a = t1 - 1024 * slope
    est = params.set_index("parameter")["estimate"]
    assert est["a"] == pytest.approx(a * 1e6, rel=1e-3)
    assert est["B"] == pytest.approx(1 / slope / 1024 / 1024, rel=1e-3)
    assert "exactly identified" in fits[0].reason


def test_leave_one_out_is_exact_on_exact_data_and_labels_position(tmp_path):
    points = ms.load_points(write(tmp_path, synthetic()))
    loo = ms.leave_one_out(points)
    assert len(loo) == 4
    assert_allclose(loo["error_pct"].astype(float), 0, atol=0.01)
    positions = dict(zip(loo["msg_size_kb"], loo["left_out_size"]))
    assert positions[1.0].startswith("below") and positions[64.0].startswith("above")
    assert positions[4.0].startswith("inside") and positions[16.0].startswith("inside")


def test_leave_one_out_on_book_data_shows_small_size_extrapolation_is_worst():
    loo = ms.leave_one_out(ms.load_points("kafka_message_size"))
    sink = loo[loo["series"].str.startswith("sink")].set_index("msg_size_kb")
    # From 10 KB and 32 KB alone the sink's fixed cost is nearly lost: 1 KB is over-predicted.
    assert sink.loc[1.0, "error_pct"] > 50
    assert abs(sink.loc[10.0, "error_pct"]) < abs(sink.loc[1.0, "error_pct"])


def test_plan_rate_and_mb_and_range_flag(tmp_path):
    points = ms.load_points(write(tmp_path, synthetic(a_s=20e-6, bw_mb_s=150.0)))
    plan = ms.plan(ms.fit_series(points), [8, 256]).set_index("msg_size_kb")
    expected_rate = 1 / (20e-6 + 8 * 1024 / (150 * 1024 * 1024))
    assert plan.loc[8.0, "rate_msg_s"] == pytest.approx(expected_rate, rel=1e-3)
    assert plan.loc[8.0, "mb_s"] == pytest.approx(expected_rate * 8 / 1024, rel=1e-3)
    assert bool(plan.loc[8.0, "within_measured"]) and not bool(plan.loc[256.0, "within_measured"])
    # Fixed share of the time per message at 8 KB.
    t = 20e-6 + 8 * 1024 / (150 * 1024 * 1024)
    assert plan.loc[8.0, "fixed_share_pct"] == pytest.approx(20e-6 / t * 100, rel=1e-2)
    with pytest.raises(ModelError):
        ms.plan(ms.fit_series(points), [0])


def test_curves_never_go_below_zero():
    fits = ms.fit_series(ms.load_points("kafka_message_size"))
    band = ms.curves(fits, kb_max=64)
    assert (band["lower"].dropna() >= 0).all()
    mb = ms.byte_curves(fits, kb_max=64)
    row = mb.iloc[-1]
    assert row["x"] == 64 and row["fit"] == pytest.approx(band.iloc[-1]["fit"] * 64 / 1024)


def test_single_size_series_is_not_fitted_and_none_fittable_raises(tmp_path):
    one = pd.DataFrame({"series": ["a", "a"], "msg_size_kb": [4, 4], "rate_msg_s": [100, 110]})
    with pytest.raises(ModelError, match="at least 2 distinct message sizes"):
        ms.fit_series(ms.load_points(write(tmp_path, one)))
    mixed = pd.concat([one, synthetic(series="b")], ignore_index=True)
    fits = ms.fit_series(ms.load_points(write(tmp_path, mixed, "mixed.csv")))
    by = {f.series: f for f in fits}
    assert by["a"].result is None and by["b"].result is not None


def test_rates_rising_with_size_cannot_be_fitted(tmp_path):
    frame = pd.DataFrame({"msg_size_kb": [1, 10, 32], "rate_msg_s": [100, 200, 400]})
    with pytest.raises(ModelError):
        ms.fit_series(ms.load_points(write(tmp_path, frame)))


def test_reader_file_missing_a_required_column_is_a_data_error(tmp_path):
    frame = pd.DataFrame({"msg_size_kb": [1, 10], "messages": [100, 50]})
    with pytest.raises(DataError, match="rate_msg_s"):
        ms.load_points(write(tmp_path, frame))


def test_tasks_column_splits_series(tmp_path):
    a = synthetic().assign(tasks=1)
    b = synthetic(a_s=10e-6).assign(tasks=2)
    points = ms.load_points(write(tmp_path, pd.concat([a, b])))
    assert points["series"].nunique() == 2


def test_card_name_is_file_safe():
    assert ms.card_name("kafka_message_size", "sink peak nonpersistent (2 tasks)") == \
        "kafka_message_size__sink_peak_nonpersistent_2_tasks"
