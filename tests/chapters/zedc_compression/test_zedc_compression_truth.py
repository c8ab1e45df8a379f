"""Generated truth for the zEDC chapter: every computed claim held to the effect curves it was drawn from.

Datasets come from known effects by message size: a Hill curve whose midpoint lies within the
sizes measured, one whose midpoint lies beyond them (the plateau not reached), a constant
effect (nothing to locate), a straight rise in ln(size) (no plateau) and a falling effect;
across scale (effects ×0.1 to ×10, sizes from 0.25 KB to 64 MB), one effect or both, noise or
none, and the contract's minimum of three sizes. Rules, one per kind of computed sentence:

* **plateau** -- "levels off near Y %" is false when the true effect does not level off within
  the sizes measured, or levels off more than 25 % away from Y, unless the sentence says it is
  an extrapolation or that the data cannot tell;
* **half-way size** -- "half of it reached at about X KB" is false for an effect that has no
  half-way size (constant, straight, falling), when X lies outside the sizes measured without
  saying so, or when the true s50 is more than a factor 3 from X;
* **at your size** (the planning answer) -- the true effect lies outside the stated band
  (widened by the data's printed step), or the size lies outside the sizes measured and the
  sentence does not say "(extrapolated)";
* **CPU per message** -- "costs more CPU per message at every size" is false when at some size
  the truth under either reading is not more; "costs less ..." likewise;
* **whose numbers** -- on a reader's run, a sentence stating recovery times or zEDC features from
  the book's measurements must say they are the book's.

:func:`audit` returns the false sentences by class; the tests require none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

import props  # noqa: E402

CHAPTER = "zedc_compression"


@dataclass
class Effect:
    kind: str  # hill, constant, straight, falling
    y_max: float = 0.0
    s50: float | None = None  # KB
    h: float = 1.0
    level: float = 0.0
    slope: float = 0.0

    def __call__(self, kb):
        kb = np.asarray(kb, dtype=float)
        if self.kind == "hill":
            return self.y_max / (1 + (self.s50 / kb) ** self.h)
        if self.kind == "constant":
            return np.full_like(kb, self.level)
        return self.level + self.slope * np.log(kb)

    def levels_off_by(self, top_kb: float) -> bool:
        """Is the effect past half its plateau by the largest size measured (the bend seen)?"""
        if self.kind == "constant":
            return True
        return self.kind == "hill" and self.s50 <= top_kb

    def plateau(self) -> float | None:
        return self.y_max if self.kind == "hill" else self.level if self.kind == "constant" else None


@dataclass
class Case:
    name: str
    sizes_kb: list
    tcb: Effect
    thr: Effect | None = None
    noise: float = 0.0


def generate(case: Case, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    kb = np.asarray(case.sizes_kb, dtype=float)
    frame = pd.DataFrame({"message_size_bytes": np.round(kb * 1024).astype(int)})
    frame["qm_tcb_increase_pct"] = case.tcb(kb)
    if case.thr is not None:
        frame["peak_throughput_increase_pct"] = case.thr(kb)
    if case.noise:
        for col in frame.columns[1:]:
            frame[col] = frame[col] + rng.normal(0, case.noise, len(frame))
    for col in frame.columns[1:]:
        frame[col] = frame[col].round(3)
    return frame


WIDE = [1, 4, 16, 64, 256, 1024, 4096]
CASES = [
    Case("hill-within", WIDE, Effect("hill", 60, 64, 1.2), Effect("hill", 20, 512, 1.0), noise=0.3),
    Case("hill-within-x0.1", WIDE, Effect("hill", 6, 64, 1.2), noise=0.03),
    Case("hill-within-x10-small-sizes", [0.25, 1, 4, 16, 64], Effect("hill", 600, 4, 1.5), noise=3.0),
    Case("hill-beyond", [1, 4, 16, 64, 256], Effect("hill", 80, 8192, 1.0), Effect("hill", 30, 4096, 1.1), noise=0.2),
    Case("constant-5", [4, 64, 1024, 4096], Effect("constant", level=5.0), noise=0.05),
    Case("constant-5-exact", [4, 64, 1024, 4096, 16384], Effect("constant", level=5.0)),
    Case("straight", [4, 16, 64, 256, 1024, 4096], Effect("straight", level=2.0, slope=4.0), noise=0.2),
    Case("falling", [4, 16, 64, 256, 1024], Effect("falling", level=50.0, slope=-5.0), noise=0.2),
    Case("minimum-three", [4, 256, 16384], Effect("hill", 70, 256, 1.0)),
    Case("cheaper-per-message", [16, 256, 4096, 65536], Effect("hill", 40, 256, 1.0),
         Effect("hill", 60, 256, 1.0), noise=0.2),
]

PLAN_KB = 256.0


# -- the rules ------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z“])")
METRIC_WORDS = {"queue manager TCB cost increase": "tcb", "peak throughput gain": "thr"}


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text or "") if s.strip()]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _effect_of(sentence: str, case: Case) -> Effect | None:
    for words, key in METRIC_WORDS.items():
        if words in sentence:
            return case.tcb if key == "tcb" else case.thr
    return None


def plateau_claims(text: str, case: Case) -> list[str]:
    false = []
    top = max(case.sizes_kb)
    for s in sentences(text):
        m = re.search(r"levels off near ([\d,.]+) %", s)
        effect = _effect_of(s, case)
        if not m or effect is None or "cannot tell" in s.split("levels off")[0] or "extrapolat" in s:
            continue
        y = _number(m[1])
        true = effect.plateau()
        if not effect.levels_off_by(top) or true is None or abs(y - true) > 0.25 * abs(true):
            false.append(s)
    return false


def half_way_claims(text: str, case: Case) -> list[str]:
    false = []
    lo, hi = min(case.sizes_kb), max(case.sizes_kb)
    for s in sentences(text):
        m = re.search(r"half of (?:it|its plateau) (?:is )?reached at about ([\d,.]+) KB", s)
        effect = _effect_of(s, case)
        if not m or effect is None:
            continue
        x = _number(m[1])
        if effect.kind != "hill":
            false.append(s)
        elif not lo <= x <= hi and "extrapolat" not in s and "beyond" not in s and "below" not in s:
            false.append(s)
        elif not effect.s50 / 3 <= x <= effect.s50 * 3:
            false.append(s)
    return false


def at_size_claims(r, case: Case) -> list[str]:
    false = []
    text = r.sentences().get("at_size_text", "")
    inside = min(case.sizes_kb) <= PLAN_KB <= max(case.sizes_kb)
    for s in sentences(text):
        effect = _effect_of(s, case)
        m = re.search(r"modelled at (-?[\d,.]+) % \(95 % band (-?[\d,.]+) % to (-?[\d,.]+) %\)", s)
        if effect is None or not m:
            continue
        lo, hi = _number(m[2]), _number(m[3])
        true = float(effect(PLAN_KB))
        slack = 0.05 * max(abs(hi - lo), 1e-9)
        if not lo - slack <= true <= hi + slack:
            false.append(s)
        elif not inside and "(extrapolated)" not in s:
            false.append(s)
    return false


def cpu_claims(text: str, case: Case) -> list[str]:
    if case.thr is None:
        return []
    kb = np.asarray(case.sizes_kb, float)
    tcb, thr = case.tcb(kb), case.thr(kb)
    per_interval = ((1 + tcb / 100) / (1 + thr / 100) - 1) * 100
    low, high = np.minimum(per_interval, tcb), np.maximum(per_interval, tcb)
    false = []
    for s in sentences(text):
        if "costs more CPU per message at every size" in s and not (low > 0).all():
            false.append(s)
        if re.search(r"costs (?:no more|less) CPU per message at (?:any|every) size", s) and not (high <= 0).all():
            false.append(s)
        for direction, listed in re.findall(r"costs (more|less) CPU per message at ([\d,. and]+) KB", s):
            for size in re.split(r", | and ", listed):
                i = int(np.argmin(np.abs(kb - _number(size))))
                if (direction == "more" and not low[i] > 0) or (direction == "less" and not high[i] < 0):
                    false.append(s)
    return false


def whose_numbers(r) -> list[str]:
    if r.book_data:
        return []
    said = r.sentences()
    false = []
    for key in ("recovery_text", "capacity_text"):
        for s in sentences(said.get(key, "")):
            if re.search(r"\d", s) and not re.search(r"book's|seed 004", s) and not re.search(r"\bbook\b", s):
                # a sentence with numbers from the book's measurements, not saying whose
                if key == "capacity_text" or "Recovering" in s or "recovery" in s.lower():
                    false.append(s)
    return false


def audit(r, case: Case) -> dict[str, list[str]]:
    said = r.sentences()
    out = {
        "plateau": plateau_claims(said.get("fit_text", ""), case),
        "half-way size": half_way_claims(said.get("fit_text", ""), case),
        "at your size": at_size_claims(r, case),
        "CPU per message": cpu_claims(said.get("cpu_text", ""), case),
        "whose numbers": whose_numbers(r),
    }
    return {k: v for k, v in out.items() if v}


def _no_loo(r, effects):
    # Leave-one-out refits cost seconds per case and state only their own table's numbers (held to
    # the report by the property tests); the truth harness skips them to stay fast.
    r.missing("loo", "skipped in the truth harness")
    r.text("loo_text")


def run_case(tmp_path, case: Case, seed: int = 0, **params):
    from unittest import mock

    from mqperf.chapters.zedc_compression import analysis

    path = props.write(tmp_path, generate(case, seed), f"{case.name}.csv")
    with mock.patch.object(analysis, "loo_section", _no_loo):
        return props.run(CHAPTER, path, **{"message_size_kb": PLAN_KB, **params}), case


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_claim_is_true_of_the_generated_effects(tmp_path, case):
    r, _ = run_case(tmp_path, case)
    assert audit(r, case) == {}
    props.assert_report_is_honest(r)


def test_a_constant_effect_has_no_half_way_size(tmp_path):
    """Issue 21: a constant 5 % once got "half of it reached at about 0.0277 KB", below every size measured."""
    r, _ = run_case(tmp_path, next(c for c in CASES if c.name == "constant-5"))
    text = r.sentences()["fit_text"]
    assert "half of it reached at about" not in text and "cannot tell" in text


def test_planning_beyond_the_sizes_is_labelled(tmp_path):
    case = next(c for c in CASES if c.name == "hill-beyond")
    r, _ = run_case(tmp_path, case, message_size_kb=4096.0)
    assert "(extrapolated)" in r.sentences()["at_size_text"]
    assert r.extrapolations and r.answers
    assert r["at_size"].frame["extrapolated"].all()
