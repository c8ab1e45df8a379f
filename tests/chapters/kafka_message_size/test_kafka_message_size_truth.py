"""Message size against the truth: rates generated from t(s) = a + s/B with known a and B, every
computed sentence checked.

Datasets span scale (rates from about 1 to 10,000,000 msg/s), shape (both costs visible; a
pure bandwidth limit, a = 0; sizes so large the fixed cost is invisible; sizes so small the
bandwidth is), series count (one, several with names to keep as given), the contract's
minimum (two sizes) and the planning size (inside the measured sizes, beyond them).

Rules, one per class of sentence:

- ``value``: a stated fixed time a, bandwidth B or half-size is the truth within its stated
  95 % interval, or within 30 % when none is given; a quantity whose interval does not pin it
  down (:func:`mqperf.models.evidence.identified`) is not stated as a value;
- ``plan``: "is expected to move R msg/s", inside the measured sizes, is the true rate within
  the stated interval or within 10 %; the fixed share of time within 10 points;
- ``unlabelled``: an answer (a planned rate, the size for 90 % of B, the half-size) beyond the
  measured sizes not marked as an extrapolation in its bullet; ``table``: a planning row beyond
  the measured sizes without an "extrapolated" flag;
- report-level classes (:mod:`kafka_truth_rules`).

``python tests/chapters/kafka_message_size/test_kafka_message_size_truth.py`` prints the false sentences per class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kafka_truth_rules as rules  # noqa: E402
import props  # noqa: E402

CH = "kafka_message_size"
KB, MB = 1024.0, 1024.0 * 1024.0


@dataclass
class Series:
    name: str
    a_us: float  # fixed time per message, µs
    b_mb: float  # bandwidth, MB/s
    sizes: tuple = (1, 4, 16, 64, 256)
    noise: float = 0.02
    seed: int = 1

    def rate(self, kb):
        return 1.0 / (self.a_us * 1e-6 + np.asarray(kb, dtype=float) * KB / (self.b_mb * MB))

    def rows(self) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed)
        kb = np.asarray(self.sizes, dtype=float)
        x = self.rate(kb) * (1 + self.noise * rng.standard_normal(kb.size))
        return pd.DataFrame({"series": self.name, "msg_size_kb": kb, "rate_msg_s": x})

    @property
    def half_kb(self) -> float:
        return self.a_us * 1e-6 * self.b_mb * MB / KB


@dataclass
class Case:
    id: str
    series: list
    plan_kb: float = 4.0
    params: dict = field(default_factory=dict)

    def frame(self):
        return pd.concat([s.rows() for s in self.series], ignore_index=True)


CASES = [
    Case("both costs visible", [Series("both", 25.0, 130.0)], plan_kb=8.0),
    Case("plan beyond the sizes, ×1e-2", [Series("slow", 2500.0, 1.3, seed=2)], plan_kb=2048.0),
    Case("pure bandwidth (a = 0)", [Series("wire", 0.0, 100.0, seed=3)], plan_kb=8.0),
    Case("sizes too large to see a", [Series("large", 5.0, 200.0, sizes=(256, 512, 1024, 2048), seed=4)],
         plan_kb=1.0),
    Case("sizes too small to see B, ×1e3", [Series("tiny", 0.1, 1e6, sizes=(0.5, 1, 2, 4), seed=5)], plan_kb=2.0),
    Case("two sizes", [Series("pair", 25.0, 130.0, sizes=(1, 32), noise=0.0)], plan_kb=8.0),
    Case("three sizes", [Series("three", 25.0, 130.0, sizes=(1, 10, 32), noise=0.01, seed=6)], plan_kb=4.0),
    Case("several series", [Series("Big_MSG", 30.0, 100.0, seed=7), Series("small_Batch", 10.0, 400.0, seed=8),
                            Series("µ/test", 50.0, 50.0, sizes=(1, 2, 4, 8), seed=9)], plan_kb=16.0),
]


def _bullets(r, key) -> dict[str, str]:
    text = r.sentences().get(key) or ""
    out = {}
    for line in text.splitlines():
        m = re.search(r"“([^”]*)”", line)
        if m:
            out[m.group(1)] = out.get(m.group(1), "") + " " + line.strip()
    return out


def _interval(clause: str):
    m = re.search(r"95 % interval (-?[\d,.]+) to (-?[\d,.]+)", clause)
    return (rules.number(m.group(1)), rules.number(m.group(2))) if m else None


def _near(stated: float, truth: float, clause: str, rel: float) -> bool:
    iv = _interval(clause)
    if iv is not None:
        return iv[0] * (1 - 1e-3) <= truth <= iv[1] * (1 + 1e-3) or abs(stated - truth) <= rel * abs(truth)
    return abs(stated - truth) <= rel * max(abs(truth), 1e-12)


def check_readings(r, case: Case) -> list[tuple[str, str]]:
    out = []
    bullets = _bullets(r, "readings")
    for s in case.series:
        text = bullets.get(s.name, "")
        top, low = max(s.sizes), min(s.sizes)
        for clause in re.split(r"(?<=[;.])\s+|, and ", text):
            m = re.search(r"fixed ([\d,.]+) µs per message", clause)
            if m and not _near(rules.number(m.group(1)), s.a_us, clause, 0.3):
                out.append(("value", f"{clause} [true a: {s.a_us:.4g} µs]"))
            m = re.search(r"bandwidth of ([\d,.]+) MB/s", clause)
            if m and not _near(rules.number(m.group(1)), s.b_mb, clause, 0.3):
                out.append(("value", f"{clause} [true B: {s.b_mb:.4g} MB/s]"))
            m = re.search(r"per byte at ([\d,.]+) KB", clause)
            if m:
                half = rules.number(m.group(1))
                if not _near(half, s.half_kb, clause, 0.3):
                    out.append(("value", f"{clause} [true half-size: {s.half_kb:.4g} KB]"))
                if not (low <= half <= top) and "extrapolat" not in clause:
                    out.append(("unlabelled", clause))
            m = re.search(r"90 % of B needs ([\d,.]+) KB", clause)
            if m and rules.number(m.group(1)) > top and "extrapolat" not in clause:
                out.append(("unlabelled", clause))
    return out


def check_plan(r, case: Case) -> list[tuple[str, str]]:
    out = []
    bullets = _bullets(r, "plan_text")
    for s in case.series:
        text = bullets.get(s.name, "")
        m = re.search(r"is expected to move ([\d,.]+) msg/s", text)
        if not m:
            continue
        inside = min(s.sizes) <= case.plan_kb <= max(s.sizes)
        truth = float(s.rate(case.plan_kb))
        if not inside and "extrapolat" not in text:
            out.append(("unlabelled", text.strip()))
        if inside and not _near(rules.number(m.group(1)), truth, text, 0.1):
            out.append(("plan", f"{text.strip()} [true rate: {truth:.4g} msg/s]"))
        m = re.search(r"([\d,.]+) % of the time per message is the fixed cost", text)
        share = 100 * s.a_us * 1e-6 * truth
        if m and inside and abs(rules.number(m.group(1)) - share) > 10:
            out.append(("plan", f"{text.strip()} [true fixed share: {share:.3g} %]"))
    return out


def check_table(r, case: Case) -> list[tuple[str, str]]:
    out = []
    sizes = {s.name: s.sizes for s in case.series}
    for key in ("plan", "plan_sizes"):
        frame = getattr(r.items.get(key), "frame", None)
        if frame is None:
            continue
        flags = [c for c in frame.columns if "extrapolated" in str(c)]
        for row in frame.to_dict("records"):
            got = sizes.get(row["series"])
            if got is None:
                continue
            beyond = not (min(got) <= row["size (KB)"] <= max(got))
            flagged = any(row[c] is True or row[c] == "yes" for c in flags) or row.get("within measured sizes") is False
            if beyond and not flagged:
                out.append(("table", f"{key}: {row['series']!r} at {row['size (KB)']:g} KB has no extrapolated flag"))
    return out


def audit(case: Case, tmp: Path) -> list[tuple[str, str]]:
    path = props.frame_to_csv(case.frame(), tmp / "truth.csv")
    r = props.run(CH, path, plan_msg_size_kb=case.plan_kb, **case.params)
    return (check_readings(r, case) + check_plan(r, case) + check_table(r, case)
            + rules.report_level(r, [s.name for s in case.series]))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_sentence_holds_against_the_truth(case, tmp_path):
    props.assert_no_false_sentences(audit(case, tmp_path))


if __name__ == "__main__":
    props.print_audits(CASES, audit)
