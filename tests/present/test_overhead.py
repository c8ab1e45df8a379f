"""USL overhead decomposition: the chart's data, the sentence rules on both sides of each threshold,
and the one sentence when there is no USL fit.

Expected values are worked out here from 1/C(N) = 1/N + σ(N−1)/N + κ(N−1) by hand, not read
back from the code under test.
"""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from mqperf.models import usl
from mqperf.present import overhead, prose
from mqperf.present.results import Missing, Results, Text


def with_params(sigma, kappa, lam=1000.0):
    """A USL result whose parameters are exactly σ and κ (a fit's, with its numbers replaced)."""
    n = np.array([1.0, 2.0, 4.0, 8.0])
    base = usl.fit(n, usl.throughput(n, lam, 0.1, 0.01))
    return dataclasses.replace(base, params=pd.Series({"lam": lam, "sigma": sigma, "kappa": kappa}))


def test_crossover_is_sigma_over_kappa_where_the_parts_swap():
    sigma, kappa = 0.12, 0.015  # c = 8
    assert usl.coherency_crossover(sigma, kappa) == pytest.approx(8.0)
    for n, coherency_larger in ((7.9, False), (8.1, True), (2.0, False), (30.0, True)):
        assert (kappa * (n - 1) > sigma * (n - 1) / n) is coherency_larger
    assert usl.coherency_crossover(0.3, 0.0) == float("inf")
    assert with_params(0.12, 0.015).coherency_crossover(kappa=0.03) == pytest.approx(4.0)  # what-if κ


def test_crossover_within_the_measured_range():
    text = prose.usl_overhead_reading("s", with_params(0.1, 0.02), measured_max_n=8)
    # c = 0.1 / 0.02 = 5; at N = 8: 1/8 = 0.125, 0.1·7/8 = 0.0875, 0.02·7 = 0.14, total 0.3525.
    assert "overtakes contention at N = 5, within the measured range (up to 8)" in text
    assert "λ/X(N) = 0.353: 0.125 ideal, 0.0875 contention and 0.14 coherency" in text


def test_crossover_beyond_the_data_is_an_extrapolation():
    text = prose.usl_overhead_reading("s", with_params(0.1, 0.02), measured_max_n=4)
    assert "contention stays the larger overhead across the measured range (up to 4)" in text
    assert "N = 5, beyond the measurements: an extrapolation" in text


def test_coherency_from_the_start_no_coherency_and_no_contention():
    assert "from the second unit on (σ/κ = 0.5" in prose.usl_overhead_reading("s", with_params(0.01, 0.02),
                                                                              measured_max_n=6)
    none = prose.usl_overhead_reading("s", with_params(0.2, 0.0), measured_max_n=6)
    assert "κ = 0" in none and "never overtakes" in none and "0 coherency" in none
    pure = prose.usl_overhead_reading("s", with_params(0.0, 0.01), measured_max_n=6)
    assert "σ = 0: coherency is the whole overhead" in pure and "0 contention" in pure


def test_frame_parts_add_up_and_mark_the_measured_range():
    fits = {"a": with_params(0.1, 0.02), "b": with_params(0.3, 0.0)}
    data = overhead.frame(fits, {"a": 4.0, "b": 6.0}, n_max=8)
    wide = data.pivot_table(index=["series", "n"], columns="part", values="share")
    n = wide.loc["a"].index.to_numpy()
    np.testing.assert_allclose(wide.loc["a"].sum(axis=1), 1 / n + 0.1 * (n - 1) / n + 0.02 * (n - 1), rtol=1e-12)
    np.testing.assert_allclose(data.groupby(["series", "n"])["total"].first().loc["a"], 1000.0 / usl.throughput(n, 1000.0, 0.1, 0.02),
                               rtol=1e-12)
    assert list(n) == [1, 2, 3, 4, 5, 6, 7, 8]
    beyond = data[data["range"] == overhead.BEYOND]
    assert set(beyond.loc[beyond["series"] == "a", "n"]) == {5, 6, 7, 8}
    assert set(beyond.loc[beyond["series"] == "b", "n"]) == {7, 8}
    assert data.loc[data["series"] == "a", "crossover"].eq(5.0).all()
    assert data.loc[data["series"] == "b", "crossover"].isna().all()  # κ = 0: never


def test_grid_is_thinned_but_keeps_the_largest_measured_n():
    g = overhead.grid(500, 137.5)
    assert g[0] == 1 and g[-1] == 500 and 137.5 in g and len(g) <= overhead.MAX_BARS + 1


def test_show_adds_chart_and_sentences_or_says_why_not():
    r = Results(book_data=False)
    overhead.show(r, {}, {}, n_max=8, x_title="N", missing="no series has a USL fit")
    assert isinstance(r["overhead"], Missing) and r["overhead_text"] is None
    fits = {f"s{i}": with_params(0.1, 0.02) for i in range(3)}
    r = Results(book_data=False)
    overhead.show(r, fits, {s: 8.0 for s in fits}, n_max=8, x_title="N", missing="-", limit=2)
    rows = next(iter(r["overhead"].to_dict()["datasets"].values()))
    assert {row["series"] for row in rows} == {"s0", "s1"}
    assert isinstance(r["overhead_text"], Text)
    assert "first 2 of 3 USL fits" in repr(r["overhead_text"]) and "“s2”" not in repr(r["overhead_text"])
