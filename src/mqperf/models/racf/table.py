"""The article's table executed as a decision table, and compared with IBM's documented order over
every combination of the switch profiles (see :mod:`mqperf.models.racf`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from mqperf.models.racf.order import SWITCHES, Checks, Profiles, _name, resolve, switch_names


#: Condition columns of the article's table that are switch profiles (a subset of SWITCHES).
TABLE_SWITCHES = (
    "ssid_no_subsys_security", "qsg_no_subsys_security", "ssid_no_qmgr_checks", "qsg_no_qmgr_checks",
    "ssid_yes_qmgr_checks", "ssid_no_qsg_checks", "qsg_no_qsg_checks",
)
#: The table's last condition: is a queue-manager (ssid) queue profile defined?
QUEUE_CONDITION = "ssid_queue_profile"


@dataclass(frozen=True)
class TableDecision:
    """What the article's table says for a state; ``covered`` False when no row matches."""

    covered: bool
    rule_ids: tuple[int, ...]
    security: bool | None = None
    qmgr_level: bool | None = None
    qsg_level: bool | None = None
    queue_profile: str | None = None  # the table's words, e.g. 'MQQUEUE qsg.system.*'

    @property
    def levels(self) -> str:
        if not self.covered:
            return "not covered"
        if not self.security:
            return "none"
        if self.qmgr_level and self.qsg_level:
            return "QMGR and QSG"
        return "QMGR only" if self.qmgr_level else "QSG only" if self.qsg_level else "neither"

    @property
    def queue_level(self) -> str | None:
        """'ssid', 'qsg', 'no checks' or None, read from the table's profile words."""
        if not self.covered:
            return None
        if not self.security:
            return "no checks"
        text = (self.queue_profile or "").lower()
        if "qsg.system" in text:
            return "qsg"
        if "ssid.system" in text or "qmgr.system" in text:
            return "ssid"
        return None


def _holds(row, state: Mapping[str, bool]) -> bool:
    for col in (*TABLE_SWITCHES, QUEUE_CONDITION):
        want = row.get(col)
        if want is None or pd.isna(want) or want == "":
            continue
        if (want == "defined") != bool(state.get(col, False)):
            return False
    return True


def _made(value) -> bool | None:
    if value is None or pd.isna(value) or value == "":
        return None
    return value == "made"


def _records(rules) -> list[dict]:
    """The table's rows as dicts; a caller deciding many states converts once and passes the list."""
    return rules.to_dict("records") if isinstance(rules, pd.DataFrame) else rules


def table_decision(state: Mapping[str, bool], rules: pd.DataFrame | list[dict]) -> TableDecision:
    """Execute the article's table for a switch state (see the module docstring).

    ``state`` maps the table's condition columns (and any other switch keys, ignored here)
    to True for "defined"; :data:`QUEUE_CONDITION` says whether an ssid queue profile exists.
    """
    records = _records(rules)
    switch_rows = [r for r in records if r["rule_type"] == "switch_profiles"]
    hit = next((r for r in switch_rows if _holds(r, state)), None)
    if hit is None:
        return TableDecision(False, ())
    ids = [int(hit["rule_id"])]
    security = _made(hit["security_checks"])
    qmgr, qsg = _made(hit["qmgr_level_checks"]), _made(hit["qsg_level_checks"])
    profile = hit["queue_profile_checked"] if isinstance(hit["queue_profile_checked"], str) else None
    if security:
        for r in records:
            if r["rule_type"] == "override" and _holds(r, state):
                ids.append(int(r["rule_id"]))
                qmgr = True if _made(r["qmgr_level_checks"]) else qmgr
                qsg = True if _made(r["qsg_level_checks"]) else qsg
        if qmgr and qsg:
            sel = next((r for r in records if r["rule_type"] == "queue_profile_selection" and _holds(r, state)), None)
            if sel is not None:
                ids.append(int(sel["rule_id"]))
                profile = sel["queue_profile_checked"]
    return TableDecision(True, tuple(ids), bool(security), bool(qmgr), bool(qsg), profile)


def row_state(row: Mapping) -> dict[str, bool]:
    """The least the row asks for: its 'defined' conditions True, everything else False."""
    return {col: row.get(col) == "defined" for col in (*TABLE_SWITCHES, QUEUE_CONDITION)}


def row_profiles(row: Mapping, ssid: str, qsg: str) -> Profiles:
    """Profiles to define for one row of the table, with real names for ``ssid`` and ``qsg``."""
    names = switch_names(ssid, qsg)
    admin = [names[col] for col in TABLE_SWITCHES if row.get(col) == "defined"]
    queue = []
    if row.get(QUEUE_CONDITION) == "defined":
        queue.append(f"{_name(ssid, 'ssid')}.SYSTEM.**")
    text = str(row.get("queue_profile_checked") or "")
    if "qmgr.system" in text:
        queue.append(f"{_name(ssid, 'ssid')}.SYSTEM.**")
    if "qsg.system" in text or row.get("rule_type") == "queue_profile_selection":
        # Rules 6 and 7 choose between the two levels: give both rows the QSG profile.
        queue.append(f"{_name(qsg, 'qsg')}.SYSTEM.**")
    return Profiles(tuple(admin), tuple(dict.fromkeys(queue)))


def _engine_queue_level(checks: Checks, ssid_queue_profile: bool) -> str:
    if not checks.security:
        return "no checks"
    if checks.qmgr_level and (ssid_queue_profile or not checks.qsg_level):
        return "ssid"
    return "qsg"


def compare_state(state: Mapping[str, bool], rules: pd.DataFrame | list[dict]) -> dict:
    """One state: the documented result, the table's, and whether they agree."""
    checks = resolve(state)
    table = table_decision(state, rules)
    engine_queue = _engine_queue_level(checks, bool(state.get(QUEUE_CONDITION, False)))
    if not table.covered:
        verdict = "not covered"
    elif table.levels == checks.levels and table.queue_level in (engine_queue, None):
        verdict = "agrees"
    else:
        verdict = "disagrees"
    return {"levels": checks.levels, "queue_level": engine_queue, "csqh026i": checks.invalid_combination,
            "table_levels": table.levels, "table_queue_level": table.queue_level,
            "table_rules": ",".join(map(str, table.rule_ids)), "verdict": verdict}


def compare(rules: pd.DataFrame) -> pd.DataFrame:
    """Every combination of the nine switches and the ssid queue profile (1024 states)."""
    keys = (*SWITCHES, QUEUE_CONDITION)
    records = _records(rules)
    rows = []
    for values in itertools.product((False, True), repeat=len(keys)):
        state = dict(zip(keys, values))
        rows.append({**state, "defined": sum(values[: len(SWITCHES)]), **compare_state(state, records)})
    return pd.DataFrame(rows)


def describe_state(state: Mapping[str, bool], ssid: str = "ssid", qsg: str = "qsg") -> str:
    """The defined switch profiles of a state as text ('nothing defined' when none)."""
    names = {k: v.format(ssid=ssid, qsg=qsg) for k, v in SWITCHES.items()}
    parts = [names[k] for k in SWITCHES if state.get(k)]
    if state.get(QUEUE_CONDITION):
        parts.append(f"MQQUEUE {ssid}.SYSTEM.*")
    return ", ".join(parts) if parts else "nothing defined"
