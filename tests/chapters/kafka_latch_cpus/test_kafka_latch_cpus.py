"""Latch contention and more CPUs: the book's figures, M/M/c against a textbook formula, the
load-factor calibration, latch growth normalised by throughput, and the plan from the measured
relation (issue 9, §5.9)."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.chapters.kafka_latch_cpus import fits as calc
from mqperf.models import cpu_share
from mqperf.data import views
from mqperf.data.views import kafka_latch_cpus as view
from mqperf.errors import DataError
from mqperf.present.results import Missing

import props  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

CHAPTER = "kafka_latch_cpus"


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


@pytest.fixture(scope="module")
def book():
    from mqperf import parameters

    return props.chapters.module(CHAPTER).analyse(parameters.effective(CHAPTER, None, {}).values)


def book_runs():
    return calc.cpu_runs(views.open("kafka_cpu_experiment", CHAPTER))


def frame_of(results, key):
    return results.items[key].frame


# -- CPU runs -------------------------------------------------------------------------------

def test_book_cpu_runs_combine_rmf_figures_and_rates():
    runs = book_runs()
    assert list(runs["gp_cpus"]) == [3, 6]
    # Seed 000: 3 CPUs 75 % busy at 30,592 msg/s, 6 CPUs 47 % busy at 41,995 msg/s.
    assert_allclose(runs["busy_cpus"], [2.25, 2.82])
    assert_allclose(runs["rate_msg_s"], [30592, 41995])
    assert_allclose(runs["sufficient_pct"], [45, 65])
    assert_allclose(runs["cpu_us_per_msg"], [2.25 / 30592 * 1e6, 2.82 / 41995 * 1e6])


def test_mmc_comparison_matches_the_factorial_formula():
    table = calc.mmc_comparison(book_runs())
    assert_allclose(table["mmc_pct"], [share_textbook(3, 2.25), share_textbook(6, 2.82)], rtol=1e-9)
    assert_allclose(table["prob_wait"], [erlang_c_textbook(3, 2.25), erlang_c_textbook(6, 2.82)], rtol=1e-9)
    # Poisson work would have had enough CPUs more often than RMF saw, at both CPU counts.
    assert (table["error_pts"] > 0).all()


def test_cross_calibration_predicts_each_run_from_the_other(book):
    table = frame_of(book, "cross")
    assert len(table) == 2
    k3 = cpu_share.calibrate_load_factor(3, 2.25, 45)
    row = table[table["calibrated on"].str.startswith("3 CPUs")].iloc[0]
    assert_allclose(row["predicted (%)"], share_textbook(6, 2.82 * k3), rtol=1e-6)
    # The correction calibrated on 3 CPUs does not carry over: it predicts far more than 65 %.
    assert row["error (points)"] > 20
    assert "exactly identified" in book.sentences()["cross_text"]


def test_more_cpus_table_changes(book):
    t = frame_of(book, "more_cpus").set_index("quantity")
    assert_allclose(t.loc["rate (msg/s)", "change (%)"], (41995 / 30592 - 1) * 100, rtol=1e-9)
    assert_allclose(t.loc["busy CPUs", "change (%)"], (2.82 / 2.25 - 1) * 100, rtol=1e-9)
    assert t.loc["CPU per message (µs)", "change (%)"] < 0
    # One measurement per run: the changes are stated as values, not as a tested rise or fall.
    text = book.sentences()["more_cpus_text"]
    assert "the CPU per message went from 73.5 to 67.2 µs" in text and "fell" not in text
    assert "not tested against any scatter" in text


def test_replicated_runs_test_their_changes(tmp_path):
    # Four intervals per run: the CPU per message fell 30 % with scatter of about 1 %, so the
    # Welch t-test says so; the busy CPUs, equal up to their scatter, are said to be within it.
    rng = np.random.default_rng(0)
    rows = []
    for label, c, busy, cost in (("few", 4, 50.0, 100.0), ("many", 8, 25.0, 70.0)):
        for _ in range(4):
            b = busy + rng.normal(0, 0.3)
            rows.append({"label": label, "gp_cpus": c, "busy_pct": b, "sufficient_pct": 70 + rng.normal(0, 1),
                         "rate_msg_s": c * b / 100 / (cost * (1 + rng.normal(0, 0.01))) * 1e6})
    r = props.run(CHAPTER, write(tmp_path, pd.DataFrame(rows)))
    text = r.sentences()["more_cpus_text"]
    assert re.search(r"the CPU per message fell by 30(\.\d)? % \(t-test of the change in CPU per message", text)
    assert re.search(r"the busy CPUs went from 2 to 2 , a change within the runs' scatter|the busy CPUs went from "
                     r"[\d.]+ to [\d.]+, a change within the runs' scatter \(t-test", text)


def test_reader_cpu_file(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [70, 40], "sufficient_pct": [50, 85]}))
    runs = calc.cpu_runs(views.open(path, CHAPTER))
    assert list(runs["label"]) == ["4 CPUs", "8 CPUs"]
    assert_allclose(runs["busy_cpus"], [2.8, 3.2])
    assert runs["cpu_us_per_msg"].isna().all()
    r = props.run(CHAPTER, path)
    assert len(frame_of(r, "cross")) == 2


def test_reader_cpu_file_missing_column(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4], "busy_pct": [70]}))
    with pytest.raises(DataError, match="sufficient_pct"):
        props.run(CHAPTER, path)


# -- the plan (§5.9: not from the model the data refute) -------------------------------------

def test_book_plan_gives_the_spread_the_two_runs_cannot_decide(book):
    # Issue 21, §2.2. The line through (75 % busy, 45 %) and (47 %, 65 %) reaches 80 % at 26 % busy;
    # 50,000 msg/s at the 6-CPU run's 2.82 / 41,995 CPU s per message is 3.358 busy CPUs, so
    # 3.358 / 0.26 = 12.9: 13 CPUs. M/M/c (Erlang C here from the factorial formula) needs far
    # fewer. Two runs rank none of the models (AICc needs three runs even for M/M/c), so the plan
    # is the range, said as what the data cannot decide, and labelled extrapolated: 80 % is past
    # the largest measured share (65 %) and 13 past the most CPUs measured (6).
    slope = (65 - 45) / (47 - 75)
    limit = 47 + (80 - 65) / slope
    assert limit == pytest.approx(26)
    busy = 50000 * 2.82 / 41995
    plan = frame_of(book, "plan").set_index("work to carry")
    row = plan.iloc[-1]
    assert row["busy CPUs"] == pytest.approx(busy)
    assert row["CPUs, line in per-CPU busy"] == math.ceil(busy / (limit / 100)) == 13
    mmc = next(c for c in range(4, 64) if share_textbook(c, busy) >= 80)
    assert row["CPUs, M/M/c"] == mmc < 13
    assert row["plan (CPUs)"] == f"{mmc} to 13" and row["extrapolated"].startswith("yes")
    text = book.sentences()["plan_text"]
    assert f"needs between {mmc} and 13 CPUs (extrapolated)" in text
    assert "The data cannot decide between" in text and "two runs rank none of them" in text
    assert book.answers and any("6 to 13" in e for e in book.extrapolations)
    models = frame_of(book, "models")
    assert models["AICc"].isna().all() and (models["set apart by the data"] == "no").all()


def test_a_single_model_is_the_plan_only_when_the_runs_rank_it_ahead(tmp_path):
    # Six runs drawn from M/M/c with every load 1.4 times burstier, replicated: AICc over six runs
    # ranks all three models, and the load-factor model (the truth's form) is the one accepted.
    rng = np.random.default_rng(2)
    rows = []
    for i, (c, busy) in enumerate(((2, 50), (4, 55), (4, 35), (8, 45), (8, 30), (16, 25))):
        for _ in range(3):
            a = c * busy / 100
            rows.append({"label": f"run {i}", "gp_cpus": c, "busy_pct": busy,
                         "sufficient_pct": min(100.0, share_textbook(c, 1.4 * a) + rng.normal(0, 0.5))})
    r = props.run(CHAPTER, write(tmp_path, pd.DataFrame(rows)))
    models = frame_of(r, "models").set_index("model")
    assert models["AICc"].notna().all()
    kept = models.index[models["set apart by the data"] == "no"]
    assert len(kept) == 1 and kept[0].startswith("M/M/c at k = 1.4")
    text = r.sentences()["plan_text"]
    assert "the data prefer M/M/c at k·A" in text and re.search(r"needs \d+ CPUs", text)


def test_one_run_gives_no_relation_and_says_what_the_plan_uses(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4], "busy_pct": [70], "sufficient_pct": [50]}))
    r = props.run(CHAPTER, path, plan_busy_cpus=3.0)
    assert isinstance(r.items["relation"], Missing)
    assert isinstance(r.items["cross"], Missing) and isinstance(r.items["more_cpus"], Missing)
    text = r.sentences()["plan_text"]
    assert "The line in per-CPU busy is not fitted" in text
    k = cpu_share.calibrate_load_factor(4, 2.8, 50)
    need = cpu_share.cpus_for_share(80, 3.0, load_factor=k)
    plain = cpu_share.cpus_for_share(80, 3.0)
    assert f"needs between {plain} and {need} CPUs" in text


def test_relation_rising_with_busy_gives_no_limit(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [40, 70], "sufficient_pct": [50, 85]}))
    r = props.run(CHAPTER, path)
    assert frame_of(r, "plan")["CPUs, M/M/c"].notna().all()
    assert frame_of(r, "plan")["CPUs, line in per-CPU busy"].isna().all()
    assert "does not fall as busy rises" in r.sentences()["plan_text"]


# -- latches --------------------------------------------------------------------------------

def test_book_latch_growth_uses_the_seconds(book):
    g = frame_of(book, "growth").iloc[0]
    assert g["latch"].startswith("latch 19")
    assert_allclose(g["total wait growth (%)"], (449 / 293 - 1) * 100)  # erratum E002: 53 %, not 50 %
    assert_allclose(g["exponent b"], math.log(449 / 293) / math.log(5 / 4))
    # N(N-1) from 4 to 5: 20/12 = +66.7 %; proportional to N: +25 %.
    assert_allclose(g["N(N−1) growth (%)"], (20 / 12 - 1) * 100)
    assert_allclose(g["N growth (%)"], 25)
    # No rate at 5 tasks: the throughput change that makes the total N(N-1)·X.
    assert_allclose(g["throughput change for N(N−1)·X (%)"], ((449 / 293) / (20 / 12) - 1) * 100)
    assert "wait per message growth (%)" not in frame_of(book, "growth")
    text = book.sentences()["growth_text"]
    assert "as if throughput did not change" in text and "no scatter to test this difference against" in text
    assert "pairwise" not in text  # one measurement per task count: no verdict


def test_book_latch_rank_order_and_printed_growth_are_data():
    pub = view.published()
    growth = pub["growth"]
    assert list(growth["latch"]) == ["19", "31", "24", "12"]  # "in order of highest latch times"
    assert list(growth["rank"]) == [1, 2, 3, 4]
    assert list(growth["printed_pct"]) == [50, 63, 93, 160]
    avg = pub["cpu_effect"][pub["cpu_effect"]["metric"] == "avg_latch_time"].iloc[0]
    assert (avg["low"], avg["high"]) == (75, 90)


def test_book_about_passage_reads_the_latches_in_the_articles_order(book):
    about = book.sentences()["growth_about"]
    lines = [line for line in about.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert [line.split()[2] for line in lines] == ["19", "31", "24", "12"]
    # 163 % / 166.7 % - 1: latch 31 matches N(N-1)·X if throughput fell 2.2 %; 12 and 24 outgrow it anyway.
    assert "fell 2.2 %" in lines[1]
    assert "faster than N(N−1) even at constant throughput" in lines[2]
    assert "faster than N(N−1) even at constant throughput" in lines[3]


def test_little_law_waiters(book):
    w = frame_of(book, "waiters")
    assert_allclose(w["mean tasks waiting"], [293 / 180, 449 / 180])


def test_reader_latch_growth_is_normalised_by_throughput(tmp_path):
    n = np.array([2, 3, 4, 6, 8])
    rate = np.array([1000.0, 1400, 1600, 1500, 1200])
    frame = pd.DataFrame({"latch": "L1", "tasks": n, "latch_s": 3e-3 * n * (n - 1) * rate, "rate_msg_s": rate,
                          "run_s": 60})
    r = props.run(CHAPTER, write(tmp_path, pd.DataFrame(
        {"gp_cpus": [4, 8], "busy_pct": [70, 40], "sufficient_pct": [50, 85]})),
        latch_data=write(tmp_path, frame, "latches.csv"))
    g = frame_of(r, "growth")
    assert len(g) == 4  # consecutive task counts
    # The waits are exactly N(N-1)·X: per message they grow exactly like N(N-1), whatever the rate did.
    assert_allclose(g["wait per message growth (%)"], g["N(N−1) growth (%)"], rtol=1e-9)
    # One measurement per task count: no scatter to test the growth against, so no verdict.
    assert (g["against N(N−1)"] == "untested: one measurement per task count").all()
    fit = r.fit_results["L1 power law"]
    assert not fit.exactly_identified
    assert frame_of(r, "power_law")["fitted to"].iloc[0] == "wait per message (µs)"
    assert len(frame_of(r, "loo")) == 5 and frame_of(r, "loo")["predicted"].notna().all()


def test_replicated_latch_waits_are_tested_against_pairwise_growth(tmp_path):
    # Three runs per task count with 5 % scatter: waits growing like N(N-1)·X cannot be told from
    # N(N-1); waits growing like N^4 per message are faster than pairwise, and the test says so.
    rng = np.random.default_rng(1)
    rows = []
    for latch, grow in (("pair", lambda n: n * (n - 1)), ("steep", lambda n: n**4)):
        for n in (3, 4, 5):
            for _ in range(3):
                rows.append({"latch": latch, "tasks": n, "rate_msg_s": 1000.0, "run_s": 60,
                             "latch_s": 0.01 * grow(n) * 1000 * np.exp(rng.normal(0, 0.05))})
    r = props.run(CHAPTER, write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [70, 40],
                                                         "sufficient_pct": [50, 85]})),
                  latch_data=write(tmp_path, pd.DataFrame(rows), "latches.csv"))
    g = frame_of(r, "growth").set_index("latch")
    assert (g.loc["pair", "against N(N−1)"] == "within the replicates' scatter of N(N−1)").all()
    assert (g.loc["steep", "against N(N−1)"] == "faster than pairwise").all()
    text = r.sentences()["growth_text"]
    assert text.count("faster than pairwise (t-test of the log growth") == 2
    assert text.count("cannot tell this growth from N(N−1)'s (t-test") == 2


def test_no_latch_data_is_one_sentence(tmp_path):
    path = write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [70, 40], "sufficient_pct": [50, 85]}))
    r = props.run(CHAPTER, path)
    assert isinstance(r.items["latch_times"], Missing)
    assert "No latch data was given" in r.sentences()["latch_times"]


def test_latch_file_without_run_length_has_no_waiters(tmp_path):
    lat = write(tmp_path, pd.DataFrame({"tasks": [2, 3], "latch_s": [4.0, 9.0]}), "l.csv")
    cpu = write(tmp_path, pd.DataFrame({"gp_cpus": [4, 8], "busy_pct": [70, 40], "sufficient_pct": [50, 85]}))
    r = props.run(CHAPTER, cpu, latch_data=lat)
    assert isinstance(r.items["waiters"], Missing)
    assert "exactly identified" in r.sentences()["power_law_text"]
    r = props.run(CHAPTER, cpu, latch_data=lat, run_s=60)
    assert_allclose(frame_of(r, "waiters")["mean tasks waiting"], [4 / 60, 9 / 60])


def test_examples_run_and_are_honest():
    examples = ROOT / "data" / "examples"
    r = props.run(CHAPTER, examples / "kafka_latch_cpus.csv",
                  latch_data=str(examples / "kafka_latch_cpus.latch_data.csv"), target_rate_msg_s=30000)
    props.assert_report_is_honest(r, r.fit_results)
    assert "msg/s" in frame_of(r, "plan")["work to carry"].iloc[-1]
