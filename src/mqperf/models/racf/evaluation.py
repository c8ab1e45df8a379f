"""A reader's profiles evaluated: the switches, the checks, the table's verdict, the profile each
queue is checked against, and what in the profiles does not do what it seems to."""

from __future__ import annotations

import difflib
from typing import Iterable

import pandas as pd

from mqperf.models.racf.names import is_generic, most_specific
from mqperf.models.racf.order import SWITCHES, Profiles, _name, queue_profile, resolve, switch_names, switch_state
from mqperf.models.racf.table import QUEUE_CONDITION, table_decision


def near_misses(profiles: Profiles, ssid: str, qsg: str | None, *, cutoff: float = 0.9) -> list[tuple[str, str]]:
    """(defined profile, switch it resembles) for names one slip away from a switch (E036)."""
    names = [n for n in switch_names(ssid, qsg).values() if n]
    lengths = {len(n) for n in names}
    found = []
    for p in profiles.admin:
        if p in names or is_generic(p):
            continue
        # difflib's own first test (real_quick_ratio): similarity is at most 2·min(len)/(sum of
        # lengths); a name failing it for every switch cannot be a near miss, and skipping it
        # spares building a SequenceMatcher per profile.
        if all(2 * min(len(p), n) / (len(p) + n) < cutoff for n in lengths):
            continue
        close = difflib.get_close_matches(p, names, n=1, cutoff=cutoff)
        if close:
            found.append((p, close[0]))
    return found


def warnings(profiles: Profiles, ssid: str, qsg: str | None, *, generic_switches: bool = False) -> list[str]:
    """Things in a reader's profiles that do not do what they seem to."""
    out = []
    names = switch_names(ssid, qsg)
    exact = switch_state(profiles, ssid, qsg, generic_switches=False)
    for p, like in near_misses(profiles, ssid, qsg):
        out.append(f"{p} is not a switch profile; it resembles {like} (see erratum E036), and MQ ignores it")
    for key, name in names.items():
        if name is None or exact[key]:
            continue
        covering = profiles.admin_index.generic_covering(name)
        if covering:
            counted = "counted (generic_switches=True, the article's reading)" if generic_switches else \
                "ignored (IBM: generic switch profiles are ignored; the article says they count)"
            out.append(f"generic {', '.join(covering)} covers {name}: {counted}")
    for klass, p in profiles.other:
        if any(p == n for n in names.values() if n):
            out.append(f"{p} is defined in class {klass}: switch profiles are read only from MQADMIN or MXADMIN")
    state = switch_state(profiles, ssid, qsg, generic_switches=generic_switches)
    for what in ("QMGR", "QSG"):
        w = what.lower()
        if state[f"ssid_yes_{w}_checks"] and state[f"ssid_no_{w}_checks"]:
            out.append(f"{names[f'ssid_yes_{w}_checks']} cannot override {names[f'ssid_no_{w}_checks']}: the NO profile is checked first")
        elif state[f"ssid_yes_{w}_checks"] and not state[f"qsg_no_{w}_checks"]:
            out.append(f"{names[f'ssid_yes_{w}_checks']} has no effect: it only overrides {names[f'qsg_no_{w}_checks']}")
    if state["ssid_yes_subsys_security"] and not state["qsg_no_subsys_security"]:
        out.append(f"{names['ssid_yes_subsys_security']} has no effect: it only overrides {names['qsg_no_subsys_security']}")
    checks = resolve(state, in_qsg=qsg is not None)
    if checks.invalid_combination:
        out.append("both checking levels are switched off: not valid, MQ issues CSQH026I and checks at both levels")
    return out


def evaluate(profiles: Profiles, ssid: str, qsg: str | None, queues: Iterable[str], rules: pd.DataFrame, *,
             generic_switches: bool = False) -> dict:
    """A reader's profiles: the switches, the checks, the table's verdict, the queue profiles."""
    state = switch_state(profiles, ssid, qsg, generic_switches=generic_switches)
    checks = resolve(state, in_qsg=qsg is not None)
    names = switch_names(ssid, qsg)
    switch_rows = [{"switch": key, "profile": names[key] or "(no QSG)", "defined": state[key]} for key in SWITCHES]
    queue_rows = []
    for q in queues:
        used, level = queue_profile(q, checks, profiles, ssid, qsg)
        queue_rows.append({"queue": q.strip().upper(), "profile_used": used or "", "level": level})
    table = None
    if qsg is not None:
        # The table's queue condition asks whether an ssid queue profile exists: take the first queue.
        first = next(iter(queue_rows), None)
        has_ssid = bool(first) and most_specific(profiles.queue_index, f"{_name(ssid, 'ssid')}.{first['queue']}") is not None
        table = table_decision({**state, QUEUE_CONDITION: has_ssid}, rules)
    return {"state": state, "checks": checks, "switches": pd.DataFrame(switch_rows), "queues": pd.DataFrame(queue_rows),
            "table": table, "warnings": warnings(profiles, ssid, qsg, generic_switches=generic_switches)}
