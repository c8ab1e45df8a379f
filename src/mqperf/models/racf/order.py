"""IBM's documented order of checking: the switch profiles a queue manager reads, the checks that
follow from them, and the profile that protects a queue (see :mod:`mqperf.models.racf`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping

import pandas as pd

from mqperf.errors import DataError, MQPerfError
from mqperf.models.racf.names import ProfileIndex, covers, is_generic, most_specific


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

ADMIN_CLASSES = ("MQADMIN", "MXADMIN")

QUEUE_CLASSES = ("MQQUEUE", "MXQUEUE")


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
