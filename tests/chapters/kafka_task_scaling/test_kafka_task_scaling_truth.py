"""Task scaling against the truth: datasets generated from known curves, every computed sentence checked.

Datasets span scale (λ from 10 to 1,000,000 msg/s), shape (rising, levelling off at a ceiling,
falling past a peak inside the measured range), noise (additive, proportional), series count (one,
several in one file, awkward names), the measured range (two task counts, three, eight, up to 32)
and the target (inside the measured range, beyond it, above the true ceiling or peak).

Rules, one per class of sentence (each returns the offending text):

- ``falls``: "throughput falls past the peak" only when the true curve falls after its maximum
  within the measured range;
- ``peak_range``: "lies within the measured range (a to b)" only of an N between a and b;
- ``target``: "reaches T msg/s with N tasks", for N inside the measured range, is the true answer
  within tolerance (the true rate at N reaches T, and at N − 1 does not exceed it, each within
  the tolerance of the noise); "does not reach" only when the true curve stays below T over the
  measured range;
- ``capped``: "does not reach ... with up to M tasks" when M is the parameter, not the data or
  the model (below the largest measured count, or silent about the modelled peak or ceiling);
- ``paying``: "the last task that adds at least 5 % is task L" and "every task up to M adds at
  least 5 %" agree with the true curve's gains where they speak of measured tasks;
- ``unlabelled``: an answer beyond the largest measured count not marked "extrapolated" in its
  clause; ``table``: the planning table without an "extrapolated" flag on such a row;
- ``rejected``: a planning row from a model the report's own AICc comparison rejects (by 2 or more);
- report-level classes (:mod:`kafka_truth_rules`): names as given, no "–" for a number, no
  doubled sentence, extrapolations recorded.

Run as a script (``python tests/chapters/kafka_task_scaling/test_kafka_task_scaling_truth.py``) it prints the false
sentences per class, the numbers of the closing note.
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

CH = "kafka_task_scaling"
PAYING = 5.0


@dataclass
class Series:
    name: str
    kind: str  # "usl" or "ceiling"
    lam: float
    sigma: float = 0.0
    kappa: float = 0.0
    x_max: float = np.inf
    tasks: tuple = (1, 2, 3, 4, 5, 6, 7, 8)
    noise: float = 0.01  # relative size of the noise (sd / the largest true rate for additive)
    proportional: bool = True
    repeats: int = 1
    seed: int = 1

    def truth(self, n):
        n = np.asarray(n, dtype=float)
        if self.kind == "ceiling":
            return np.minimum(self.lam * n, self.x_max)
        return self.lam * n / (1 + self.sigma * (n - 1) + self.kappa * n * (n - 1))

    def rows(self) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed)
        n = np.repeat(np.asarray(self.tasks, dtype=float), self.repeats)
        x = self.truth(n)
        scale = x if self.proportional else float(self.truth(self.tasks).max())
        x = x + self.noise * scale * rng.standard_normal(n.size)
        return pd.DataFrame({"series": self.name, "tasks": n.astype(int), "rate_msg_s": np.maximum(x, 1e-9)})

    @property
    def top(self) -> int:
        return int(max(self.tasks))

    def tol(self) -> float:
        return max(0.03, 4 * self.noise / np.sqrt(self.repeats))


@dataclass
class Case:
    id: str
    series: list
    target: float
    params: dict = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        return pd.concat([s.rows() for s in self.series], ignore_index=True)


def _usl(lam, sigma, kappa, n):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


CASES = [
    # Rising (no peak, contention only): a target inside the measured range, and one beyond it.
    Case("rising, target inside", [Series("rising", "usl", 1000.0, 0.03)], target=_usl(1000, 0.03, 0, 5)),
    Case("rising, target beyond, ×1e-2", [Series("rising", "usl", 10.0, 0.03, noise=0.01, seed=2)],
         target=_usl(10, 0.03, 0, 14)),
    # Levelling off at a ceiling (the bottleneck): flat from 3 to 12 tasks, as in the issue.
    Case("ceiling, target below it", [Series("flat", "ceiling", 1000.0, x_max=2500.0, tasks=(1, 2, 3, 4, 5, 6, 8, 10, 12),
                                             noise=0.01, proportional=False, seed=3)], target=2000.0),
    Case("ceiling, target above it, ×1e3", [Series("flat", "ceiling", 1e6, x_max=2.5e6, tasks=(1, 2, 3, 4, 5, 6, 8, 10, 12),
                                                   noise=0.01, proportional=False, seed=4)], target=3.2e6),
    Case("ceiling, replicates", [Series("flat", "ceiling", 800.0, x_max=3000.0, tasks=(1, 2, 3, 4, 6, 8),
                                        noise=0.02, repeats=3, seed=5)], target=2000.0),
    # Falling past a peak inside the measured range (N* = 6.7).
    Case("falling, target above the peak", [Series("falling", "usl", 1000.0, 0.1, 0.02, tasks=(1, 2, 3, 4, 6, 8, 10, 12, 14, 16),
                                                   seed=6)], target=1.2 * _usl(1000, 0.1, 0.02, 6.7)),
    Case("falling, target inside", [Series("falling", "usl", 1000.0, 0.1, 0.02, tasks=(1, 2, 3, 4, 6, 8, 10, 12, 14, 16), seed=7)],
         target=0.8 * _usl(1000, 0.1, 0.02, 6.7)),
    # The contract's minimum: two task counts (Amdahl) and three (the USL, exactly identified).
    Case("two task counts", [Series("pair", "usl", 1000.0, 0.1, tasks=(1, 2), noise=0.0)], target=_usl(1000, 0.1, 0, 4)),
    Case("three task counts", [Series("three", "usl", 1000.0, 0.1, 0.01, tasks=(1, 2, 4), noise=0.0)],
         target=_usl(1000, 0.1, 0.01, 3)),
    # Measured to 32 tasks: the planning range follows the data, not max_tasks = 8.
    Case("to 32 tasks", [Series("wide", "usl", 1000.0, 0.02, 0.0005, tasks=(1, 2, 4, 8, 16, 32), noise=0.005, seed=8)],
         target=_usl(1000, 0.02, 0.0005, 20)),
    # Several series of different shapes and scales in one file, with names to keep as given.
    Case("several series", [Series("Run_A", "usl", 50.0, 0.05, tasks=(1, 2, 4, 6, 8), seed=9),
                            Series("bulk_LOAD", "ceiling", 5e4, x_max=1.2e5, tasks=(1, 2, 3, 4, 6, 8), seed=10),
                            Series("µ-test", "usl", 2e3, 0.2, 0.03, tasks=tuple(range(1, 11)), seed=11)],
         target=100.0),
    # Proportional noise of 5 % over a tenfold range of rates: the fit is weighted 1/y² (see the test below).
    Case("proportional noise", [Series("noisy", "usl", 1e4, 0.01, 0.0002, tasks=(1, 2, 3, 4, 6, 8, 10, 12, 14, 16),
                                       noise=0.05, seed=12)], target=_usl(1e4, 0.01, 0.0002, 9)),
]


# -- the rules --------------------------------------------------------------------------------------

def _bullets(r, key) -> dict[str, str]:
    """Bullet text by the series it names first (“name”)."""
    text = r.sentences().get(key) or ""
    out = {}
    for line in text.splitlines():
        m = re.match(r"\*?\s*“([^”]*)”", line.strip())
        if m:
            out.setdefault(m.group(1), "")
            out[m.group(1)] += " " + line.strip()
    return out


def _labelled(clause: str) -> bool:
    return "extrapolat" in clause


def _gains(s: Series, upto: int) -> np.ndarray:
    """True gain of task N (N = 2..upto), in percent; index 0 is task 2."""
    n = np.arange(1, upto + 1, dtype=float)
    x = s.truth(n)
    return (x[1:] / x[:-1] - 1) * 100


def check_plan(r, case: Case) -> list[tuple[str, str]]:
    """Where the report gives two readings' answers because the data cannot rank them, a quantity
    is false only when every reading's answer to it is (the truth must be one of the answers given)."""
    out = []
    for s in case.series:
        text = _bullets(r, "plan_text").get(s.name)
        if text is None:
            continue
        readings = re.split(r"(?=By its )", text) if "both readings answer" in text else [text]
        found = [_check_reading(part, s, case.target) for part in readings]
        for cls in {c for f in found for c, _ in f}:
            hits = [[t for c, t in f if c == cls] for f in found]
            if cls in ("target", "paying") and len(found) > 1 and not all(hits):
                continue
            out += [(cls, t) for h in hits for t in h]
    return out


def _check_reading(text: str, s: Series, target: float) -> list[tuple[str, str]]:
    out = []
    tol = s.tol()
    grid = np.arange(1, s.top + 1, dtype=float)
    best_inside = float(s.truth(grid).max())
    for clause in rules.clauses(text):
        m = re.search(r"reaches [\d,.]+ msg/s with (\w+|[\d,]+) tasks?", clause)
        if m:
            n = int(rules.number(m.group(1)))
            if n > s.top:
                if not _labelled(clause):
                    out.append(("unlabelled", clause))
            else:
                ok = s.truth(n) >= target * (1 - tol) and (n == 1 or s.truth(n - 1) <= target * (1 + tol))
                if not ok:
                    out.append(("target", f"{clause} [true rate at {n}: {float(s.truth(n)):.4g}, "
                                          f"at {n - 1}: {float(s.truth(max(n - 1, 1))):.4g}]"))
        if "does not reach" in clause:
            up = re.search(r"with up to ([\d,]+) tasks", clause)
            if up and (int(rules.number(up.group(1))) < s.top or not re.search(r"peak|ceiling|limit", clause)):
                out.append(("capped", clause))
            if best_inside >= target * (1 + tol):
                out.append(("target", f"{clause} [the true curve reaches {best_inside:.4g} within the "
                                      "measured range]"))
        m = re.search(r"last task that adds at least 5 % is task (\d+)", clause)
        if m:
            last = int(m.group(1))
            if last + 1 > s.top:
                if not _labelled(clause):
                    out.append(("unlabelled", clause))
            else:
                g = _gains(s, last + 1)
                tolg = max(2.0, 50 * tol)
                if (last >= 2 and g[last - 2] < PAYING - tolg) or g[last - 1] >= PAYING + tolg:
                    out.append(("paying", f"{clause} [true gain of task {last}: "
                                          f"{g[last - 2] if last >= 2 else float('nan'):.3g} %, of task "
                                          f"{last + 1}: {g[last - 1]:.3g} %]"))
        m = re.search(r"[Ee]very task up to ([\d,]+) adds at least 5 %", clause)
        if m:
            upto = int(rules.number(m.group(1)))
            if upto > s.top and not _labelled(clause):
                out.append(("unlabelled", clause))
            g = _gains(s, min(upto, s.top))
            if g.size and g.min() < PAYING - max(2.0, 50 * tol):
                out.append(("paying", f"{clause} [a measured task adds only {g.min():.3g} % in truth]"))
    return out


def check_table(r, case: Case) -> list[tuple[str, str]]:
    """Planning rows whose answer leaves the measured range carry an 'extrapolated' flag; no row
    comes from a model the report's own comparison rejects."""
    out = []
    item = r.items.get("plan")
    frame = getattr(item, "frame", None)
    if frame is None:
        return out
    tops = {s.name: s.top for s in case.series}
    flags = [c for c in frame.columns if "extrapolated" in str(c)]
    for row in frame.to_dict("records"):
        top = tops.get(row["series"])
        if top is None:
            continue
        answers = [v for k, v in row.items() if k in ("tasks for the target", "last task adding ≥ 5 %")]
        beyond = any(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and v == v
                     and v > top for v in answers)
        if beyond and not any(bool(row[c]) and row[c] == row[c] for c in flags):
            out.append(("table", f"plan row {row['series']!r} ({row.get('model')}) answers beyond {top} tasks "
                                 "without an extrapolated flag"))
    neck = getattr(r.items.get("bottleneck"), "frame", None)
    if neck is not None and "preferred by" in neck:
        for b in neck.to_dict("records"):
            pref, delta = str(b["preferred by"]), b["criterion difference"]
            if ": " not in pref or not delta >= 2:
                continue
            best = pref.split(": ")[1]
            used = set(frame.loc[frame["series"] == b["series"], "model"].astype(str).str.lower())
            if used and not any(best.lower() in u or (best == "USL" and u in ("usl", "amdahl")) for u in used):
                out.append(("rejected", f"{b['series']!r}: planned with {sorted(used)} while {pref} by {delta:.3g}"))
    return out


def check_readings(r, case: Case) -> list[tuple[str, str]]:
    out = []
    for s in case.series:
        lo, hi = min(s.tasks), s.top
        grid = np.linspace(lo, hi, 400)
        x = s.truth(grid)
        drop = (x.max() - x[-1]) / x.max()
        for key in ("readings", "bottleneck_text", "whatif_text", "plan_text"):
            text = _bullets(r, key).get(s.name, "") if key != "whatif_text" else (r.sentences().get(key) or "")
            for clause in rules.clauses(text):
                if "falls past the peak" in clause and "not" not in clause.split("falls past the peak")[0][-40:] \
                        and drop < 0.005:
                    out.append(("falls", f"{clause} [true drop after the peak within the data: {drop:.2%}]"))
                m = re.search(r"N = ([\d,.]+), lies within the measured range \(([\d,.]+) to ([\d,.]+)\)", clause)
                if m and not (rules.number(m.group(2)) <= rules.number(m.group(1)) <= rules.number(m.group(3))):
                    out.append(("peak_range", clause))
    return out


def audit(case: Case, tmp: Path) -> list[tuple[str, str]]:
    path = props.frame_to_csv(case.frame(), tmp / "truth.csv")
    r = props.run(CH, path, target_rate_msg_s=case.target, **case.params)
    return (check_plan(r, case) + check_table(r, case) + check_readings(r, case)
            + rules.report_level(r, [s.name for s in case.series]))


def test_proportional_noise_is_fitted_with_relative_weights_and_says_so(tmp_path):
    case = next(c for c in CASES if c.id == "proportional noise")
    r = props.run(CH, props.frame_to_csv(case.frame(), tmp_path / "truth.csv"), target_rate_msg_s=case.target)
    assert r["fits"].frame["weights"].tolist() == ["1/y²"]
    assert "fitted with weights 1/y² (equal relative errors): the spread grows with the rate" in \
        r.sentences()["identification"]
    assert "weights 1/y²" in r.checks["Weights"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_sentence_holds_against_the_truth(case, tmp_path):
    props.assert_no_false_sentences(audit(case, tmp_path))


if __name__ == "__main__":
    props.print_audits(CASES, audit)
