"""Generated-truth tests of the chapter's sentences: each claim about a change follows its rule
(docs/CHAPTERS.md) on data made with a known change, across scale, workload count, replicates and
the contract's minimum (two releases, one run each)."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mqperf.chapters.release_to_release import fits as f

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

CHAPTER = "release_to_release"


def _frame(change_pct: float, *, scale: float, workloads: int, runs: int, sd_pct: float, seed: int,
           machines=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(workloads):
        base = scale * (1 + w)
        for rel, mean in (("old", base), ("new", base * (1 + change_pct / 100))):
            for i in range(runs):
                rate = mean * (1 + sd_pct / 100 * rng.standard_normal())
                rows.append({"release": rel, "workload": f"w{w}", "replicate": i + 1, "rate_rt_s": rate,
                             "cpu_pct": 90.0, **({"machine": machines[rel]} if machines else {})})
    return pd.DataFrame(rows)


CASES = [  # (true change %, scale, workloads, runs, sd %)
    (0.0, 100.0, 1, 3, 2.0), (30.0, 100.0, 1, 3, 2.0), (-30.0, 1e6, 3, 4, 2.0), (0.0, 5e4, 4, 2, 3.0),
    (2.0, 5e4, 2, 1, 0.0), (12.0, 5e4, 2, 1, 0.0), (-12.0, 7.0, 1, 1, 0.0),
]


@pytest.mark.parametrize("change,scale,workloads,runs,sd", CASES)
def test_readings_follow_their_rule(tmp_path, change, scale, workloads, runs, sd):
    frame = _frame(change, scale=scale, workloads=workloads, runs=runs, sd_pct=sd, seed=int(scale) % 97 + workloads)
    r = props.run(CHAPTER, props.write(tmp_path, frame, "g.csv"), assumed_noise_pct=5.0)
    props.assert_report_is_honest(r)
    rate = props.table(r, "rate_changes")
    said = r.sentences()["changes_text"]
    if runs == 1:
        # the contract's minimum: no scatter, no interval, only the assumption
        assert not any("interval" in c for c in rate.columns)
        assert set(rate["reading"]) == {f.BEYOND if abs(change) > 5 else f.WITHIN}
        assert "Welch" not in said and "no interval" in said
    else:
        assert "95 % interval low (%)" in rate.columns
        if change == 0:
            # no true change: these seeds claim none (the rate of false claims is tested over many seeds in
            # test_release_to_release.py::test_no_change_is_rarely_claimed)
            assert not set(rate["reading"]) & {f.UP, f.DOWN}
        else:
            assert set(rate["reading"]) == {f.UP if change > 0 else f.DOWN}
            assert ("rose" if change > 0 else "fell") in said
        for _, row in rate.iterrows():
            if row["reading"] in (f.UP, f.DOWN):  # a claimed change has an interval on its side of zero
                assert row["95 % interval low (%)"] > 0 or row["95 % interval high (%)"] < 0


def test_a_claim_is_never_made_across_machines(tmp_path):
    frame = _frame(40.0, scale=1000.0, workloads=2, runs=3, sd_pct=1.0, seed=5, machines={"old": "a", "new": "b"})
    r = props.run(CHAPTER, props.write(tmp_path, frame, "m.csv"))
    props.assert_report_is_honest(r)
    assert set(props.table(r, "rate_changes")["reading"]) == {f.MACHINE}
    said = r.sentences()
    assert "rose" not in said["changes_text"] and "cannot separate" in said["changes_text"]
    assert "Expect" not in said["plan_text"] and "cannot tell you what the upgrade alone changes" in said["plan_text"]


def test_the_planning_answer_states_an_interval_only_with_replicates(tmp_path):
    one = props.run(CHAPTER, props.write(tmp_path, _frame(20.0, scale=1e4, workloads=1, runs=1, sd_pct=0, seed=1),
                                         "a.csv"))
    many = props.run(CHAPTER, props.write(tmp_path, _frame(20.0, scale=1e4, workloads=1, runs=3, sd_pct=1, seed=1),
                                          "b.csv"))
    assert "interval" not in one.sentences()["plan_text"].replace("no interval", "")
    assert "Expect a rise" in many.sentences()["plan_text"] and "95 % interval" in many.sentences()["plan_text"]


@pytest.mark.parametrize("shift_at,seed", [(2, 11), (1, 12), (None, 13)])
def test_change_points_over_three_releases_find_the_shift(tmp_path, shift_at, seed):
    """Three releases, three runs each, 1 % scatter; the rate steps up 15 % at ``shift_at`` (or never)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, rel in enumerate(["r1", "r2", "r3"]):
        mean = 1000.0 * (1.15 if shift_at is not None and k >= shift_at else 1.0)
        for i in range(3):
            rows.append({"release": rel, "workload": "w", "replicate": i + 1,
                         "rate_rt_s": mean * (1 + 0.01 * rng.standard_normal()), "cpu_pct": 50.0})
    r = props.run(CHAPTER, props.write(tmp_path, pd.DataFrame(rows), "cp.csv"))
    props.assert_report_is_honest(r)
    cp = props.table(r, "changepoints")
    rate = cp[cp["quantity"] == "peak rate"]
    if shift_at is None:
        assert rate["from release"].tolist() == ["none found"]
    else:
        assert rate["from release"].tolist() == [f"r{shift_at + 1}"]
        assert "moved at" in r.sentences()["changepoint_text"]
