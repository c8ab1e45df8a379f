"""Task scaling: model choice by identifiability, the book's series, reader files, planning."""


import numpy as np
import pandas as pd
import pytest

from mqperf import parameters
from mqperf.chapters import kafka_task_scaling as chapter
from mqperf.data import loader
from mqperf.errors import ModelError
from mqperf.models import usl
from mqperf.present.results import Missing, Text

import props  # noqa: E402

BOOK = parameters.defaults("kafka_task_scaling")


@pytest.fixture(scope="module")
def book():
    return chapter.analyse(BOOK)


def fitted(r) -> dict:
    """series -> fits-table row, from the report's own table."""
    return r["fits"].frame.set_index("series").to_dict("index")


def text(r, key) -> str:
    return repr(r[key])


def test_model_choice_follows_equations(book):
    fits = fitted(book)
    assert fits["source sustainable nonpersistent"]["model"] == "USL"  # 2 points + 1 statement
    assert fits["sink persistent get commit"]["model"] == "Amdahl"  # 2 points
    assert fits["sink peak nonpersistent"]["model"] == "none"  # 1 point
    assert fits["sink persistent get100 commit"]["statements used"] == 0  # "decrease" is not an equation
    exact = [row for row in fits.values() if row["model"] != "none"]
    assert exact and all(row["residual df"] == 0 for row in exact)
    assert "All four fits are exactly identified" in text(book, "identification")
    # No table of empty standard errors beside that sentence: one sentence instead.
    assert isinstance(book["parameters"], Missing)


def test_six_cpu_point_is_its_own_series_and_is_predicted_across(book):
    assert "sink persistent get100 commit (6 CPUs)" in set(book.points["series"])
    cross = book["cross"].frame
    assert list(cross["predicting"]) == ["sink persistent get100 commit (6 CPUs)"]
    # 41,995 measured on 6 CPUs; the 3-CPU fit passes through 30,592 at 4 tasks.
    assert cross["error %"].iloc[0] == pytest.approx((30592 - 41995) / 41995 * 100, rel=1e-6)
    assert "-27.2 %" in text(book, "cross_text")


def test_derived_put_commit_point_is_gone_and_not_planned(book):
    # 2,271 x 1.10 mixed the peak run with the +10 % of the concurrent-putter runs (issue 9, §5.10).
    data = loader.load("kafka_scaling_rates")
    assert not ((data["series"] == "persistent_put_commit") & (data["tasks"] == 5)).any()
    assert fitted(book)["source persistent put commit"]["model"] == "none"
    assert "source persistent put commit" not in set(book["plan"].frame["series"])
    assert "single tasks value" in text(book, "identification")


def test_plan_gives_both_readings_where_the_points_cannot_rank_them(book):
    plan = book["plan"].frame.set_index(["series", "model"])
    # Two points and a statement: no residual degrees of freedom to rank USL against the bottleneck.
    sink = plan.loc["sink sustainable nonpersistent"]
    assert set(sink.index) == {"USL", "bottleneck"}
    assert (sink["tasks for the target"] == 2).all()  # 61,588 measured at 2
    source = plan.loc["source sustainable nonpersistent"]
    # The source's modelled peak (~59,900) is just under 60,000: no task count reaches it, and that
    # peak lies beyond the two measured counts, so the answer is labelled extrapolated.
    assert source.loc["USL", "tasks for the target"] == "none: above the modelled peak"
    assert source.loc["USL", "extrapolated"] and "the modelled peak" in source.loc["USL", "beyond the measured counts"]
    assert source.loc["bottleneck", "tasks for the target"] == "none: above the ceiling"
    said = text(book, "plan_text")
    assert "so both readings answer" in said
    assert "“sink sustainable nonpersistent” reaches 60,000 msg/s with two tasks" in said
    assert ("“source sustainable nonpersistent” does not reach 60,000 msg/s at any task count: the target is above "
            "its modelled peak") in said
    # Every answer beyond the two measured counts is labelled, and recorded for "How this report was made".
    assert "task 4 (extrapolated)" in said
    assert any("source sustainable nonpersistent" in e for e in book.extrapolations)
    assert book.answers


def test_cpu_is_priced_at_a_rate_each_reading_reaches(book):
    cpu = book["cpu"].frame.set_index(["connector", "model"])
    source = cpu.loc[("source", "USL")]
    best = book["plan"].frame.set_index(["series", "model"]).loc[("source sustainable nonpersistent", "USL")]
    assert not source["target reached"] and source["rate priced (msg/s)"] < 60000
    # The most the USL reaches at a whole task count, at most its modelled peak.
    assert source["rate priced (msg/s)"] <= best["modelled peak or ceiling (msg/s)"]
    assert source["rate priced (msg/s)"] > 0.99 * best["modelled peak or ceiling (msg/s)"]
    # 1.5 µs after zIIP offload + 5 µs MQGET, at that rate; the peak's tasks lie beyond the data.
    assert source["engines, low"] == pytest.approx(6.5 * source["rate priced (msg/s)"] / 1e6)
    assert source["extrapolated"]
    assert cpu.loc[("source", "bottleneck"), "rate priced (msg/s)"] == pytest.approx(46480.0)
    sink = cpu.loc[("sink", "USL")]
    assert sink["target reached"] and sink["rate priced (msg/s)"] == 60000
    assert sink["engines, low"] == pytest.approx(6.5 * 0.06) and sink["engines, high"] == pytest.approx(9.7 * 0.06)
    assert "cannot reach 60,000 msg/s by its USL fit" in text(book, "cpu_text")


def test_planning_follows_the_data_past_max_tasks(tmp_path):
    # Measured to 32 tasks with the default max_tasks = 8: the answer is not capped at 8.
    n = np.array([1, 2, 4, 8, 16, 32])
    path = tmp_path / "wide.csv"
    pd.DataFrame({"tasks": n, "rate_msg_s": usl.throughput(n, 1000, 0.02, 0.0005)
                  * (1 + 0.004 * np.cos(n))}).to_csv(path, index=False)
    r = props.run("kafka_task_scaling", path, target_rate_msg_s=12000)
    row = r["plan"].frame.iloc[0]
    truth = int(np.argmax(usl.throughput(np.arange(1, 40), 1000, 0.02, 0.0005) >= 12000)) + 1
    assert abs(row["tasks for the target"] - truth) <= 1 and not row["extrapolated"]
    assert "with up to 8 tasks" not in text(r, "plan_text")
    props.assert_report_is_honest(r)


def test_a_target_above_a_measured_ceiling_says_so(tmp_path):
    n = np.arange(1, 13)
    path = tmp_path / "flat.csv"
    pd.DataFrame({"tasks": n, "rate_msg_s": np.minimum(1000.0 * n, 2500.0) + 5 * np.cos(7 * n)}).to_csv(path,
                                                                                                        index=False)
    r = props.run("kafka_task_scaling", path, target_rate_msg_s=3000)
    plan = r["plan"].frame
    # AICc rejects the USL for a plateau: the planning comes from the bottleneck reading alone.
    assert list(plan["model"]) == ["bottleneck"] and plan["chosen by"].iloc[0].startswith("AICc")
    said = text(r, "plan_text")
    assert "does not reach 3,000 msg/s at any task count: the target is above its ceiling" in said
    assert "the last task that adds at least 5 % is task 3" in said  # the knee at 2.5 tasks, measured


def test_sensitivity_band_brackets_the_literal_fit(book):
    band = book["sensitivity"].frame
    assert set(band["series"]) == {"source sustainable nonpersistent", "sink sustainable nonpersistent"}
    assert (band["lowest peak (msg/s)"] <= band["peak read literally (msg/s)"]).all()
    assert (band["peak read literally (msg/s)"] <= band["highest peak (msg/s)"]).all()
    assert (band["highest peak (msg/s)"] - band["lowest peak (msg/s)"]).min() > 0


def test_leave_one_out_on_the_contention_series(book):
    loo = book["loo"].frame
    assert set(loo["series"]) == {"sink persistent get100 commit"} and len(loo) == 3
    worst = loo.loc[loo["error %"].abs().idxmax()]
    assert worst["tasks"] == 4 and 15 < worst["error %"] < 19  # the 4-task point, over-predicted
    assert "at 4 tasks" in text(book, "loo_text")


def test_book_commentary_shows_on_the_book_data_only(book, tmp_path):
    assert isinstance(book["about_measured"], Text) and "z16" in text(book, "about_measured")
    assert "producer tasks" in text(book, "about_statements")
    r = props.run("kafka_task_scaling", _reader_file(tmp_path))
    assert all(r[k] is None for k in r.items if k.startswith("about_"))


def _reader_file(tmp_path, n=(1, 2, 3, 4, 6, 8), noise=(1.01, 0.99, 1.0, 1.02, 0.98, 1.0)):
    n = np.array(n)
    x = usl.throughput(n, 1000, 0.05, 0.01) * np.array(noise)
    path = tmp_path / "mine.csv"
    pd.DataFrame({"tasks": n, "rate_msg_s": x}).to_csv(path, index=False)
    return path


def test_reader_series_with_enough_points_gets_intervals_and_honest_text(tmp_path):
    r = props.run("kafka_task_scaling", _reader_file(tmp_path), target_rate_msg_s=4000)
    row = fitted(r)["your data"]
    assert row["residual df"] == 3
    assert r["parameters"].frame["standard error"].notna().all()
    assert "exactly identified" not in " ".join(r.sentences().values())
    loo = r["loo"].frame
    assert len(loo) == 6 and loo["predicted rate (msg/s)"].notna().all()
    # The reader asked for 4,000 msg/s: the sentences speak of it, not of the book's 60,000.
    assert "4,000 msg/s" in text(r, "plan_text") and "60,000" not in " ".join(r.sentences().values())
    assert "weights" in r["fits"].frame
    assert "no sensitivity band" in text(r, "sensitivity") and "no 'no gain' statements" in text(r, "sensitivity")
    assert "not priced" in text(r, "cpu")
    props.assert_report_is_honest(r)


def test_single_level_reader_data_is_a_model_error(tmp_path):
    path = tmp_path / "one.csv"
    pd.DataFrame({"series": ["a", "a"], "tasks": [4, 4], "rate_msg_s": [10.0, 11.0]}).to_csv(path, index=False)
    with pytest.raises(ModelError, match="no series has enough points"):
        props.run("kafka_task_scaling", path)


def test_forcing_usl_on_two_points_fails_clearly(tmp_path):
    path = tmp_path / "two.csv"
    pd.DataFrame({"tasks": [1, 2], "rate_msg_s": [10.0, 18.0]}).to_csv(path, index=False)
    with pytest.raises(ModelError, match="needs at least 3"):
        props.run("kafka_task_scaling", path, model="usl")


def test_two_points_give_amdahl_and_sentences_instead_of_charts(tmp_path):
    path = tmp_path / "two.csv"
    pd.DataFrame({"tasks": [1, 2], "rate_msg_s": [100.0, 180.0]}).to_csv(path, index=False)
    r = props.run("kafka_task_scaling", path)
    assert fitted(r)["your data"]["model"] == "Amdahl"
    assert "no USL curve to draw" in text(r, "curves")
    # Two points cannot rank Amdahl against the bottleneck: both answer, each beyond task 2 labelled.
    assert set(r["plan"].frame["model"]) == {"Amdahl", "bottleneck"}
    assert "(extrapolated" in text(r, "plan_text")
    assert isinstance(r["overhead"], Missing) and "no coherency part" in text(r, "overhead")
    assert "The fit is exactly identified" in text(r, "identification")
    props.assert_report_is_honest(r)


def test_example_file_runs_honestly(root):
    r = props.run("kafka_task_scaling", root / "data" / "examples" / "kafka_task_scaling.csv", target_rate_msg_s=50000)
    assert len(r["fits"].frame) == 2 and r["plan"].frame["series"].nunique() == 2
    props.assert_report_is_honest(r)


def test_overhead_says_where_coherency_overtakes_contention(book):
    usl_rows = {s: row for s, row in fitted(book).items() if row["model"] == "USL"}
    said = text(book, "overhead_text")
    for series, row in usl_rows.items():
        cross, top = row["σ"] / row["κ"], book.points.loc[book.points["series"] == series, "tasks"].max()
        line = next(line for line in said.splitlines() if f"“{series}”" in line)
        # σ/κ from the fits table (rounded to 4 digits there), so compare at the sentence's 3 digits.
        assert f"N = {cross:.3g}" in line
        assert ("within the measured range" in line) == (cross <= top)
    assert "“sink sustainable nonpersistent” coherency overtakes contention" in said
    series = {row["series"] for row in next(iter(book["overhead"].to_dict()["datasets"].values()))}
    assert series == set(usl_rows)


def test_curves_label_both_bands_where_the_fit_has_residual_df(tmp_path, book):
    from mqperf.present.charts import CONF_BAND, PRED_BAND

    def band_rows(r):
        return [row for rows in r["curves"].to_dict()["datasets"].values() for row in rows if "band" in row]

    rows = band_rows(props.run("kafka_task_scaling", _reader_file(tmp_path)))
    by = {label: {row["x"]: (row["lower"], row["upper"]) for row in rows if row["band"] == label}
          for label in (CONF_BAND, PRED_BAND)}
    assert by[CONF_BAND] and by[CONF_BAND].keys() == by[PRED_BAND].keys()
    assert all(by[PRED_BAND][x][0] < lo and hi < by[PRED_BAND][x][1] for x, (lo, hi) in by[CONF_BAND].items())
    # The book's fits are exactly identified: their only bands are the statements' sensitivity bands.
    assert {row["band"] for row in band_rows(book)} == {"'no gain' read within ±3 % (sensitivity)"}


@pytest.mark.parametrize("which", ["book", "reader", "two series"])
def test_fleet_summary_gives_the_rows_the_whole_analysis_gives(tmp_path, which):
    """``mqperf fleet`` reads the chapter's fleet_summary (no charts, what-if, leave-one-out or sentences):
    its summary rows must be those of the whole analysis, on the book's data and a reader's."""
    from mqperf import chapters
    from mqperf.publish import fleet_summary

    if which == "book":
        data = None
    elif which == "reader":
        data = str(_reader_file(tmp_path))
    else:
        path = tmp_path / "two.csv"
        pd.DataFrame({"series": ["a"] * 6 + ["b"] * 2 + ["lone"], "tasks": [1, 2, 3, 4, 6, 8, 1, 2, 4],
                      "rate_msg_s": [1000, 1900, 2600, 3100, 3500, 3600, 500, 800, 99.0]}).to_csv(path, index=False)
        data = str(path)
    p = parameters.effective("kafka_task_scaling", data, {}).values
    whole = fleet_summary.card_rows("kafka_task_scaling", p, chapters.preflight("kafka_task_scaling", data))
    fleet = fleet_summary.card_rows("kafka_task_scaling", p, chapter.fleet_summary(p))
    assert fleet == whole and len(fleet) >= 1
