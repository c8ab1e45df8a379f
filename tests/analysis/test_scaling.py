"""The task-scaling analysis: model choice by identifiability, reader files, planning tables."""

import numpy as np
import pandas as pd
import pytest

from mqperf.analysis import scaling
from mqperf.errors import ModelError
from mqperf.models import usl


@pytest.fixture(scope="module")
def book():
    points = scaling.load_points("kafka_task_scaling")
    return points, scaling.load_constraints("kafka_task_scaling_constraints", points)


def test_model_choice_follows_equations(book):
    points, known = book
    fits = {f.series: f for f in scaling.fit_series(points, known)}
    assert fits["source sustainable nonpersistent"].model == "usl"  # 2 points + 1 constraint
    assert fits["sink persistent get commit"].model == "amdahl"  # 2 points
    assert fits["sink peak nonpersistent"].model == "none"  # 1 point
    assert fits["sink persistent get100 commit"].n_constraints == 0  # "decrease" is not an equation
    assert all(f.result.exactly_identified for f in fits.values() if f.result is not None)


def test_six_cpu_point_is_its_own_series(book):
    points, _ = book
    assert "sink persistent get100 commit (6 CPUs)" in set(points["series"])


def test_reader_series_with_enough_points_gets_intervals(tmp_path):
    n = np.array([1, 2, 3, 4, 6, 8])
    x = usl.throughput(n, 1000, 0.05, 0.01) * np.array([1.01, 0.99, 1.0, 1.02, 0.98, 1.0])
    path = tmp_path / "mine.csv"
    pd.DataFrame({"tasks": n, "rate_msg_s": x}).to_csv(path, index=False)
    points = scaling.load_points(str(path))
    fits = scaling.fit_series(points, scaling.load_constraints("", points))
    assert fits[0].series == "your data" and fits[0].result.df_resid == 3
    assert scaling.parameter_table(fits)["std_err"].notna().all()
    loo = scaling.leave_one_out(points)
    assert len(loo) == 6 and loo["predicted_msg_s"].notna().all()


def test_single_level_reader_data_is_a_model_error():
    points = pd.DataFrame({"series": ["a", "a"], "tasks": [4, 4], "rate_msg_s": [10.0, 11.0], "basis": "measured"})
    with pytest.raises(ModelError, match="no series has enough points"):
        scaling.fit_series(points)


def test_forcing_usl_on_two_points_fails_clearly():
    points = pd.DataFrame({"series": ["a", "a"], "tasks": [1, 2], "rate_msg_s": [10.0, 18.0], "basis": "measured"})
    with pytest.raises(ModelError, match="needs at least 3"):
        scaling.fit_series(points, model="usl")


def test_plan_finds_tasks_for_target_and_peak(book):
    points, known = book
    plan = scaling.plan(scaling.fit_series(points, known), 60000).set_index("series")
    assert plan.loc["sink sustainable nonpersistent", "tasks_for_target"] == 2  # 61,588 measured at 2
    # The source peak (~59,900) is just under 60,000: not reachable.
    assert str(plan.loc["source sustainable nonpersistent", "tasks_for_target"]).startswith("not reachable")
    assert plan.loc["source sustainable nonpersistent", "last_task_adding_5pct"] == 4


def test_sensitivity_band_brackets_the_literal_fit(book):
    points, known = book
    band = scaling.sensitivity_band(points, known, x_max=8)
    assert set(band["series"]) == {"source sustainable nonpersistent", "sink sustainable nonpersistent"}
    assert (band["lower"] <= band["fit"] + 1e-6).all() and (band["fit"] <= band["upper"] + 1e-6).all()
    assert (band["upper"] - band["lower"]).max() > 0
