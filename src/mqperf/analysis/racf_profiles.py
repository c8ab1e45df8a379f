"""Chapter tables for RACF queue security profile resolution (the logic is :mod:`mqperf.racf`).

* :func:`article_table`: the article's table in words, one row per rule.
* :func:`row_examples`: the profiles each row says to define, evaluated both ways.
* :func:`comparison_summary`, :func:`smallest_cases`: where the table agrees with IBM's
  documented order, disagrees, or is silent, over every combination of switches.
* :func:`level_grid` / :func:`grid_chart`: the checking levels for every combination of the
  six level switches, marked with the table's verdict.
* :func:`load_profiles`, :func:`reader_report`: a reader's own profiles.
"""

from __future__ import annotations

import itertools

import altair as alt
import pandas as pd

from mqperf.present import charts
from mqperf import data as mqdata
from mqperf import racf

LABELS = {
    "ssid_no_subsys_security": "ssid.NO.SUBSYS.SECURITY", "qsg_no_subsys_security": "qsg.NO.SUBSYS.SECURITY",
    "ssid_no_qmgr_checks": "ssid.NO.QMGR.CHECKS", "qsg_no_qmgr_checks": "qsg.NO.QMGR.CHECKS",
    "ssid_yes_qmgr_checks": "ssid.YES.QMGR.CHECKS", "ssid_no_qsg_checks": "ssid.NO.QSG.CHECKS",
    "qsg_no_qsg_checks": "qsg.NO.QSG.CHECKS", "ssid_queue_profile": "MQQUEUE ssid.system.*",
}
_OUTCOME = {"made": "made", "not_made": "not made"}


def _txt(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def article_table(rules: pd.DataFrame) -> pd.DataFrame:
    """The table as the article states it: conditions in words, checks, queue profile."""
    rows = []
    for r in rules.to_dict("records"):
        cond = {c: _txt(r.get(c)) for c in LABELS}
        rows.append({
            "rule": int(r["rule_id"]), "requirement (as printed)": r["requirement"],
            "defined": ", ".join(LABELS[c] for c, v in cond.items() if v == "defined"),
            "not defined": ", ".join(LABELS[c] for c, v in cond.items() if v == "not_defined"),
            "security checks": _OUTCOME.get(_txt(r["security_checks"]), ""),
            "QMGR level": _OUTCOME.get(_txt(r["qmgr_level_checks"]), ""),
            "QSG level": _OUTCOME.get(_txt(r["qsg_level_checks"]), ""),
            "queue profile checked": _txt(r["queue_profile_checked"]),
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
        used, level = racf.queue_profile(queue, checks, prof, ssid, qsg)
        verdict = racf.compare_state(state, rules)
        rows.append({"rule": int(r["rule_id"]),
                     "profiles defined": ", ".join([*prof.admin, *(f"MQQUEUE {q}" for q in prof.queue)]) or "none",
                     "levels checked": checks.levels, "profile used": used or "", "table says": verdict["table_levels"],
                     "table rows": verdict["table_rules"], "verdict": verdict["verdict"]})
    return pd.DataFrame(rows)


def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    counts = table["verdict"].value_counts().reindex(["agrees", "disagrees", "not covered"], fill_value=0)
    return pd.DataFrame({"verdict": counts.index, "states": counts.to_numpy(),
                         "share_pct": (counts.to_numpy() / len(table) * 100).round(1)})


def smallest_cases(table: pd.DataFrame, verdict: str, *, limit: int = 8) -> pd.DataFrame:
    """The states with the fewest profiles defined that reach ``verdict``, described in words."""
    sub = table[table["verdict"] == verdict].sort_values(["defined", racf.QUEUE_CONDITION], kind="stable")
    rows = []
    for rec in sub.to_dict("records")[:limit]:
        rows.append({"defined": racf.describe_state(rec), "documented order": rec["levels"] + (" (CSQH026I)" if rec["csqh026i"] else ""),
                     "queue profile level": rec["queue_level"], "article's table": rec["table_levels"],
                     "table rows": rec["table_rules"] or "none"})
    return pd.DataFrame(rows)


_LEVEL_KEYS = {"QMGR": ("ssid_no_qmgr_checks", "qsg_no_qmgr_checks", "ssid_yes_qmgr_checks"),
               "QSG": ("ssid_no_qsg_checks", "qsg_no_qsg_checks", "ssid_yes_qsg_checks")}


def _combo_label(keys, values) -> str:
    names = [racf.SWITCHES[k].format(ssid="ssid", qsg="qsg").split(".", 1)[0] + "." + ".".join(racf.SWITCHES[k].split(".")[1:2])
             for k, v in zip(keys, values) if v]
    return " + ".join(names) if names else "none"


def level_grid(rules: pd.DataFrame) -> pd.DataFrame:
    """8 × 8 cells: QMGR-level switches × QSG-level switches (subsystem security on)."""
    rows = []
    for qv in itertools.product((False, True), repeat=3):
        for gv in itertools.product((False, True), repeat=3):
            state = {**dict(zip(_LEVEL_KEYS["QMGR"], qv)), **dict(zip(_LEVEL_KEYS["QSG"], gv))}
            res = racf.compare_state(state, rules)
            rows.append({"qmgr_switches": _combo_label(_LEVEL_KEYS["QMGR"], qv), "qsg_switches": _combo_label(_LEVEL_KEYS["QSG"], gv),
                         "levels": res["levels"] + (" (CSQH026I)" if res["csqh026i"] else ""),
                         "table": {"agrees": "agrees", "disagrees": "disagrees", "not covered": "silent"}[res["verdict"]],
                         "mark": {"agrees": "=", "disagrees": "≠", "not covered": "?"}[res["verdict"]]})
    return pd.DataFrame(rows)


def grid_chart(grid: pd.DataFrame) -> alt.LayerChart:
    """Levels checked (colour) for each pair of level-switch combinations; the mark is the table's verdict."""
    order_q = list(dict.fromkeys(grid["qmgr_switches"]))
    order_g = list(dict.fromkeys(grid["qsg_switches"]))
    base = alt.Chart(charts.rounded(grid)).encode(
        x=alt.X("qsg_switches:N", sort=order_g, title="QSG-level switch profiles defined", axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("qmgr_switches:N", sort=order_q, title="QMGR-level switch profiles defined"),
        tooltip=["qmgr_switches:N", "qsg_switches:N", "levels:N", "table:N"])
    cells = base.mark_rect(stroke="white").encode(color=alt.Color("levels:N", title="levels checked",
                                                                  scale=alt.Scale(range=charts.PALETTE)))
    text = base.mark_text(fontSize=14, color="black").encode(text="mark:N")
    return alt.layer(cells, text).properties(
        title="Which levels MQ checks; = the article's table agrees, ≠ disagrees, ? is silent", width=420, height=300)


def load_profiles(source: str) -> racf.Profiles:
    frame = mqdata.load(source, contract="racf_profiles")
    return racf.Profiles.from_frame(frame)


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


def reader_report(profiles: racf.Profiles, *, ssid: str, qsg: str | None, queues, generic_switches: bool = False) -> dict:
    """Tables for a reader's profiles: switches, checks, the table's verdict, queue profiles, warnings."""
    result = racf.evaluate(profiles, ssid, qsg, queues, generic_switches=generic_switches)
    checks, table = result["checks"], result["table"]
    summary = pd.DataFrame([
        {"question": "security checks", "documented order": "on" if checks.security else "off",
         "article's table": "" if table is None or not table.covered else ("on" if table.security else "off")},
        {"question": "levels checked", "documented order": checks.levels + (" (CSQH026I)" if checks.invalid_combination else ""),
         "article's table": "(not in a QSG: the table does not apply)" if table is None else table.levels},
        {"question": "table rows that apply", "documented order": "",
         "article's table": "" if table is None else (", ".join(map(str, table.rule_ids)) or "none")},
    ])
    queues = result["queues"]
    if len(queues):
        first = queues.iloc[0]
        summary.loc[len(summary)] = {"question": f"profile for {first['queue']}",
                                     "documented order": first["profile_used"] or "none found",
                                     "article's table": "" if table is None or not table.covered else (table.queue_profile or "")}
    switches = result["switches"][result["switches"]["defined"]].copy()
    return {"summary": summary, "switches": switches, "queues": result["queues"],
            "reasons": pd.DataFrame({"why": list(checks.reasons)}),
            "warnings": pd.DataFrame({"warning": result["warnings"] or ["none"]})}
