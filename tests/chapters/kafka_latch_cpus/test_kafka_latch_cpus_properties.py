"""Properties of the latch and CPU chapter's report on generated files.

RMF files come from M/M/c with a load factor (work burstier than Poisson) plus noise, latch
files from waits that grow like N(N − 1)·X or a power law, with and without rates and run
lengths; awkward shapes too: flat, rising with busy, one row, 20,000 rows, one latch and
several, names with unicode and "/". Every report must be honest (tests/chapters/props.py),
and the planning answer must agree with the measured relation recomputed here from the runs.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError
from mqperf.models import queueing

import props  # noqa: E402

CHAPTER = "kafka_latch_cpus"
FAST = settings(max_examples=15, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NAMES = ["run A", "Lauf ü/2", "批处理", "6 CPUs / peak", "x", "r-7", "morning", "évening"]
LATCHES = ["19 BMXL3", "24/LMXL1", "闩 12", "L"]


def mmc_share(c, a):
    return queueing.share_time_sufficient_servers(int(c), a) * 100


@st.composite
def rmf_files(draw):
    n = draw(st.integers(1, 6))
    k = draw(st.floats(0.8, 2.0))
    with_rate = draw(st.booleans())
    per_run = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for i in range(n):
        c = draw(st.integers(1, 16))
        busy = draw(st.floats(5, 95))
        for _ in range(per_run):
            b = float(np.clip(busy + rng.normal(0, 1), 1, 99))
            share = mmc_share(c, min(c * b / 100 * k, c)) + rng.normal(0, 2)
            row = {"label": NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else f" {i}"), "gp_cpus": c,
                   "busy_pct": round(b, 2), "sufficient_pct": round(float(np.clip(share, 0, 100)), 2)}
            if with_rate:
                row["rate_msg_s"] = round(c * b / 100 / (draw(st.floats(40, 200)) * 1e-6), 1)
            rows.append(row)
    return pd.DataFrame(rows)


@st.composite
def latch_files(draw):
    latches = draw(st.lists(st.sampled_from(LATCHES), min_size=1, max_size=3, unique=True))
    with_rate, with_run = draw(st.booleans()), draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    rows = []
    for name in latches:
        tasks = sorted(draw(st.lists(st.integers(1, 10), min_size=1, max_size=6, unique=True)))
        pairwise = draw(st.booleans())
        b = draw(st.floats(0.5, 4))
        for n in tasks:
            rate = 1000 * n / (1 + 0.1 * (n - 1))
            w = 1e-3 * n * max(n - 1, 0.5) * rate if pairwise else 0.3 * n**b
            row = {"latch": name, "tasks": n, "latch_s": round(w * math.exp(rng.normal(0, 0.05)), 4)}
            if with_rate:
                row["rate_msg_s"] = round(rate, 1)
            if with_run:
                row["run_s"] = 180
            rows.append(row)
    return pd.DataFrame(rows)


def run_or_refuse(tmp_path, rmf: pd.DataFrame, latches: pd.DataFrame | None = None, **params):
    data = props.frame_to_csv(rmf, tmp_path / "rmf.csv")
    if latches is not None:
        params["latch_data"] = str(props.frame_to_csv(latches, tmp_path / "latches.csv"))
    try:
        return props.run(CHAPTER, data, **params)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return None


def check_plan(r, rmf: pd.DataFrame, target: float) -> None:
    """The line's CPUs recomputed from a line fitted here; the plan the range of the models the
    ranking keeps, and labelled extrapolated when it leaves the runs."""
    plan = r.items["plan"].frame
    runs = rmf.groupby(["label", "gp_cpus"], sort=False)[["busy_pct", "sufficient_pct"]].mean()
    models = r.items["models"].frame
    kept = [m for m, keep in zip(models["model"], models["set apart by the data"]) if keep == "no"]
    for _, row in plan.iterrows():
        answers = [row[f"CPUs, {m}"] for m in kept if f"CPUs, {m}" in row and np.isfinite(row[f"CPUs, {m}"])]
        if answers:
            lo, hi = min(answers), max(answers)
            assert row["plan (CPUs)"] == (f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}")
            past = hi > runs.index.get_level_values("gp_cpus").max() or target > runs["sufficient_pct"].max()
            assert row["extrapolated"].startswith("yes") == (past or row["extrapolated"].startswith("yes: more work"))
    if runs["busy_pct"].nunique() < 2:
        assert "measured relation" not in r.fit_results
        assert "The line in per-CPU busy is not fitted" in r.sentences()["plan_text"]
        return
    slope, intercept = np.polyfit(runs["busy_pct"], runs["sufficient_pct"], 1)
    fitted = r.fit_results["measured relation"].params
    assert fitted["b"] == pytest.approx(slope, rel=1e-6, abs=1e-9)
    assert fitted["a"] == pytest.approx(intercept, rel=1e-6, abs=1e-6)
    limit = (target - intercept) / slope if slope < 0 else math.nan
    if not (limit > 0):
        assert plan["CPUs, line in per-CPU busy"].isna().all()
        return
    limit = min(limit, 100)
    for busy, cpus in zip(plan["busy CPUs"], plan["CPUs, line in per-CPU busy"]):
        # The fewest CPUs whose per-CPU busy stays at or under the limit.
        assert 100 * busy / cpus <= limit * (1 + 1e-9)
        assert cpus == 1 or 100 * busy / (cpus - 1) > limit * (1 - 1e-9)


@FAST
@given(rmf=rmf_files(), target=st.sampled_from([50.0, 80.0, 95.0]), rate=st.sampled_from([0, 30000]))
def test_generated_rmf_files_give_honest_reports(tmp_path, rmf, target, rate):
    r = run_or_refuse(tmp_path, rmf, target_sufficient_pct=target, target_rate_msg_s=rate)
    if r is None:
        return
    props.assert_report_is_honest(r, r.fit_results)
    check_plan(r, rmf, target)


@FAST
@given(rmf=rmf_files(), latches=latch_files())
def test_generated_latch_files_give_honest_reports(tmp_path, rmf, latches):
    r = run_or_refuse(tmp_path, rmf, latches, plan_busy_cpus=2.5)
    if r is None:
        return
    props.assert_report_is_honest(r, r.fit_results)
    growth = r.items["growth"]
    if hasattr(growth, "frame") and "wait per message growth (%)" in growth.frame:
        g = growth.frame.dropna(subset=["wait per message growth (%)"])
        ratio = (1 + g["total wait growth (%)"] / 100) / (1 + g["throughput change (%)"] / 100)
        assert np.allclose(1 + g["wait per message growth (%)"] / 100, ratio)


@pytest.mark.parametrize("shape", ["flat", "rising", "one row", "zero and full"])
def test_awkward_rmf_files(tmp_path, shape):
    frames = {
        "flat": pd.DataFrame({"gp_cpus": [4] * 5, "busy_pct": [50.0] * 5, "sufficient_pct": [70.0] * 5}),
        "rising": pd.DataFrame({"gp_cpus": [2, 4, 6, 8, 10], "busy_pct": [20, 35, 50, 65, 80],
                                "sufficient_pct": [40, 50, 60, 70, 80]}),
        "one row": pd.DataFrame({"gp_cpus": [3], "busy_pct": [75.0], "sufficient_pct": [45.0]}),
        "zero and full": pd.DataFrame({"gp_cpus": [2, 4, 8], "busy_pct": [99.0, 0.0, 30.0],
                                       "sufficient_pct": [0.0, 100.0, 90.0]}),
    }
    rmf = frames[shape]
    r = run_or_refuse(tmp_path, rmf, plan_busy_cpus=3.0)
    assert r is not None
    props.assert_report_is_honest(r, r.fit_results)
    check_plan(r, rmf.assign(label=[f"{c} CPUs" for c in rmf["gp_cpus"]]), 80.0)


def test_twenty_thousand_rows(tmp_path):
    rng = np.random.default_rng(3)
    c = rng.choice([2, 4, 6, 8], 20000)
    busy = np.clip(60 - 3 * c + rng.normal(0, 2, c.size), 1, 99)
    share = np.clip(100 - 0.8 * busy + rng.normal(0, 2, c.size), 0, 100)
    rmf = pd.DataFrame({"gp_cpus": c, "busy_pct": busy.round(2), "sufficient_pct": share.round(2)})
    lat = pd.DataFrame({"latch": rng.choice(LATCHES, 20000), "tasks": rng.integers(1, 9, 20000)})
    lat["latch_s"] = (0.1 * lat["tasks"] ** 2 * np.exp(rng.normal(0, 0.05, 20000))).round(4)
    r = run_or_refuse(tmp_path, rmf, lat, run_s=300)
    assert r is not None
    props.assert_report_is_honest(r, r.fit_results)
    assert "20,000 rows were averaged into 4 points" in repr(r.items["runs_note"])
    check_plan(r, rmf.assign(label=[f"{x} CPUs" for x in rmf["gp_cpus"]]), 80.0)
