"""The residual-against-rounding rule: "within rounding" only when |residual| ≤ half a step."""

import pytest

from mqperf.present import prose


@pytest.mark.parametrize("values, step", [([7, 26, 90, 100], 1.0), ([1.5, 2.25], 0.01), ([0.1, 3.0], 0.1),
                                          ([1 / 3], 1e-6)])
def test_printed_step(values, step):
    assert prose.printed_step(values) == pytest.approx(step)


def test_within_rounding_is_half_a_step():
    assert prose.within_rounding(0.5, 1.0)
    assert prose.within_rounding(-0.29, 1.0)
    assert not prose.within_rounding(0.71, 1.0)
    assert not prose.within_rounding(0.06, 0.1)


def test_residual_reading_says_which():
    inside = prose.residual_reading([0.2, -0.4], [7, 26], "points")
    assert "within the rounding" in inside and "0.4 points" in inside
    # A 0.71-point miss on whole-number percentages is not rounding (the zEDC 4 KB case of issue 9).
    outside = prose.residual_reading([0.71, 0.1], [1, 2], "points")
    assert "more than the rounding" in outside and "0.71 points" in outside and "±0.5 points" in outside
