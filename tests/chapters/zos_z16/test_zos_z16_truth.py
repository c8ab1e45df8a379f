"""MQ for z/OS on z16 on generated runs with known truth: every computed claim checked.

Each dataset is two machines (or one) whose peak rates follow the USL with known λ, σ, κ and
whose CPU per transaction is the old machine's times (1 + a known change), with noise from a fixed
seed. They vary in scale (λ from 900 to 300,000 msg/s per CPU), shape (rising to the end; a peak
inside the measured CPUs; linear), series count (one workload without the column; two workloads),
machine names (z15/z16, so the LSPR applies; others) and the contract's minimum (two CPU counts:
Amdahl's law; one machine). The rules, one per kind of sentence:

* ``compare_text``: a mean change said to lower or raise CPU per transaction has the truth's sign;
  with no true change it is never said at all when the runs carry no noise;
* ``plan_text``: "reaches T msg/s with N CPUs" is within two CPUs of the truth's first count that
  reaches T, and carries "(extrapolated)" exactly when N is past the measured CPUs;
* ``lspr``: set beside the LSPR only for z15 and z16, and "within/above/below" matches the table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.models import usl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "zos_z16"


@dataclass
class Case:
    name: str
    old: tuple
    new: tuple
    cpus: tuple = (2, 4, 8, 12, 16, 20, 24, 32)
    cost_change: float = -0.08
    noise: float = 0.01
    machines: tuple = ("z15", "z16")
    workloads: tuple = ("",)
    target: float = 0.0  # 0: 60 % of the new machine's best measured rate


CASES = [
    Case("z15 to z16, rising", (150_000, 0.03, 0.0002), (160_000, 0.04, 0.0003)),
    Case("peak inside the CPUs", (50_000, 0.02, 0.002), (55_000, 0.03, 0.0025), cost_change=0.05),
    Case("small scale, linear", (900, 0.0, 0.0), (1_000, 0.0, 0.0), cost_change=0.0, noise=0.0),
    Case("large scale, other names", (300_000, 0.05, 0.0005), (280_000, 0.04, 0.0004),
         machines=("LPAR-A old", "LPAR-B new")),
    Case("two workloads", (100_000, 0.04, 0.0003), (110_000, 0.05, 0.0004), workloads=("out of sync", "in sync")),
    Case("contract minimum: two CPU counts", (80_000, 0.05, 0.0), (90_000, 0.05, 0.0), cpus=(4, 8)),
    Case("target past the measured CPUs", (60_000, 0.02, 0.0), (64_000, 0.02, 0.0), cpus=(1, 2, 4, 6),
         target=380_000.0),
]


def generate(case: Case, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    n = np.array(case.cpus, float)
    for w in case.workloads:
        for machine, params in zip(case.machines, (case.old, case.new)):
            x = usl.throughput(n, *params) * (1 + case.noise * rng.standard_normal(n.size))
            cost = (30 + 1.5 * n) * (1 + (case.cost_change if params is case.new else 0.0))
            cost = cost * (1 + case.noise * rng.standard_normal(n.size))
            for c, xv, u in zip(case.cpus, x, cost):
                row = {"machine": machine, "cpus": c, "rate_msg_s": float(xv), "cpu_us_per_tx": float(u)}
                if w:
                    row["workload"] = w
                rows.append(row)
    return pd.DataFrame(rows)


def target_of(case: Case, frame: pd.DataFrame) -> float:
    if case.target:
        return case.target
    return float(np.round(0.6 * frame.loc[frame["machine"] == case.machines[1], "rate_msg_s"].max()))


def truth_cpus(case: Case, target: float) -> int | None:
    n = np.arange(1, 4097, dtype=float)
    hit = np.nonzero(usl.throughput(n, *case.new) >= target)[0]
    return int(n[hit[0]]) if hit.size else None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sentences_are_true(tmp_path, case):
    frame = generate(case)
    target = target_of(case, frame)
    path = props.write(tmp_path, frame, "runs.csv")
    r = props.run(CHAPTER, path, from_machine=case.machines[0], to_machine=case.machines[1],
                  target_rate_msg_s=target, plan_cpus=int(case.cpus[len(case.cpus) // 2]))
    props.assert_report_is_honest(r, r.fit_results)
    said = r.sentences()

    # compare_text: the direction of CPU per transaction, only with the truth's sign
    cmp = said.get("compare_text", "")
    new = props_quoted(case.machines[1])
    lower, higher = f"CPU per transaction is lower on {new}", f"CPU per transaction is higher on {new}"
    if case.cost_change < 0:
        assert higher not in cmp
    elif case.cost_change > 0:
        assert lower not in cmp
    elif case.noise == 0:
        assert lower not in cmp and higher not in cmp

    # plan_text: CPUs for the target, and the extrapolation label
    plan = props.table(r, "plan")
    truth = truth_cpus(case, target)
    top = max(case.cpus)
    for row in plan.to_dict("records"):
        need = row["CPUs for the target"]
        if isinstance(need, (int, np.integer)):
            assert truth is not None and abs(int(need) - truth) <= 2, (need, truth)
            assert row["target: extrapolated"] == (int(need) > top)
            phrase = f"reaches {props_given(target)} msg/s with"
            assert phrase in said["plan_text"]
            if row["target: extrapolated"]:
                assert "CPUs (extrapolated)" in said["plan_text"]
        else:
            assert truth is None or truth > top

    # lspr: only z15 -> z16
    lspr = r.items["lspr"]
    if case.machines == ("z15", "z16"):
        frame_l = props.table(r, "lspr")
        for row in frame_l.to_dict("records"):
            if row["against the LSPR range"] in ("within", "above", "below"):
                assert f"{row['against the LSPR range']} the LSPR" in said["lspr_text"]
    else:
        assert "projects z15 to z16" in repr(lspr)


def props_quoted(name: str) -> str:
    from mqperf.present import prose, text

    return text.unescape(prose.quoted(name))


def props_given(value: float) -> str:
    from mqperf.present import prose

    return prose.given(value)


def test_one_machine_is_not_compared(tmp_path):
    case = CASES[0]
    frame = generate(case)
    path = props.write(tmp_path, frame[frame["machine"] == "z16"], "one.csv")
    r = props.run(CHAPTER, path)
    props.assert_report_is_honest(r, r.fit_results)
    assert "one machine" in r.sentences()["compare"]
    assert "one machine" in r.sentences()["plan"]
