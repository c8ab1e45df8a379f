"""IMS bridge chapter: tuning table, rates against CPUs, what the fits identify, CF headroom.

Expected values are recomputed here from the article's printed figures, not copied from the
chapter's output.
"""


import numpy as np
import pandas as pd
import pytest

from mqperf.chapters import ims_bridge as chapter
from mqperf.chapters.ims_bridge import fits as f
from mqperf.data import views
from mqperf.errors import DataError, ModelError
from mqperf.present.results import Missing

import props  # noqa: E402

TUNED = "IMS V13 tuned"
CHAPTER = "ims_bridge"


@pytest.fixture(scope="module")
def book():
    from mqperf import parameters

    return chapter.analyse(parameters.effective("ims_bridge", None, None).values)


@pytest.fixture(scope="module")
def pts():
    return f.points(views.open("ims_bridge_rates", "ims_bridge"))


def test_tuning_table_before_after(book):
    table = book["tuning"].frame.set_index("setting")
    # "increasing the value of the PSBW from 24 to 200 (KB)"
    assert (table.loc["PSBW", "IMS V13 before"], table.loc["PSBW", "IMS V13 after"]) == ("24 KB", "200 KB")
    assert table.loc["QBUF", "IMS V13 before"] == "5 buffers"
    assert "IMS 12: 255" in table.loc["QBUF", "other versions"]


def test_parity_statement_becomes_a_derived_point(pts):
    tuned = pts[pts["series"] == TUNED].set_index("cpus")
    assert tuned.loc[3, "rate_tps"] == 11000 and tuned.loc[3, "basis"] == "derived"
    assert tuned.loc[9, "rate_tps"] == 21400 and tuned.loc[9, "cf_busy_pct"] == 75


def test_book_fits_degrees_of_freedom(pts, book):
    fits = f.fit_all(pts)
    assert fits["amdahl"][TUNED].result.df_resid == 1 and fits["bottleneck"][TUNED].result.df_resid == 1
    # Three points, but sigma is pressed against 0 (SSR far above zero): one degree of freedom.
    usl = fits["usl"][TUNED].result
    assert usl.active_bounds == ("sigma",) and usl.df_resid == 1 and not usl.exactly_identified
    # Series with one CPU count keep the reason instead of a fit.
    assert "1" in fits["amdahl"]["IMS V12 initial"].reason
    said = book.sentences()["identification"]
    assert "σ is held at its bound" in said or "sigma is held at its bound" in said
    assert "exactly identified" not in said
    assert "Student-t quantile of 12.7" in said  # t(0.975, 1) = 12.706
    assert "“IMS V12 initial” and “IMS V13 initial” have fewer than two distinct CPU counts" in said


def test_amdahl_recovers_known_parameters():
    n = np.arange(1, 9)
    frame = f.points(pd.DataFrame({"cpus": n, "rate_tps": 1000 * n / (1 + 0.1 * (n - 1))}))
    r = f.fit_all(frame)["amdahl"]["your data"].result
    assert r.lam == pytest.approx(1000, rel=1e-6) and r.sigma == pytest.approx(0.1, rel=1e-6)


def test_holdout_of_the_largest_by_hand(pts, book):
    table = f.holdout_largest(pts).set_index("model")
    # Amdahl through (3, 11000) and (6, 19000): sigma = 3000/51000, lam = 11000 (1 + 2 sigma) / 3.
    sigma = 3000 / 51000
    lam = 11000 * (1 + 2 * sigma) / 3
    assert table.loc["Amdahl's law", "predicted"] == pytest.approx(9 * lam / (1 + 8 * sigma), rel=1e-6)
    assert table.loc["Amdahl's law", "measured"] == 21400
    # The bottleneck model through the same two points: linear (19,000 / 6 a CP), so its limit is 19,000.
    assert table.loc["bottleneck model", "predicted"] == pytest.approx(19000, rel=1e-6)
    said = book.sentences()["validation"]
    pred = 9 * lam / (1 + 8 * sigma)
    assert f"Amdahl's law over-predicts it by {100 * (pred - 21400) / 21400:.1f} %" in said
    assert "the bottleneck model under-predicts it by 11.2 %" in said


def test_disagreement_and_plan_are_computed(book):
    said = book.sentences()["usl_reading"]
    assert "the bottleneck model stops at 21,400 tx/s" in said
    assert "beyond the largest measured concurrency (9)" in said
    plan = book.sentences()["plan_reading"]
    # Three points rank none of the fits (AICc needs five for two parameters): the plan is what
    # each says, as what the data cannot decide, and 23 CPUs is past the 9 measured.
    assert "the data cannot decide between Amdahl's law, the bottleneck model and the USL" in plan
    assert "Amdahl's law says 23 CPUs (extrapolated)" in plan
    assert "the bottleneck model never reaches 30,000 tx/s" in plan and "the USL never reaches 30,000 tx/s" in plan
    assert book.answers and any("23 CPUs" in e for e in book.extrapolations)
    # Amdahl's limit λ/σ is not stated as a number: σ's interval (-0.54 to 0.78) reaches 0.
    assert "a limit λ/σ the data cannot tell" in said and "39,400" not in said


def test_a_plan_from_the_fit_the_data_prefer(tmp_path):
    # Eight CPU counts from a bottleneck at 15,000 tx/s with 1 % noise: AICc over eight points
    # sets the bottleneck model ahead of the USL and Amdahl's law by far more than 4, and the plan
    # for 14,000 tx/s is its answer alone: the knee 15,000 / 2,500 = 6, so 14,000 needs 6 CPUs.
    rng = np.random.default_rng(3)
    n = np.array([1, 2, 3, 4, 6, 8, 10, 12])
    rate = np.minimum(2500 * n, 15000) * (1 + rng.normal(0, 0.01, n.size))
    path = tmp_path / "ims.csv"
    pd.DataFrame({"series": "mine", "cpus": n, "rate_tps": rate}).to_csv(path, index=False)
    r = props.run(CHAPTER, path, target_tps=14000)
    plan = r.sentences()["plan_reading"]
    assert "the data prefer the bottleneck model" in plan and "the bottleneck model says 6 CPUs." in plan
    assert "Amdahl's law says" not in plan and "the USL says" not in plan
    table = r.items["plan"].frame.set_index("model")
    assert table.loc["bottleneck model", "the data"] == "preferred"
    assert table.loc["USL", "the data"].startswith("rejected")


def test_a_reader_run_without_a_target_plans_from_its_own_rates(tmp_path):
    path = tmp_path / "ims.csv"
    pd.DataFrame({"cpus": [2, 4, 6, 8], "rate_tps": [900.0, 1700, 2300, 2800]}).to_csv(path, index=False)
    r = props.run(CHAPTER, path)
    plan = r.sentences()["plan_reading"]
    assert "No target was given" in plan and "3,500 tx/s" in plan  # 1.25 × 2,800
    assert not any("30,000" in t for t in r.sentences().values())


def test_plan_agrees_with_the_fits(pts):
    fits = f.fit_all(pts)
    plan = f.cpus_for_rate(fits, 30000, 32).set_index("model")
    amdahl = fits["amdahl"][TUNED].result
    need = int(plan.loc["Amdahl's law", "cpus"])
    assert amdahl.predict([need])[0] >= 30000 > amdahl.predict([need - 1])[0]
    assert not plan.loc["bottleneck model", "reachable"]  # X_max = 21,400 < 30,000


def test_cf_time_and_processors_by_hand(pts, book):
    cf = f.cf_point(pts)
    assert (cf["busy_pct"], cf["processors"], cf["rate_tps"]) == (75.0, 4, 21400.0)
    assert f.cf_time_per_transaction_us(cf) == pytest.approx(0.75 * 4 / 21400 * 1e6)
    assert f.cf_processors_needed(cf, 30000, 0.5) == 9  # 30000 x 140.2 us = 4.21 CF processors busy; / 0.5
    head = f.cf_headroom(cf, [21400], processors=[4], max_utilisation=0.5).iloc[0]
    assert head["busy_pct"] == pytest.approx(75)
    assert head["p_wait_pct"] == pytest.approx(50.94, abs=0.1)  # Erlang C(4 servers, 3 erlangs)
    with pytest.raises(ModelError):
        f.cf_headroom(cf, [21400], processors=[4], max_utilisation=1.5)
    said = book.sentences()["cf_reading"]
    assert "a CF request waits 50.9 % of the time" in said and "needs 9" in said and "would be overloaded" in said


def test_book_run_keeps_the_published_passages(book):
    said = book.sentences()
    assert "E037" in said["errata"] and "About the published measurements" in said["rates_about"]
    assert [name for name, _ in book.cards] == ["ims_bridge__amdahl", "ims_bridge__bottleneck", "ims_bridge__usl"]
    assert not props.unshown_numbers(book).keys() - {"system", "tuning_about", "rates_about", "plan_about",
                                                      "cf_about", "errata"}


def test_reader_example_is_honest(root):
    r = props.run("ims_bridge", root / "data" / "examples" / "ims_bridge.csv")
    fits = f.fit_all(r.points)
    props.assert_report_is_honest(r, {f"{s} {m}": v for (s, m), v in f.results(fits).items()})
    assert isinstance(r["tuning"], Missing)
    assert "“OTMA bridge after tuning”" in r.sentences()["usl_reading"]
    assert "21,400" not in " ".join(r.sentences().values())  # the book's numbers stay with the book's data


def test_reader_file(tmp_path):
    path = tmp_path / "cpus.csv"
    path.write_text("cpus,rate_tps,cf_busy_pct,cf_processors\n2,5000,,\n4,9000,,\n8,14000,60,2\n")
    r = props.run("ims_bridge", path)
    assert len(r.points) == 3
    assert f.cf_point(r.points) == {"busy_pct": 60.0, "processors": 2, "rate_tps": 14000.0, "series": "your data",
                                    "cpus": 8}
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"cpus": [2]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match="rate_tps"):
        props.run("ims_bridge", bad)
    one = tmp_path / "one.csv"
    pd.DataFrame({"cpus": [2, 2], "rate_tps": [5000, 5100]}).to_csv(one, index=False)
    with pytest.raises(ModelError):
        props.run("ims_bridge", one)


def test_reader_file_without_cf_says_so(tmp_path):
    path = tmp_path / "cpus.csv"
    path.write_text("cpus,rate_tps\n2,5000\n4,9000\n")
    r = props.run("ims_bridge", path)
    props.assert_report_is_honest(r)
    assert isinstance(r["cf"], Missing) and "cf_busy_pct" in r["cf"].why
    assert isinstance(r["holdout"], Missing) and isinstance(r["leave_one_out"], Missing)
    assert "usl" not in {m for _, m in f.results(f.fit_all(r.points))}
