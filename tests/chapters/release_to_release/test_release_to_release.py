"""Release to release: the book's three reports as one table, compared the way ``mqperf compare``
compares runs; intervals that cover the truth when runs are repeated; no interval without them;
every number the chapter states traced to a printed table or to the reports' text."""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.chapters.release_to_release import fits as f
from mqperf.chapters.release_to_release import text
from mqperf.data import loader
from mqperf.data.views import release_to_release as view
from mqperf.errors import ParameterError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "release_to_release"
ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT.parent / "shared" / "sources" / "ibm-mqperf"


def _runs(means: dict, sd_pct: float, n: int, seed: int, cpu: float = 80.0) -> pd.DataFrame:
    """Generated runs: per release and workload, ``n`` rates about the true mean with a relative sd."""
    rng = np.random.default_rng(seed)
    rows = []
    for (release, workload), mean in means.items():
        for i in range(n):
            rows.append({"release": release, "workload": workload, "replicate": i + 1,
                         "rate_rt_s": mean * (1 + sd_pct / 100 * rng.standard_normal()), "cpu_pct": cpu})
    return pd.DataFrame(rows)


# -- the book's data ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def book():
    return props.book(CHAPTER)


def test_the_view_holds_every_workload_printed_by_two_reports_or_more():
    d = view.peaks("xlinux91_rr_bb_peak", None)
    per = d.groupby("workload")["release"].nunique()
    assert per.min() >= 2
    # RR-CB, RR-DQ-BB, RR-BB NP and P, JMS: four sizes each, in all three reports; the RR-CC TLS 1.2 rows too
    assert (per == 3).sum() == 5 * 4 + 7
    # TLS 1.3 first appears in V9.2
    assert (per == 2).sum() == 5
    jms = {f"RR-CC JMS {s} non-persistent" for s in ("2KB", "20KB", "200KB", "2MB")}
    assert set(d.loc[d["basis"] == "chart", "workload"]) == jms
    assert set(d.loc[d["basis"] == "chart", "release"]) == {"V9.3"}


def test_every_value_of_the_view_is_a_printed_row_with_its_quote():
    """Provenance: each rate, CPU % and client count is a row of a report's table, and a measured
    row's quote prints the rate as the report does (with its thousands separator)."""
    d = view.peaks("xlinux91_rr_bb_peak", None)
    tables = {}
    for name in view.READS:
        if not name.endswith("test_config"):
            tables[name] = loader.load(name)
    for row in d.itertuples():
        prefix = view.RELEASES[row.release]
        found = []
        for name, t in tables.items():
            if not name.startswith(prefix):
                continue
            hit = t[(t["rate_rt_s"].astype(float) == row.rate_rt_s) & (t["cpu_pct"].astype(float) == row.cpu_pct)
                    & (t["clients"].astype(int) == row.clients)]
            found += [(name, h) for _, h in hit.iterrows()]
        assert found, (row.release, row.workload)
        name, h = found[0]
        if h["basis"] == "measured":
            assert f"{int(row.rate_rt_s):,}" in h["quote"], (row.workload, h["quote"])


def test_machines_come_from_each_reports_appendix():
    d = view.peaks("xlinux91_rr_bb_peak", None)
    m = d.groupby("release")["machine"].first()
    assert m["V9.1"] == m["V9.2"] and "x3550 M5" in m["V9.1"] and "E5-2690 v3" in m["V9.1"]
    assert "SR630 V2" in m["V9.3"] and "Gold 6346" in m["V9.3"]


def test_the_book_reads_only_the_like_for_like_step(book):
    rate = props.table(book, "rate_changes")
    v12 = rate[(rate["from"] == "V9.1") & (rate["to"] == "V9.2")]
    v23 = rate[(rate["from"] == "V9.2") & (rate["to"] == "V9.3")]
    assert set(v23["reading"]) == {f.MACHINE}
    assert set(v12["reading"]) <= {f.BEYOND, f.WITHIN}
    # no replicates: no interval column at all
    assert not any("interval" in c for c in rate.columns)
    said = book.sentences()
    assert "cannot separate" in said["changes_text"]
    assert "cannot tell you what the upgrade alone changes" in said["plan_text"]
    assert "V9.1 → V9.2" in said["plan_text"]
    # the V9.1 → V9.2 RR-BB 200KB non-persistent fall, computed from the printed peaks
    row = v12[v12["workload"] == "RR-BB 200KB non-persistent"].iloc[0]
    assert row["change (%)"] == pytest.approx((52270 / 64741 - 1) * 100)


def test_the_assumed_noise_decides_alone_without_replicates(book):
    rate = props.table(book, "rate_changes")
    v12 = rate[rate["from"] == "V9.1"]
    for _, row in v12.iterrows():
        assert (row["reading"] == f.BEYOND) == (abs(row["change (%)"]) > 5.0)
    wide = props.book(CHAPTER, assumed_noise_pct=25.0)
    assert set(props.table(wide, "rate_changes").query("`from` == 'V9.1'")["reading"]) == {f.WITHIN}


@pytest.mark.skipif(not SOURCES.exists(), reason="the IBM reports' text is not in this checkout")
def test_every_number_the_about_passages_state_is_printed_in_the_reports():
    corpus = "\n".join((SOURCES / n).read_text(encoding="utf-8", errors="replace")
                       for n in ("MQ_V9.1_Performance_Report_xLinux.txt", "MQ_V9.2_Performance_Report_xLinux.txt",
                                 "MQ_V9.3_Performance_Report_xLinux_v2.txt"))
    about = re.sub(r"\{ref\}`[^`]*`", " ", text.ABOUT)
    for token in re.findall(r"(?<![\w.])\d+(?:\.\d+)*", about):
        assert token in corpus, token
    for quote in re.findall(r'"([^"]+)"', about):
        assert " ".join(quote.split()) in " ".join(corpus.split()), quote


# -- replicates: real intervals --------------------------------------------------------------

@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_intervals_from_replicates_cover_the_true_change():
    """Recovery: a 10 % rise in rate measured with 2 % run-to-run scatter, three runs a side; the
    chapter's 95 % interval (models.compare on the cells' intercept-only fits) covers the truth."""
    covered, claimed = 0, 0
    sims = 40
    for seed in range(sims):
        d = f.prepare(_runs({("A", "w"): 50000.0, ("B", "w"): 55000.0}, 2.0, 3, seed))
        c = f.cells(d)
        s = f.read(f.steps(d, c, [("A", "B")]), 5.0)
        rate = next(x for x in s if x.quantity == "rate")
        covered += rate.lower_pct <= 10.0 <= rate.upper_pct
        claimed += rate.reading == f.UP
    assert covered >= 0.85 * sims
    assert claimed >= 0.5 * sims


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_no_change_is_rarely_claimed():
    claims = 0
    sims = 40
    for seed in range(sims):
        d = f.prepare(_runs({("A", "w1"): 50000.0, ("B", "w1"): 50000.0, ("A", "w2"): 9000.0, ("B", "w2"): 9000.0},
                            3.0, 3, 100 + seed))
        found = f.read(f.steps(d, f.cells(d), [("A", "B")]), 5.0)
        claims += any(s.reading in (f.UP, f.DOWN) for s in found)
    assert claims <= 0.15 * sims


def test_one_run_gives_no_interval_and_says_so(tmp_path):
    frame = _runs({("A", "w"): 100.0, ("B", "w"): 120.0}, 0.0, 1, 0)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "one.csv"))
    rate = props.table(r, "rate_changes")
    assert rate["reading"].tolist() == [f.BEYOND]
    assert "no interval" in r.sentences()["changes_text"] or "no spread" in r.sentences()["changes_text"]
    assert "assumption" in r.sentences()["noise_text"]


def test_a_machine_change_is_never_read_as_the_release(tmp_path):
    frame = _runs({("A", "w"): 100.0, ("B", "w"): 300.0}, 1.0, 3, 1)
    frame["machine"] = np.where(frame["release"] == "A", "old box", "new box")
    r = props.run(CHAPTER, props.write(tmp_path, frame, "m.csv"))
    assert set(props.table(r, "rate_changes")["reading"]) == {f.MACHINE}
    assert "rose" not in r.sentences()["changes_text"]


def test_planning_names_an_unknown_release(tmp_path):
    frame = _runs({("A", "w"): 100.0, ("B", "w"): 120.0}, 1.0, 2, 2)
    path = props.write(tmp_path, frame, "p.csv")
    with pytest.raises(ParameterError):
        props.run(CHAPTER, path, from_release="Z")
    r = props.run(CHAPTER, path, from_release="A", to_release="B", workload="w")
    assert len(props.table(r, "plan")) == 1


def test_one_release_per_file_is_what_mqperf_compare_sets_side_by_side(tmp_path):
    """A file of one release gives its cells' means as cards, and publish.compare.compare compares two
    such runs: with replicates, the difference has an interval; its estimate is the chapter's."""
    from mqperf.publish.compare import Run, compare

    frame = _runs({("A", "w"): 100.0, ("B", "w"): 120.0}, 1.0, 3, 3)
    runs = []
    for rel in ("A", "B"):
        path = props.write(tmp_path, frame[frame["release"] == rel], f"{rel}.csv")
        r = props.run(CHAPTER, path)
        assert len(r.card_results) == 2
        runs.append(Run(rel, [Path(path)], CHAPTER, r))
    out = compare(CHAPTER, runs)
    row = out.table[out.table["series"].str.contains("peak rate")].iloc[0]
    mean = frame.groupby("release")["rate_rt_s"].mean()
    assert row["difference"] == pytest.approx(mean["B"] - mean["A"])
    assert row["lower"] > 0  # a 20 % rise against 1 % scatter


def test_release_labels_stay_text_and_a_skipped_release_is_bridged(tmp_path):
    """9.10 is not 9.1; a workload not run in the middle release is compared across it."""
    frame = pd.DataFrame({"release": ["9.1", "9.10", "9.2", "9.1", "9.2"], "workload": ["w", "w", "w", "v", "v"],
                          "rate_rt_s": [100.0, 120, 130, 50, 80], "cpu_pct": [50.0] * 5})
    r = props.run(CHAPTER, props.write(tmp_path, frame, "v.csv"))
    rate = props.table(r, "rate_changes")
    assert list(zip(rate["from"], rate["to"], rate["workload"])) == [("9.1", "9.10", "w"), ("9.1", "9.2", "v"),
                                                                    ("9.10", "9.2", "w")]
    assert rate.loc[rate["workload"] == "v", "change (%)"].iloc[0] == pytest.approx(60.0)
    props.assert_report_is_honest(r)
