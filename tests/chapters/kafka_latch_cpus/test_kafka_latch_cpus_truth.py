"""Generated truth for the latch and CPU chapter: every computed sentence held to what generated it.

RMF files are drawn from a known world: the share of time with sufficient CPUs is M/M/c at a
load k·A (k = 1: Poisson work; k > 1: burstier), with k the same at every CPU count or
growing with it, plus noise in the share; the CPU per message is the same in every run or
falls with more CPUs; one row per run or several intervals per run; rates from ×1e-2 to ×1e3;
one run, two (the book's shape), three and six. Latch files: waits that grow like
N(N − 1)·X (pairwise) or faster (N^3.5), with and without replicates.

For every kind of sentence a rule says when it is false against the truth:

* planning: the CPUs the plan names (one count, or a range the data cannot narrow) against the
  true fewest CPUs for the target share (within one CPU or 15 %, or inside the range);
* extrapolated: an answer past the measured CPUs, share or work is labelled "(extrapolated)",
  recorded with ``Results.extrapolated`` and marked in the plan table;
* untested claims: "does not carry" / "carries" (one load factor across runs), "rose"/"fell"
  between two runs, "faster/slower than pairwise", said without a test, or against the truth;
* answers: ``Results.answers`` set (the report says what it checks against the measured range);
* text: no "–" where a number belongs, no passage said twice, names printed as given.

``python tests/chapters/kafka_latch_cpus/test_kafka_latch_cpus_truth.py`` prints the false sentences by class.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.errors import DataError, ModelError
from mqperf.models import queueing

import props  # noqa: E402

CHAPTER = "kafka_latch_cpus"
TARGET = 80.0
LABELS = ["run_A", "Lauf ü/2", "Peak CPUs", "批处理", "x", "évening"]


def share(c: int, a: float, k: float) -> float:
    load = min(a * k, c * (1 - 1e-9))
    return queueing.share_time_sufficient_servers(int(c), load) * 100


def k_at(case: dict, c: int) -> float:
    return case["k"] * (c / 3) ** case.get("gamma", 0.0)


def true_cpus(case: dict, busy_cpus: float, target: float = TARGET) -> int:
    for c in range(max(1, math.floor(busy_cpus * k_at(case, 1))), 1025):
        if c > busy_cpus * k_at(case, c) and share(c, busy_cpus, k_at(case, c)) >= target:
            return c
    return 1025


def generate(case: dict):
    """The RMF file (and latch file) of a case, and the truth behind it."""
    rng = np.random.default_rng(case["seed"])
    rows = []
    cost0 = 70e-6 / case.get("scale", 1.0)  # CPU seconds per message: rates scale inversely
    for i, (c, busy) in enumerate(case["runs"]):
        cost = cost0 * (1 - case.get("cost_fall", 0.0) * (c - case["runs"][0][0]) / max(c, 1))
        for _ in range(case.get("per_run", 1)):
            b = float(np.clip(busy + rng.normal(0, case.get("busy_sd", 0.5)), 1, 99))
            a = c * b / 100
            s = float(np.clip(share(c, a, k_at(case, c)) + rng.normal(0, case.get("noise", 1.5)), 0, 100))
            row = {"label": LABELS[i % len(LABELS)], "gp_cpus": c, "busy_pct": round(b, 3),
                   "sufficient_pct": round(s, 3)}
            if case.get("rates", True):
                row["rate_msg_s"] = round(a / cost * float(np.exp(rng.normal(0, 0.01))), 4)
            rows.append(row)
    rmf = pd.DataFrame(rows)
    latches = None
    if "latch_b" in case:
        lrows = []
        for n in case.get("tasks", [2, 3, 4, 5, 6]):
            for _ in range(case.get("latch_reps", 1)):
                x = 1000.0 * n / (1 + 0.1 * (n - 1))
                w = 1e-3 * n * (n - 1) * x if case["latch_b"] == "pairwise" else 0.05 * n ** case["latch_b"]
                lrows.append({"latch": "Latch_19 BMXL3", "tasks": n,
                              "latch_s": round(w * math.exp(rng.normal(0, 0.08)), 6), "rate_msg_s": round(x, 3),
                              "run_s": 180})
        latches = pd.DataFrame(lrows)
    return rmf, latches


CASES = [
    {"id": "book-like two runs, bursty", "runs": [(3, 75), (6, 47)], "k": 1.2, "seed": 1},
    {"id": "two runs, Poisson", "runs": [(3, 70), (6, 45)], "k": 1.0, "seed": 2},
    {"id": "two runs, k grows with CPUs", "runs": [(3, 75), (6, 47)], "k": 1.1, "gamma": 0.5, "seed": 3},
    {"id": "one run", "runs": [(4, 60)], "k": 1.3, "seed": 4},
    {"id": "three runs, replicated, rates ×1e-2", "runs": [(2, 70), (4, 55), (8, 40)], "k": 1.3, "per_run": 4,
     "scale": 1e-2, "seed": 5},
    {"id": "six runs, Poisson, rates ×1e3", "runs": [(2, 80), (4, 70), (4, 40), (8, 50), (8, 30), (16, 25)],
     "k": 1.0, "scale": 1e3, "seed": 6},
    {"id": "six runs, bursty, replicated", "runs": [(2, 55), (4, 55), (4, 35), (8, 45), (8, 30), (16, 25)],
     "k": 1.6, "per_run": 3, "seed": 7},
    {"id": "six runs, k grows with CPUs", "runs": [(2, 80), (4, 70), (4, 40), (8, 50), (8, 30), (16, 25)],
     "k": 1.0, "gamma": 0.4, "per_run": 3, "seed": 8},
    {"id": "two runs, no rates", "runs": [(4, 80), (8, 45)], "k": 1.2, "rates": False, "seed": 9},
    {"id": "two runs, cost falls with CPUs", "runs": [(3, 75), (6, 47)], "k": 1.2, "cost_fall": 0.5, "seed": 10},
    {"id": "replicated runs, equal cost", "runs": [(3, 75), (6, 47)], "k": 1.2, "per_run": 5, "seed": 11},
    {"id": "latches pairwise, one row each", "runs": [(3, 75), (6, 47)], "k": 1.2, "latch_b": "pairwise",
     "seed": 12},
    {"id": "latches pairwise, replicated", "runs": [(3, 75), (6, 47)], "k": 1.2, "latch_b": "pairwise",
     "latch_reps": 3, "seed": 13},
    {"id": "latches N^3.5, replicated", "runs": [(3, 75), (6, 47)], "k": 1.2, "latch_b": 3.5, "latch_reps": 3,
     "tasks": [3, 4, 5, 6], "seed": 14},
    {"id": "latches N^3.5, one row each", "runs": [(3, 75), (6, 47)], "k": 1.2, "latch_b": 3.5,
     "tasks": [4, 5], "seed": 15},
]


def run_case(tmp_path: Path, case: dict):
    rmf, latches = generate(case)
    params = {"target_sufficient_pct": TARGET}
    if latches is not None:
        params["latch_data"] = str(props.frame_to_csv(latches, tmp_path / "latches.csv"))
    try:
        return props.run(CHAPTER, props.frame_to_csv(rmf, tmp_path / "rmf.csv"), **params), rmf, latches
    except (DataError, ModelError) as exc:
        return exc, rmf, latches


# -- the rules ----------------------------------------------------------------------------------

_TESTED = re.compile(r"\((?:one-sided |two-sided )?(?:t-test|F-test|Welch)")


def _plan_answer(text: str):
    """(low, high) CPUs the plan sentence names for the work it answers."""
    m = re.search(r"needs (?:between )?(\d[\d,]*) (?:and|to) (\d[\d,]*) CPUs", text)
    if m:
        return int(m[1].replace(",", "")), int(m[2].replace(",", ""))
    m = re.search(r"needs (\d[\d,]*) CPUs", text)
    if m:
        v = int(m[1].replace(",", ""))
        return v, v
    return None


def false_sentences(r, case: dict, rmf: pd.DataFrame, latches) -> list[tuple[str, str, str]]:
    """Every sentence of the report that the truth contradicts: (class, passage, why)."""
    out = []
    said = r.sentences()
    runs = rmf.groupby("label", sort=False).agg(c=("gp_cpus", "first"), busy=("busy_pct", "mean"),
                                                share=("sufficient_pct", "mean"))
    runs["a"] = runs["c"] * runs["busy"] / 100
    top = runs.sort_values(["c", "busy"]).iloc[-1]

    # planning: the answer for the run with most CPUs' work (no target rate on a reader's run)
    plan = said.get("plan_text", "")
    answer = _plan_answer(plan)
    truth = true_cpus(case, float(top["a"]))
    if answer is None:
        if "CPUs" in plan and "needs more than" not in plan:
            out.append(("planning", "plan_text", f"no CPU count found in: {plan[:120]}"))
    else:
        lo, hi = answer
        if lo == hi and abs(lo - truth) > max(1, 0.15 * truth):
            out.append(("planning", "plan_text", f"says {lo} CPUs, the truth is {truth}"))
        elif lo != hi and not (lo - 1 <= truth <= hi + 1):
            out.append(("planning", "plan_text", f"says {lo} to {hi} CPUs, the truth is {truth}"))
        beyond = hi > runs["c"].max() or TARGET > runs["share"].max()
        if beyond and not ("(extrapolated)" in plan and r.extrapolations):
            out.append(("extrapolated", "plan_text", f"{hi} CPUs or the target lie past the data, unlabelled"))
        table = r.items.get("plan")
        if beyond and hasattr(table, "frame") and "extrapolated" not in table.frame.columns:
            out.append(("extrapolated", "plan", "the plan table has no extrapolated column"))

    # untested claims
    cross = said.get("cross_text", "")
    constant_k = case.get("gamma", 0.0) == 0.0
    if "does not carry" in cross and (constant_k or not _TESTED.search(cross)):
        out.append(("untested claim", "cross_text", "says one load factor does not carry"
                    + (" but it is the same in every run" if constant_k else ", with no test")))
    if "carries from run to run" in cross and (not constant_k or not _TESTED.search(cross)):
        out.append(("untested claim", "cross_text", "says the load factor carries, with no test"))
    more = said.get("more_cpus_text", "")
    m = re.search(r"CPU per message (rose|fell)", more)
    if m and not _TESTED.search(more[m.start():m.start() + 200]):
        out.append(("untested claim", "more_cpus_text", f"the CPU per message {m[1]}, with no test"
                    + (" (it is the same in every run)" if not case.get("cost_fall") else "")))
    growth = said.get("growth_text", "")
    pairwise = case.get("latch_b") == "pairwise"
    for verdict in re.findall(r"(faster than pairwise|slower than pairwise|about pairwise)", growth):
        wrong = (verdict != "about pairwise") if pairwise else (verdict == "about pairwise")
        if wrong or not _TESTED.search(growth):
            out.append(("untested claim", "growth_text", f"says {verdict!r}"
                        + (" against the truth" if wrong else " without a test")))

    # answers, text
    if not r.answers:
        out.append(("answers", "-", "Results.answers is not set"))
    out += props.text_faults(said, set(rmf["label"]) | (set(latches["latch"]) if latches is not None else set()))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_sentence_is_true_to_the_generated_truth(tmp_path, case):
    r, rmf, latches = run_case(tmp_path, case)
    assert not isinstance(r, Exception), f"refused: {r}"
    props.assert_report_is_honest(r, r.fit_results)
    assert false_sentences(r, case, rmf, latches) == []


def count(tmp: Path) -> dict:
    return props.tally(CASES, run_case, false_sentences, tmp)


if __name__ == "__main__":
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as d:
        print(count(Path(d)))
