"""Message size: unit conversions, the printed-MB/s check, fits, leave-one-out, planning, reader files."""


import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import props  # noqa: E402
from mqperf import parameters  # noqa: E402
from mqperf.chapters.kafka_message_size import fits as k  # noqa: E402
from mqperf.chapters import kafka_message_size as chapter  # noqa: E402
from mqperf.errors import DataError, ModelError  # noqa: E402
from mqperf.present.cards import card_name  # noqa: E402
from mqperf.present.results import Missing  # noqa: E402

BOOK = parameters.defaults("kafka_message_size")


@pytest.fixture(scope="module")
def book():
    return chapter.analyse(BOOK)


def synthetic(a_s=20e-6, bw_mb_s=150.0, sizes_kb=(1, 4, 16, 64), series="synthetic"):
    """Rates exactly on t(s) = a + s/B, computed here, not by the module."""
    sizes = np.asarray(sizes_kb, dtype=float)
    rate = 1.0 / (a_s + sizes * 1024 / (bw_mb_s * 1024 * 1024))
    return pd.DataFrame({"series": series, "msg_size_kb": sizes, "rate_msg_s": rate})


def run(tmp_path, frame, name="mine.csv", **params):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return props.run("kafka_message_size", path, **params)


def frame(r, key):
    return r[key].frame


def test_book_data_labels_series_and_keeps_printed_mb(book):
    pts = book.points
    assert list(pts["series"].unique()) == ["source peak nonpersistent", "sink peak nonpersistent"]
    assert len(pts) == 6
    # The sink's 1 KB row: 38,355 msg/s x 1 KB = 37.46 MB/s, printed as 38 (erratum E010).
    row = pts[pts["series"].str.startswith("sink") & (pts["msg_size_kb"] == 1)].iloc[0]
    assert row["approx_mb_s"] == 38
    assert_allclose(row["mb_s"], 38355 / 1024)


def test_printed_mb_check_flags_only_the_erratum_row(book):
    check = frame(book, "mb_check")
    wrong = check[~check["agrees"]]
    assert len(wrong) == 1 and wrong.iloc[0]["series"].startswith("sink") and wrong.iloc[0]["size (KB)"] == 1
    said = repr(book["mb_check_text"])
    assert "Of the six printed MB/s values, five are the computed ones rounded" in said
    assert "at 1 KB prints 38 MB/s for 37.5 computed" in said


def test_recovers_parameters_in_chapter_units(tmp_path):
    row = frame(run(tmp_path, synthetic(a_s=25e-6, bw_mb_s=120.0)), "fits").iloc[0]
    assert row["fixed time a (µs per msg)"] == pytest.approx(25.0, rel=1e-3)
    assert row["bandwidth B (MB/s)"] == pytest.approx(120.0, rel=1e-3)
    # Half-size a*B in KB: 25e-6 s * 120 MB/s = 3e-3 MB = 3.072 KB.
    assert row["half-size (KB)"] == pytest.approx(25e-6 * 120 * 1024, rel=1e-2)
    # 90 % of B at 9 x the half size.
    assert row["size for 90 % of B (KB)"] == pytest.approx(9 * 25e-6 * 120 * 1024, rel=1e-2)
    assert row["residual df"] == 2


def test_two_sizes_are_exactly_identified_with_no_interval(tmp_path):
    r = run(tmp_path, pd.DataFrame({"msg_size_kb": [1, 32], "rate_msg_s": [28776, 3750]}))
    assert isinstance(r["parameters"], Missing)
    assert "The fit is exactly identified" in repr(r["identification"])
    # Straight line through the times per message, solved by hand.
    t1, t2 = 1 / 28776, 1 / 3750
    slope = (t2 - t1) / (31 * 1024)  # seconds per byte
    row = frame(r, "fits").iloc[0]
    assert row["fixed time a (µs per msg)"] == pytest.approx((t1 - 1024 * slope) * 1e6, rel=1e-3)
    assert row["bandwidth B (MB/s)"] == pytest.approx(1 / slope / 1024 / 1024, rel=1e-3)
    assert "exactly identified" in row["identification"]
    assert "no interval" in repr(r["plan_text"])
    props.assert_report_is_honest(r)


def test_leave_one_out_is_exact_on_exact_data_and_labels_position(tmp_path):
    loo = frame(run(tmp_path, synthetic()), "loo")
    assert len(loo) == 4
    assert_allclose(loo["error %"].astype(float), 0, atol=0.01)
    positions = dict(zip(loo["size (KB)"], loo["left-out size"]))
    assert positions[1.0].startswith("below") and positions[64.0].startswith("above")
    assert positions[4.0].startswith("inside") and positions[16.0].startswith("inside")


def test_leave_one_out_on_book_data_shows_small_size_extrapolation_is_worst(book):
    sink = frame(book, "loo").query("series.str.startswith('sink')", engine="python").set_index("size (KB)")
    # From 10 KB and 32 KB alone the sink's fixed cost is nearly lost: 1 KB is over-predicted.
    assert sink.loc[1.0, "error %"] > 50
    assert abs(sink.loc[10.0, "error %"]) < abs(sink.loc[1.0, "error %"])
    assert "“sink peak nonpersistent” at 1 KB (below the others)" in repr(book["loo_text"])


def test_the_suspect_sink_point_is_discussed_with_its_refit(book):
    # Issue 9 §5.2: the sink's 1KB "peak" is below its sustainable rate and anchors a.
    said = repr(book["about_anchor"])
    assert "E040" in said and "44,996" in said
    without = k.refit_without(book.points, "sink peak nonpersistent", 1.0)
    assert f"{without.a * 1e6:.2f}"[:3] in said  # the refit's a, as the sentence rounds it
    predicted = frame(book, "loo").set_index(["series", "size (KB)"]).loc[("sink peak nonpersistent", 1.0),
                                                                           "predicted rate (msg/s)"]
    assert float(without.predict([1024.0])[0]) == pytest.approx(predicted)
    assert "are lower" not in repr(book["about_plan"])  # the old, false "sustainable rates are lower"


def test_plan_rate_and_mb_and_range_flag(tmp_path):
    r = run(tmp_path, synthetic(a_s=20e-6, bw_mb_s=150.0), plan_msg_size_kb=8, max_size_kb=256)
    plan = frame(r, "plan_sizes").set_index("size (KB)")
    expected_rate = 1 / (20e-6 + 8 * 1024 / (150 * 1024 * 1024))
    assert plan.loc[8.0, "rate (msg/s)"] == pytest.approx(expected_rate, rel=1e-3)
    assert plan.loc[8.0, "MB/s"] == pytest.approx(expected_rate * 8 / 1024, rel=1e-3)
    assert not bool(plan.loc[8.0, "extrapolated"]) and bool(plan.loc[256.0, "extrapolated"])
    t = 20e-6 + 8 * 1024 / (150 * 1024 * 1024)
    assert plan.loc[8.0, "fixed share of time (%)"] == pytest.approx(20e-6 / t * 100, rel=1e-2)
    assert "At 8 KB “synthetic” is expected to move" in repr(r["plan_text"])
    with pytest.raises(ModelError):
        k.plan(k.fit_all(r.points), [0])


def test_extrapolated_plan_size_says_so(tmp_path):
    r = run(tmp_path, synthetic(), plan_msg_size_kb=512)
    assert "(extrapolated: outside the sizes measured, 1 to 64 KB)" in repr(r["plan_text"])
    assert frame(r, "plan")["extrapolated"].all() and any("512 KB" in e for e in r.extrapolations)
    props.assert_report_is_honest(r)


def test_a_quantity_the_sizes_cannot_pin_down_is_not_stated(tmp_path):
    # Sizes of 256 KB and more hide a fixed time of 5 µs (issue 21: "say what the data cannot tell").
    kb = np.array([256.0, 512.0, 1024.0, 2048.0])
    rate = 1 / (5e-6 + kb * 1024 / (200 * 1024 * 1024)) * (1 + 0.02 * np.random.default_rng(4).standard_normal(4))
    path = tmp_path / "big.csv"
    pd.DataFrame({"series": "Big_MSG", "msg_size_kb": kb, "rate_msg_s": rate}).to_csv(path, index=False)
    r = props.run("kafka_message_size", path, plan_msg_size_kb=1)
    said = r.sentences()
    assert ("the data cannot tell the fixed time a" in said["readings"]
            or "no fixed time per message the data can see" in said["readings"])
    assert "half the time per message is per byte at" not in said["readings"]
    assert "the data cannot tell" in said["plan_text"] and "(extrapolated" in said["plan_text"]
    assert "“Big_MSG”" in said["readings"]  # the name as given
    props.assert_report_is_honest(r)


def test_curves_never_go_below_zero(book):
    fits = k.fit_all(book.points)
    band = k.curves(fits, 64)
    assert (band["lower"].dropna() >= 0).all()
    mb = k.curves(fits, 64, as_mb=True)
    row = mb.iloc[-1]
    assert row["x"] == 64 and row["fit"] == pytest.approx(band.iloc[-1]["fit"] * 64 / 1024)


def test_single_size_series_is_not_fitted_and_none_fittable_raises(tmp_path):
    one = pd.DataFrame({"series": ["a", "a"], "msg_size_kb": [4, 4], "rate_msg_s": [100, 110]})
    with pytest.raises(ModelError, match="at least 2 distinct message sizes"):
        run(tmp_path, one)
    r = run(tmp_path, pd.concat([one, synthetic(series="b")], ignore_index=True), "mixed.csv")
    fits = frame(r, "fits").set_index("series")
    assert fits.loc["a", "identification"].startswith("one message size") and fits.loc["b", "residual df"] == 2
    assert "“a”: not fitted" in repr(r["identification"])


def test_rates_rising_with_size_cannot_be_fitted(tmp_path):
    with pytest.raises(ModelError):
        run(tmp_path, pd.DataFrame({"msg_size_kb": [1, 10, 32], "rate_msg_s": [100, 200, 400]}))


def test_reader_file_missing_a_required_column_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="rate_msg_s"):
        run(tmp_path, pd.DataFrame({"msg_size_kb": [1, 10], "messages": [100, 50]}))


def test_tasks_column_splits_series(tmp_path):
    r = run(tmp_path, pd.concat([synthetic().assign(tasks=1), synthetic(a_s=10e-6).assign(tasks=2)]))
    assert r.points["series"].nunique() == 2


def test_card_names_are_file_safe(book):
    assert card_name("kafka_message_size", "sink peak nonpersistent (2 tasks)") == \
        "kafka_message_size__sink_peak_nonpersistent_2_tasks"
    assert [name for name, _ in book.cards] == ["kafka_message_size__source_peak_nonpersistent",
                                                "kafka_message_size__sink_peak_nonpersistent"]


def test_reader_report_has_no_book_commentary_and_is_honest(root):
    r = props.run("kafka_message_size", root / "data" / "examples" / "kafka_message_size.csv", plan_msg_size_kb=8)
    assert all(r[key] is None for key in r.items if key.startswith("about_"))
    assert "38,355" not in " ".join(r.sentences().values())
    props.assert_report_is_honest(r)
