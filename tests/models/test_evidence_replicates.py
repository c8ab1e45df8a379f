"""evidence.difference and evidence.holm: a difference of two cell means tested against the
replicates' pooled scatter, and Holm's adjustment of a family of such tests."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from mqperf.models import evidence


def test_difference_is_the_pooled_two_sample_t_test():
    a, b = np.array([500.0, 510, 520]), np.array([560.0, 575, 590])
    ss = float(((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum())
    t, p, words, df = evidence.difference(b.mean() - a.mean(), 3, 3, ss, 4)
    ref = stats.ttest_ind(b, a, equal_var=True)
    assert df == 4
    assert_allclose([t, p], [ref.statistic, ref.pvalue], rtol=1e-12)
    assert words.startswith("t = ") and "on 4 df" in words


def test_difference_without_replicates_is_no_test_and_exact_replicates_any_difference_is_real():
    assert evidence.difference(10.0, 1, 1, 0.0, 0) is None
    t, p, words, _ = evidence.difference(10.0, 2, 2, 0.0, 2)
    assert math.isinf(t) and p == 0.0 and "agree exactly" in words
    assert evidence.difference(0.0, 2, 2, 0.0, 2)[:2] == (0.0, 1.0)


@pytest.mark.parametrize("p, expected", [
    ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),
    ([0.5, 0.001], [0.5, 0.002]),
    ([0.4, 0.9], [0.8, 0.9]),
])
def test_holm_step_down(p, expected):
    assert_allclose(evidence.holm(p), expected)


def test_holm_never_lowers_a_p_value_and_keeps_the_order():
    p = np.array([0.2, 0.001, 0.04, 0.04, 0.7])
    adj = evidence.holm(p)
    assert (adj >= p).all() and (adj <= 1).all()
    assert (np.diff(adj[np.argsort(p, kind="stable")]) >= 0).all()
    assert evidence.holm([]).size == 0


def test_holm_family_adjusts_the_tests_and_says_so_leaving_untested_ones():
    a = evidence.difference(30.0, 2, 2, 100.0, 4)
    b = evidence.difference(5.0, 2, 2, 100.0, 4)
    out = evidence.holm_family([a, None, b], "comparisons")
    assert out[1] is None
    assert_allclose([out[0][1], out[2][1]], evidence.holm([a[1], b[1]]))
    assert all("after Holm's correction for the 2 comparisons" in t[2] for t in (out[0], out[2]))
    assert evidence.holm_family([a], "comparisons") == [a]
