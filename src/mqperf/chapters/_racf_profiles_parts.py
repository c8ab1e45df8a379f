"""The RACF chapter's tables and sentences (imported by :func:`racf_profiles.analyse`).

Kept apart so that ``mqperf list`` reads the chapter's PARAMETERS without importing pandas.
The rules themselves (switch order, the article's table as a decision table, generic profile
matching) are :mod:`mqperf.models.racf`; this module only turns their answers into what the
chapter shows, and every sentence is made from those answers.
"""

from __future__ import annotations

import itertools

import pandas as pd

from mqperf.models import racf
from mqperf.present import prose

LABELS = {
    "ssid_no_subsys_security": "ssid.NO.SUBSYS.SECURITY", "qsg_no_subsys_security": "qsg.NO.SUBSYS.SECURITY",
    "ssid_no_qmgr_checks": "ssid.NO.QMGR.CHECKS", "qsg_no_qmgr_checks": "qsg.NO.QMGR.CHECKS",
    "ssid_yes_qmgr_checks": "ssid.YES.QMGR.CHECKS", "ssid_no_qsg_checks": "ssid.NO.QSG.CHECKS",
    "qsg_no_qsg_checks": "qsg.NO.QSG.CHECKS", "ssid_queue_profile": "MQQUEUE ssid.system.*",
}
_OUTCOME = {"made": "made", "not_made": "not made"}
_VERDICTS = ["agrees", "disagrees", "not covered"]
_LEVEL_KEYS = {"QMGR": ("ssid_no_qmgr_checks", "qsg_no_qmgr_checks", "ssid_yes_qmgr_checks"),
               "QSG": ("ssid_no_qsg_checks", "qsg_no_qsg_checks", "ssid_yes_qsg_checks")}
#: More queues than this are summarised rather than read one by one.
BULLETS = 6


def _txt(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _code(name: str) -> str:
    return f"`{name}`"


# -- the article's table -----------------------------------------------------------------------

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


def row_reading(examples: pd.DataFrame) -> str:
    agree = examples[examples["verdict"] == "agrees"]
    if len(agree) == len(examples):
        return (f"On its own rows the table and the documented order agree: all "
                f"{prose.count(len(examples), 'row')} resolve as the table says, so the table is right about the "
                "cases it was written for.")
    off = examples[examples["verdict"] != "agrees"]
    return (f"Even on its own rows the table and the documented order part: rule "
            f"{prose.listing(str(x) for x in off['rule'])} {'does' if len(off) == 1 else 'do'} not resolve as the "
            "table says.")


# -- the table against the documented order ----------------------------------------------------

def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    counts = table["verdict"].value_counts().reindex(_VERDICTS, fill_value=0)
    return pd.DataFrame({"the table": ["agrees", "disagrees", "covers none of them"], "combinations": counts.to_numpy(),
                         "share (%)": counts.to_numpy() / len(table) * 100})


def comparison_reading(summary: pd.DataFrame) -> str:
    n = dict(zip(_VERDICTS, summary["combinations"]))
    share = dict(zip(_VERDICTS, summary["share (%)"]))
    total = int(summary["combinations"].sum())
    text = (f"Of the {total:,} combinations the table agrees with the documented order in {n['agrees']:,} "
            f"({prose.pct(share['agrees'])}), disagrees in {n['disagrees']:,} and has no row for "
            f"{n['not covered']:,}.")
    if n["disagrees"] + n["not covered"] == 0:
        text += " It is complete and right."
    elif n["agrees"] < n["disagrees"] + n["not covered"]:
        text += " Outside the cases its rows describe, it is more often wrong or silent than right."
    return text


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


def grid_chart(grid: pd.DataFrame):
    """Levels checked (colour) for each pair of level-switch combinations; the mark is the table's verdict."""
    import altair as alt

    from mqperf.present import charts

    order_q = list(dict.fromkeys(grid["QMGR-level switches"]))
    order_g = list(dict.fromkeys(grid["QSG-level switches"]))
    base = alt.Chart(grid).encode(
        x=alt.X("QSG-level switches:N", sort=order_g, title="QSG-level switch profiles defined",
                axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("QMGR-level switches:N", sort=order_q, title="QMGR-level switch profiles defined"),
        tooltip=["QMGR-level switches:N", "QSG-level switches:N", "levels checked:N", "the table:N"])
    cells = base.mark_rect(stroke="white").encode(color=alt.Color("levels checked:N", title="levels checked",
                                                                  scale=alt.Scale(range=charts.PALETTE)))
    text = base.mark_text(fontSize=14, color="black").encode(text="mark:N")
    return alt.layer(cells, text).properties(
        title="Which levels MQ checks; = the table agrees, ≠ disagrees, ? is silent", width=420, height=300)


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


# -- the profiles --------------------------------------------------------------------------------

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


def profile_reading(frame: pd.DataFrame, profiles: racf.Profiles) -> str:
    queue_generic = sum(racf.is_generic(p) for p in profiles.queue)
    text = (f"{len(frame):,} profiles were read. A queue's profile is chosen among the {len(profiles.queue):,} "
            f"queue profiles, {queue_generic:,} of them generic: RACF compares the queue's name only with generic "
            "profiles whose literal leading qualifiers fit it, and a discrete profile of the exact name wins outright.")
    if profiles.other:
        n = len(profiles.other)
        text += (f" {prose.count(n, 'profile').capitalize()} in {'a group class is' if n == 1 else 'group classes are'} "
                 "not read by MQ for switches or queue checks.")
    return text


# -- what MQ checks ------------------------------------------------------------------------------

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


def summary_reading(result: dict, qsg: str | None) -> str:
    checks, table = result["checks"], result["table"]
    if not checks.security:
        first = "MQ makes no security checks at all: subsystem security is switched off."
    elif checks.invalid_combination:
        first = ("Both checking levels are switched off, which is not valid: MQ issues CSQH026I and checks at both "
                 "levels.")
    else:
        first = f"MQ checks at {checks.levels.replace('only', 'level only').replace('and QSG', 'and QSG levels')}."
    if table is None:
        return first + (" The queue manager is in no queue sharing group, so the article's table, written for one, "
                        "does not apply.")
    if not table.covered:
        return first + " No row of the article's table covers these switch profiles: it cannot say what happens."
    ids = table.rule_ids
    rows = f"row{'s' if len(ids) > 1 else ''} {prose.listing(str(i) for i in ids)}"
    if table.levels == checks.levels:
        return first + f" The article's table ({rows}) agrees."
    made = {"queue-manager": checks.security and checks.qmgr_level, "queue-sharing-group": checks.security and checks.qsg_level}
    said = {"queue-manager": bool(table.security and table.qmgr_level),
            "queue-sharing-group": bool(table.security and table.qsg_level)}
    extra = [k for k in made if said[k] and not made[k]]
    missed = [k for k in made if made[k] and not said[k]]
    parts = []
    if extra:
        parts.append(f"it expects {prose.listing(extra)}-level checks that MQ does not make")
    if missed:
        parts.append(f"it misses the {prose.listing(missed)}-level checks MQ does make")
    return first + f" The article's table ({rows}) says {table.levels}: " + "; ".join(parts) + "."


def whose_names(frame: pd.DataFrame, ssid: str, qsg: str | None, p: dict) -> str | None:
    """On a reader's profiles: when the queue manager and group the verdict is for are the
    parameters' defaults (the book's example names) and the profiles never name them, say so."""
    from mqperf import parameters

    defaults = parameters.defaults("racf_profiles")
    at_default = str(p["ssid"]).strip().upper() == str(defaults["ssid"]).upper() and \
        str(p["qsg"]).strip().upper() == str(defaults["qsg"]).upper()
    first = set(frame["profile"].astype(str).str.upper().str.split(".").str[0])
    if not at_default or ssid in first or (qsg and qsg in first):
        return None
    named = sorted(q for q in first if q and not any(c in q for c in "*%"))
    return (f"This verdict is for queue manager {prose.quoted(ssid)}"
            + (f" in queue sharing group {prose.quoted(qsg)}" if qsg else "")
            + ", the parameters' defaults (the book's example names), which your profiles never name"
            + (f"; they name {prose.listing(prose.quoted(q) for q in named[:6])}" if named else "")
            + ". Set `-p ssid` and `-p qsg` to your queue manager's.")


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


def queue_reading(lookups: pd.DataFrame | None, result: dict) -> str | None:
    if lookups is None:
        return None
    if not result["checks"].security:
        return "With security off no queue profile is consulted."
    unprotected = lookups[lookups["level"] == "none"]
    if len(lookups) > BULLETS:
        text = (f"Of the {len(lookups):,} queues, {len(unprotected):,} have no profile at a level MQ checks."
                if len(unprotected) else "Every queue named has a profile at a level MQ checks.")
        return text
    out = []
    for rec in lookups.to_dict("records"):
        name = prose.quoted(rec["queue"])
        if rec["level"] == "none":
            out.append(f"{name}: no profile covers it at a level MQ checks, so the article's \"to protect a queue "
                       "you need\" one of the two is not met.")
            continue
        covering = rec[f"profiles covering {rec['level']}.queue"]
        among = ("the only profile covering the name" if covering == 1
                 else f"the most specific of {prose.count(int(covering), 'profile')} covering the name")
        extra = (", after the queue-manager lookup found none: two lookups per open" if rec["lookups per open"] == 2
                 else "")
        level = {"ssid": "queue-manager", "qsg": "queue-sharing-group"}[rec["level"]]
        upper = (f" (as {_code(rec['checked as'])}: the MQQUEUE class holds upper-case profiles)"
                 if rec.get("checked as", rec["queue"]) != rec["queue"] else "")
        out.append(f"{name}{upper} is checked against {_code(rec['profile used'])} at {level} level, {among}{extra}.")
    return prose.bullets(out)


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


def generic_reading(generic: pd.DataFrame | None, generic_switches: bool) -> str | None:
    if generic is None:
        return None
    levels = generic.attrs["levels"]
    used = "the article's reading (generic_switches on)" if generic_switches else "IBM's reading (the default)"
    if levels[False] == levels[True]:
        return f"This run uses {used}; read either way MQ checks {levels[False]}, so the difference does not matter here."
    return (f"This run uses {used}. The readings differ here: with generic switch profiles ignored (IBM) MQ checks "
            f"{levels[False]}; counted (the article) it would check {levels[True]}. The switch profiles the queue "
            "manager lists at start-up or after a security refresh tell which reading it followed.")


def warnings_table(result: dict) -> pd.DataFrame | None:
    found = result["warnings"]
    return pd.DataFrame({"warning": found}) if found else None
