"""The chapter's rules at work (nothing here is fitted: RACF's rules are :mod:`mqperf.models.racf`):
the article's table row by row, the table against the documented order, the article's own advice
as profiles, and a reader's profiles resolved, each as the frame the chapter shows."""

from __future__ import annotations

import itertools

import pandas as pd

from mqperf.chapters.racf_profiles import VERDICTS
from mqperf.models import racf

LABELS = {
    "ssid_no_subsys_security": "ssid.NO.SUBSYS.SECURITY", "qsg_no_subsys_security": "qsg.NO.SUBSYS.SECURITY",
    "ssid_no_qmgr_checks": "ssid.NO.QMGR.CHECKS", "qsg_no_qmgr_checks": "qsg.NO.QMGR.CHECKS",
    "ssid_yes_qmgr_checks": "ssid.YES.QMGR.CHECKS", "ssid_no_qsg_checks": "ssid.NO.QSG.CHECKS",
    "qsg_no_qsg_checks": "qsg.NO.QSG.CHECKS", "ssid_queue_profile": "MQQUEUE ssid.system.*",
}
_OUTCOME = {"made": "made", "not_made": "not made"}
_LEVEL_KEYS = {"QMGR": ("ssid_no_qmgr_checks", "qsg_no_qmgr_checks", "ssid_yes_qmgr_checks"),
               "QSG": ("ssid_no_qsg_checks", "qsg_no_qsg_checks", "ssid_yes_qsg_checks")}


def _txt(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def rules_table(rules: pd.DataFrame) -> pd.DataFrame:
    """The table as stated: conditions in words, checks, queue profile."""
    rows = []
    for r in rules.to_dict("records"):
        cond = {c: _txt(r.get(c)) for c in LABELS}
        rows.append({
            "rule": int(r["rule_id"]), "requirement (as printed)": r["requirement"],
            "defined": ", ".join(LABELS[c] for c, v in cond.items() if v == "defined") or "–",
            "not defined": ", ".join(LABELS[c] for c, v in cond.items() if v == "not_defined") or "–",
            "security checks": _OUTCOME.get(_txt(r["security_checks"]), "–"),
            "QMGR level": _OUTCOME.get(_txt(r["qmgr_level_checks"]), "–"),
            "QSG level": _OUTCOME.get(_txt(r["qsg_level_checks"]), "–"),
            "queue profile checked": _txt(r["queue_profile_checked"]) or "–",
        })
    return pd.DataFrame(rows)


def row_examples(rules: pd.DataFrame, *, ssid: str, qsg: str, queue: str) -> pd.DataFrame:
    """Each row's profiles for a real queue manager, resolved in IBM's order and by the table."""
    rows = []
    for r in rules.to_dict("records"):
        prof = racf.row_profiles(r, ssid, qsg)
        state = racf.switch_state(prof, ssid, qsg)
        state[racf.QUEUE_CONDITION] = any(racf.covers(p, f"{ssid}.{queue}") for p in prof.queue)
        checks = racf.resolve(state)
        used, _level = racf.queue_profile(queue, checks, prof, ssid, qsg)
        verdict = racf.compare_state(state, rules)
        rows.append({"rule": int(r["rule_id"]),
                     "profiles defined": ", ".join([*prof.admin, *(f"MQQUEUE {q}" for q in prof.queue)]) or "none",
                     "levels checked": checks.levels, "profile used": used or "none",
                     "table says": verdict["table_levels"], "table rows": verdict["table_rules"] or "none",
                     "verdict": verdict["verdict"]})
    return pd.DataFrame(rows)


def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    counts = table["verdict"].value_counts().reindex(VERDICTS, fill_value=0)
    return pd.DataFrame({"the table": ["agrees", "disagrees", "covers none of them"], "combinations": counts.to_numpy(),
                         "share (%)": counts.to_numpy() / len(table) * 100})


def _combo_label(keys, values) -> str:
    names = [racf.SWITCHES[k].format(ssid="ssid", qsg="qsg").split(".", 1)[0] + "." + racf.SWITCHES[k].split(".")[1]
             for k, v in zip(keys, values) if v]
    return " + ".join(names) if names else "none"


def level_grid(rules: pd.DataFrame) -> pd.DataFrame:
    """8 × 8 cells: QMGR-level switches × QSG-level switches (subsystem security on)."""
    records = rules.to_dict("records")
    rows = []
    for qv in itertools.product((False, True), repeat=3):
        for gv in itertools.product((False, True), repeat=3):
            state = {**dict(zip(_LEVEL_KEYS["QMGR"], qv)), **dict(zip(_LEVEL_KEYS["QSG"], gv))}
            res = racf.compare_state(state, records)
            rows.append({"QMGR-level switches": _combo_label(_LEVEL_KEYS["QMGR"], qv),
                         "QSG-level switches": _combo_label(_LEVEL_KEYS["QSG"], gv),
                         "levels checked": res["levels"] + (" (CSQH026I)" if res["csqh026i"] else ""),
                         "the table": {"agrees": "agrees", "disagrees": "disagrees", "not covered": "silent"}[res["verdict"]],
                         "mark": {"agrees": "=", "disagrees": "≠", "not covered": "?"}[res["verdict"]]})
    return pd.DataFrame(rows)


def smallest_cases(table: pd.DataFrame, verdict: str, *, limit: int = 8) -> pd.DataFrame:
    """The combinations with the fewest profiles defined that reach ``verdict``, in words."""
    sub = table[table["verdict"] == verdict].sort_values(["defined", racf.QUEUE_CONDITION], kind="stable")
    rows = []
    for rec in sub.to_dict("records")[:limit]:
        rows.append({"defined": racf.describe_state(rec),
                     "documented order": rec["levels"] + (" (CSQH026I)" if rec["csqh026i"] else ""),
                     "queue profile level": rec["queue_level"], "the table says": rec["table_levels"],
                     "table rows": rec["table_rules"] or "none"})
    return pd.DataFrame(rows)


def article_profiles(rules: pd.DataFrame, *, ssid: str, qsg: str) -> racf.Profiles:
    """The article's own advice for one queue manager: row 2 (QSG profiles, ssid.NO.QMGR.CHECKS)
    with row 5's override (ssid.YES.QMGR.CHECKS), and MQQUEUE profiles at both levels."""
    admin, queue = [], []
    for rule_id in (2, 5):
        prof = racf.row_profiles(rules[rules["rule_id"] == rule_id].iloc[0].to_dict(), ssid, qsg)
        admin += prof.admin
        queue += prof.queue
    queue.append(f"{ssid}.SYSTEM.**")
    return racf.Profiles(tuple(dict.fromkeys(admin)), tuple(dict.fromkeys(queue)))


def profile_frame(profiles: racf.Profiles) -> pd.DataFrame:
    return pd.DataFrame({"class": ["MQADMIN"] * len(profiles.admin) + ["MQQUEUE"] * len(profiles.queue)
                         + [c for c, _ in profiles.other],
                         "profile": [*profiles.admin, *profiles.queue, *(p for _, p in profiles.other)]})


def _read_as(klass: str) -> str:
    if klass in racf.ADMIN_CLASSES:
        return "switches"
    if klass in racf.QUEUE_CLASSES:
        return "queue profiles"
    return "not read (group class)"


def profile_counts(frame: pd.DataFrame, profiles: racf.Profiles) -> pd.DataFrame:
    # Rows as the file holds them (the contract fixes the class names); a million rows take one pass.
    classes = frame["class"].astype(str)
    generic = frame["profile"].astype(str).str.contains(r"[*%]", regex=True)
    by = pd.DataFrame({"class": classes, "generic": generic}).groupby("class", sort=False)["generic"]
    out = pd.DataFrame({"class": list(by.groups), "profiles": by.size().to_numpy(), "generic": by.sum().to_numpy()})
    out.insert(1, "MQ reads them as", [_read_as(c) for c in out["class"]])
    out["discrete"] = out["profiles"] - out["generic"]
    total = {"class": "all", "MQ reads them as": "–", "profiles": len(frame), "generic": int(generic.sum()),
             "discrete": int((~generic).sum())}
    return pd.concat([out, pd.DataFrame([total])], ignore_index=True).astype(
        {"profiles": int, "generic": int, "discrete": int})


def switch_table(result: dict, profiles: racf.Profiles, ssid: str, qsg: str | None) -> pd.DataFrame:
    names = racf.switch_names(ssid, qsg)
    rows = []
    for key in racf.SWITCHES:
        name = names[key]
        covering = profiles.admin_index.generic_covering(name) if name else []
        rows.append({"switch profile": name or f"{racf.SWITCHES[key].split('.', 1)[1]} (no QSG)",
                     "defined by name": bool(name) and name in profiles.admin_index,
                     "covered by a generic profile": ", ".join(covering) or "–",
                     "counts as defined": bool(result["state"][key])})
    return pd.DataFrame(rows)


def summary_table(result: dict) -> pd.DataFrame:
    checks, table = result["checks"], result["table"]
    covered = table is not None and table.covered
    rows = [
        {"question": "security checks", "documented order": "on" if checks.security else "off",
         "the article's table": ("on" if table.security else "off") if covered else "–"},
        {"question": "levels checked",
         "documented order": checks.levels + (" (CSQH026I)" if checks.invalid_combination else ""),
         "the article's table": "does not apply (not in a QSG)" if table is None else table.levels},
        {"question": "table rows that apply", "documented order": "–",
         "the article's table": "–" if table is None else (", ".join(map(str, table.rule_ids)) or "none")},
    ]
    queues = result["queues"]
    if len(queues):
        first = queues.iloc[0]
        rows.append({"question": f"profile for {first['queue']}", "documented order": first["profile_used"] or "none found",
                     "the article's table": (table.queue_profile or "–") if covered else "–"})
    return pd.DataFrame(rows)


def reasons_table(result: dict) -> pd.DataFrame:
    reasons = list(result["checks"].reasons)
    return pd.DataFrame({"step": range(1, len(reasons) + 1), "why": reasons})


def queue_table(profiles: racf.Profiles, result: dict, ssid: str, qsg: str | None) -> pd.DataFrame | None:
    """Per queue: the profiles covering its name at each level, the lookups an open makes, the winner."""
    checks = result["checks"]
    rows = []
    for rec in result["queues"].to_dict("records"):
        queue = rec["queue"]
        at = {}
        for level, prefix in (("ssid", ssid), ("qsg", qsg)):
            if prefix is None:
                at[level] = None
                continue
            name = f"{prefix}.{rec.get('checked_as', queue)}"
            at[level] = len(profiles.queue_index.generic_covering(name)) + (name in profiles.queue_index)
        lookups = 0
        if checks.security:
            if checks.qmgr_level:
                lookups += 1
            if checks.qsg_level and qsg and rec["level"] != "ssid":
                lookups += 1
        rows.append({"queue": queue, "checked as": rec.get("checked_as", queue),
                     "profiles covering ssid.queue": at["ssid"],
                     "profiles covering qsg.queue": at["qsg"], "lookups per open": lookups,
                     "profile used": rec["profile_used"] or "none", "level": rec["level"]})
    if not rows:
        return None
    out = pd.DataFrame(rows)
    return out.drop(columns="checked as") if (out["checked as"] == out["queue"]).all() else out


def generic_table(profiles: racf.Profiles, ssid: str, qsg: str | None, queues, rules) -> pd.DataFrame | None:
    rows = []
    for key, name in racf.switch_names(ssid, qsg).items():
        if name is None:
            continue
        for p in profiles.admin_index.generic_covering(name):
            rows.append({"generic profile": p, "covers switch": name,
                         "counted (the article's reading)": True, "counted (IBM's reading)": False})
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    levels = {}
    for flag in (False, True):
        res = racf.evaluate(profiles, ssid, qsg, queues, rules, generic_switches=flag)
        levels[flag] = res["checks"].levels
    frame.attrs["levels"] = levels
    return frame


def warnings_table(result: dict) -> pd.DataFrame | None:
    found = result["warnings"]
    return pd.DataFrame({"warning": found}) if found else None
