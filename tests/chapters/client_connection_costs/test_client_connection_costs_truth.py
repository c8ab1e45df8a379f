"""Generated truth for the client connection chapter: every computed claim held to the costs it was drawn from.

Datasets come from known cell costs (a base, a SHARECNV step, a listener step, optionally an
interaction, TLS and suppression increments) across scale (costs ×1e-2 to ×1e3), shape
(additive, interacting, a setting that changes nothing), replicates (one run per configuration,
or three with noise), series count (one factor varying, both, three SHARECNV values) and the
contract's minimum (two rows). For each kind of sentence the chapter computes, a rule:

* **difference** -- "X costs N µs more/less than Y" claims a direction: false when the true
  difference is 0 or of the other sign (a measured difference, said as measured, claims nothing);
* **interaction** -- "the settings interact" is false on additive truth;
* **option** -- "TLS adds/saves ...", "adds in some configurations and saves in others": false
  when a true increment has the other sign, is 0, or (for "some ... others") has one sign only;
* **names** -- a listener's name is printed as given (not case-folded).

:func:`audit` returns the false sentences by class; the tests require none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

import props  # noqa: E402

CHAPTER = "client_connection_costs"


@dataclass
class Truth:
    base: float
    share_step: dict  # sharecnv -> added cost
    listener_step: dict  # listener -> added cost
    interaction: dict = field(default_factory=dict)  # (sharecnv, listener) -> added cost
    tls: float | None = None
    suppress: float | None = None

    def cost(self, s, lst, tls=False, sup=False) -> float:
        c = self.base + self.share_step[s] + self.listener_step[lst] + self.interaction.get((s, lst), 0.0)
        return c + (self.tls if tls else 0.0) + (self.suppress if sup else 0.0)

    @property
    def additive(self) -> bool:
        return not any(self.interaction.values())


def generate(truth: Truth, *, reps: int, noise: float, seed: int, options_reps: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    scale = truth.base
    for s in truth.share_step:
        for lst in truth.listener_step:
            for _ in range(reps):
                rows.append({"sharecnv": s, "listener": lst, "cpu_us": truth.cost(s, lst), "tls": False,
                             "suppress_x511": False})
            for opt, inc in (("tls", truth.tls), ("suppress_x511", truth.suppress)):
                if inc is None:
                    continue
                for _ in range(options_reps or reps):
                    rows.append({"sharecnv": s, "listener": lst, "tls": opt == "tls",
                                 "suppress_x511": opt == "suppress_x511",
                                 "cpu_us": truth.cost(s, lst, opt == "tls", opt == "suppress_x511")})
    frame = pd.DataFrame(rows)
    if noise:
        frame["cpu_us"] = frame["cpu_us"] + rng.normal(0, noise * scale, len(frame))
    frame["cpu_us"] = frame["cpu_us"].round(6)
    return frame


def _cases():
    """(id, truth, reps, noise) across scale, shape, replicates and series count."""
    out = []
    for scale in (1e-2, 1.0, 1e3):
        b = 500 * scale
        # Additive, with replicates: the settings must not be said to interact.
        out.append((f"additive-reps-x{scale:g}", Truth(b, {0: 0, 1: 80 * scale}, {"local": 0, "shared": 600 * scale},
                                                   tls=380 * scale), 3, 0.02))
    # Additive data where SHARECNV changes nothing: no direction may be claimed for it.
    out.append(("sharecnv-null-reps", Truth(500, {0: 0, 1: 0}, {"Local": 0, "Shared": 600}, tls=380), 3, 0.02))
    out.append(("sharecnv-null-single", Truth(500, {0: 0, 1: 0}, {"local": 0, "shared": 600}), 1, 0.02))
    # Interacting, with replicates and without.
    inter = Truth(500, {0: 0, 1: 80}, {"local": 0, "shared": 590}, interaction={(1, "shared"): 170}, tls=380)
    out.append(("interacting-reps", inter, 3, 0.01))
    out.append(("interacting-single", inter, 1, 0.0))
    # Additive, exact, one run each: an interaction cannot be tested, so not claimed.
    out.append(("additive-exact-single", Truth(500, {0: 0, 1: 80}, {"local": 0, "shared": 600}), 1, 0.0))
    # A spread that exceeds 10 % of the difference through noise alone (additive truth, one run each).
    out.append(("additive-noisy-single", Truth(500, {0: 0, 1: 80}, {"local": 0, "shared": 100}), 1, 0.05))
    # One factor varying (one listener), three SHARECNV values.
    out.append(("one-listener", Truth(700, {0: 0, 1: 90, 10: 95}, {"QMGR_Port": 0}, suppress=-130), 3, 0.02))
    # An option that changes nothing, with replicates: no direction may be claimed.
    out.append(("tls-null", Truth(500, {0: 0, 1: 80}, {"local": 0, "shared": 600}, tls=0.0), 3, 0.02))
    return out


CASES = _cases()


# -- the rules ------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z“])")
_POSITIVE_INTERACTION = re.compile(r"\b(?:the settings|they) interact\b")
_NEGATED = re.compile(r"cannot|can not|not |no interaction|whether")


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text or "") if s.strip()]


def _level(at: str, truth: Truth):
    """("sharecnv", 1) for "SHARECNV(1)", ("listener", name) for "NAME listener"."""
    at = at.strip()
    m = re.fullmatch(r"SHARECNV\((\d+)\)", at)
    if m:
        return "sharecnv", int(m[1])
    m = re.fullmatch(r"(?:[Tt]he )?(.+?) listener", at)
    wanted = m[1] if m else at
    # Matched without case, so a case-folded name is still understood here (the names rule catches it).
    for name in truth.listener_step:
        if wanted.lower() == name.lower():
            return "listener", name
    return None


def _true_difference(subject, base, at, truth: Truth) -> float | None:
    """The true cost of ``subject`` minus ``base`` at level ``at`` (None when the sentence is not understood)."""
    s, b, a = _level(subject, truth), _level(base, truth), _level(at, truth)
    if s is None or b is None or a is None or s[0] != b[0] or a[0] == s[0]:
        return None
    if s[0] == "listener":
        return truth.cost(a[1], s[1]) - truth.cost(a[1], b[1])
    return truth.cost(s[1], a[1]) - truth.cost(b[1], a[1])


_OLD = re.compile(r"^(?P<subject>.+?) costs (?P<parts>.+?) than (?P<base>.+?)(?: \((?:one|two)-sided .*\))?\.?$")
_PART = re.compile(r"(?P<v>[\d,.]+) µs (?P<dir>more|less) (?:at|with the) (?P<at>.+)")
_NEW = re.compile(r"^(?:At|With) (?P<at>.+?), (?:an? |the )?(?P<subject>.+?) costs (?P<v>[\d,.]+) µs (?P<dir>more|less) than "
                  r"(?:an? |the )?(?P<base>.+?) \(")


def difference_claims(text: str, truth: Truth) -> list[str]:
    false = []
    for sentence in sentences(text):
        if "measured" in sentence or "cannot" in sentence:
            continue  # a measured difference said as measured, or no claim
        m = _NEW.match(sentence)
        if m:
            diff = _true_difference(m["subject"], m["base"], m["at"], truth)
            if diff is not None and not (diff > 0 if m["dir"] == "more" else diff < 0):
                false.append(sentence)
            continue
        m = _OLD.match(sentence)
        if not m:
            continue
        subject = m["subject"].removesuffix(" listener").strip()
        for part in re.split(r", | and ", m["parts"]):
            p = _PART.match(part.strip())
            if not p:
                continue
            diff = _true_difference(m["subject"], m["base"], p["at"], truth)
            if diff is None:
                diff = _true_difference(subject, m["base"], p["at"], truth)
            if diff is not None and not (diff > 0 if p["dir"] == "more" else diff < 0):
                false.append(sentence)
                break
    return false


def interaction_claims(texts, truth: Truth) -> list[str]:
    if not truth.additive:
        return []
    return [s for text in texts for s in sentences(text)
            if _POSITIVE_INTERACTION.search(s) and not _NEGATED.search(s.split("interact")[0][-60:])]


def option_claims(text: str, truth: Truth) -> list[str]:
    false = []
    for sentence in sentences(text):
        for what, inc in (("TLS", truth.tls), ("Suppressing", truth.suppress)):
            if not sentence.startswith(what) or inc is None or "cannot" in sentence or "measured" in sentence:
                continue
            if "some configurations and saves in others" in sentence:
                false.append(sentence)  # a constant true increment has one sign
            elif re.search(r"\badds\b", sentence.split("(")[0]) and not inc > 0:
                false.append(sentence)
            elif re.search(r"\bsaves\b", sentence.split("(")[0]) and not inc < 0:
                false.append(sentence)
    return false


def name_claims(r, truth: Truth) -> list[str]:
    """Listener names appear as given: a case-folded name in a table or sentence is false."""
    shown = " ".join(r.sentences().values())
    for item in r.items.values():
        if hasattr(item, "frame"):
            shown += " " + item.frame.astype(str).to_string()
    return [f"listener {name!r} not shown as given" for name in truth.listener_step
            if name != name.lower() and name not in shown]


def audit(r, truth: Truth) -> dict[str, list[str]]:
    said = r.sentences()
    out = {
        "difference": difference_claims(said.get("differences_text", ""), truth),
        "interaction": interaction_claims([said.get(k, "") for k in ("differences_text", "loo_text", "fitted_text",
                                                                     "models_text", "increments_text")], truth),
        "option": option_claims(said.get("increments_text", ""), truth),
        "names": name_claims(r, truth),
    }
    return {k: v for k, v in out.items() if v}


def run_case(tmp_path, case, seed=0):
    name, truth, reps, noise = case
    frame = generate(truth, reps=reps, noise=noise, seed=seed)
    path = props.write(tmp_path, frame, f"{name}.csv")
    return props.run(CHAPTER, path), truth


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_claim_is_true_of_the_generated_costs(tmp_path, case):
    r, truth = run_case(tmp_path, case)
    assert audit(r, truth) == {}
    props.assert_report_is_honest(r)


def test_contract_minimum_two_rows_says_nothing_false(tmp_path):
    truth = Truth(400, {0: 0, 1: 50}, {"local": 0})
    frame = generate(truth, reps=1, noise=0.0, seed=0)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "two.csv"))
    assert audit(r, truth) == {}
    props.assert_report_is_honest(r)


def test_interaction_is_claimed_only_with_its_test(tmp_path):
    """On interacting data with replicates the F-test finds it, and the sentence names the test."""
    r, truth = run_case(tmp_path, next(c for c in CASES if c[0] == "interacting-reps"))
    text = r.sentences()["differences_text"]
    assert _POSITIVE_INTERACTION.search(text) and "F-test" in text and "p " in text
    r, truth = run_case(tmp_path, next(c for c in CASES if c[0] == "interacting-single"))
    text = r.sentences()["differences_text"]
    assert not _POSITIVE_INTERACTION.search(text.replace("whether the settings interact", ""))
    assert "cannot" in text
