"""RACF generic profile names: which profiles cover a resource name, and which of them is the most
specific (the general-resource rules of RACF), with an index that keeps a lookup among a million
profiles to the few that could match (see :mod:`mqperf.models.racf`)."""

from __future__ import annotations

from functools import cached_property
from typing import Iterable


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
