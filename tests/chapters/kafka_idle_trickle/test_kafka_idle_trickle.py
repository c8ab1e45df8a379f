"""Idle and trickle-rate costs: the per-task line, the polling arithmetic, its checks and the plans,
on the book's data and on a reader's."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from mqperf.chapters.kafka_idle_trickle import fits as parts
from mqperf.errors import DataError, ModelError
from mqperf.present.results import Missing

import props  # noqa: E402
from props import run  # noqa: E402

CH = "kafka_idle_trickle"


def write(tmp_path, frame, name="idle.csv"):
    return props.write(tmp_path, frame, name)


def book(**over):
    return props.book(CH, **over)


frame = props.table


def test_book_idle_rows_and_line_by_hand():
    r = book()
    assert sorted(r.points["series"].unique()) == ["sink", "source"]
    table = frame(r, "fits").set_index("series")
    # Through (1, 0.6) and (5, 1.9): slope 1.3/4, intercept 0.6 - slope.
    assert table.loc["source", "per task (CPU s/h)"] == pytest.approx(1.3 / 4)
    assert table.loc["source", "base (CPU s/h)"] == pytest.approx(0.6 - 1.3 / 4)
    assert table.loc["sink", "per task (CPU s/h)"] == pytest.approx(1.7 / 4)
    assert table.loc["sink", "residual df"] == 0
    assert math.isnan(table.loc["sink", "per task, 95 % lower"])
    text = r.sentences()["fit_text"]
    assert "exactly identified" in text
    ratio = (8.2 - 1.7 / 4) / (0.6 - 1.3 / 4)
    assert frame(r, "bases").set_index("series").loc["sink", "× source's base"] == pytest.approx(ratio)
    assert "28.3 times" in text


def test_reader_file_with_four_task_counts_gets_intervals(tmp_path):
    data = pd.DataFrame({"connector": "source", "tasks": [1, 2, 4, 8], "cpu_s_per_hour": [1.0, 1.6, 2.4, 4.4]})
    r = run(CH, write(tmp_path, data))
    row = frame(r, "fits").iloc[0]
    slope, intercept = np.polyfit([1, 2, 4, 8], [1.0, 1.6, 2.4, 4.4], 1)
    assert row["per task (CPU s/h)"] == pytest.approx(slope, rel=1e-6)
    assert row["base (CPU s/h)"] == pytest.approx(intercept, rel=1e-6)
    assert row["per task, 95 % lower"] < slope < row["per task, 95 % upper"]
    assert "exactly identified" not in r.sentences()["fit_text"]
    assert isinstance(r.show("bases"), Missing)  # one series: nothing to compare
    assert r.show("measured") is None and isinstance(r.show("readings"), Missing)


def test_single_task_count_cannot_be_split(tmp_path):
    with pytest.raises(ModelError, match="2 distinct tasks"):
        run(CH, write(tmp_path, pd.DataFrame({"tasks": [1, 1], "cpu_s_per_hour": [1.0, 1.1]})))
    with pytest.raises(DataError, match="cpu_s_per_hour"):
        run(CH, write(tmp_path, pd.DataFrame({"tasks": [1, 5]}), "bad.csv"))


def test_card_notes_describe_a_numeric_regressor():
    r = book()
    names = [n for n, _ in r.cards]
    assert names == ["kafka_idle_trickle__idle_cpu_source", "kafka_idle_trickle__idle_cpu_sink"]
    card = r.cards[0][1]
    assert not any("categorical" in n for n in card["notes"])
    assert any("exactly identified" in n for n in card["notes"])
    assert card["parameters"]["tasks"]["estimate"] == pytest.approx(0.325)


def test_polling_inputs_from_the_book_and_from_parameters():
    r = book()
    inputs = frame(r, "inputs").set_index("quantity")["value"]
    assert inputs["get-with-wait interval W"] == 30 and inputs["idle MQGETs per task and hour (3600/W)"] == 120
    assert inputs["MQGETs per successful get, slow arrivals"] == 3 and inputs["of which unsuccessful"] == 2
    own = parts.polling_inputs(None, 10, [5, 3])
    assert (own.wait_s, own.empty_low, own.empty_high, own.gets_per_message) == (10, 3, 5, None)
    assert parts.polling_inputs(None, 30, 4).empty_low == 4
    with pytest.raises(ModelError):
        parts.polling_inputs(None, 30, [0, 1])
    with pytest.raises(ModelError):
        parts.polling_inputs(None, 0, [1, 2])


def test_trickle_check_finds_the_arrival_interval_for_three_gets():
    r = book()
    check = frame(r, "check").set_index("statement")
    # G = 1 + 1/(1 - e^(-W/T)) = 3  <=>  e^(-W/T) = 1/2  <=>  T = W / ln 2.
    assert check.loc["MQGETs per successful get", "mean s between messages"] == pytest.approx(30 / math.log(2))
    assert check.loc["MQGETs per successful get", "model"] == pytest.approx(3)
    assert check.loc["unsuccessful MQGETs per successful get", "model"] == pytest.approx(2)
    lo, hi = check.loc["MQGETs per successful get", ["rounds to measured from (s)", "to (s)"]]
    # G = 2.5 and 3.5: e^(-W/T) = 1/3 and 3/5.
    assert (lo, hi) == pytest.approx((30 / math.log(3), 30 / math.log(5 / 3)))
    assert "43.3 s on average" in r.sentences()["check_text"] and "as measured" in r.sentences()["check_text"]
    assert parts.trickle_check(parts.polling_inputs(None, 30, [1, 2])) is None


def test_idle_readings_of_the_equivalent_period_cost():
    readings = frame(book(), "readings").set_index("tasks").loc[1]
    assert readings["idle MQGETs per hour"] == 120  # one get per 30 s
    assert readings["read per get, high (CPU µs/h)"] == 240
    assert readings["read per period, low (CPU µs per get)"] == pytest.approx(1 / 120)


def test_breakdown_gives_sinks_no_mq_polling():
    table = frame(book(), "breakdown").set_index("series")
    assert table.loc["sink", "MQ polling CPU, high (CPU s/h)"] == 0
    assert table.loc["source", "MQ polling CPU, high (CPU s/h)"] == pytest.approx(120 * 2e-6)


def test_plan_idle_per_day():
    plan = frame(book(plan_tasks=5), "plan")
    connector, mq = plan.iloc[0], plan.iloc[1]
    assert connector["CPU s per day, low"] == pytest.approx(1.9 * 10 * 24)  # the measured 5-task point
    assert mq["CPU s per day, high"] == pytest.approx(10 * 5 * 120 * 24 * 2e-6)
    sink = frame(book(plan_connector="sink", plan_connectors=2), "plan")
    assert sink.iloc[1]["CPU s per day, high"] == 0
    assert "nothing on the queue manager" in book(plan_connector="sink").sentences()["plan_text"]
    past = book(plan_tasks=8)
    assert bool(frame(past, "plan").iloc[0]["extrapolated"]) and not frame(past, "plan").iloc[1]["extrapolated"]
    assert "(extrapolated: the measured tasks.max run from 1 to 5)" in past.sentences()["plan_text"]
    assert past.extrapolations and past.answers
    other = book(plan_connector="nosuch")
    assert "no fitted series “nosuch”" in other.sentences()["plan_text"]


def test_flat_idle_cpu_gives_no_direction_and_no_share(tmp_path):
    # A per-task cost whose interval spans zero is not "adds" or "removes" (issue 21: "each task
    # removes 0.397 CPU s/h" from an interval of -2.24 to +1.45), and no share of it is computed.
    t = np.array([1, 2, 3, 4, 5, 1, 2, 3, 4, 5])
    cpu = 5.0 + np.array([0.3, -0.4, 0.1, 0.5, -0.2, -0.3, 0.4, -0.5, 0.2, 0.1])
    path = props.write(tmp_path, pd.DataFrame({"connector": "My_Conn", "tasks": t, "cpu_s_per_hour": cpu}), "flat.csv")
    r = props.run("kafka_idle_trickle", path, plan_connector="My_Conn")
    said = r.sentences()
    assert "the data cannot tell whether each task adds or removes anything" in said["fit_text"]
    assert not re.search(r"each task (adds|removes) \d", said["fit_text"])
    assert "no share to give" in said["breakdown_text"]
    assert "“My_Conn”" in said["fit_text"] and "My Conn" not in " ".join(said.values())  # the name as given
    assert "not measurements of your system" in said["inputs_text"]  # the defaults are the article's
    props.assert_report_is_honest(r, r.fit_results)


def test_plan_trickle_counts_add_up():
    inputs = parts.polling_inputs(None, 30, [1, 2])
    table = parts.plan_trickle(inputs, [0.0, 0.01, 10.0], 1, 0.0).set_index("arrival rate (msg/s)")
    assert table.loc[0.0, "empty gets per hour"] == 120  # idle: one expired wait per 30 s
    lam = 0.01
    g = 1 + 1 / (1 - math.exp(-lam * 30))
    assert table.loc[lam, "MQGETs per message"] == pytest.approx(g)
    assert table.loc[lam, "empty gets per hour"] == pytest.approx(lam * 3600 * (g - 1))
    # At a high rate each message costs one empty no-wait get: half of the gets find nothing.
    assert table.loc[10.0, "empty share (%)"] == pytest.approx(50, rel=1e-3)


def test_gets_curve_falls_towards_two():
    spec = book().show("gets_chart").to_dict()
    rows = [row for rows in spec["datasets"].values() for row in rows if row.get("wait") == "W = 30 s"]
    g = [row["gets_per_message"] for row in sorted(rows, key=lambda x: x["interarrival_s"])]
    assert np.all(np.diff(g) >= 0)  # longer gaps between messages, more gets per message
    assert g[0] == pytest.approx(2, abs=1e-3)


def test_example_file_runs_and_reads_as_its_own_data():
    from conftest import ROOT

    r = run(CH, ROOT / "data" / "examples" / f"{CH}.csv")
    assert not r.book_data and len(frame(r, "fits")) == 2
    said = " ".join(r.sentences().values())
    for book_text in ("28.3", "0.275", "7.78", "equivalent period"):
        assert book_text not in said
