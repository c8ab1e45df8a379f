"""Chapter analysis for idle and trickle-rate costs: the per-task line and the polling arithmetic."""

import math

import numpy as np
import pandas as pd
import pytest

from mqperf.analysis import idle
from mqperf.errors import DataError, ModelError


def write(tmp_path, frame, name="idle.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_book_idle_rows_and_line_by_hand():
    points = idle.load_idle("kafka_idle_costs")
    assert sorted(points["series"].unique()) == ["sink", "source"]
    table = idle.idle_table(idle.fit_idle(points)).set_index("series")
    # Through (1, 0.6) and (5, 1.9): slope 1.3/4, intercept 0.6 - slope.
    assert table.loc["source", "per_task_cpu_s_h"] == pytest.approx(1.3 / 4)
    assert table.loc["source", "base_cpu_s_h"] == pytest.approx(0.6 - 1.3 / 4)
    assert table.loc["sink", "per_task_cpu_s_h"] == pytest.approx(1.7 / 4)
    assert table.loc["sink", "df_resid"] == 0
    assert math.isnan(table.loc["sink", "per_task_ci95_lower"])


def test_reader_file_with_three_task_counts_gets_intervals(tmp_path):
    frame = pd.DataFrame({"connector": "source", "tasks": [1, 2, 4, 8], "cpu_s_per_hour": [1.0, 1.6, 2.4, 4.4]})
    fits = idle.fit_idle(idle.load_idle(write(tmp_path, frame)))
    row = idle.idle_table(fits).iloc[0]
    slope, intercept = np.polyfit([1, 2, 4, 8], [1.0, 1.6, 2.4, 4.4], 1)
    assert row["per_task_cpu_s_h"] == pytest.approx(slope, rel=1e-3)
    assert row["base_cpu_s_h"] == pytest.approx(intercept, rel=1e-3)
    assert row["per_task_ci95_lower"] < slope < row["per_task_ci95_upper"]
    band = idle.idle_curves(fits, max_tasks=8)
    assert list(band["x"]) == list(range(1, 9)) and band["lower"].notna().all()


def test_single_task_count_cannot_be_split(tmp_path):
    frame = pd.DataFrame({"tasks": [1, 1], "cpu_s_per_hour": [1.0, 1.1]})
    with pytest.raises(ModelError, match="2 distinct tasks"):
        idle.fit_idle(idle.load_idle(write(tmp_path, frame)))
    with pytest.raises(DataError, match="cpu_s_per_hour"):
        idle.load_idle(write(tmp_path, pd.DataFrame({"tasks": [1, 5]}), "bad.csv"))


def test_card_notes_describe_a_numeric_regressor():
    fit = idle.fit_idle(idle.load_idle("kafka_idle_costs"))[0]
    card = idle.card(fit, name="x", dataset="kafka_idle_costs")
    assert not any("categorical" in n for n in card["notes"])
    assert any("exactly identified" in n for n in card["notes"])
    assert card["parameters"]["tasks"]["estimate"] == pytest.approx(0.325)


def test_polling_inputs_from_the_book_and_from_parameters():
    book = idle.polling_inputs("kafka_trickle", "kafka_idle_costs")
    assert book.wait_s == 30 and book.empty_get_cpu_us == (1, 2)
    assert book.measured_gets_per_message == 3 and book.measured_unsuccessful_per_message == 2
    assert book.idle_mq_cpu_us == (1, 2)
    own = idle.polling_inputs("", wait_s=10, empty_get_cpu_us=[5, 3])
    assert own.wait_s == 10 and own.empty_get_cpu_us == (3, 5) and own.measured_gets_per_message is None
    assert idle.polling_inputs("", empty_get_cpu_us=4).empty_get_cpu_us == (4, 4)
    with pytest.raises(ModelError):
        idle.polling_inputs("", empty_get_cpu_us=[0, 1])
    with pytest.raises(ModelError):
        idle.polling_inputs("", wait_s=0)


def test_trickle_check_finds_the_arrival_interval_for_three_gets():
    check = idle.trickle_check(idle.polling_inputs("kafka_trickle")).set_index("statement")
    # G = 1 + 1/(1 - e^(-W/T)) = 3  <=>  e^(-W/T) = 1/2  <=>  T = W / ln 2.
    assert "43.3 s" in check.loc["MQGETs per successful get", "when"]
    assert 30 / math.log(2) == pytest.approx(43.28, abs=0.01)
    assert check.loc["MQGETs per successful get", "model"] == pytest.approx(3)
    assert check.loc["unsuccessful MQGETs per successful get", "model"] == pytest.approx(2)
    assert idle.trickle_check(idle.polling_inputs("")).empty


def test_idle_readings_of_the_equivalent_period_cost():
    readings = idle.idle_mq_readings(idle.polling_inputs("kafka_trickle", "kafka_idle_costs"), tasks=[1]).iloc[0]
    assert readings["idle_gets_per_hour"] == 120  # one get per 30 s
    assert readings["per_get_reading_cpu_us_h_high"] == 240
    assert readings["per_period_reading_cpu_us_per_get_low"] == pytest.approx(1 / 120, rel=1e-2)


def test_breakdown_gives_sinks_no_mq_polling():
    fits = idle.fit_idle(idle.load_idle("kafka_idle_costs"))
    table = idle.idle_breakdown(fits, idle.polling_inputs("kafka_trickle")).set_index("series")
    assert table.loc["sink", "mq_polling_cpu_s_h_high"] == 0
    assert table.loc["source", "mq_polling_cpu_s_h_high"] == pytest.approx(120 * 2e-6)


def test_plan_idle_per_day():
    fits = idle.fit_idle(idle.load_idle("kafka_idle_costs"))
    inputs = idle.polling_inputs("kafka_trickle")
    plan = idle.plan_idle(fits, inputs, series="source", connectors=10, tasks=5)
    connector, mq = plan.iloc[0], plan.iloc[1]
    assert connector["cpu_s_per_day_low"] == pytest.approx(1.9 * 10 * 24)  # the measured 5-task point
    assert mq["cpu_s_per_day_high"] == pytest.approx(10 * 5 * 120 * 24 * 2e-6, rel=1e-3)
    sink = idle.plan_idle(fits, inputs, series="sink", connectors=2, tasks=1)
    assert sink.iloc[1]["cpu_s_per_day_high"] == 0
    assert bool(idle.plan_idle(fits, inputs, series="source", connectors=1, tasks=8).iloc[0]["beyond_measured"])
    with pytest.raises(ModelError, match="no fitted series"):
        idle.plan_idle(fits, inputs, series="nosuch", connectors=1, tasks=1)
    with pytest.raises(ModelError):
        idle.plan_idle(fits, inputs, series="source", connectors=0, tasks=1)


def test_plan_trickle_counts_add_up():
    inputs = idle.polling_inputs("", wait_s=30, empty_get_cpu_us=[1, 2])
    table = idle.plan_trickle(inputs, [0, 0.01, 10]).set_index("arrival_rate_msg_s")
    assert table.loc[0.0, "empty_gets_per_hour"] == 120  # idle: one expired wait per 30 s
    lam = 0.01
    g = 1 + 1 / (1 - math.exp(-lam * 30))
    assert table.loc[lam, "mqgets_per_message"] == pytest.approx(g, rel=1e-3)
    assert table.loc[lam, "empty_gets_per_hour"] == pytest.approx(lam * 3600 * (g - 1), rel=1e-3)
    # At a high rate each message costs one empty no-wait get: half of the gets find nothing.
    assert table.loc[10.0, "empty_share_pct"] == pytest.approx(50, rel=1e-3)
    with pytest.raises(ModelError):
        idle.plan_trickle(inputs, [-1])


def test_gets_curve_falls_towards_two():
    curve = idle.gets_curve([30])
    g = curve.sort_values("interarrival_s")["gets_per_message"].to_numpy()
    assert np.all(np.diff(g) >= 0)  # longer gaps between messages, more gets per message
    assert g[0] == pytest.approx(2, abs=1e-6)
