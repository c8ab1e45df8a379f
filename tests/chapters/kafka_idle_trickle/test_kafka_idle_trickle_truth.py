"""Idle and trickle costs against the truth: idle CPU generated from base + per task × tasks.max with
known base and per-task cost, every computed sentence checked.

Datasets span scale (CPU s/h from 0.01 to 10,000), shape (a clear per-task cost; none, flat with
noise, as in the issue's "each task removes 0.397 CPU s/h" from an interval of −2.24 to +1.45; a
base that is zero), series count (one, several, sinks among them, names to keep as given), the
contract's minimum (two task counts) and the plan (tasks inside the measured counts, beyond them).
The polling arithmetic has no fitted parameters (the model is the truth), so its sentences are
held to the report-level rules only.

Rules, one per class of sentence:

- ``direction``: "each task adds / removes X" only when the truth's per-task cost has that sign
  (and is not zero), and, when an interval is given, lies in it;
- ``base``: "costs X CPU s/h before any task" is the true base within the stated interval, or
  within 25 % (at least 0.05 of the largest rate) when none is given; a base the data cannot
  tell from zero is not stated as a cost;
- ``ratio``: "the largest base ... is R times the smallest" within a factor 1.5 of the truth's;
- ``share``: "P % of the Y CPU s/h the task costs in the connector" only when the task's cost is
  real (positive in truth);
- ``plan``: the idle connectors' CPU a day within 25 % of the truth's (inside the measured counts);
- ``unlabelled``: a plan beyond the measured tasks.max not marked "extrapolated";
- report-level classes (:mod:`kafka_truth_rules`).

``python tests/chapters/kafka_idle_trickle/test_kafka_idle_trickle_truth.py`` prints the false sentences per class.
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

CH = "kafka_idle_trickle"
NUM = r"(-?[\d,]+(?:\.\d+)?(?:e[-+]?\d+)?)"


@dataclass
class Series:
    name: str
    base: float
    per: float
    tasks: tuple = (1, 2, 4, 8)
    noise: float = 0.02  # sd relative to the largest true value
    repeats: int = 1
    seed: int = 1

    def cpu(self, t):
        return self.base + self.per * np.asarray(t, dtype=float)

    def rows(self) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed)
        t = np.repeat(np.asarray(self.tasks, dtype=float), self.repeats)
        y = self.cpu(t) + self.noise * float(self.cpu(self.tasks).max()) * rng.standard_normal(t.size)
        return pd.DataFrame({"connector": self.name, "tasks": t.astype(int), "cpu_s_per_hour": np.maximum(y, 1e-6)})


@dataclass
class Case:
    id: str
    series: list
    params: dict = field(default_factory=dict)

    def frame(self):
        return pd.concat([s.rows() for s in self.series], ignore_index=True)


BASE = {"trickle": "", "wait_s": 30.0, "empty_get_cpu_us": [1.0, 2.0]}
CASES = [
    Case("clear per-task cost", [Series("source", 0.3, 0.3)], {"plan_connector": "source", "plan_tasks": 4}),
    Case("flat with noise", [Series("source", 5.0, 0.0, tasks=(1, 2, 3, 4, 5), noise=0.15, seed=2)],
         {"plan_connector": "source", "plan_tasks": 2}),
    Case("flat, ×1e3", [Series("worker", 5000.0, 0.0, tasks=(1, 3, 5), noise=0.05, repeats=2, seed=3)],
         {"plan_connector": "worker", "plan_tasks": 3}),
    Case("no base, ×1e-2", [Series("source", 0.0, 0.01, tasks=(1, 2, 4, 8, 16), noise=0.01, seed=4)],
         {"plan_connector": "source", "plan_tasks": 8}),
    Case("two task counts", [Series("source", 0.275, 0.325, tasks=(1, 5), noise=0.0),
                             Series("sink", 7.775, 0.425, tasks=(1, 5), noise=0.0)],
         {"plan_connector": "source", "plan_tasks": 1}),
    Case("plan beyond the counts", [Series("source", 0.3, 0.3, seed=5)], {"plan_connector": "source", "plan_tasks": 20}),
    Case("several series", [Series("Src_A", 0.5, 0.2, seed=6), Series("SINK_b", 8.0, 0.4, seed=7),
                            Series("µ/idle", 2.0, 0.0, tasks=(1, 2, 3, 4, 6), noise=0.1, seed=8)],
         {"plan_connector": "Src_A", "plan_tasks": 2}),
]


def _bullets(r, key) -> dict[str, str]:
    text = r.sentences().get(key) or ""
    out = {}
    for s in rules.sentences(text):
        m = re.search(r"“([^”]*)”", s)
        if m:
            out[m.group(1)] = out.get(m.group(1), "") + " " + s
    return out


def _interval(clause: str):
    m = re.search(r"95 % interval " + NUM + " to " + NUM, clause)
    return (rules.number(m.group(1)), rules.number(m.group(2))) if m else None


def check_fit(r, case: Case) -> list[tuple[str, str]]:
    out = []
    by = {s.name: s for s in case.series}
    for name, text in _bullets(r, "fit_text").items():
        s = by.get(name)
        if s is None:
            continue
        scale = float(s.cpu(s.tasks).max())
        for clause in re.split(r",? and (?=each task)|; ", text):
            m = re.search(r"each task (adds|removes) " + NUM, clause)
            if m:
                sign = 1 if m.group(1) == "adds" else -1
                iv = _interval(clause)
                if s.per == 0 or np.sign(s.per) != sign:
                    out.append(("direction", f"{clause.strip()} [true per-task cost: {s.per:g}]"))
                elif iv is not None and not (min(sign * iv[0], sign * iv[1]) <= s.per <= max(sign * iv[0], sign * iv[1])):
                    out.append(("direction", f"{clause.strip()} [true per-task cost {s.per:g} outside the interval]"))
            m = re.search(r"costs " + NUM + " CPU s/h before any task", clause)
            if m:
                stated, iv = rules.number(m.group(1)), _interval(clause.split("before any task")[0] + "before any task"
                                                                 + clause.split("before any task")[1][:60])
                ok = (iv[0] <= s.base <= iv[1]) if iv else abs(stated - s.base) <= max(0.25 * s.base, 0.05 * scale)
                if not ok or (s.base == 0 and iv is None):
                    out.append(("base", f"{clause.strip()} [true base: {s.base:g}]"))
    text = r.sentences().get("fit_text") or ""
    m = re.search(r"largest base, “([^”]*)”'s, is " + NUM + " times the smallest, “([^”]*)”", text)
    if m and m.group(1) in by and m.group(3) in by:
        hi, lo = by[m.group(1)].base, by[m.group(3)].base
        truth = hi / lo if lo > 0 else np.inf
        if not (truth / 1.5 <= rules.number(m.group(2)) <= truth * 1.5):
            out.append(("ratio", f"{m.group(0)} [true ratio: {truth:.3g}]"))
    for name, text in _bullets(r, "breakdown_text").items():
        s = by.get(name)
        if s is not None and re.search(r"% of the .* the task costs in the connector", text) and s.per <= 0:
            out.append(("share", f"{text.strip()} [true per-task cost: {s.per:g}]"))
    return out


def check_plan(r, case: Case) -> list[tuple[str, str]]:
    out = []
    text = r.sentences().get("plan_text") or ""
    m = re.search(r"“([^”]*)” connectors? with (\w+|[\d,]+) tasks? each uses? " + NUM + " CPU seconds a day in the "
                  r"connector((?:[^.;]|\.(?=max))*)", text)
    if not m:
        return out
    s = {x.name: x for x in case.series}.get(m.group(1))
    if s is None:
        return out
    tasks = int(rules.number(m.group(2)))
    n = int(re.search(r"([\d,]+) idle", text).group(1).replace(",", ""))
    truth = float(s.cpu(tasks)) * 24 * n
    stated = rules.number(m.group(3))
    beyond = tasks > max(s.tasks) or tasks < min(s.tasks)
    if beyond and "extrapolat" not in m.group(0):
        out.append(("unlabelled", m.group(0)))
    if not beyond and abs(stated - truth) > 0.25 * truth:
        out.append(("plan", f"{m.group(0)} [truth: {truth:.4g}]"))
    return out


def audit(case: Case, tmp: Path) -> list[tuple[str, str]]:
    path = props.frame_to_csv(case.frame(), tmp / "truth.csv")
    r = props.run(CH, path, **{**BASE, **case.params})
    return check_fit(r, case) + check_plan(r, case) + rules.report_level(r, [s.name for s in case.series])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_sentence_holds_against_the_truth(case, tmp_path):
    props.assert_no_false_sentences(audit(case, tmp_path))


if __name__ == "__main__":
    props.print_audits(CASES, audit)
