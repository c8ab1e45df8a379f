"""RACF chapter: the article's table in words, its rows evaluated, the comparison, a reader's file.

Expected outcomes come from the article's words and IBM's documented order of checking
(written here), not from the code under test.
"""

from pathlib import Path

import pandas as pd
import pytest

from mqperf import parameters
from mqperf.chapters.racf_profiles import fits as parts
from mqperf.chapters.racf_profiles import text
from mqperf.chapters import racf_profiles
from mqperf.data import loader, views
from mqperf.errors import DataError
from mqperf.models import racf
from mqperf.present.results import ABOUT_TITLE, Missing

import props  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "data" / "examples" / "racf_profiles.csv"


@pytest.fixture(scope="module")
def rules():
    return loader.load("racf_profile_rules").sort_values("rule_id", kind="stable").reset_index(drop=True)


def book(**over):
    return racf_profiles.analyse({**parameters.effective("racf_profiles", None, {}).values, **over})


def computed(r):
    """The computed passages (about-passages cite the source and are not results)."""
    return {k: v for k, v in r.sentences().items() if ABOUT_TITLE not in v}


def test_article_table_in_words(rules):
    table = parts.rules_table(rules).set_index("rule")
    assert len(table) == 7
    assert table.loc[2, "defined"] == "ssid.NO.QMGR.CHECKS"
    assert "qsg.NO.QMGR.CHECKS" in table.loc[2, "not defined"]
    assert table.loc[1, "security checks"] == "not made"


def test_every_row_agrees_with_itself(rules):
    examples = parts.row_examples(rules, ssid="QMA", qsg="QSG1", queue="SYSTEM.ADMIN.COMMAND.QUEUE").set_index("rule")
    assert (examples["verdict"] == "agrees").all()
    assert examples.loc[6, "profile used"] == "QMA.SYSTEM.**" and examples.loc[7, "profile used"] == "QSG1.SYSTEM.**"
    assert "all seven rows" in text.row_reading(examples.reset_index())


def test_grid_and_summary(rules):
    grid = parts.level_grid(rules)
    assert len(grid) == 64  # 2^3 QMGR-level × 2^3 QSG-level switch combinations
    cell = grid.set_index(["QMGR-level switches", "QSG-level switches"])
    assert tuple(cell.loc[("none", "none"), ["levels checked", "the table"]]) == ("QMGR and QSG", "agrees")
    assert tuple(cell.loc[("qsg.NO", "none"), ["levels checked", "the table"]]) == ("QSG only", "disagrees")
    summary = parts.comparison_summary(racf.compare(rules))
    assert summary["combinations"].sum() == 1024  # 2^9 switch states × ssid queue profile or not
    assert summary["share (%)"].sum() == pytest.approx(100)


def test_the_articles_own_advice_does_not_act_as_it_says():
    r = book()
    assert r.book_data
    levels = r.show("summary").frame.set_index("question").loc["levels checked"]
    # Row 2's ssid.NO.QMGR.CHECKS is checked before row 5's ssid.YES.QMGR.CHECKS.
    assert (levels["documented order"], levels["the article's table"]) == ("QSG only", "QMGR and QSG")
    assert r.show("queues").frame["profile used"].iloc[0] == "QSG1.SYSTEM.**"
    assert r.show("warnings").frame["warning"].str.contains("cannot override").any()
    said = r.sentences()
    assert "QSG level only" in said["summary_reading"]
    assert "expects queue-manager-level checks that MQ does not make" in said["summary_reading"]
    assert ABOUT_TITLE in said["disagree_notes"] and ABOUT_TITLE in said["slips"]
    assert not props.unshown_numbers(type(r)(r.book_data, r.source, {k: v for k, v in r.items.items()
                                                                      if k not in ("article",)}))


def test_reader_example_reads_as_the_readers():
    r = props.run("racf_profiles", EXAMPLE)
    assert not r.book_data
    props.assert_report_is_honest(r)
    said = r.sentences()
    # QSG1.NO.QMGR.CHECKS overridden by QMA.YES.QMGR.CHECKS, no NO.QSG.CHECKS by name: both levels.
    assert said["summary_reading"].startswith("MQ checks at QMGR and QSG levels")
    # QMA.SYSTEM.ADMIN.* is more specific than QMA.SYSTEM.** for SYSTEM.ADMIN.COMMAND.QUEUE
    assert "`QMA.SYSTEM.ADMIN.*` at queue-manager level, the most specific of two" in said["queue_reading"]
    # QSG1.NO.QSG.** counted (the article) would switch the QSG level off
    assert "counted (the article) it would check QMGR only" in said["generic_reading"]
    warnings = " ".join(r.show("warnings").frame["warning"])
    assert "QMA.NO.QMGR.CHECK is not a switch profile" in warnings
    counts = r.show("profile_counts").frame.set_index("class")
    assert counts.loc["all", "profiles"] == 12 and counts.loc["GMQQUEUE", "MQ reads them as"] == "not read (group class)"


def test_no_generic_switch_and_no_queue_say_why(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQADMIN", "MQQUEUE"], "profile": ["QMA.NO.QSG.CHECKS", "QMA.SYSTEM.**"]}).to_csv(path, index=False)
    r = props.run("racf_profiles", path, queues="")
    assert isinstance(r.show("generic"), Missing) and isinstance(r.show("queues"), Missing)
    assert isinstance(r.show("warnings"), Missing)
    props.assert_report_is_honest(r)


def test_outside_a_qsg_the_table_does_not_apply(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQQUEUE"], "profile": ["QMA.SYSTEM.**"]}).to_csv(path, index=False)
    r = props.run("racf_profiles", path, qsg="")
    assert "in no queue sharing group" in r.sentences()["summary_reading"]
    assert r.show("queues").frame["level"].iloc[0] == "ssid"
    props.assert_report_is_honest(r)


def test_reader_profiles_file(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQADMIN", "MQQUEUE"], "profile": ["QMA.NO.QSG.CHECKS", "QMA.SYSTEM.**"]}).to_csv(path, index=False)
    prof = racf.Profiles.from_frame(views.open(path, "racf_profiles"))
    assert prof.admin == ("QMA.NO.QSG.CHECKS",) and prof.queue == ("QMA.SYSTEM.**",)
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"class": ["DATASET"], "profile": ["X.Y"]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match="class"):
        props.run("racf_profiles", bad)


def test_queue_names_are_printed_as_given_and_checked_in_upper_case(tmp_path):
    # MQQUEUE holds upper-case profiles, so "Orders.Reply" is checked as ORDERS.REPLY, and the
    # report prints the name as the reader typed it, saying what it was checked as.
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQQUEUE"], "profile": ["QMA.ORDERS.**"]}).to_csv(path, index=False)
    r = props.run("racf_profiles", path, queues="Orders.Reply", qsg="")
    text = r.sentences()["queue_reading"]
    assert "“Orders.Reply” (as `ORDERS.REPLY`" in text and "`QMA.ORDERS.**`" in text
    table = r.items["queues"].frame
    assert list(table["queue"]) == ["Orders.Reply"] and list(table["checked as"]) == ["ORDERS.REPLY"]


def test_a_verdict_for_the_default_queue_manager_says_whose_name_it_is(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQADMIN", "MQQUEUE"], "profile": ["MQP1.NO.QSG.CHECKS", "MQP1.ORDERS.**"]}) \
        .to_csv(path, index=False)
    r = props.run("racf_profiles", path)
    text = r.sentences()["summary_reading"]
    assert "the parameters' defaults (the book's example names), which your profiles never name" in text
    assert "they name “MQP1”" in text
    assert r.answers and not r.extrapolations
