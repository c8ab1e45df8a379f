"""The cost regressions' formulas and least squares (mqperf.models.formula) against statsmodels'
formula API, which the book used until it cost every such process 1.1 s to import: the same
column names, design matrix, estimates, covariance, predictions and intervals, bit for bit."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from mqperf.errors import ModelError
from mqperf.models import costs, formula

smf = pytest.importorskip("statsmodels.formula.api", reason="statsmodels is what these numbers are held to")


def _data(seed: int, replicates: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cells = list(itertools.product([0, 1, 2], ["local", "shared"], [False, True], [1.5, 2.5]))
    rows = [dict(sharecnv=a, listener=b, tls=c, weight=w) for a, b, c, w in cells] * replicates
    d = pd.DataFrame(rows)
    d["tasks"] = rng.integers(1, 40, len(d))
    d["cpu_us"] = rng.uniform(200, 2000, len(d))
    return d


FORMULAS = [
    "cpu_us ~ 1",
    "cpu_us ~ tasks",
    "cpu_us ~ C(listener)",
    "cpu_us ~ C(sharecnv) + C(listener) + C(tls)",
    "cpu_us ~ C(weight) + C(tls)",
    costs.interaction_formula("cpu_us", ["sharecnv", "listener"]),
    costs.interaction_formula("cpu_us", ["listener", "sharecnv", "tls"]),
]


@pytest.mark.parametrize("spec", FORMULAS)
@pytest.mark.parametrize("seed", [1, 2])
def test_fit_is_statsmodels_ols_to_the_bit(spec, seed):
    d = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm = smf.ols(spec, d).fit()
    ours = costs.fit(d, spec)
    assert list(ours.params.index) == list(sm.model.exog_names)
    assert np.array_equal(ours.x, np.asarray(sm.model.exog, dtype=float))
    assert np.array_equal(ours.params.to_numpy(), np.asarray(sm.params, dtype=float))
    assert np.array_equal(ours.cov.to_numpy(), np.asarray(sm.cov_params(), dtype=float))
    new = d.sample(7, random_state=seed).reset_index(drop=True)
    assert np.array_equal(ours.predict(new), np.asarray(sm.predict(new), dtype=float))
    frame = sm.get_prediction(new).summary_frame(0.1)
    band = ours.conf_band(new, alpha=0.1)
    assert np.array_equal(band["lower"], frame["mean_ci_lower"]) and np.array_equal(band["upper"], frame["mean_ci_upper"])


def test_levels_are_sorted_as_patsy_sorts_them():
    d = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "m": ["b", 1, "a", 1, "b", "a"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm = smf.ols("y ~ C(m)", d).fit()
    assert list(costs.fit(d, "y ~ C(m)").params.index) == list(sm.model.exog_names) == [
        "Intercept", "C(m)[T.a]", "C(m)[T.b]"]


def test_rows_missing_a_factor_are_left_out_as_statsmodels_leaves_them():
    d = _data(3)
    d.loc[[0, 5], "listener"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm = smf.ols("cpu_us ~ C(listener) + C(tls)", d).fit()
    ours = costs.fit(d, "cpu_us ~ C(listener) + C(tls)")
    assert ours.nobs == int(sm.nobs) == len(d) - 2
    assert np.array_equal(ours.params.to_numpy(), np.asarray(sm.params, dtype=float))


@pytest.mark.parametrize("spec, match", [
    ("cpu_us ~ C(nonexistent)", "no column 'nonexistent'"),
    ("cpu_us ~ log(tasks)", "not C\\(column\\) or a column"),
    ("cpu_us ~ C(listener) * tasks", "interactions are between C\\(column\\) factors only"),
    ("cpu_us tasks", "response ~ terms"),
])
def test_formulas_outside_the_language_are_refused_in_one_line(spec, match):
    with pytest.raises(ModelError, match=match):
        formula.parse(spec, _data(1))


def test_a_level_the_fit_never_saw_is_refused_in_one_line():
    res = costs.fit(_data(1), "cpu_us ~ C(listener) + C(tls)")
    with pytest.raises(ModelError, match="'remote' is not a level the fit saw"):
        res.cost_for(listener="remote", tls=True)
    assert res.cost_for(listener="local", tls=False) == pytest.approx(res.params["Intercept"])
