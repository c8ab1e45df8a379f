"""The HA replication latency chapter: the view of the book's datasets, the provenance of every book
number it shows, the example's known parameters, planning flags, a reader's rtt_ms file, and refusals."""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from mqperf.data import loader, views
from mqperf.errors import DataError
from mqperf.present.results import Missing

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "ha_replication"
EXAMPLE = ROOT / "data" / "examples" / "ha_replication.csv"
BOOK = dict(data="rdqm_net_delay", more_data="xlinux93_ha_peak", nativeha="ocp_nha_cpu_scaling",
            concurrency="rdqm_chart", your_rtt_ms=3.0, target_rate=10000.0, cards_dir=None)


@pytest.fixture(scope="module")
def book():
    from mqperf import chapters

    return chapters.module(CHAPTER).analyse(dict(BOOK))


def _printed(value: float) -> str:
    return f"{value:,.0f}"


def test_the_view_keeps_each_no_delay_row_once_and_derives_the_single_requester_rates():
    rows = views.open("rdqm_net_delay", CHAPTER)
    tables = rows[rows["basis"] == "measured"]
    assert len(tables) == 12 and not tables.duplicated(["series", "added_latency_ms"]).any()
    single = rows[rows["basis"] == "derived"]
    raw = loader.load("rdqm_net_delay").dropna(subset=["latency_ms"])
    assert len(single) == len(raw) == 9
    assert sorted(single["rate"].round(9)) == sorted((1000 / raw["latency_ms"]).round(9))
    assert (single["clients"] == 1).all()


def test_chart_readings_are_a_dataset_of_their_own():
    for name in ("rdqm_chart", "xlinux93_ha_chart"):
        rows = views.open(name, CHAPTER)
        assert set(rows["basis"]) == {"chart"}
    for name in ("rdqm_net_delay", "xlinux93_ha_peak"):
        assert "chart" not in set(views.open(name, CHAPTER)["basis"])


def test_every_book_number_in_the_points_table_is_printed_or_recomputes(book):
    shown = book.items["points"].frame
    rdqm, v93 = loader.load("rdqm_net_delay"), loader.load("xlinux93_ha_peak")
    for row in shown.to_dict("records"):
        if row["basis"] == "derived":  # 1000 / a printed latency, quoted in the same table's row
            hit = rdqm[(rdqm["report_table"] == row["printed in"]) & (rdqm["added_latency_ms"] == row["added delay (ms)"])
                       & np.isclose(1000 / rdqm["latency_ms"], row["rate (requests/s)"])]
            assert len(hit) == 1 and f"{hit['latency_ms'].iloc[0]:g}" in hit["quote"].iloc[0]
            continue
        source = v93 if "V9.3" in row["series"] else rdqm
        hit = source[np.isclose(source["rate_rt_s"], row["rate (requests/s)"]) & (source["clients"] == row["clients"])]
        assert len(hit) >= 1, row
        assert all(_printed(row["rate (requests/s)"]) in q for q in hit["quote"]), row
        assert all(re.search(rf"\b{row['CPU %']:.2f}\b|\b{row['CPU %']:g}\b", q) for q in hit["quote"]), row


def test_the_native_ha_table_is_printed_values_and_their_ratio(book):
    table = book.items["nativeha"].frame
    ocp = loader.load("ocp_nha_cpu_scaling")
    assert len(table) == 18
    for row in table.to_dict("records"):
        for config, col in (("NativeHA", "Native HA (requests/s)"), ("SIQM", "SIQM (requests/s)")):
            hit = ocp[(ocp["ha_config"] == config) & (ocp["message_size"] == row["message size"])
                      & (ocp["cpu_limit_cores"] == row["CPU limit (cores)"])]
            assert hit["rate_rt_s"].iloc[0] == row[col]
            assert re.search(rf"\b{row[col]:.0f}\b", hit["quote"].iloc[0])
        assert row["Native HA / SIQM (%)"] == pytest.approx(100 * row["Native HA (requests/s)"] / row["SIQM (requests/s)"])


def test_the_about_passages_state_only_what_the_datasets_hold(book):
    text = " ".join(book.sentences()[k] for k in ("about_rdqm", "about_v93", "about_nativeha"))
    values = loader.load("rdqm_text_values").set_index("quantity")
    assert "1 ms of round trip at about 100 km" in text
    # the report's arithmetic: 100,000 m apart, 500 µs per leg in fibre, so a round trip of 1 ms
    assert values.loc["example_distance", "value"] == 100000 and values.loc["example_distance", "unit"] == "m"
    assert 2 * values.loc["one_way_latency_100km_fibre_us", "value"] == 1000
    assert "two persistent puts and two gets" in text
    assert "a round trip is 2 message puts and 2 message gets" in loader.load("rdqm_peak_rates")["note"].iloc[0]
    assert sorted(loader.load("xlinux93_ha_peak")["added_latency_ms"].unique()) == [0, 1, 2]
    assert sorted(loader.load("rdqm_net_delay")["report_table"].unique()) == ["Table 3", "Table 4", "Table 5"]
    for erratum in re.findall(r"errata-(e\d{3})", text):
        assert erratum.upper() in set(pd.read_csv(ROOT / "data" / "errata.csv")["erratum_id"])


def test_the_concurrency_section_fits_the_chart_readings_apart_and_says_so(book):
    table = book.items["concurrency"]
    assert "chart readings" in table.caption
    assert len(table.frame) == 10 and table.frame["series"].str.contains("Figure 3").all()
    assert "chart readings" in book.sentences()["concurrency_reading"]
    assert not book.items["points"].frame["basis"].eq("chart").any()  # never mixed with the printed tables


def test_the_book_run_is_honest_and_its_single_requester_k_is_identified(book):
    props.assert_report_is_honest(book, book.fit_results)
    single = book.fit_results["RDQM V9.0.4 2K, single requester"]
    lo, hi = single.k_interval()
    assert 4 < lo < single.k < hi < 6
    assert "k (the round trips a request waits for) is about 4.84" in book.sentences()["k_reading"]


def test_past_the_measured_delays_the_answer_is_labelled_extrapolated(book):
    plan = book.items["plan"].frame
    v93 = plan[plan["series"].str.contains("V9.3")]
    assert (v93["extrapolated"] == "beyond the measured delays").all()  # measured to 2 ms, asked at 3
    assert (plan.loc[plan["series"].str.contains("10 QMs"), "extrapolated"] == "no").all()  # measured to 5 ms
    said = book.sentences()["plan_reading"]
    assert all("(extrapolated)" in line for line in said.split("\n") if "V9.3" in line)
    assert any("V9.3" in e for e in book.extrapolations)


def test_the_example_recovers_its_generators_parameters():
    r = props.run(CHAPTER, EXAMPLE)
    props.assert_report_is_honest(r, r.fit_results)
    for name, (a, k) in {"DR pair 2KB persistent": (4.0, 4.0), "DR pair 20KB persistent": (9.0, 5.0)}.items():
        res = r.fit_results[name]
        lo, hi = res.k_interval()
        assert lo <= k <= hi and res.a == pytest.approx(a, rel=0.2)
    assert "synthetic" in r.sentences()["read"]
    assert isinstance(r.items["nativeha"], Missing)  # the OCP comparison is the book's
    assert isinstance(r.items["concurrency"], Missing)


def test_a_reader_file_with_round_trip_times_and_no_clients(tmp_path):
    path = tmp_path / "rtt.csv"
    d = np.array([0.2, 0.6, 1.1, 2.0, 4.0])
    pd.DataFrame({"series": "mine", "rtt_ms": d, "rate": np.round(1e6 / (800 + 600 * d), 1)}).to_csv(path, index=False)
    r = props.run(CHAPTER, path, your_rtt_ms=6.0)
    props.assert_report_is_honest(r, r.fit_results)
    said = r.sentences()
    assert "cannot be told from the concurrency" in said["read"]
    assert "round-trip time" in said["plan_reading"] and "(extrapolated)" in said["plan_reading"]
    assert isinstance(r.items["response_chart"], Missing)


@pytest.mark.parametrize("frame, why", [
    (pd.DataFrame({"rate": [1.0, 2.0]}), "neither"),
    (pd.DataFrame({"added_latency_ms": [0, 1], "rtt_ms": [0.1, 1.1], "rate": [2.0, 1.0]}), "both"),
    (pd.DataFrame({"added_latency_ms": [0, 1], "rate": [2.0, 1.0], "clients": [5, None]}), "every row or none"),
])
def test_bad_files_are_refused_in_one_line(tmp_path, frame, why):
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(DataError, match=why):
        props.run(CHAPTER, path)


def test_one_delay_is_one_sentence_not_an_empty_table(tmp_path):
    path = tmp_path / "one.csv"
    pd.DataFrame({"added_latency_ms": [1, 1], "rate": [100.0, 110.0], "clients": [10, 10]}).to_csv(path, index=False)
    r = props.run(CHAPTER, path)
    props.assert_report_is_honest(r, r.fit_results)
    assert "a single point says nothing" in r.items["fits"].frame["identification"].iloc[0]
    assert isinstance(r.items["plan"], Missing) and isinstance(r.items["validation"], Missing)
