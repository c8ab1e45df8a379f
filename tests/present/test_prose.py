"""Interpretation rules: each rule's words follow the numbers, on both sides of its threshold."""

import numpy as np
import pytest

from mqperf.models import usl
from mqperf.present import prose


def usl_fit(sigma, kappa, n=(1, 2, 3, 4, 5, 6, 8), lam=1000.0, noise=0.0, seed=1):
    n = np.array(n, dtype=float)
    x = usl.throughput(n, lam, sigma, kappa)
    if noise:
        x = x * (1 + np.random.default_rng(seed).normal(0, noise, n.size))
    return usl.fit(n, x)


def test_num_uses_the_table_rule():
    assert prose.num(60112.4) == "60,100"
    assert prose.num(0.1234, 2) == "0.12"
    assert prose.num(510.0, unit="µs") == "510 µs"
    assert prose.num(float("nan")) == "–"
    assert prose.num(float("inf")) == "unbounded"


def test_counts_are_words_when_small():
    assert prose.count(1, "fit") == "one fit"
    assert prose.count(3, "series", "series") == "three series"
    assert prose.count(12, "point") == "12 points"


def test_listing():
    assert prose.listing([]) == ""
    assert prose.listing(["a"]) == "a"
    assert prose.listing(["a", "b", "c"]) == "a, b and c"


def test_serialisation_rule_follows_sigma():
    assert "most of the work is serialised" in " ".join(prose.usl_reading("s", usl_fit(0.6, 0.0), measured_max_n=8))
    assert "a share of the work is serialised" in " ".join(prose.usl_reading("s", usl_fit(0.2, 0.0), measured_max_n=8))
    assert "contention is small" in " ".join(prose.usl_reading("s", usl_fit(0.01, 0.0), measured_max_n=8))


def test_retrograde_rule_needs_an_interval_that_excludes_zero_and_points_that_fall():
    # Peak near N = 6.9, points to 16: the measured rates fall well beyond their 0.5 % noise.
    falling = " ".join(prose.usl_reading("s", usl_fit(0.05, 0.02, n=(1, 2, 4, 6, 8, 12, 16), noise=0.005),
                                         measured_max_n=16))
    assert "the measured points fall past their peak beyond their noise" in falling
    assert "throughput falls past the peak" in falling and "one-sided t-test" in falling
    # Peak near N = 6.9 but the points stop at 8: κ is identified, the points do not fall.
    level = " ".join(prose.usl_reading("s", usl_fit(0.05, 0.02, noise=0.005), measured_max_n=8))
    assert "throughput falls past the peak" not in level
    assert "within the measurements the curve levels off" in level
    flat = " ".join(prose.usl_reading("s", usl_fit(0.3, 0.0), measured_max_n=8))
    assert "κ is 0" in flat and "approaches" in flat
    exact = usl_fit(0.1, 0.02, n=(1, 2, 4))
    assert exact.df_resid == 0
    assert "no interval" in " ".join(prose.usl_reading("s", exact, measured_max_n=4))


def test_peak_beyond_the_data_is_called_an_extrapolation():
    fit = usl_fit(0.05, 0.002, n=(1, 2, 3, 4, 5))  # peak near 21
    words = " ".join(prose.usl_reading("s", fit, measured_max_n=5))
    assert "an extrapolation" in words and f"N = {prose.num(fit.peak_n())}" in words
    inside = usl_fit(0.05, 0.02, n=(1, 2, 4, 8, 12, 16))  # peak near 6.9
    assert "within the measured range" in " ".join(prose.usl_reading("s", inside, measured_max_n=16))


def test_identification_says_exactly_identified_only_without_residual_df():
    exact = usl_fit(0.1, 0.02, n=(1, 2, 4))
    free = usl_fit(0.1, 0.02, noise=0.01)
    assert "exactly identified" in prose.identification({"a": exact})
    assert prose.identification({"a": exact, "b": exact}).startswith("Both fits are exactly identified")
    mixed = prose.identification({"a": exact, "b": free})
    assert "“a” is exactly identified" in mixed and "“b” has residual degrees of freedom" in mixed
    assert "exactly identified" not in prose.identification({"b": free})
    assert prose.identification({}) == "No series could be fitted."


def test_identification_names_a_parameter_held_at_its_bound():
    # Throughput that rises faster than linear pushes sigma below 0: it is held at 0.
    fit = usl.fit(np.array([1, 2, 3, 4, 5, 6.0]), np.array([100, 205, 312, 420, 530, 640.0]))
    assert fit.active_bounds
    text = prose.identification({"x": fit})
    assert "held at their bound" in text and "κ and σ" in text


def test_not_supported_is_one_capitalised_sentence():
    assert prose.not_supported("your file has no 'no gain' statements, so there is no band") == \
        "Your file has no 'no gain' statements, so there is no band."


@pytest.mark.parametrize("value,limit,expected", [(9.0, 8.0, True), (8.0, 8.0, False)])
def test_extrapolation(value, limit, expected):
    assert (prose.extrapolation(value, limit, "The answer") is not None) == expected


def test_not_fitted_quotes_the_series_and_the_models_reason():
    # The name is a reader's: literal text in Markdown (its punctuation escaped), as given in plain text.
    assert prose.not_fitted("a/b", "the USL needs 3 points.") == "“a\\/b” is not fitted: the USL needs 3 points."
    assert prose.quoted("a/b", markdown=False) == "“a/b”"


def test_per_fit_gives_each_group_a_sentence_or_its_reason():
    from mqperf.models.fitset import Fit

    fits = [Fit("a", 5, result=usl_fit(0.1, 0.01)), Fit("b", 1, reason="the USL needs 3 points")]
    assert prose.per_fit(fits, lambda group, r: f"{group}: σ {prose.num(r.params['sigma'])}") == [
        "a: σ 0.1", "“b” is not fitted: the USL needs 3 points."]


def test_a_ceiling_that_levels_off_is_never_said_to_fall():
    # A hard ceiling: 2,500 msg/s from 3 tasks on, with 1 % noise. A USL fit bends; the data do not fall.
    n = np.arange(1, 13, dtype=float)
    x = np.minimum(1000 * n, 2500) * (1 + np.random.default_rng(4).normal(0, 0.01, n.size))
    words = " ".join(prose.usl_reading("s", usl.fit(n, x), measured_max_n=12))
    assert "throughput falls past the peak" not in words


def test_a_peak_before_the_smallest_measured_n_is_outside_the_data():
    fit = usl_fit(0.3, 0.4, n=(2, 3, 4, 6, 8), noise=0.002)
    assert fit.peak_n() < 2
    words = " ".join(prose.usl_reading("s", fit, measured_max_n=8))
    assert "below the smallest measured concurrency (2), outside the data: an extrapolation" in words
    assert "within the measured range" not in words


def test_an_effect_is_stated_only_in_the_direction_its_interval_supports():
    assert prose.direction(0.4, 0.1, 0.7, subject="each task", up="adds", down="removes", unit="CPU s/h") == \
        "each task adds 0.4 CPU s/h (95 % interval 0.1 to 0.7 CPU s/h)"
    assert prose.direction(-0.4, -0.7, -0.1, subject="each task", up="adds", down="removes") == \
        "each task removes 0.4 (95 % interval 0.1 to 0.7)"
    spans = prose.direction(-0.397, -2.24, 1.45, subject="each task", up="adds", down="removes", unit="CPU s/h")
    assert spans.startswith("the data cannot tell whether each task adds or removes") and "includes zero" in spans


def test_a_quantity_is_stated_only_when_identified():
    assert prose.estimate("the size constant", 243000.0, 150000.0, 400000.0, "bytes").startswith(
        "the size constant is about 243,000 bytes")
    said = prose.estimate("the size constant", 243000.0, -20.8e6, 21.3e6, "bytes")
    assert said.startswith("the data cannot tell the size constant") and "243,000" not in said
    assert prose.extrapolated("12 tasks", True) == "12 tasks (extrapolated)"
    assert prose.extrapolated("4 tasks", False) == "4 tasks"
