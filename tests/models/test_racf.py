"""RACF switch profiles: one test per row of the article's table (seed 002), then edge cases.

Expected outcomes are written from the article's words (quoted) and IBM's documentation of
the switch order, not read back from mqperf.models.racf.
"""

from __future__ import annotations

import pytest

from mqperf.data import loader
from mqperf.errors import MQPerfError
from mqperf.models import racf

SSID, QSG = "QMA", "QSG1"
QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"


def profiles(admin=(), queue=()):
    return racf.Profiles.from_pairs([("MQADMIN", p) for p in admin] + [("MQQUEUE", p) for p in queue])


def checks_for(prof, *, qsg=QSG, generic_switches=False):
    state = racf.switch_state(prof, SSID, qsg, generic_switches=generic_switches)
    return racf.resolve(state, in_qsg=qsg is not None)


@pytest.fixture(scope="module")
def rules():
    return loader.load("racf_profile_rules").sort_values("rule_id", kind="stable").reset_index(drop=True)


# -- one test per row of the article's table ------------------------------------------------------

def test_row1_no_security(rules):
    # "No security / Defined / ssid.NO.SUBSYS.SECURITY"
    prof = profiles(["QMA.NO.SUBSYS.SECURITY"], ["QMA.SYSTEM.**", "QSG1.SYSTEM.**"])
    checks = checks_for(prof)
    assert (checks.security, checks.qmgr_level, checks.qsg_level) == (False, False, False)
    assert racf.queue_profile(QUEUE, checks, prof, SSID, QSG) == (None, "no checks")
    decision = racf.table_decision(racf.switch_state(prof, SSID, QSG), rules)
    assert decision.rule_ids == (1,) and decision.security is False


def test_row2_qsg_profiles_not_ssid_profiles(rules):
    # "Use QSG.* profiles and not ssid profiles / Defined / MQADMIN ssid.NO.QMGR.CHECKS for each
    #  ssid / MQQUEUE qsg.system.*"; not defined: qsg.NO.QMGR.CHECKS and both NO.SUBSYS.SECURITY.
    prof = profiles(["QMA.NO.QMGR.CHECKS"], ["QSG1.SYSTEM.*", "QMA.SYSTEM.**"])
    checks = checks_for(prof)
    assert checks.security and checks.qsg_level and not checks.qmgr_level
    # The queue manager's own profile is not consulted at QSG level only.
    assert racf.queue_profile(QUEUE, checks, prof, SSID, QSG) == ("QSG1.SYSTEM.*", "qsg")
    assert racf.table_decision(racf.switch_state(prof, SSID, QSG), rules).rule_ids == (2,)


def test_row3_queue_manager_profiles_not_qsg_profiles(rules):
    # "Use QMGR.* profile and not ssid profiles" (read: not QSG profiles, E035) / Defined /
    # MQADMIN ssid.NO.QSG.CHECKS / MQQUEUE qmgr.system.*
    prof = profiles(["QMA.NO.QSG.CHECKS"], ["QMA.SYSTEM.*", "QSG1.SYSTEM.**"])
    checks = checks_for(prof)
    assert checks.security and checks.qmgr_level and not checks.qsg_level
    assert racf.queue_profile(QUEUE, checks, prof, SSID, QSG) == ("QMA.SYSTEM.*", "ssid")
    # A QSG profile alone protects nothing at queue manager level only.
    only_qsg = profiles(["QMA.NO.QSG.CHECKS"], ["QSG1.SYSTEM.**"])
    assert racf.queue_profile(QUEUE, checks, only_qsg, SSID, QSG) == (None, "none")
    assert racf.table_decision(racf.switch_state(prof, SSID, QSG), rules).rule_ids == (3,)


def test_row4_qsg_and_ssid_profiles(rules):
    # "Use QSG and ssid profiles / Defined / none / Not defined / ssid.NO.QSG.CHECKS,
    #  qsg.NO.QSG.CHECKS, MQADMIN ssid.NO.SUBSYS.SECURITY, MQADMIN qsg.NO.SUBSYS.SECURITY"
    prof = profiles([], ["QSG1.SYSTEM.**"])
    checks = checks_for(prof)
    assert (checks.security, checks.qmgr_level, checks.qsg_level) == (True, True, True)
    assert not checks.invalid_combination
    decision = racf.table_decision(racf.switch_state(prof, SSID, QSG), rules)
    assert decision.rule_ids[0] == 4 and decision.qmgr_level and decision.qsg_level


def test_row5_yes_qmgr_checks_overrides_the_qsg(rules):
    # "To have QMGR QMA definitons override the QSG define MQADMIN QMA.YES.QMGR.CHECKS".
    # The override acts on the QSG-wide switch qsg.NO.QMGR.CHECKS (IBM's order): QMA then
    # checks both levels, while a queue manager without the YES profile checks QSG level only.
    prof = profiles(["QSG1.NO.QMGR.CHECKS", "QMA.YES.QMGR.CHECKS"], ["QMA.SYSTEM.**", "QSG1.SYSTEM.**"])
    qma = checks_for(prof)
    assert qma.qmgr_level and qma.qsg_level
    assert racf.queue_profile(QUEUE, qma, prof, "QMA", QSG) == ("QMA.SYSTEM.**", "ssid")
    qmb = racf.resolve(racf.switch_state(prof, "QMB", QSG))
    assert qmb.qsg_level and not qmb.qmgr_level
    assert 5 in racf.table_decision(racf.switch_state(profiles(["QMA.YES.QMGR.CHECKS"]), SSID, QSG), rules).rule_ids


def test_row6_ssid_queue_profile_found_is_used(rules):
    # "If profile MQQUEUE ssid.system.* found get userid access to profile MQQUEUE ssid.system.*"
    prof = profiles([], ["QMA.SYSTEM.*", "QSG1.SYSTEM.*"])
    checks = checks_for(prof)
    assert racf.queue_profile(QUEUE, checks, prof, SSID, QSG) == ("QMA.SYSTEM.*", "ssid")
    state = {**racf.switch_state(prof, SSID, QSG), racf.QUEUE_CONDITION: True}
    assert racf.table_decision(state, rules).rule_ids == (4, 6)


def test_row7_else_qsg_queue_profile(rules):
    # "else (profile MQQUEUE ssid.system.* not found ) get userid access to MQQUEUE qsg.system.*"
    prof = profiles([], ["QSG1.SYSTEM.*", "QMB.SYSTEM.*"])  # another queue manager's profile does not count
    checks = checks_for(prof)
    assert racf.queue_profile(QUEUE, checks, prof, SSID, QSG) == ("QSG1.SYSTEM.*", "qsg")
    state = {**racf.switch_state(prof, SSID, QSG), racf.QUEUE_CONDITION: False}
    assert racf.table_decision(state, rules).rule_ids == (4, 7)


@pytest.mark.parametrize("rule_id", [1, 2, 3, 4, 5, 6, 7])
def test_documented_order_gives_each_rows_stated_outcome(rules, rule_id):
    """Each row's least state (its 'defined' profiles only) against the checks the row states."""
    row = rules[rules["rule_id"] == rule_id].iloc[0].to_dict()
    checks = racf.resolve(racf.row_state(row))
    stated = {"security_checks": checks.security, "qmgr_level_checks": checks.qmgr_level, "qsg_level_checks": checks.qsg_level}
    for column, value in stated.items():
        if isinstance(row[column], str):
            assert (row[column] == "made") == value, (rule_id, column)


def test_row_profiles_reproduce_the_rows(rules):
    for row in rules.to_dict("records"):
        prof = racf.row_profiles(row, SSID, QSG)
        if row["rule_type"] == "switch_profiles":
            state = racf.switch_state(prof, SSID, QSG)
            assert racf.table_decision(state, rules).rule_ids[0] == row["rule_id"]


# -- edge cases -------------------------------------------------------------------------------------

def test_e036_profile_without_final_s_is_not_a_switch():
    prof = profiles(["QMA.NO.QMGR.CHECK"])
    assert checks_for(prof).qmgr_level  # nothing switched off
    notes = racf.warnings(prof, SSID, QSG)
    assert any("QMA.NO.QMGR.CHECKS" in w and "E036" in w for w in notes)


def test_both_levels_off_is_invalid_and_checks_both():
    prof = profiles(["QMA.NO.QMGR.CHECKS", "QMA.NO.QSG.CHECKS"])
    checks = checks_for(prof)
    assert checks.invalid_combination and checks.qmgr_level and checks.qsg_level
    assert any("CSQH026I" in w for w in racf.warnings(prof, SSID, QSG))


def test_no_profile_is_checked_first_so_yes_cannot_override_it(rules):
    # Row 2 defines QMA.NO.QMGR.CHECKS; adding QMA.YES.QMGR.CHECKS (row 5) leaves the QMGR level off.
    prof = profiles(["QMA.NO.QMGR.CHECKS", "QMA.YES.QMGR.CHECKS"])
    assert not checks_for(prof).qmgr_level
    state = racf.switch_state(prof, SSID, QSG)
    assert racf.compare_state(state, rules)["verdict"] == "disagrees"  # the table's override turns it on
    assert any("cannot override" in w for w in racf.warnings(prof, SSID, QSG))


def test_qsg_wide_switch_that_the_table_misses(rules):
    prof = profiles(["QSG1.NO.QMGR.CHECKS"])
    checks = checks_for(prof)
    assert checks.qsg_level and not checks.qmgr_level
    assert racf.compare_state(racf.switch_state(prof, SSID, QSG), rules)["verdict"] == "disagrees"
    silent = racf.switch_state(profiles(["QSG1.NO.QSG.CHECKS"]), SSID, QSG)
    assert racf.compare_state(silent, rules)["verdict"] == "not covered"


def test_subsystem_switch_for_the_qsg_and_its_override():
    assert not checks_for(profiles(["QSG1.NO.SUBSYS.SECURITY"])).security
    assert checks_for(profiles(["QSG1.NO.SUBSYS.SECURITY", "QMA.YES.SUBSYS.SECURITY"])).security


def test_not_in_a_qsg_reads_only_the_queue_manager_profiles():
    prof = profiles(["QSG1.NO.SUBSYS.SECURITY"], ["QSG1.SYSTEM.**", "QMA.SYSTEM.**"])
    checks = checks_for(prof, qsg=None)
    assert checks.security and checks.qmgr_level and not checks.qsg_level
    assert racf.queue_profile(QUEUE, checks, prof, SSID, None) == ("QMA.SYSTEM.**", "ssid")


def test_generic_switch_profiles_ignored_unless_asked():
    prof = profiles(["QMA.NO.**"])
    assert checks_for(prof).security  # IBM: generic switch profiles are ignored
    assert not checks_for(prof, generic_switches=True).security  # the article: they count
    assert any("generic QMA.NO.**" in w for w in racf.warnings(prof, SSID, QSG))


def test_switch_in_a_group_class_is_ignored():
    prof = racf.Profiles.from_pairs([("GMQADMIN", "QMA.NO.SUBSYS.SECURITY")])
    assert checks_for(prof).security
    assert any("GMQADMIN" in w for w in racf.warnings(prof, SSID, QSG))


def test_names_are_case_insensitive():
    prof = racf.Profiles.from_pairs([("mqadmin", "qma.no.subsys.security")])
    assert not checks_for(prof).security


def test_yes_without_a_qsg_no_has_no_effect():
    notes = racf.warnings(profiles(["QMA.YES.QSG.CHECKS"]), SSID, QSG)
    assert any("has no effect" in w for w in notes)


@pytest.mark.parametrize("profile, resource, expected", [
    ("ABC.DEF*", "ABC.DEF", True),       # ending *: zero or more characters ...
    ("ABC.DEF*", "ABC.DEFG", True),
    ("ABC.DEF*", "ABC.DEF.X.Y", True),   # ... and qualifiers, to the end of the name
    ("ABC.DEF.*", "ABC.DEF.X.Y", True),  # ending qualifier *: one or more qualifiers
    ("ABC.DEF.*", "ABC.DEF", False),
    ("ABC.*.DEF", "ABC.X.DEF", True),    # middle qualifier *: exactly one
    ("ABC.*.DEF", "ABC.X.Y.DEF", False),
    ("ABC.DE*.FGH", "ABC.DEXY.FGH", True),
    ("ABC.DE*.FGH", "ABC.DEX.Y.FGH", False),
    ("ABC.**", "ABC", True),             # **: zero or more qualifiers
    ("ABC.**.DEF", "ABC.X.Y.DEF", True),
    ("AB%.X", "ABC.X", True),
    ("AB%.X", "ABCD.X", False),
    ("**", "ANY.THING", True),
    ("QMA.SYSTEM.ADMIN.COMMAND.QUEUE", "QMA.SYSTEM.ADMIN.COMMAND.QUEUE", True),
    ("QMA.SYSTEM.ADMIN.COMMAND.QUEUE", "QMA.SYSTEM.ADMIN.COMMAND.QUEUEX", False),
])
def test_generic_profile_matching(profile, resource, expected):
    assert racf.covers(profile, resource) is expected


def test_most_specific_profile_wins():
    names = ["QMA.**", "QMA.SYSTEM.**", "QMA.SYSTEM.ADMIN.*"]
    assert racf.most_specific(names, "QMA.SYSTEM.ADMIN.COMMAND.QUEUE") == "QMA.SYSTEM.ADMIN.*"
    assert racf.most_specific(names + ["QMA.SYSTEM.ADMIN.COMMAND.QUEUE"], "QMA.SYSTEM.ADMIN.COMMAND.QUEUE") == \
        "QMA.SYSTEM.ADMIN.COMMAND.QUEUE"
    assert racf.most_specific(["QMA.SYSTEM.A%%%%.**", "QMA.SYSTEM.*"], "QMA.SYSTEM.ADMIN.X") == "QMA.SYSTEM.A%%%%.**"
    assert racf.most_specific(names, "QMB.SYSTEM.X") is None


def test_compare_enumerates_every_state(rules):
    table = racf.compare(rules)
    assert len(table) == 2 ** 10
    assert set(table["verdict"]) == {"agrees", "disagrees", "not covered"}
    nothing = table[(table["defined"] == 0) & ~table[racf.QUEUE_CONDITION]].iloc[0]
    assert nothing["verdict"] == "agrees" and nothing["levels"] == "QMGR and QSG"


@pytest.mark.parametrize("bad", ["", "QM.A", "QM*"])
def test_bad_queue_manager_name(bad):
    with pytest.raises(MQPerfError):
        racf.switch_names(bad, QSG)


# -- the index answers as a scan over every profile would ------------------------------------------

GENERIC_NAMES = ["QMA.**", "QMA.SYSTEM.**", "QMA.SYSTEM.ADMIN.*", "QMA.SYSTEM.*", "QMA.SYS*", "QMA.SYSTEM.%%%%%.**",
                 "**", "*.SYSTEM.**", "%MA.SYSTEM.**", "QSG1.SYSTEM.**", "QSG1.*", "QMA.SYSTEM.ADMIN.COMMAND.QUEUE",
                 "QMA.APP.*.IN", "QMA.APP*", "QMA", "QMA.NO.**", "QMA.NO.QMGR.CHECK*", "QSG1.NO.QSG.**"]
RESOURCES = ["QMA.SYSTEM.ADMIN.COMMAND.QUEUE", "QMA.SYSTEM.DEFAULT.LOCAL.QUEUE", "QSG1.SYSTEM.X", "QMA.APP.X.IN",
             "QMA.APPLE", "QMA", "QMA.NO.QMGR.CHECKS", "QSG1.NO.QSG.CHECKS", "QMB.SYSTEM.X", "QMA.SYSTEMS"]


@pytest.mark.parametrize("resource", RESOURCES)
def test_index_finds_what_a_scan_finds(resource):
    index = racf.ProfileIndex(GENERIC_NAMES)
    scan_generic = [p for p in GENERIC_NAMES if racf.is_generic(p) and racf.covers(p, resource)]
    assert index.generic_covering(resource) == scan_generic
    assert racf.most_specific(index, resource) == racf.most_specific(GENERIC_NAMES, resource)


def test_switch_state_and_warnings_agree_with_a_scan_on_many_profiles():
    admin = [f"QMA.ADM{i:04d}.**" for i in range(3000)] + ["QSG1.NO.QMGR.CHECKS", "QMA.NO.QMGR.CHECK", "QSG1.NO.*"]
    prof = profiles(admin, ["QMA.SYSTEM.**", "QSG1.SYSTEM.**"])
    for generic in (False, True):
        state = racf.switch_state(prof, SSID, QSG, generic_switches=generic)
        for key, name in racf.switch_names(SSID, QSG).items():
            scan = name in admin or (generic and any(racf.is_generic(p) and racf.covers(p, name) for p in admin))
            assert state[key] == scan, (key, generic)
    said = racf.warnings(prof, SSID, QSG)
    assert any("QMA.NO.QMGR.CHECK is not a switch profile" in w for w in said)  # the E036 slip, one letter short
    assert any("generic QSG1.NO.* covers QSG1.NO.QSG.CHECKS" in w for w in said)  # not defined by name
