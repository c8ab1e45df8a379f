"""The request/reply chapter on the book's data, the V9.3 xLinux report: the view keeps the chart readings
as read (response time by Little's law), every printed peak the chapter shows is the dataset's, the
held-out check is recomputed from the data, the errata are linked, and a planning answer below the fewest
measured clients is marked extrapolated."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "request_reply"
DATA = ROOT / "data"
PEAKS = ("xlinux93_rr_bb_peak", "xlinux93_rr_cb_peak", "xlinux93_rr_dq_bb_peak", "xlinux93_rr_cc_jms_peak_chart")


@pytest.fixture(scope="module")
def book():
    return props.book(CHAPTER)


def test_the_book_runs_on_the_v93_charts():
    from mqperf import parameters

    assert parameters.defaults(CHAPTER)["data"] == "xlinux93_rate_chart"


def test_the_view_keeps_every_non_tls_reading_and_derives_the_response_time():
    from mqperf.data import views

    frame = views.open("xlinux93_rate_chart", CHAPTER)
    raw = pd.read_csv(DATA / "xlinux93_rate_chart.csv")
    non_tls = raw[~raw["variant"].str.contains("TLS|_SHA", regex=True)]
    assert len(frame) == len(non_tls)
    assert sorted(frame["rate_msg_s"]) == sorted(non_tls["rate_rt_s"].astype(float))
    np.testing.assert_allclose(frame["response_time_ms"], 1e3 * frame["clients"] / frame["rate_msg_s"], rtol=1e-12)
    assert set(frame["figure_no"]) == {4, 5, 6, 7, 8, 12}


def test_every_printed_peak_shown_is_the_datasets(book):
    shown = props.table(book, "peaks")
    printed = pd.concat([pd.read_csv(DATA / f"{n}.csv") for n in PEAKS], ignore_index=True)
    printed = printed[printed["table_no"] != 6]  # Table 6 repeats Table 7's SSD rows
    assert len(shown) == len(printed)
    keys = {(int(t), w, float(x), float(c), int(n)) for t, w, x, c, n in
            printed[["table_no", "workload", "rate_rt_s", "cpu_pct", "clients"]].itertuples(index=False)}
    got = {(int(t), w, float(x), float(c), int(n)) for t, w, x, c, n in
           shown[["table", "workload", "peak rate (requests/s)", "CPU %", "clients at the peak"]].itertuples(index=False)}
    assert got == keys
    # Derived columns by their stated formulas.
    np.testing.assert_allclose(shown["response N / X (ms)"], 1e3 * shown["clients at the peak"] / shown["peak rate (requests/s)"])
    np.testing.assert_allclose(shown["CPU % per 100,000 requests/s"], 1e5 * shown["CPU %"] / shown["peak rate (requests/s)"])
    # Table 4 is an image read digit by digit: its basis stays "chart".
    assert set(shown.loc[shown["table"] == 4, "basis"]) == {"chart"}


def test_the_held_out_peaks_are_recomputed_from_the_fits(book):
    check = props.table(book, "peaks_check")
    for row in check.itertuples(index=False):
        res = book.fit_results[row.series]
        predicted = float(res.predict([float(row[2])])[0])
        assert row[4] == pytest.approx(predicted, rel=1e-9)
        assert row[5] == pytest.approx(100 * (predicted - row[3]) / row[3], rel=1e-9)
    # The 2KB printed peak of each charted workload is there (RR-CB, RR-DQ-BB, JMS, RR-BB on each device).
    assert {int(t) for t in check["table"]} == {2, 3, 4, 5, 7}
    worst = check.loc[check["error %"].abs().idxmax()]
    # E110: Table 5's 1,034,401 at 96 clients lies above Figure 7's curve, the largest miss.
    assert worst["series"] == "Figure 7: RR-BB 2KB non-persistent" and worst["printed rate (requests/s)"] == 1034401


def test_the_about_passage_says_chart_readings_and_links_the_errata(book):
    about = str(book["about_data"])
    assert "read off the charts" in about and "Little's law" in about
    for e in ("E100", "E101", "E102", "E103", "E108", "E109", "E110", "E111", "E114"):
        assert f"<errata-{e.lower()}>" in about
    assert "one point" in str(book["peaks_text"]).lower() and "cannot tell" in str(book["peaks_text"])


def test_the_book_report_is_honest(book):
    props.assert_report_is_honest(book, book.fit_results)
    # The Little's-law check holds by construction here, and the report says so.
    assert "tests nothing" in str(book["little_text"])


def test_an_answer_below_the_fewest_measured_clients_is_extrapolated(tmp_path):
    n = np.array([30, 60, 90, 120, 150, 180, 210, 240])
    x = 1000 * n / (1 + 0.01 * (n - 1))
    frame = pd.DataFrame({"clients": n, "rate_msg_s": x, "response_time_ms": 1e3 * n / x})
    path = props.write(tmp_path, frame, "from30.csv")
    r = props.run(CHAPTER, path, target_rate_msg_s=5000.0, max_clients=300)
    plan = props.table(r, "plan")
    assert int(plan["clients for the target"].iloc[0]) < 30
    assert bool(plan["target: extrapolated"].iloc[0])
    assert "(extrapolated)" in str(r["plan_text"])
    assert any("measured from 30" in e for e in r.extrapolations)
