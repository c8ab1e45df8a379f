"""mqperf.models.pvalues against scipy.stats, which the book's processes no longer import.

t and F must be the same bits (the same special functions); Spearman and Welch the same formulas
(to rounding); Shapiro-Wilk Royston's AS R94 as scipy runs it, W to 1e-13 and p to 1e-9, relative,
on normal, skewed, tied, tiny-spread and far-offset samples of 3 to 5,000 values.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy import stats

from mqperf.models import pvalues


def _close(a: float, b: float, rel: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= rel * max(abs(b), 1e-300)


def test_t_and_f_are_scipys_own_numbers():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        df = float(rng.choice([1, 2, 3, 5, 30, 1000, rng.uniform(0.5, 50)]))
        t = float(rng.standard_cauchy() * rng.choice([0.01, 1, 10]))
        q = float(rng.uniform(0.5, 0.999))
        dfn, dfd, f = float(rng.integers(1, 30)), float(rng.integers(1, 30)), float(rng.exponential(3))
        assert pvalues.t_sf(t, df) == float(stats.t.sf(t, df))
        assert pvalues.t_two_sided(t, df) == float(2 * stats.t.sf(abs(t), df))
        assert pvalues.t_ppf(q, df) == float(stats.t.ppf(q, df))
        assert pvalues.f_sf(f, dfn, dfd) == float(stats.f.sf(f, dfn, dfd))
    assert math.isnan(pvalues.t_sf(math.nan, 3)) and pvalues.f_sf(math.inf, 2, 3) == 0.0


def _samples(rng):
    for n in [*range(3, 40), 50, 100, 500, 2000, 5000]:
        for k in range(6):
            x = rng.normal(size=n) * rng.uniform(0.1, 100)
            if k == 1:
                x = rng.exponential(size=n)
            elif k == 2:
                x = np.round(x)  # ties
            elif k == 3:
                x = x * 1e-9
            elif k == 4:
                x = x + 1e7  # far from zero
            elif k == 5:
                x = np.exp(rng.normal(size=n) * 3)
            if np.ptp(x) > 0:
                yield x


def test_shapiro_wilk_is_scipys():
    rng = np.random.default_rng(11)
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's "p-value may not be accurate for N > 5000" and the like
        for x in _samples(rng):
            expected = stats.shapiro(x)
            w, p = pvalues.shapiro(x)
            assert _close(w, float(expected.statistic), 1e-13), (x.size, w, expected)
            assert _close(p, float(expected.pvalue), 1e-9), (x.size, p, expected)
            checked += 1
    assert checked > 250


@pytest.mark.parametrize("values", [[0, 0, 1], [0, 1, 1, 1], [0, 0, 0, 0, 0, 9], list(range(7)), [1, 2, 4, 8, 16, 32, 64]])
def test_shapiro_wilk_at_small_and_extreme_samples(values):
    expected = stats.shapiro(values)
    w, p = pvalues.shapiro(values)
    assert _close(w, float(expected.statistic), 1e-13)
    assert abs(p - float(expected.pvalue)) <= 1e-9 * max(float(expected.pvalue), 1e-6)


def test_shapiro_wilk_refuses_what_it_cannot_test():
    with pytest.raises(ValueError, match="at least 3"):
        pvalues.shapiro([1.0, 2.0])
    with pytest.raises(ValueError, match="not all equal"):
        pvalues.shapiro([2.0, 2.0, 2.0, 2.0])


def test_spearman_and_ranks_are_scipys():
    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(3, 60))
        x, y = rng.normal(size=n), rng.normal(size=n)
        if rng.random() < 0.3:
            x = np.round(x * 2)  # ties
        if rng.random() < 0.2:
            y = x * 3 + 1  # a perfect rank correlation
        assert np.array_equal(pvalues.ranks(x), stats.rankdata(x))
        expected = stats.spearmanr(x, y)
        rho, p = pvalues.spearman(x, y)
        assert _close(rho, float(expected.statistic), 1e-12) and _close(p, float(expected.pvalue), 1e-9), (x, y)
    assert all(math.isnan(v) for v in pvalues.spearman([1, 1, 1, 1], [1, 2, 3, 4]))


def test_welch_is_scipys_ttest_ind():
    rng = np.random.default_rng(5)
    for _ in range(400):
        a = rng.normal(size=int(rng.integers(2, 20))) * rng.uniform(0.1, 10)
        b = rng.normal(size=int(rng.integers(2, 20))) * rng.uniform(0.1, 10) + rng.normal()
        expected = stats.ttest_ind(a, b, equal_var=False)
        t, p = pvalues.welch(a, b)
        assert _close(t, float(expected.statistic), 1e-12) and _close(p, float(expected.pvalue), 1e-9)


@pytest.mark.slow  # runs nine chapters in a fresh interpreter, as an `mqperf run` subprocess would
def test_no_chapter_imports_scipy_stats():
    """The point of the module: a chapter runs without loading scipy.stats (0.36 s), nor
    statsmodels (1.1 s, and scipy.stats with it), which the cost regressions used until
    :mod:`mqperf.models.formula`. These chapters made the tests that used them: residual checks
    (every fitted curve), Welch's tests of means and of a model's lack of fit, t quantiles, the
    saturation and evidence tests, and regressions by formula. Only the NativeHA storage model
    still uses scipy.stats (gamma, normal and binomial distributions)."""
    code = ("import sys; from mqperf import catalog, chapters\n"
            "for name in ['kafka_task_scaling', 'kafka_latch_cpus', 'tls_ciphers', 'zedc_compression', 'zos_z16',\n"
            "             'client_connection_costs', 'kafka_idle_trickle', 'release_to_release', 'tls_channel_costs']:\n"
            "    chapters.analyse(name, dict(catalog.find(name).defaults))\n"
            "print('scipy.stats' in sys.modules, 'statsmodels' in sys.modules)")
    from mqperf.paths import chapters_dir

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=chapters_dir(), timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "False False"
