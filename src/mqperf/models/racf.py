"""RACF queue security on z/OS: which switch profiles give which checks, and which profile
protects a queue.

Two sources, kept apart so each can be checked against the other:

* **The article's table** (seed 002, ``data/racf_profile_rules.csv``): each row says which
  MQADMIN switch profiles must be *defined* or *not defined* and which checks follow.
  :func:`table_decision` executes it as a decision table: the first ``switch_profiles`` row
  whose conditions all hold decides the checking levels (a blank condition is "either"),
  an ``override`` row whose conditions hold then turns its level on, and with both levels
  in use the ``queue_profile_selection`` rows pick the queue profile. A state no row
  matches is *not covered* by the table.
* **IBM's documented order of checking** (:func:`resolve`), complete for every
  combination (IBM MQ for z/OS documentation, "Profiles to control subsystem security" and
  "Profiles to control queue sharing group or queue manager level security"):

  - subsystem security: ``ssid.NO.SUBSYS.SECURITY`` present → no checks at all; else
    ``qsg.NO.SUBSYS.SECURITY`` absent → security on; present → on only if
    ``ssid.YES.SUBSYS.SECURITY`` is present. A queue manager outside a queue sharing group
    looks at ``ssid.NO.SUBSYS.SECURITY`` only.
  - queue-manager level: ``ssid.NO.QMGR.CHECKS`` present → off; else
    ``qsg.NO.QMGR.CHECKS`` absent → on; present → on only with ``ssid.YES.QMGR.CHECKS``.
    The queue-sharing-group level works the same way with ``NO.QSG.CHECKS`` and
    ``YES.QSG.CHECKS``. Outside a queue sharing group only queue-manager checks are made.
  - with subsystem security on, switching both levels off is not valid: MQ issues
    CSQH026I and checks at both levels.
  - with both levels on, MQ looks for a profile ``ssid.queue`` first and uses
    ``qsg.queue`` only when none is found (the article's rules 6 and 7).

:func:`compare` enumerates every combination of the switch profiles and says where the
table agrees with the documented order, disagrees, or is silent.

Generic profiles. The article says "defined" and "not defined" apply "to generic profiles
as well as specific profiles"; IBM's documentation says generic switch profiles (such as
``hlq.NO.**``) are ignored. By default a switch counts only when a profile of exactly its
name is defined (``generic_switches=False``, IBM's reading); ``generic_switches=True``
counts a generic MQADMIN profile that covers the name (the article's reading). Queue
profiles are always matched generically, with the general-resource rules of RACF
(:func:`covers`) and the most specific profile winning (:func:`most_specific`).

Speed: a reader's ``SEARCH`` output may hold a million profiles. A generic profile whose
leading qualifiers are literal can only cover names that start with those qualifiers, so
:class:`ProfileIndex` files profiles by their literal leading qualifiers (up to two) and a
lookup tries only the buckets a name could fall in; the answers are those of a scan over
every profile (tests/models/test_racf.py compares the two).

Profile names are compared in upper case (the MQADMIN and MQQUEUE classes hold upper-case
profiles only). RACF variables (``&``) and the group classes (GMQADMIN, GMQQUEUE) are not
modelled: switch profiles in a group class are ignored by MQ.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping

import pandas as pd

from mqperf.errors import DataError, MQPerfError

#: The switch profiles that decide whether and at which level MQ checks, by key.
SWITCHES: dict[str, str] = {
    "ssid_no_subsys_security": "{ssid}.NO.SUBSYS.SECURITY",
    "qsg_no_subsys_security": "{qsg}.NO.SUBSYS.SECURITY",
    "ssid_yes_subsys_security": "{ssid}.YES.SUBSYS.SECURITY",
    "ssid_no_qmgr_checks": "{ssid}.NO.QMGR.CHECKS",
    "qsg_no_qmgr_checks": "{qsg}.NO.QMGR.CHECKS",
    "ssid_yes_qmgr_checks": "{ssid}.YES.QMGR.CHECKS",
    "ssid_no_qsg_checks": "{ssid}.NO.QSG.CHECKS",
    "qsg_no_qsg_checks": "{qsg}.NO.QSG.CHECKS",
    "ssid_yes_qsg_checks": "{ssid}.YES.QSG.CHECKS",
}

#: Condition columns of the article's table that are switch profiles (a subset of SWITCHES).
TABLE_SWITCHES = (
    "ssid_no_subsys_security", "qsg_no_subsys_security", "ssid_no_qmgr_checks", "qsg_no_qmgr_checks",
    "ssid_yes_qmgr_checks", "ssid_no_qsg_checks", "qsg_no_qsg_checks",
)
#: The table's last condition: is a queue-manager (ssid) queue profile defined?
QUEUE_CONDITION = "ssid_queue_profile"

ADMIN_CLASSES = ("MQADMIN", "MXADMIN")
QUEUE_CLASSES = ("MQQUEUE", "MXQUEUE")


# -- RACF generic profile names ---------------------------------------------------------------

def is_generic(profile: str) -> bool:
    """True when the name holds a generic character (``%``, ``*``)."""
    return "*" in profile or "%" in profile


def _qual_match(pattern: str, qualifier: str) -> bool:
    return len(pattern) == len(qualifier) and all(p in ("%", q) for p, q in zip(pattern, qualifier))


def _match(pq: list[str], rq: list[str]) -> bool:
    if not pq:
        return not rq
    head, last = pq[0], len(pq) == 1
    if head == "**":
        return any(_match(pq[1:], rq[k:]) for k in range(len(rq) + 1))
    if not rq:
        return False
    if head == "*":
        # A whole qualifier: any one qualifier; at the end, one or more until the end.
        return True if last else _match(pq[1:], rq[1:])
    if "*" in head:
        if "*" in head[:-1]:
            raise ValueError(f"unsupported generic qualifier {head!r}: '*' only at the end of a qualifier")
        prefix = head[:-1]
        if len(rq[0]) < len(prefix) or not _qual_match(prefix, rq[0][: len(prefix)]):
            return False
        # Ending asterisk: zero or more characters (and qualifiers) to the end of the name;
        # in the middle: zero or more characters to the end of the qualifier.
        return True if last else _match(pq[1:], rq[1:])
    return _qual_match(head, rq[0]) and _match(pq[1:], rq[1:])


def covers(profile: str, resource: str) -> bool:
    """Whether a RACF general-resource profile covers ``resource``.

    Rules (z/OS Security Server RACF, "Profile names for general resources"): ``%`` matches
    one character; ``**`` matches zero or more qualifiers; ``*`` as a whole qualifier
    matches one qualifier, or at the end one or more qualifiers; ``*`` ending a qualifier
    matches zero or more characters to the end of that qualifier, or, at the end of the
    name, to the end of the resource name. A discrete profile covers only its own name.
    """
    profile, resource = profile.upper(), resource.upper()
    if not is_generic(profile):
        return profile == resource
    return _match(profile.split("."), resource.split("."))


def _specificity(profile: str) -> tuple:
    ranks = []
    for qualifier in profile.upper().split("."):
        if qualifier == "**":
            ranks.append(3)
            continue
        ranks.extend(2 if ch == "*" else 1 if ch == "%" else 0 for ch in qualifier)
        ranks.append(-1)  # qualifier boundary: a longer literal run is more specific
    return tuple(ranks)


#: Literal leading qualifiers a :class:`ProfileIndex` files a generic profile under.
_INDEX_DEPTH = 2


def _literal_lead(profile: str) -> str:
    """The profile's leading qualifiers before the first generic one (at most two), joined by
    ".": the key :class:`ProfileIndex` files it under ("" when the first is generic).

    Written out for two levels: it runs once per profile, a million times for a large file.
    """
    q = profile.split(".", 2)
    first = q[0]
    if "*" in first or "%" in first:
        return ""
    if len(q) > 1 and "*" not in q[1] and "%" not in q[1]:
        return f"{first}.{q[1]}"
    return first


class ProfileIndex:
    """Profiles (upper case) filed so that a lookup need not try every one.

    A literal qualifier of a profile must equal the name's qualifier at that position
    (:func:`covers`), so a generic profile whose first ``k`` qualifiers are literal can only
    cover names whose first ``k`` qualifiers are the same: a lookup reads the buckets of the
    name's first zero, one and two qualifiers, and a discrete profile is found by its name.
    """

    def __init__(self, profiles: Iterable[str]):
        self.profiles = tuple(profiles)
        self.discrete: set[str] = set()
        # A bucket of one is the profile itself, not a one-element list: a million small lists
        # keep the garbage collector scanning and made building the index take seconds.
        self.buckets: dict[str, str | list[str]] = {}
        for p in self.profiles:
            if "*" in p or "%" in p:
                key = _literal_lead(p)
                held = self.buckets.get(key)
                if held is None:
                    self.buckets[key] = p
                elif isinstance(held, list):
                    held.append(p)
                else:
                    self.buckets[key] = [held, p]
            else:
                self.discrete.add(p)

    def __contains__(self, name: str) -> bool:
        return name in self.discrete

    def candidates(self, resource: str) -> list[str]:
        """Every generic profile that may cover ``resource`` (a superset of those that do)."""
        quals = resource.upper().split(".")
        out: list[str] = []
        for key in dict.fromkeys(".".join(quals[:k]) for k in range(min(_INDEX_DEPTH, len(quals)) + 1)):
            held = self.buckets.get(key)
            if isinstance(held, list):
                out.extend(held)
            elif held is not None:
                out.append(held)
        return out

    def generic_covering(self, resource: str) -> list[str]:
        """The generic profiles that cover ``resource``, in the order they were given."""
        found = [p for p in self.candidates(resource) if covers(p, resource)]
        order = self._order
        return sorted(found, key=order.__getitem__)

    @cached_property
    def _order(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.profiles)}


def most_specific(profiles: Iterable[str] | ProfileIndex, resource: str) -> str | None:
    """The profile RACF would use for ``resource``: a discrete one, else the most specific generic.

    Most specific is approximated as RACF orders generic profiles: at the first position
    where two names differ, a literal character beats ``%``, ``%`` beats ``*``, ``*`` beats
    ``**``; ``RLIST class resource GENERIC`` shows the one RACF really picks.
    """
    if isinstance(profiles, ProfileIndex):
        if resource.upper() in profiles.discrete:
            return resource.upper()
        matching = [p for p in profiles.candidates(resource) if covers(p, resource)]
        return min(matching, key=lambda p: (_specificity(p), p)) if matching else None
    matching = [p for p in profiles if covers(p, resource)]
    if not matching:
        return None
    discrete = [p for p in matching if not is_generic(p)]
    if discrete:
        return discrete[0]
    return min(matching, key=lambda p: (_specificity(p), p))


# -- the state of the switches ------------------------------------------------------------------

@dataclass(frozen=True)
class Profiles:
    """The profiles a reader has defined, by class, upper case."""

    admin: tuple[str, ...] = ()
    queue: tuple[str, ...] = ()
    other: tuple[tuple[str, str], ...] = ()  # (class, profile) in classes MQ does not read here

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> "Profiles":
        admin, queue, other = [], [], []
        for klass, profile in pairs:
            klass, profile = str(klass).strip().upper(), str(profile).strip().upper()
            if not profile:
                continue
            if klass in ADMIN_CLASSES:
                admin.append(profile)
            elif klass in QUEUE_CLASSES:
                queue.append(profile)
            else:
                other.append((klass, profile))
        return cls(tuple(dict.fromkeys(admin)), tuple(dict.fromkeys(queue)), tuple(dict.fromkeys(other)))

    @cached_property
    def admin_index(self) -> ProfileIndex:
        return ProfileIndex(self.admin)

    @cached_property
    def queue_index(self) -> ProfileIndex:
        return ProfileIndex(self.queue)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "Profiles":
        """From a reader's table with columns ``class`` and ``profile``."""
        missing = {"class", "profile"} - set(frame.columns)
        if missing:
            raise DataError("profiles", "required column is missing", column=sorted(missing)[0])
        return cls.from_pairs(zip(frame["class"].astype(str), frame["profile"].astype(str)))


def switch_names(ssid: str, qsg: str | None) -> dict[str, str | None]:
    """Profile name of every switch for this queue manager (None for QSG switches without a QSG)."""
    ssid = _name(ssid, "ssid")
    qsg = _name(qsg, "qsg") if qsg else None
    return {key: (None if "{qsg}" in tpl and qsg is None else tpl.format(ssid=ssid, qsg=qsg)) for key, tpl in SWITCHES.items()}


def _name(value, what) -> str:
    text = str(value or "").strip().upper()
    if not text or "." in text or is_generic(text):
        raise MQPerfError(f"{what} must be a plain name such as QMA (got {value!r})")
    return text


def switch_state(profiles: Profiles, ssid: str, qsg: str | None, *, generic_switches: bool = False) -> dict[str, bool]:
    """Which switches count as defined: exact names; generic covers too if ``generic_switches``."""
    state = {}
    for key, name in switch_names(ssid, qsg).items():
        if name is None:
            state[key] = False
            continue
        index = profiles.admin_index
        state[key] = name in index or (generic_switches and any(covers(p, name) for p in index.candidates(name)))
    return state


# -- IBM's documented order --------------------------------------------------------------------

@dataclass(frozen=True)
class Checks:
    """What MQ checks: subsystem security, the two levels, and why."""

    security: bool
    qmgr_level: bool
    qsg_level: bool
    invalid_combination: bool = False
    reasons: tuple[str, ...] = field(default=(), compare=False)

    @property
    def levels(self) -> str:
        """'none', 'QMGR only', 'QSG only' or 'QMGR and QSG'."""
        if not self.security:
            return "none"
        if self.qmgr_level and self.qsg_level:
            return "QMGR and QSG"
        return "QMGR only" if self.qmgr_level else "QSG only"


def _level(state, no_ssid, no_qsg, yes_ssid, what) -> tuple[bool, str]:
    if state[no_ssid]:
        return False, f"ssid.NO.{what}.CHECKS defined: {what} level off (checked first, so a YES profile cannot override it)"
    if not state[no_qsg]:
        return True, f"no NO.{what}.CHECKS profile: {what} level on"
    if state[yes_ssid]:
        return True, f"qsg.NO.{what}.CHECKS overridden by ssid.YES.{what}.CHECKS: {what} level on"
    return False, f"qsg.NO.{what}.CHECKS defined and no ssid.YES.{what}.CHECKS: {what} level off"


def resolve(state: Mapping[str, bool], *, in_qsg: bool = True) -> Checks:
    """Checks that follow from a switch state, in IBM's documented order (module docstring)."""
    state = {key: bool(state.get(key, False)) for key in SWITCHES}
    if state["ssid_no_subsys_security"]:
        return Checks(False, False, False, reasons=("ssid.NO.SUBSYS.SECURITY defined: no security checks",))
    if in_qsg and state["qsg_no_subsys_security"] and not state["ssid_yes_subsys_security"]:
        return Checks(False, False, False, reasons=("qsg.NO.SUBSYS.SECURITY defined and no ssid.YES.SUBSYS.SECURITY: no security checks",))
    reasons = ["subsystem security on"]
    if not in_qsg:
        return Checks(True, True, False, reasons=tuple(reasons + ["not in a queue sharing group: queue manager level only"]))
    qmgr, why_qmgr = _level(state, "ssid_no_qmgr_checks", "qsg_no_qmgr_checks", "ssid_yes_qmgr_checks", "QMGR")
    qsg, why_qsg = _level(state, "ssid_no_qsg_checks", "qsg_no_qsg_checks", "ssid_yes_qsg_checks", "QSG")
    reasons += [why_qmgr, why_qsg]
    if not qmgr and not qsg:
        reasons.append("both levels switched off is not valid: CSQH026I, MQ checks at both levels")
        return Checks(True, True, True, invalid_combination=True, reasons=tuple(reasons))
    return Checks(True, qmgr, qsg, reasons=tuple(reasons))


def queue_profile(queue: str, checks: Checks, profiles: Profiles, ssid: str, qsg: str | None) -> tuple[str | None, str]:
    """(profile used, level) for opening ``queue``; level is 'ssid', 'qsg', 'none' or 'no checks'.

    Both levels on: the most specific profile covering ``ssid.queue``, else ``qsg.queue``
    (rules 6 and 7). One level on: that level's profile only. None found: ``(None, 'none')``.
    """
    if not checks.security:
        return None, "no checks"
    ssid, qsg = _name(ssid, "ssid"), (_name(qsg, "qsg") if qsg else None)
    queue = queue.strip().upper()
    if checks.qmgr_level:
        found = most_specific(profiles.queue_index, f"{ssid}.{queue}")
        if found:
            return found, "ssid"
    if checks.qsg_level and qsg:
        found = most_specific(profiles.queue_index, f"{qsg}.{queue}")
        if found:
            return found, "qsg"
    return None, "none"


# -- the article's table -------------------------------------------------------------------------

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


# -- the two side by side ----------------------------------------------------------------------

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


# -- a reader's profiles --------------------------------------------------------------------------

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
