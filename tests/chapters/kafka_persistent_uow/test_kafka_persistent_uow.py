"""Persistent messages and units of work: the book's reading of the article, fits per operation,
readings of ranged points, checks and planning, on the book's data and on a reader's."""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.chapters.kafka_persistent_uow import fits
from mqperf.data import views
from mqperf.errors import DataError, ModelError
from mqperf.present.results import Missing, Text

import props  # noqa: E402
from props import run  # noqa: E402

CH = "kafka_persistent_uow"


def synthetic(t_c=2e-3, t_m=40e-6, batches=(1, 5, 20, 100), series="synthetic"):
    b = np.asarray(batches, dtype=float)
    return pd.DataFrame({"series": series, "msgs_per_commit": b, "rate_msg_s": b / (t_c + b * t_m)})


def write(tmp_path, frame, name="uow.csv"):
    return props.write(tmp_path, frame, name)


def book(**over):
    return props.book(CH, **over)


frame = props.table


def book_points(b_read=None):
    return fits.throughput_points(views.open("kafka_uow_rates", CH), b_read)


# -- the book's data -------------------------------------------------------------------------------

def test_book_reads_one_message_per_commit_and_keeps_the_stated_range():
    points = book_points().set_index("rate_msg_s")
    slow, fast = points.loc[2271], points.loc[27396]
    # "MQGET(success), MQGET(fail), commit" is one message; "2-3" is the other statement.
    assert (slow["msgs_per_commit"], slow["msgs_per_commit_low"], slow["msgs_per_commit_high"]) == (1, 1, 3)
    # "up to 250" is a cap: read 250, with the putter's 100 to 250 as the range (the book's reading).
    assert (fast["msgs_per_commit"], fast["msgs_per_commit_low"], fast["msgs_per_commit_high"]) == (250, 100, 250)
    assert book_points(3).set_index("rate_msg_s").loc[2271, "msgs_per_commit"] == 3
    with pytest.raises(ModelError, match="1-3"):
        book_points(5)


def test_book_fit_solves_the_two_equations_by_hand():
    r = book()
    row = frame(r, "fits").iloc[0]
    # 1/X = t_m + t_c/b at (1, 2271) and (250, 27396).
    t_c = (1 / 2271 - 1 / 27396) / (1 / 1 - 1 / 250)
    t_m = 1 / 27396 - t_c / 250
    assert row["commit time t_c (µs)"] == pytest.approx(t_c * 1e6, rel=1e-6)
    assert 400 < row["commit time t_c (µs)"] < 410  # the "about 405 µs"
    assert row["time per message t_m (µs)"] == pytest.approx(t_m * 1e6, rel=1e-6)
    assert row["asymptote X∞ (msg/s)"] == pytest.approx(1 / t_m, rel=1e-6)
    assert row["msgs per commit for 90 % of X∞"] == pytest.approx(9 * t_c / t_m, rel=1e-6)
    assert row["% of X∞ at the largest"] == pytest.approx(27396 * t_m * 100, rel=1e-6)
    assert row["residual df"] == 0
    assert "exactly identified" in r.sentences()["fit_text"]
    assert isinstance(r.show("parameters"), Missing)


def test_book_sensitivity_states_the_true_spread():
    r = book()
    sens = frame(r, "sensitivity").set_index("messages per commit read as")
    assert list(sens.index) == [f"{a} / {b}" for a in (1, 2, 3) for b in (100, 175, 250)]
    assert sens.loc["1 / 250", "the data's reading"] and not sens.loc["3 / 250", "the data's reading"]
    def t_c(a, b):
        return (1 / 2271 - 1 / 27396) / (1 / a - 1 / b)
    assert sens.loc["3 / 250", "× the data's commit time"] == pytest.approx(t_c(3, 250) / t_c(1, 250), rel=1e-6)
    assert sens.loc["3 / 100", "× the data's commit time"] == pytest.approx(t_c(3, 100) / t_c(1, 250), rel=1e-6)
    text = r.sentences()["sensitivity_text"]
    assert "3.08×" in text  # not the "±20 %" the first edition reported
    # The non-persistent rates sit closest to the one-message reading's asymptote.
    assert "“1 / 250” puts the asymptote closest" in text


def test_book_asymptote_check_reads_up_to_250_as_a_range():
    r = book()
    checks = frame(r, "checks")
    asym = checks[checks["check"].str.startswith("X∞")]
    # 1/t_m across the readings: at 1 / 250 (the data's) and 3 / 100 (the highest).
    def x_inf(a, b):
        t_c = (1 / 2271 - 1 / 27396) / (1 / a - 1 / b)
        return 1 / (1 / 27396 - t_c / b)
    assert asym["readings: lowest X∞ (msg/s)"].tolist() == pytest.approx([x_inf(1, 250)] * 2, rel=1e-6)
    assert asym["readings: highest X∞ (msg/s)"].tolist() == pytest.approx([x_inf(3, 100)] * 2, rel=1e-6)
    text = r.sentences()["checks_text"]
    # The sustainable 28,000 lies below the lowest reading (28,670); the peak 28,776 within.
    assert "one of the two reference rates lies within that range" in text


def test_the_middle_of_two_to_three_gives_the_first_editions_numbers():
    row = frame(book(b_put_commit=2.5), "fits").iloc[0]
    assert row["commit time t_c (µs)"] == pytest.approx(1020, rel=0.01)
    assert row["msgs per commit for 90 % of X∞"] == pytest.approx(283, rel=0.01)


def test_band_spans_the_readings():
    r = book()
    spec = r.show("chart").to_dict()
    everything = [row for rows in spec["datasets"].values() for row in rows]
    # The bands are drawn from their own rows (one per band), the curve from its own: match them by x.
    fit = {(row["series"], row["x"]): row["fit"] for row in everything if "fit" in row}
    rows = [row for row in everything if "lower" in row]
    assert rows and all(row["lower"] <= fit[row["series"], row["x"]] + 1e-6 <= row["upper"] + 2e-6 for row in rows)
    assert max(row["upper"] - row["lower"] for row in rows) > 0


def test_log_bytes_fitted_per_operation_only():
    table = frame(book(), "log_fits").set_index("operation")
    assert math.isnan(table.loc["put_commit", "bytes per message l_m"])  # one point: not separable
    l_m = (10 * 178 - 492) / 9  # from 492 = l_m + l_c and 178 = l_m + l_c/10
    assert_allclose([table.loc["get_commit", "bytes per message l_m"], table.loc["get_commit", "bytes per commit l_c"]],
                    [l_m, 492 - l_m], rtol=1e-6)
    assert table.loc["get_commit", "msgs per commit within 10 % of l_m"] == pytest.approx((492 - l_m) / (0.1 * l_m), rel=1e-6)


def test_mixed_fit_cannot_tell_put_from_get():
    r = book()
    mixed = frame(r, "mixed")
    at_one = mixed[mixed["messages per commit"] == 1]
    # One curve gives one value at b = 1, the mean of 2088 and 492: wrong for both operations.
    assert at_one["mixed fit (bytes/msg)"].nunique() == 1
    assert at_one["mixed fit (bytes/msg)"].iloc[0] == pytest.approx((2088 + 492) / 2, rel=1e-3)
    assert (at_one["error (%)"].abs() > 30).all()
    assert "one residual degree of freedom, so it reports intervals" in r.sentences()["mixed_text"]
    log = fits.log_points(views.open("kafka_log_bytes", CH, "log_bytes"), pd.DataFrame())
    assert fits.mixed_fit(log[log["operation"] == "get_commit"]) is None


def test_book_references_are_the_one_task_source_rates():
    refs = fits.references("book", None)
    assert sorted(refs["rate_msg_s"]) == [28000, 28776]
    assert len(fits.references("", 20000)) == 1 and fits.references("", None).empty


def test_commit_time_what_if_reproduces_the_gain_and_predicts_less_at_large_batches():
    r = book()
    table = frame(r, "whatif")
    t_m = frame(r, "fits").iloc[0]["time per message t_m (µs)"] / 1e6
    for row in table.itertuples(index=False):
        t_c_new = row[3] / 1e6  # commit time after
        assert 1 / (t_c_new + t_m) == pytest.approx(2271 * (1 + row[0] / 100), rel=1e-6)
    assert (table["gain at 250 per commit (%)"] < table["gain at b (%)"] / 5).all()
    assert [g for g in table["gain at b (%)"]] == [35, 55]


def test_book_planning_and_log_pricing():
    r = book()
    plan = frame(r, "plan")
    need = plan[plan["why"].str.startswith("reaches")].iloc[0]
    t_c = (1 / 2271 - 1 / 27396) / (1 - 1 / 250)
    t_m = 1 / 27396 - t_c / 250
    assert need["messages per commit"] == math.ceil(9 * t_c / t_m) == 105
    log = frame(r, "plan_log")
    at = log[log["messages per commit"] == 250].iloc[0]
    l_m = (10 * 178 - 492) / 9
    expected = l_m + (492 - l_m) / 250
    assert at["log bytes per message"] == pytest.approx(expected, rel=1e-6)
    assert at["log (MB/s)"] == pytest.approx(expected * 27396 / 1e6, rel=1e-3)
    assert at["rate of series"] == "source persistent, 1 task"  # the connector: it does the gets
    assert at["beyond measured"]


def test_book_about_passages_show_and_name_the_erratum():
    r = book()
    assert r.book_data
    assert "errata-e045" in r.sentences()["reading"]
    assert "MQGET(success), MQGET(fail), commit" in r.sentences()["measured"]


# -- a reader's data -------------------------------------------------------------------------------

def test_recovers_synthetic_parameters_with_intervals(tmp_path):
    r = run(CH, write(tmp_path, synthetic(t_c=2e-3, t_m=40e-6)))
    row = frame(r, "fits").iloc[0]
    assert row["commit time t_c (µs)"] == pytest.approx(2000, rel=1e-3)
    assert row["time per message t_m (µs)"] == pytest.approx(40, rel=1e-3)
    assert row["residual df"] == 2
    assert not r.book_data and r.show("measured") is None
    assert isinstance(r.show("sensitivity"), Missing) and isinstance(r.show("whatif"), Missing)
    assert isinstance(r.show("log_fits"), Missing) and "log_bytes_per_msg" in r.show("log_fits").why


def test_reader_ranges_are_read_at_their_ends(tmp_path):
    data = synthetic().assign(msgs_per_commit_low=[1, 4, 20, 100], msgs_per_commit_high=[2, 6, 20, 100])
    r = run(CH, write(tmp_path, data))
    sens = frame(r, "sensitivity")
    assert len(sens) == 3 * 3  # {1, 1.5, 2} × {4, 5, 6}
    assert sens["the data's reading"].sum() == 1
    with pytest.raises(ModelError, match="1-2"):
        run(CH, write(tmp_path, data, "again.csv"), b_put_commit=3)
    bad = data.assign(msgs_per_commit_low=[2, 4, 20, 100])
    with pytest.raises(DataError, match="does not contain"):
        run(CH, write(tmp_path, bad, "bad.csv"))


def test_reader_log_bytes_come_from_the_data_file(tmp_path):
    data = synthetic().assign(log_bytes_per_msg=lambda d: 150 + 300 / d["msgs_per_commit"], operation="get_commit")
    r = run(CH, write(tmp_path, data))
    row = frame(r, "log_fits").iloc[0]
    assert_allclose([row["bytes per message l_m"], row["bytes per commit l_c"]], [150, 300], rtol=1e-6)
    assert isinstance(r.show("mixed"), Missing)


def test_validate_leave_one_out_and_asymptote(tmp_path):
    r = run(CH, write(tmp_path, synthetic(t_c=2e-3, t_m=40e-6)), reference_rate_msg_s=20000)
    checks = frame(r, "checks")
    loo = checks[checks["check"].str.startswith("leave out")]
    assert len(loo) == 4
    assert_allclose(loo["error (%)"].astype(float), 0, atol=0.01)
    asym = checks[checks["check"].str.startswith("X∞")].iloc[0]
    assert asym["error (%)"] == pytest.approx((25000 - 20000) / 20000 * 100, rel=1e-3)
    assert "above every non-persistent rate" in r.sentences()["checks_text"]


def test_plan_batch_rounds_up_to_reach_the_fraction(tmp_path):
    t_c, t_m = 2e-3, 40e-6
    r = run(CH, write(tmp_path, synthetic(t_c=t_c, t_m=t_m)), plan_batch=100)
    plan = frame(r, "plan")
    row = plan[plan["why"].str.startswith("reaches")].iloc[0]
    assert row["messages per commit"] == math.ceil(9 * t_c / t_m)  # 450
    assert row["beyond measured"]
    asked = plan[plan["why"].str.startswith("asked")].iloc[0]
    assert asked["rate (msg/s)"] == pytest.approx(100 / (t_c + 100 * t_m), rel=1e-6)
    assert "; extrapolated)" in r.sentences()["plan_text"]


def test_reader_errors(tmp_path):
    one_b = pd.DataFrame({"msgs_per_commit": [10, 10], "rate_msg_s": [100, 120]})
    with pytest.raises(ModelError, match="at least 2 distinct"):
        run(CH, write(tmp_path, one_b))
    missing = pd.DataFrame({"msgs_per_commit": [1, 10]})
    with pytest.raises(DataError, match="rate_msg_s"):
        run(CH, write(tmp_path, missing, "missing.csv"))
    with pytest.raises(ModelError, match="no point gives"):
        run(CH, write(tmp_path, synthetic(), "plain.csv"), b_put_commit=2)


def test_example_file_runs_and_reads_as_its_own_data():
    from conftest import ROOT

    r = run(CH, ROOT / "data" / "examples" / f"{CH}.csv")
    assert not r.book_data
    said = " ".join(r.sentences().values())
    for book_number in ("2,271", "27,396", "2088", "zHPF"):
        assert book_number not in said
    assert isinstance(r.show("fit_text"), Text) and len(frame(r, "log_fits")) == 1
