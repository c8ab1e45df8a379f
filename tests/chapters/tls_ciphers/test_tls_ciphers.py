"""The TLS CipherSpecs chapter: it recovers known cost ratios, tests differences only where runs repeat,
prices a rate proportionally and marks rates above a run's peak, and every book number it states comes
from the xLinux reports' TLS tables."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "tls_ciphers"
EXAMPLE = ROOT / "data" / "examples" / "tls_ciphers.csv"
DATA = ROOT / "data"


def _runs(costs: dict, base_rate=50_000.0, base_cpu=50.0, repeats=1, noise=0.0, seed=1, series="s"):
    """Runs from the chapter's model: CipherSpec c at rate X_none / r_c with CPU per round trip k_c times
    the baseline's (so U_c = base_cpu · k_c / r_c)."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, (r, k) in {"No TLS": (1.0, 1.0), **costs}.items():
        for _ in range(repeats):
            x = base_rate / r * (1 + noise * rng.standard_normal())
            rows.append({"series": series, "cipherspec": name, "rate_rt_s": x,
                         "cpu_pct": min(100.0, base_cpu * k / r * (x * r / base_rate) * (1 + noise * rng.standard_normal())),
                         "clients": 50})
    return pd.DataFrame(rows)


KNOWN = {"GCM": (1.6, 1.5), "CBC": (2.5, 2.4), "TLS13": (2.7, 2.6)}


def test_the_ratios_of_the_model_are_recovered(tmp_path):
    path = props.write(tmp_path, _runs(KNOWN), "runs.csv")
    r = props.run(CHAPTER, path, your_rate_rt_s=10_000.0)
    props.assert_report_is_honest(r)
    costs = props.table(r, "costs").set_index("CipherSpec")
    for name, (ratio, k) in KNOWN.items():
        assert costs.loc[name, "rate ratio No TLS / this"] == pytest.approx(ratio, rel=1e-9)
        assert costs.loc[name, "CPU per round trip, this / No TLS"] == pytest.approx(k, rel=1e-9)
    text = str(r["costs_text"])
    assert "the least CPU per round trip was “GCM”'s, the most “TLS13”'s" in text
    assert "One run per CipherSpec" in text and "cannot tell" in text


def test_planning_is_proportional_and_marks_rates_above_a_peak(tmp_path):
    path = props.write(tmp_path, _runs(KNOWN), "runs.csv")
    rate = 25_000.0  # above CBC's and TLS13's peaks (20,000 and 18,519), below GCM's (31,250)
    r = props.run(CHAPTER, path, your_rate_rt_s=rate)
    plan = props.table(r, "plan").set_index("CipherSpec")
    base_cost = 50.0 / 50_000.0
    for name, (ratio, k) in KNOWN.items():
        assert plan.loc[name, "CPU % at your rate"] == pytest.approx(rate * base_cost * k, rel=1e-9)
        assert plan.loc[name, "CPU % added to No TLS"] == pytest.approx(rate * base_cost * (k - 1), rel=1e-9)
        assert bool(plan.loc[name, "extrapolated"]) == (rate > 50_000.0 / ratio)
    assert sum("above the" in e for e in r.extrapolations) == 2
    assert "(extrapolated) with “TLS13”" in str(r["plan_text"])


def test_repeats_allow_a_test_and_the_test_decides(tmp_path):
    clear = _runs({"A": (1.5, 1.4), "B": (2.0, 1.9)}, repeats=4, noise=0.005)
    r = props.run(CHAPTER, props.write(tmp_path, clear, "clear.csv"))
    props.assert_report_is_honest(r)
    assert "differ in CPU per round trip (two-sided t-test, Welch" in str(r["costs_text"])
    same = _runs({"A": (1.5, 1.5), "B": (1.5, 1.5)}, repeats=3, noise=0.02, seed=7)
    r = props.run(CHAPTER, props.write(tmp_path, same, "same.csv"))
    assert "may not differ: the data cannot tell" in str(r["costs_text"])


def test_a_series_without_a_baseline_is_shown_not_compared(tmp_path):
    frame = pd.concat([_runs(KNOWN), _runs(KNOWN, series="t").query("cipherspec != 'No TLS'")])
    r = props.run(CHAPTER, props.write(tmp_path, frame, "two.csv"))
    props.assert_report_is_honest(r)
    assert "“t” has no run without TLS" in str(r["read"])
    costs = props.table(r, "costs")
    assert costs.loc[costs["series"] == "t", "rate ratio No TLS / this"].isna().all()
    assert "“t”" not in str(r["costs_text"])


def test_the_example_runs_and_says_it_is_synthetic():
    r = props.run(CHAPTER, EXAMPLE)
    props.assert_report_is_honest(r)
    assert "synthetic example" in str(r["read"])


@pytest.mark.parametrize("text, column", [
    ("cipherspec,rate_rt_s\nNo TLS,100\n", "cpu_pct"),
    ("cipherspec,rate_rt_s,cpu_pct\nNo TLS,-1,50\n", "rate_rt_s"),
    ("cipherspec,rate_rt_s,cpu_pct\nNo TLS,100,150\n", "cpu_pct"),
])
def test_bad_input_is_one_line_naming_file_and_column(tmp_path, text, column):
    props.assert_refused_in_one_line(CHAPTER, tmp_path / "bad.csv", text, column)


# -- the book's data ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def book():
    return props.book(CHAPTER)


def test_every_book_rate_and_cpu_is_printed_in_a_tls_table(book):
    printed = pd.concat([pd.read_csv(DATA / f"{n}.csv") for n in
                         ("xlinux93_tls_peak", "xlinux92_tls_peak", "xlinux91_tls_peak")], ignore_index=True)
    keys = set(zip(printed["cipherspec"], printed["rate_rt_s"].astype(float), printed["cpu_pct"].astype(float),
                   printed["clients"].astype(int)))
    costs = props.table(book, "costs")
    shown = set(zip(costs["CipherSpec"], costs["rate (round trips/s)"], costs["CPU %"], costs["clients"].astype(int)))
    assert shown == keys
    # The baseline printed in both tables of a series is one run, kept once.
    assert (costs["CipherSpec"] == "No TLS").sum() == 4 and (costs["runs (n)"] == 1).all()


def test_book_ratios_by_their_formulas(book):
    costs = props.table(book, "costs")
    row = costs[(costs["series"] == "V9.3 GM, non-persistent") & (costs["CipherSpec"] == "ECDHE_ECDSA_AES_256_CBC_SHA384")].iloc[0]
    assert row["rate ratio No TLS / this"] == pytest.approx(372206 / 146222)   # E109: 39.3 %, not "37 %"
    assert row["CPU per round trip, this / No TLS"] == pytest.approx((99 / 146222) / (97 / 372206))
    check = props.table(book, "published")
    assert check["agrees to the printed digits"].all() and len(check) == 5
    assert check["recomputed ratio"].iloc[0] == pytest.approx(370323 / 225441)


def test_book_report_is_honest_and_links_its_errata(book):
    props.assert_report_is_honest(book)
    about = str(book["about_data"])
    for e in ("E100", "E101", "E102", "E107", "E109", "E112", "E141", "E146", "E180", "E181"):
        assert f"<errata-{e.lower()}>" in about
    assert "One run per CipherSpec" in str(book["costs_text"])
    assert not book.extrapolations  # the book's planning rate lies below every run's peak
