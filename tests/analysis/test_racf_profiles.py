"""RACF chapter tables: the article's table, its rows evaluated, the comparison grid, a reader's file."""

import pandas as pd
import pytest

from mqperf import racf
from mqperf.analysis import racf_profiles as rp
from mqperf.errors import DataError


@pytest.fixture(scope="module")
def rules():
    return racf.load_rules()


def test_article_table_in_words(rules):
    table = rp.article_table(rules).set_index("rule")
    assert len(table) == 7
    assert table.loc[2, "defined"] == "ssid.NO.QMGR.CHECKS"
    assert "qsg.NO.QMGR.CHECKS" in table.loc[2, "not defined"]
    assert table.loc[1, "security checks"] == "not made"


def test_every_row_agrees_with_itself(rules):
    examples = rp.row_examples(rules, ssid="QMA", qsg="QSG1", queue="SYSTEM.ADMIN.COMMAND.QUEUE").set_index("rule")
    assert (examples["verdict"] == "agrees").all()
    assert examples.loc[6, "profile used"] == "QMA.SYSTEM.**" and examples.loc[7, "profile used"] == "QSG1.SYSTEM.**"


def test_grid_and_summary(rules):
    grid = rp.level_grid(rules)
    assert len(grid) == 64
    none = grid[(grid["qmgr_switches"] == "none") & (grid["qsg_switches"] == "none")].iloc[0]
    assert (none["levels"], none["table"]) == ("QMGR and QSG", "agrees")
    qsg_no_qmgr = grid[(grid["qmgr_switches"] == "qsg.NO") & (grid["qsg_switches"] == "none")].iloc[0]
    assert (qsg_no_qmgr["levels"], qsg_no_qmgr["table"]) == ("QSG only", "disagrees")
    summary = rp.comparison_summary(racf.compare(rules))
    assert summary["states"].sum() == 1024


def test_the_articles_own_override_does_not_act(rules):
    prof = rp.article_profiles(rules, ssid="QMA", qsg="QSG1")
    report = rp.reader_report(prof, ssid="QMA", qsg="QSG1", queues=["SYSTEM.ADMIN.COMMAND.QUEUE"])
    levels = report["summary"].set_index("question").loc["levels checked"]
    assert (levels["documented order"], levels["article's table"]) == ("QSG only", "QMGR and QSG")
    assert report["queues"].iloc[0]["profile_used"] == "QSG1.SYSTEM.**"
    assert report["warnings"]["warning"].str.contains("cannot override").any()


def test_reader_profiles_file(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame({"class": ["MQADMIN", "MQQUEUE"], "profile": ["QMA.NO.QSG.CHECKS", "QMA.SYSTEM.**"]}).to_csv(path, index=False)
    prof = rp.load_profiles(str(path))
    assert prof.admin == ("QMA.NO.QSG.CHECKS",) and prof.queue == ("QMA.SYSTEM.**",)
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"class": ["DATASET"], "profile": ["X.Y"]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match="class"):
        rp.load_profiles(str(bad))
