"""Release to release: the chapter's arithmetic and its choice of models.

Each release and workload is a *cell*; its runs are the cell's replicates. A cell's peak rate and
CPU per round trip (CPU % per 1,000 round trips/s = cpu_pct / rate_rt_s × 1,000, per run, then
averaged) are fitted as the mean of its runs, an intercept-only least-squares fit
(:func:`mqperf.models.costs.fit` with ``y ~ 1``), so two releases are compared exactly as
``mqperf compare`` compares two runs' fits (:func:`mqperf.models.compare.parameters`: the
difference and the ratio with a Welch–Satterthwaite interval). A cell with one run has no
residual degrees of freedom: the comparison then gives no interval, and says so. Whether a
change is claimed is decided by :mod:`mqperf.models.differences` (Welch's t-test against the
runs' scatter), Holm-corrected across every comparison the report makes
(:func:`mqperf.models.evidence.holm`); without replicates only the stated assumption about the
run-to-run noise decides, and a step between two machines decides nothing about the release.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.chapters.release_to_release import COST, QUANTITIES, RATE
from mqperf.errors import DataError

#: The readings of a change, as the tables and sentences word them.
UP, DOWN, UNSURE, BEYOND, WITHIN, MACHINE = ("rose", "fell", "cannot tell", "beyond the assumed noise",
                                             "within the assumed noise", "machine changed too")


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs with their cost per round trip and each release's place (first named, oldest)."""
    d = frame.copy()
    for col in ("release", "workload"):
        d[col] = d[col].astype(str).str.strip()
    if (d["release"] == "").any() or (d["workload"] == "").any():
        raise DataError("data", "a row has an empty release or workload")
    for col, default in (("machine", ""), ("basis", "measured")):
        d[col] = d[col].fillna(default).astype(str).str.strip() if col in d else default
    d["rate"] = d["rate_rt_s"].astype(float)
    d["cost"] = d["cpu_pct"].astype(float) / d["rate"] * 1000
    order = list(dict.fromkeys(d["release"]))
    d["order"] = d["release"].map({r: i for i, r in enumerate(order)})
    return d.reset_index(drop=True)


def releases(d: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(d["release"]))


def _machine(g: pd.DataFrame) -> str:
    return " / ".join(dict.fromkeys(m for m in g["machine"] if m))


def cells(d: pd.DataFrame) -> pd.DataFrame:
    """One row per workload and release: runs, means and spreads."""
    rows = []
    for (w, rel), g in d.groupby(["workload", "release"], sort=False):
        n = len(g)
        rows.append({"workload": w, "release": rel, "order": int(g["order"].iloc[0]), "runs": n,
                     "rate": float(g["rate"].mean()), "rate_sd": float(g["rate"].std(ddof=1)) if n > 1 else math.nan,
                     "cpu": float(g["cpu_pct"].astype(float).mean()), "cost": float(g["cost"].mean()),
                     "cost_sd": float(g["cost"].std(ddof=1)) if n > 1 else math.nan, "machine": _machine(g),
                     "basis": " / ".join(dict.fromkeys(g["basis"]))})
    out = pd.DataFrame(rows)
    return out.sort_values(["order"], kind="stable").sort_values("workload", kind="stable",
                                                                 key=lambda s: s.map(_first(d))).reset_index(drop=True)


def _first(d: pd.DataFrame) -> dict:
    return {w: i for i, w in enumerate(dict.fromkeys(d["workload"]))}


def peaks_table(c: pd.DataFrame) -> pd.DataFrame:
    """The cells as the report shows them."""
    out = pd.DataFrame({"workload": c["workload"], "release": c["release"], "runs": c["runs"],
                        f"peak rate ({RATE})": c["rate"], f"rate sd ({RATE})": c["rate_sd"],
                        "CPU (%)": c["cpu"], COST: c["cost"]})
    if c["basis"].nunique() > 1:
        out["basis"] = c["basis"]
    if (c["machine"] != "").any():
        out["machine"] = c["machine"]
    if not c["rate_sd"].notna().any():
        out = out.drop(columns=[f"rate sd ({RATE})"])
    return out


def fit(d: pd.DataFrame, workload: str, release: str, quantity: str):
    """The cell's mean as an intercept-only fit: what ``mqperf compare`` sets side by side."""
    g = d[(d["workload"] == workload) & (d["release"] == release)]
    values = tuple(float(v) for v in g[quantity])
    return _cell_fit(quantity, f"{release}: {workload}", values)


@functools.lru_cache(maxsize=1024)
def _cell_fit(quantity: str, data_name: str, values: tuple):
    """One cell's fit, by its values: a release is compared with the one before and the one after, and
    planned against, so the same cell was fitted up to four times (each a formula parse)."""
    from mqperf.models import costs

    return costs.fit(pd.DataFrame({quantity: list(values)}), f"{quantity} ~ 1", data_name=data_name)


@dataclass
class Step:
    """One comparison of a workload between two releases, for one quantity."""

    workload: str
    before: str
    after: str
    quantity: str
    mean_before: float
    mean_after: float
    change_pct: float
    lower_pct: float
    upper_pct: float
    runs: tuple
    same_machine: bool
    p: float | None
    test: str
    reading: str = ""


def step(d: pd.DataFrame, c: pd.DataFrame, workload: str, before: str, after: str, quantity: str) -> Step:
    """The change of one quantity between two releases, through :func:`mqperf.models.compare.parameters`."""
    from mqperf.models import compare, differences

    a = c[(c["workload"] == workload) & (c["release"] == before)].iloc[0]
    b = c[(c["workload"] == workload) & (c["release"] == after)].iloc[0]
    row = compare.parameters(fit(d, workload, before, quantity), fit(d, workload, after, quantity),
                             series=workload).iloc[0]
    lo, hi = row["ratio_lower"], row["ratio_upper"]
    verdict = differences.welch(a[quantity], a[f"{quantity}_sd"], int(a["runs"]), b[quantity], b[f"{quantity}_sd"],
                                int(b["runs"]), what=f"the change in {QUANTITIES[quantity]}")
    same = not (a["machine"] and b["machine"] and a["machine"] != b["machine"])
    return Step(workload, before, after, quantity, float(row["before"]), float(row["after"]),
                (float(row["ratio"]) - 1) * 100, (lo - 1) * 100 if lo == lo else math.nan,
                (hi - 1) * 100 if hi == hi else math.nan, (int(a["runs"]), int(b["runs"])), same,
                verdict.p_value, verdict.test)


def steps(d: pd.DataFrame, c: pd.DataFrame, pairs: list[tuple[str, str]], workloads=None) -> list[Step]:
    """Every workload both releases of each pair ran, both quantities."""
    out = []
    for before, after in pairs:
        have = set(c.loc[c["release"] == before, "workload"]) & set(c.loc[c["release"] == after, "workload"])
        for w in dict.fromkeys(c["workload"]):
            if w in have and (workloads is None or w in workloads):
                out += [step(d, c, w, before, after, q) for q in QUANTITIES]
    return out


def consecutive(d: pd.DataFrame, c: pd.DataFrame) -> list[Step]:
    """Each workload's every release against the one before it *that ran it* (oldest first), both
    quantities, ordered by pair of releases and then by workload."""
    order = dict(zip(c["release"], c["order"]))
    first = _first(d)
    out = []
    for w in dict.fromkeys(c["workload"]):
        rels = list(c.loc[c["workload"] == w].sort_values("order")["release"])
        for a, b in zip(rels, rels[1:]):
            out += [step(d, c, w, a, b, q) for q in QUANTITIES]
    return sorted(out, key=lambda s: (order[s.before], order[s.after], first[s.workload]))


def pairs_of(found: list[Step]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((s.before, s.after) for s in found))


def read(found: list[Step], noise_pct: float, alpha: float = 0.05) -> list[Step]:
    """Each step's reading: the Welch tests Holm-corrected across the family; else the assumption."""
    from mqperf.models.evidence import holm

    tested = [s for s in found if s.same_machine and s.p is not None]
    adjusted = holm([s.p for s in tested]) if tested else []
    for s, p in zip(tested, adjusted):
        s.p = float(p)
        s.test = s.test.rsplit(", p", 1)[0] + f", {_p(p)}" + (f" after Holm's correction for {len(tested):,} tests"
                                                               if len(tested) > 1 else "")
    for s in found:
        if not s.same_machine:
            s.reading = MACHINE
        elif s.p is not None:
            s.reading = (UP if s.change_pct > 0 else DOWN) if s.p < alpha else UNSURE
        else:
            s.reading = BEYOND if abs(s.change_pct) > noise_pct else WITHIN
    return found


def _p(p: float) -> str:
    from mqperf.models.evidence import _p as words

    return words(p)


def steps_table(found: list[Step], quantity: str) -> pd.DataFrame:
    unit = RATE if quantity == "rate" else "% per 1,000 round trips/s"
    rows = [{"from": s.before, "to": s.after, "workload": s.workload, f"before ({unit})": s.mean_before,
             f"after ({unit})": s.mean_after, "change (%)": s.change_pct, "95 % interval low (%)": s.lower_pct,
             "95 % interval high (%)": s.upper_pct, "reading": s.reading} for s in found if s.quantity == quantity]
    out = pd.DataFrame(rows)
    if len(out) and out["95 % interval low (%)"].isna().all():
        out = out.drop(columns=["95 % interval low (%)", "95 % interval high (%)"])
    return out


def summary_table(found: list[Step]) -> pd.DataFrame:
    """Per pair of releases and quantity: how many workloads, and how each change reads."""
    from mqperf.chapters.release_to_release import QUANTITIES

    rows = []
    for (before, after, q), group in _groups(found).items():
        big = max(group, key=lambda s: abs(s.change_pct))
        row = {"from": before, "to": after, "quantity": QUANTITIES[q], "workloads in both": len(group)}
        for reading in (UP, DOWN, UNSURE, BEYOND, WITHIN, MACHINE):
            row[reading] = sum(s.reading == reading for s in group)
        row.update({"largest change (%)": big.change_pct, "on": big.workload})
        rows.append(row)
    out = pd.DataFrame(rows)
    if len(out):
        out = out.drop(columns=[k for k in (UP, DOWN, UNSURE, BEYOND, WITHIN, MACHINE) if not out[k].any()])
    return out


def _groups(found: list[Step]) -> dict:
    out: dict = {}
    for s in found:
        out.setdefault((s.before, s.after, s.quantity), []).append(s)
    return out


def changepoints(c: pd.DataFrame, alpha: float = 0.05) -> tuple[pd.DataFrame, list[str]]:
    """Over three or more releases: where each workload's mean moved, by :func:`mqperf.models.changepoint.detect`
    on the cells' means and standard errors (s/√n on n − 1 degrees of freedom), as ``mqperf compare`` searches
    three or more runs. Only workloads with two or more runs in every release and one machine throughout are
    searched; the reasons for the others come back in words."""
    from mqperf.chapters.release_to_release import QUANTITIES
    from mqperf.errors import ModelError
    from mqperf.models import changepoint

    rows, skipped = [], []
    n_rel = c["release"].nunique()
    for w in dict.fromkeys(c["workload"]):
        g = c[c["workload"] == w].sort_values("order")
        if len(g) < n_rel or (g["runs"] < 2).any() or g.loc[g["machine"] != "", "machine"].nunique() > 1:
            skipped.append(w)
            continue
        for q, what in QUANTITIES.items():
            se = (g[f"{q}_sd"] / np.sqrt(g["runs"])).to_numpy()
            try:
                found = changepoint.detect(g[q].to_numpy(), se, df=(g["runs"] - 1).to_numpy(), alpha=alpha)
            except ModelError:
                skipped.append(w)
                continue
            for ch in found:
                rows.append({"workload": w, "quantity": what, "from release": g["release"].iloc[ch.index],
                             "level before": ch.before, "level after": ch.after, "shift low": ch.lower,
                             "shift high": ch.upper})
            if not found:
                rows.append({"workload": w, "quantity": what, "from release": "none found"})
    return pd.DataFrame(rows), list(dict.fromkeys(skipped))


def plan(d: pd.DataFrame, c: pd.DataFrame, before: str, after: str, workload: str, noise_pct: float) -> list[Step]:
    """The planner's question: from ``before`` to ``after`` directly, on one workload or every one."""
    return read(steps(d, c, [(before, after)], None if not workload else {workload}), noise_pct)


def plan_table(found: list[Step]) -> pd.DataFrame:
    by = {}
    for s in found:
        row = by.setdefault(s.workload, {"workload": s.workload})
        key = "peak rate" if s.quantity == "rate" else "CPU per round trip"
        row[f"{key} change (%)"] = s.change_pct
        if s.lower_pct == s.lower_pct:
            row[f"{key} 95 % interval (%)"] = f"{s.lower_pct:+.3g} to {s.upper_pct:+.3g}"
        row[f"{key}: reading"] = s.reading
    return pd.DataFrame(list(by.values()))


def machines(c: pd.DataFrame) -> dict:
    """Release -> machine, where the data name one."""
    return {r: m for r, m in zip(c["release"], c["machine"]) if m}


def check_replicates(d: pd.DataFrame) -> None:
    if "replicate" in d and d["replicate"].notna().any():
        dup = d.dropna(subset=["replicate"]).duplicated(["release", "workload", "replicate"])
        if dup.any():
            r = d.dropna(subset=["replicate"])[dup].iloc[0]
            raise DataError("data", f"release {r['release']!r}, workload {r['workload']!r}: replicate "
                                  f"{int(r['replicate'])} appears twice")

