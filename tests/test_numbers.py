"""The one display rule (mqperf.numbers) and the places that must use it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mqperf.present import charts
from mqperf.models._base import round_sig as card_round
from mqperf import numbers
from mqperf.present.tables import show


@pytest.mark.parametrize("a, b", [(228.14999999999998, 228.15000000000001), (0.124999999999999, 0.125000000000001),
                                  (-2.675, -2.6750000000000003)])
def test_the_same_number_solved_on_two_machines_shows_the_same(a, b):
    # Two floats a few ulps apart straddle a rounding tie; the display must not depend on which one a machine got.
    for digits in (2, 3, 4):
        assert numbers.round_sig(a, digits) == numbers.round_sig(b, digits)


def test_ties_round_away_from_zero():
    assert numbers.round_sig(228.15, 4) == 228.2
    assert numbers.round_sig(-228.15, 4) == -228.2
    assert numbers.round_sig(0.125, 2) == 0.13  # Python's round(0.125, 2) gives 0.12


def test_noise_is_zero_and_negative_zero_is_zero():
    assert numbers.round_sig(1.18e-14, 3) == 0.0
    assert math.copysign(1, numbers.round_sig(-0.0, 3)) == 1
    assert math.copysign(1, numbers.round_sig(-3e-13, 3)) == 1
    assert numbers.round_sig(1e-6, 3, scale=1e4) == 0.0  # within 1e-9 of its column's scale
    assert numbers.round_sig(1e-4, 3, scale=1e4) == 1e-4  # a small but real value stays


def test_a_column_snaps_what_is_noise_relative_to_it():
    col = [36.9, 1.18e-14 * 1e3, -8.44, None, float("nan")]
    out = numbers.round_column(col, 3)
    assert out[:3] == [36.9, 0.0, -8.44] and out[3] is None and math.isnan(out[4])
    # The same small value in a column of small values is real.
    assert numbers.round_column([2.5e-8, 1.0e-8], 3) == [2.5e-8, 1e-8]


def test_missing_and_infinite_pass_through():
    assert numbers.round_sig(None) is None
    assert math.isnan(numbers.round_sig(float("nan")))
    assert numbers.round_sig(float("-inf")) == float("-inf")


@pytest.mark.parametrize("value", [12345.678, 0.00012345678, 9.99996, 1e15 + 7, 3.0])
def test_rounded_values_have_at_most_the_shown_digits(value):
    for digits in range(1, 8):
        shown = numbers.round_sig(value, digits)
        assert len(repr(shown).replace("-", "").replace(".", "").lstrip("0").split("e")[0].rstrip("0")) <= digits
        assert abs(shown - value) <= 0.5 * 10 ** (math.floor(math.log10(abs(value))) - digits + 1) * (1 + 1e-12)


def test_tables_charts_and_cards_share_the_rule():
    frame = pd.DataFrame({"series": ["a", "b", "c"], "gain_pct": [36.9, 1.18e-14, -8.44], "a": [228.14999999999998] * 3})
    text = repr(show(frame, digits=4))
    assert "1.18e-14" not in text and "0.0000" not in text
    assert text.splitlines()[2].split()[1] == "0"
    assert "228.2" in text
    plotted = charts.rounded(frame, digits=4)
    assert plotted["gain_pct"].tolist() == [36.9, 0.0, -8.44] and plotted["a"].tolist() == [228.2] * 3
    assert card_round(228.14999999999998, 4) == 228.2 and card_round(-1e-13) == 0.0


def test_format_number_matches_round_sig():
    for v in np.geomspace(1e-5, 1e9, 37):
        assert float(numbers.format_number(v, 5).replace(",", "")) == numbers.round_sig(v, 5)


def test_huge_values_are_powers_of_ten_and_keep_their_zeros():
    from mqperf.numbers import format_number

    assert format_number(-1.53e19) == "-1.53e19"
    assert format_number(2.5e16, 3) == "2.5e16"
    assert format_number(1.2e14) == "120,000,000,000,000"


def test_values_apart_only_by_noise_tie_to_the_smallest_and_others_stay():
    v = [18719.019695722498, 3.0, 18719.019695722556, 5147.687581055041, 5147.687581055012, 5148.0]
    tied = numbers.tie_noise(v)
    assert tied.tolist() == [18719.019695722498, 3.0, 18719.019695722498, 5147.687581055012, 5147.687581055012, 5148.0]
    # Either order of the two machines' values gives the same result.
    assert numbers.tie_noise(v[::-1]).tolist() == tied.tolist()[::-1]


def test_tie_noise_leaves_missing_infinite_and_short_input_alone():
    out = numbers.tie_noise([1.0, math.nan, 1.0 + 1e-13, math.inf])
    assert out[0] == out[2] == 1.0 and math.isnan(out[1]) and out[3] == math.inf
    assert numbers.tie_noise([2.5]).tolist() == [2.5]
    assert numbers.tie_noise([]).size == 0
    assert numbers.tie_noise([0.0, 5e-13, 1e-6]).tolist() == [0.0, 0.0, 1e-6]  # below ABSOLUTE_NOISE apart


def test_idxmax_and_idxmin_pick_the_first_of_values_equal_but_for_noise():
    errors = pd.Series([1.0, -3.1000000000000014, 2.0, 3.1], index=[4, 8, 16, 32])
    # |error| at 8 and 32 are equal but for float noise, which another CPU may put the other way: the first.
    assert numbers.idxmax(errors.abs()) == 8
    assert numbers.idxmax(pd.Series([3.1, 1.0, 3.1000000000000014], index=list("abc"))) == "a"
    assert numbers.idxmin(pd.Series([2.0, 0.5000000000000001, 0.5], index=list("xyz"))) == "y"
    assert numbers.idxmax(pd.Series([1.0, 5.0, 3.0])) == 1  # no ties: pandas' own answer
    assert numbers.idxmax(pd.Series([1.0, math.nan, 2.0])) == 2  # missing values skipped, as pandas does
    spans = pd.Series(pd.to_timedelta([5, 9, 9], unit="s"), index=["p", "q", "r"])
    assert numbers.idxmax(spans) == "q"  # durations: no float noise, pandas' own idxmax
