"""The chapter's words: sentences made from the rules' answers, and the passages about the article
(``r.about``: shown on the book's data only)."""

from __future__ import annotations

import pandas as pd

from mqperf.chapters.racf_profiles import BULLETS, VERDICTS
from mqperf.models import racf
from mqperf.present import prose

ABOUT_ARTICLE = (
    "The article (2014; {ref}`dataset <data-racf_profile_rules>`, the {ref}`Data catalog <data-catalog>` gives "
    "every quote) writes *ssid* for the queue manager's subsystem name (\"the profile for a particular queue "
    "manager\") and *qsg* for the queue sharing group's. Switch profiles live in the `MQADMIN` class; \"defined\" "
    "means the profile must exist, \"not defined\" that it must not, and the article adds that this \"applies to "
    "generic profiles as well as specific profiles\". Its table, row by row:")

ABOUT_SLIPS = (
    "Two slips in the printed table: row 3's label, \"Use QMGR.* profile and not ssid profiles\", means *queue "
    "manager (ssid) profiles and not QSG profiles* ({ref}`erratum E035 <errata-e035>`), and its \"not defined\" "
    "list names `ssid.NO.QMGR.CHECK` without the final S ({ref}`erratum E036 <errata-e036>`); the book reads both "
    "as the article evidently means them, and the evaluation below flags names one letter away from a switch. `MQQUEUE qsg.system.*` stands for a profile such as `QSG1.SYSTEM.**` "
    "covering the queue name prefixed by the queue sharing group.")

ABOUT_DISAGREE = """Why the article's table goes wrong in these cases:

* **The QSG-wide switch.** `qsg.NO.QMGR.CHECKS` alone (IBM's own example of a QSG-level setup) switches
  queue-manager checks off for every queue manager in the group. The table's row 2 requires it to be *not*
  defined and row 4 does not mention it, so the table says both levels are checked.
* **The override as printed.** Row 2 defines `ssid.NO.QMGR.CHECKS`; row 5 says to define `QMA.YES.QMGR.CHECKS`
  so that queue manager QMA's definitions override the QSG's. MQ checks `ssid.NO.QMGR.CHECKS` first, so with
  both defined QMA still checks at QSG level only: a YES profile overrides only `qsg.NO.QMGR.CHECKS`. For the
  effect row 5 describes, define `qsg.NO.QMGR.CHECKS` once and `QMA.YES.QMGR.CHECKS`, and no
  `QMA.NO.QMGR.CHECKS`.
* **Both levels off.** Rows 2 and 3 do not forbid the other level's NO profile; with both defined MQ rejects the
  combination (CSQH026I) and checks at both levels."""

ABOUT_NOT_COVERED = (
    "`qsg.NO.SUBSYS.SECURITY` and `qsg.NO.QSG.CHECKS` appear in the article's table only as profiles that must not "
    "exist, so it cannot say what they do. One more difference is not in any row: the article says \"defined\" and "
    "\"not defined\" apply to generic profiles too, while IBM's documentation says generic switch profiles such as "
    "`hlq.NO.**` are ignored; the parameter `generic_switches` chooses the reading (IBM's by default).")

ABOUT_ADVICE = (
    "With no file of profiles the chapter evaluates the article's own advice for one queue manager: row 2's "
    "`ssid.NO.QMGR.CHECKS` with row 5's `ssid.YES.QMGR.CHECKS`, and queue profiles at both levels.")

ABOUT_REFRESH = (
    "The article's way to tell what a queue manager found is `+cpf REFRESH SEC(*)`, which lists the switch profiles "
    "found; `DISPLAY SECURITY` shows the resulting switches.")


def _code(name: str) -> str:
    return f"`{name}`"


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


def comparison_reading(summary: pd.DataFrame) -> str:
    n = dict(zip(VERDICTS, summary["combinations"]))
    share = dict(zip(VERDICTS, summary["share (%)"]))
    total = int(summary["combinations"].sum())
    text = (f"Of the {total:,} combinations the table agrees with the documented order in {n['agrees']:,} "
            f"({prose.pct(share['agrees'])}), disagrees in {n['disagrees']:,} and has no row for "
            f"{n['not covered']:,}.")
    if n["disagrees"] + n["not covered"] == 0:
        text += " It is complete and right."
    elif n["agrees"] < n["disagrees"] + n["not covered"]:
        text += " Outside the cases its rows describe, it is more often wrong or silent than right."
    return text


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
