"""Generated truth for the IMS bridge chapter: every computed sentence held to what generated it.

Rates against CPUs are drawn from a known curve (Amdahl's law, the USL with a peak inside or
past the measured CPUs, a bottleneck X = min(λN, X_max)) with 2–4 % noise, at 3 to 12 CPU
counts, one run or three per count, rates ×1e-2 to ×1e3, one series or two, with and without
the coupling facility's busy share. For every kind of sentence a rule says when it is false:

* planning: the CPUs the plan names for the target (one answer, or a range the data cannot
  narrow, "never" included) against the true fewest CPUs for the target (within 1 or 15 %,
  or inside the range); an answer the report takes from a model its own AICc ranking rejects;
* extrapolated: a CPU count past the largest measured, a modelled limit or peak past the
  measured CPUs, or a CF plan for a rate past the measured one, said without "(extrapolated)"
  or not recorded with ``Results.extrapolated``;
* unidentified: a modelled limit (λ/σ) stated as a number when its parameter's interval does
  not identify it;
* falls past the peak: said when the true curve does not fall within the measured CPUs;
* the book's numbers: on a reader's run with no target given, the book's 30,000 tx/s target;
* answers and text: ``Results.answers`` set; no "–" for a number, no doubled sentence, names as
  given.

``python tests/chapters/ims_bridge/test_ims_bridge_truth.py`` prints the false sentences by class.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.errors import DataError, ModelError
from mqperf.models import evidence

import props  # noqa: E402

CHAPTER = "ims_bridge"


def truth_rate(case: dict, n):
    n = np.asarray(n, dtype=float)
    lam = case["lam"] * case.get("scale", 1.0)
    if case["shape"] == "amdahl":
        return lam * n / (1 + case["sigma"] * (n - 1))
    if case["shape"] == "usl":
        return lam * n / (1 + case["sigma"] * (n - 1) + case["kappa"] * n * (n - 1))
    return np.minimum(lam * n, case["xmax"] * case.get("scale", 1.0))


def true_cpus(case: dict, target: float) -> float:
    """The fewest CPUs whose true rate reaches ``target`` (inf: never, up to 4,096)."""
    n = np.arange(1, 4097)
    ok = np.nonzero(truth_rate(case, n) >= target)[0]
    return float(n[ok[0]]) if ok.size else math.inf


def generate(case: dict) -> pd.DataFrame:
    rng = np.random.default_rng(case["seed"])
    rows = []
    for s, name in enumerate(case.get("series", ["OTMA_bridge A"])):
        for n in case["cpus"]:
            for _ in range(case.get("reps", 1)):
                rate = float(truth_rate(case, n)) * (1 + (0.15 * s)) * (1 + rng.normal(0, case.get("noise", 0.03)))
                rows.append({"series": name, "cpus": n, "rate_tps": round(rate, 6)})
    frame = pd.DataFrame(rows)
    if case.get("cf"):
        top = frame["rate_tps"].idxmax()
        frame["cf_busy_pct"] = np.nan
        frame.loc[top, "cf_busy_pct"] = 60.0
        frame["cf_processors"] = pd.array([pd.NA] * len(frame), dtype="Int64")
        frame.loc[top, "cf_processors"] = 3
    return frame


CASES = [
    {"id": "amdahl, 3 CPU counts (the contract's USL minimum)", "shape": "amdahl", "lam": 3000, "sigma": 0.08,
     "cpus": [3, 6, 9], "seed": 1, "target": 30000},
    {"id": "usl peak inside, 8 counts", "shape": "usl", "lam": 3000, "sigma": 0.02, "kappa": 0.01,
     "cpus": [1, 2, 4, 6, 8, 10, 12, 16], "seed": 2, "target": 20000},
    {"id": "usl peak past the data, 5 counts, ×1e-2", "shape": "usl", "lam": 3000, "sigma": 0.03, "kappa": 0.003,
     "cpus": [2, 4, 6, 8, 10], "scale": 1e-2, "seed": 3, "target": 150},
    {"id": "bottleneck, 6 counts, replicated", "shape": "bottleneck", "lam": 2500, "xmax": 15000,
     "cpus": [2, 4, 6, 8, 10, 12], "reps": 3, "seed": 4, "target": 14000},
    {"id": "bottleneck, target past the ceiling", "shape": "bottleneck", "lam": 2500, "xmax": 15000,
     "cpus": [2, 4, 6, 8, 10, 12], "seed": 5, "target": 25000},
    {"id": "amdahl, 12 counts, ×1e3, two series, CF", "shape": "amdahl", "lam": 3000, "sigma": 0.05,
     "cpus": list(range(1, 13)), "scale": 1e3, "series": ["λ/σ bridge", "Bridge_B"], "seed": 6,
     "target": 3.5e7, "cf": True},
    {"id": "usl falling, 6 counts, CF", "shape": "usl", "lam": 3000, "sigma": 0.05, "kappa": 0.04,
     "cpus": [1, 2, 3, 5, 8, 12], "seed": 7, "target": 8000, "cf": True},
    {"id": "amdahl, 4 counts, default target (reader)", "shape": "amdahl", "lam": 500, "sigma": 0.1,
     "cpus": [2, 4, 6, 8], "seed": 8, "target": None},
    {"id": "amdahl, 5 counts, target inside", "shape": "amdahl", "lam": 3000, "sigma": 0.05,
     "cpus": [2, 4, 6, 8, 10], "seed": 9, "target": 12000},
]


def run_case(tmp_path: Path, case: dict):
    frame = generate(case)
    params = {} if case["target"] is None else {"target_tps": float(case["target"])}
    try:
        return props.run(CHAPTER, props.frame_to_csv(frame, tmp_path / "ims.csv"), **params), frame
    except (DataError, ModelError) as exc:
        return exc, frame




def _numbers(text: str) -> list[float]:
    return [float(t.replace(",", "")) for t in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def false_sentences(r, case: dict, frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    out = []
    said = r.sentences()
    top_n = float(frame["cpus"].max())
    top_rate = float(frame["rate_tps"].max())
    target = case["target"]

    # the book's numbers on a reader's run
    if target is None:
        for key, text in said.items():
            if "30,000" in text:
                out.append(("book's numbers", key, "the book's 30,000 tx/s target on a reader's run"))

    # planning: per series, the CPUs the plan names for the target
    plan = said.get("plan_reading", "")
    for s, name in enumerate(case.get("series", ["OTMA_bridge A"])):
        if target is None:
            continue
        part = plan.split(f"“{name}”")[1].split("“")[0] if f"“{name}”" in plan else ""
        if not part:
            out.append(("planning", "plan_reading", f"no answer for {name}"))
            continue
        truth = true_cpus({**case, "lam": case["lam"] * (1 + 0.15 * s),
                           "xmax": case.get("xmax", 0) * (1 + 0.15 * s)}, target)
        said_cpus = [int(v.replace(",", "")) for v in re.findall(r"(?<!within )(?<!the )(?<![\d,])(\d[\d,]*) CPUs(?! measured)",
                                                                  part)]
        never = bool(re.search(r"never|do(?:es)? not reach|no fit reaches|no model", part))
        if said_cpus or never:
            lo = min(said_cpus) if said_cpus else math.inf
            hi = math.inf if never else max(said_cpus)
            inside = (truth == math.inf) if lo == math.inf else (lo - max(1, 0.15 * lo) <= truth <= hi + max(1, 0.15 * hi))
            if not inside:
                out.append(("planning", "plan_reading", f"{name}: says {lo} to {hi} CPUs, the truth is {truth}"))
        if said_cpus and max(said_cpus) > top_n and not ("(extrapolated)" in part and r.extrapolations):
            out.append(("extrapolated", "plan_reading", f"{name}: {max(said_cpus)} CPUs past {top_n:g}, unlabelled"))
        rejected = [m for m in ("Amdahl's law", "bottleneck model", "USL") if f"rejects {m}" in part]
        for m in rejected:
            if re.search(rf"{re.escape(m)} says \d", part):
                out.append(("planning", "plan_reading", f"{name}: an answer from {m}, which the ranking rejects"))

    # limits and peaks past the data, unidentified limits
    for key in ("usl_reading",):
        text = said.get(key, "")
        for m in re.finditer(r"Amdahl's law keeps rising towards ([\d,.]+) tx/s", text):
            fits = [v for v in {**r.card_results, **r.fit_results}.values() if v.model == "amdahl"]
            for res in fits:
                ci = res.conf_int().loc["sigma"]
                if not evidence.identified(float(ci["lower"]), float(ci["upper"])):
                    out.append(("unidentified", key, f"Amdahl's limit {m[1]} with σ not identified"))
                    break
        labelled = "(extrapolated" in text and r.extrapolations
        for m in re.finditer(r"(stops at|peaks near|towards|modelled peak is) ([\d,.]+) tx/s(?: at ([\d,.]+) CPUs)?",
                             text):
            value = float(m[2].replace(",", ""))
            at = float(m[3].replace(",", "")) if m[3] else math.nan
            past = (m[1] == "towards" or (m[1] == "stops at" and value > 1.1 * top_rate)
                    or (math.isfinite(at) and at > top_n))
            if past and not labelled:
                out.append(("extrapolated", key, f"a modelled limit past the data, unlabelled: {m[0]}"))
                break
        if "falls past the peak" in text:
            n = np.arange(1, top_n + 1)
            if np.argmax(truth_rate(case, n)) == n.size - 1:
                out.append(("falls past the peak", key, "said, but the truth rises to the last CPU count"))

    # the CF plan for a rate past the measured one
    cf = said.get("cf_reading", "")
    if cf and target is not None and target > top_rate and not ("(extrapolated)" in cf and r.extrapolations):
        out.append(("extrapolated", "cf_reading", "CF processors for a rate past the measured one, unlabelled"))

    if not r.answers:
        out.append(("answers", "-", "Results.answers is not set"))
    out += props.text_faults(said, set(frame["series"]))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_sentence_is_true_to_the_generated_truth(tmp_path, case):
    r, frame = run_case(tmp_path, case)
    assert not isinstance(r, Exception), f"refused: {r}"
    props.assert_report_is_honest(r, r.fit_results)
    assert false_sentences(r, case, frame) == []


def count(tmp: Path) -> dict:
    return props.tally(CASES, run_case, false_sentences, tmp)


if __name__ == "__main__":
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as d:
        print(count(Path(d)))
