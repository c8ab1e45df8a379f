"""Rules every computed sentence of a report meets whatever its chapter: the report-level classes of
the generated-truth harnesses of the Kafka chapters (task scaling, message size, idle and trickle).

Each function returns ``[(class, offending text), ...]``: empty when the report keeps the rule.

- ``names``: every series name appears in the sentences exactly as the file gives it (never
  case-folded, never with ``_`` turned into a space);
- ``dash``: no "–" standing where a number belongs (a missing value printed as a dash);
- ``doubled``: no sentence said twice in one report;
- ``recorded``: an answer labelled "extrapolated" in a sentence is also recorded for "How this
  report was made" (``Results.extrapolated``), and the chapter says what its answers are
  (``Results.answers``).
"""

from __future__ import annotations

import re

#: A dash with no digit on one side: a number that is missing, not a range such as 0.5–1.7.
_DASH = re.compile(r"(?<!\d)–|–(?!\d)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z“*])")


def computed(r) -> dict[str, str]:
    """The computed passages: the book's own commentary (``about`` passages) left out."""
    from mqperf.present.results import ABOUT_TITLE

    return {k: s for k, s in r.sentences().items() if ABOUT_TITLE not in s}


def names(r, series) -> list[tuple[str, str]]:
    text = " ".join(computed(r).values())
    out = []
    for name in series:
        if f"“{name}”" not in text:
            out.append(("names", f"series {name!r} is not named as given in any sentence"))
        for altered in {name.replace("_", " "), name.lower(), name.upper()} - {name}:
            if f"“{altered}”" in text:
                out.append(("names", f"series {name!r} is named {altered!r}"))
    return out


def dash(r) -> list[tuple[str, str]]:
    return [("dash", f"[{k}] {s}") for k, s in computed(r).items() if _DASH.search(s)]


def sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = line.strip().lstrip("* ").strip()
        out.extend(s.strip() for s in _SENTENCE.split(line) if s.strip())
    return out


def doubled(r) -> list[tuple[str, str]]:
    seen, out = set(), []
    for key, text in computed(r).items():
        for s in sentences(text):
            if len(s) < 25:
                continue
            if s in seen:
                out.append(("doubled", f"[{key}] {s}"))
            seen.add(s)
    return out


def recorded(r) -> list[tuple[str, str]]:
    out = []
    if r.answers is None:
        out.append(("recorded", "Results.answers is not set: the report does not say what its answers are"))
    labelled = [s for s in computed(r).values() if "(extrapolated" in s]
    if labelled and not r.extrapolations:
        out.append(("recorded", "answers are labelled extrapolated in sentences but none is recorded"))
    return out


def report_level(r, series) -> list[tuple[str, str]]:
    return names(r, series) + dash(r) + doubled(r) + recorded(r)


WORDS = {w: i for i, w in enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                     "ten"))}


def number(token: str) -> float:
    """A number as sentences write it: a word up to ten, or digits with thousands commas."""
    token = token.strip()
    return float(WORDS[token]) if token in WORDS else float(token.replace(",", ""))


def clauses(text: str) -> list[str]:
    """A bullet's clauses: its sentences split further at semicolons (an answer and its label share one)."""
    return [c.strip() for s in sentences(text) for c in s.split("; ") if c.strip()]
