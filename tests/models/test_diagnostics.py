"""Residual checks before intervals: they fail on what they should, and a weighted fit is checked on
its weighted residuals."""

import numpy as np
import pytest

from mqperf.models import diagnostics, latency_bandwidth, usl


def test_proportional_noise_fails_the_checks_of_an_unweighted_fit_far_more_often_than_even_noise():
    """5 % proportional noise over a tenfold range of rates (24 points): the checks catch it in most
    datasets (77 % here) and switch the interval to a bootstrap; even noise trips them near their
    two 5 % levels (10 % here)."""
    def share_failing(noise, seed):
        rng = np.random.default_rng(seed)
        fails = 0
        for _ in range(60):
            n = np.repeat(np.arange(1, 13, dtype=float), 2)
            fit = usl.fit(n, noise(usl.throughput(n, 1000, 0.02, 0.0005), rng))
            fails += not fit.residual_checks.passed
            if not fit.residual_checks.passed:
                assert "bootstrap" in fit.interval_method
        return fails / 60

    proportional = share_failing(lambda x, rng: x * (1 + rng.normal(0, 0.05, x.size)), 3)
    even = share_failing(lambda x, rng: x + rng.normal(0, 30.0, x.size), 4)
    assert proportional >= 0.6 and even <= 0.2


def test_normal_even_noise_passes_and_keeps_the_t_interval():
    rng = np.random.default_rng(4)
    n = np.arange(1, 13, dtype=float)
    x = usl.throughput(n, 1000, 0.05, 0.002) + rng.normal(0, 5.0, n.size)
    fit = usl.fit(n, x)
    assert fit.residual_checks.passed and fit.interval_method.startswith("Wald")


def test_a_weighted_fit_is_checked_on_its_weighted_residuals():
    """Latency-bandwidth fits weigh 1/y²: relative errors are what must look normal and even."""
    rng = np.random.default_rng(6)
    kb = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512], dtype=float)
    a, b = 30e-6, 80e6
    rate = 1.0 / (a + kb * 1024 / b) * (1 + rng.normal(0, 0.02, kb.size))
    fit = latency_bandwidth.fit(kb * 1024, rate)
    weights = getattr(fit, "weights", None)
    assert weights is not None
    relative = fit.resid * np.sqrt(weights)
    checks = diagnostics.residual_checks(fit)
    from scipy import stats

    # mqperf.models.pvalues runs scipy's algorithm without importing scipy.stats: the same p to 1e-9
    # (tests/models/test_pvalues.py), against the raw residuals' far from it.
    assert checks.normal_p == pytest.approx(stats.shapiro(relative).pvalue, rel=1e-9)
    assert abs(checks.normal_p - stats.shapiro(fit.resid).pvalue) > 1e-3


def test_refits_words_say_how_many_converged():
    assert diagnostics.refits_words(199, 199) == "199 refits"
    assert diagnostics.refits_words(150, 199) == "199 refits, of which 150 converged (the others are left out)"
    assert diagnostics.refits_words(99, 199).endswith("only 99 converged: too few, so the t interval is given")


def _failing_checks_fit():
    rng = np.random.default_rng(3)
    n = np.repeat(np.arange(1, 13, dtype=float), 2)
    fit = usl.fit(n, usl.throughput(n, 1000, 0.02, 0.0005) * (1 + rng.normal(0, 0.05, n.size)))
    assert not fit.residual_checks.passed
    return fit


@pytest.mark.parametrize("dropped", [0, 40, 120])
def test_an_interval_from_some_of_the_refits_says_how_many(monkeypatch, dropped):
    """Refits that do not converge are left out of the percentiles: the method says how many
    converged, and with fewer than half the interval is the t interval, as it says."""
    from mqperf.models import refits

    real = refits.refit_all

    def some_fail(*args, **kwargs):
        out = real(*args, **kwargs)
        return [None if i < dropped else theta for i, theta in enumerate(out)]

    monkeypatch.setattr(refits, "refit_all", some_fail)
    fit = _failing_checks_fit()
    method, ci, wald = fit.interval_method, fit.conf_int(), fit._wald(0.05)
    assert f"residual bootstrap, {diagnostics.refits_words(199 - dropped, 199)}, percentile" in method
    assert ("converged" in method) == (dropped > 0)
    if dropped > 199 / 2:
        pd_equal = np.allclose(ci.to_numpy(), wald.to_numpy(), equal_nan=True)
        assert pd_equal, "with too few refits the interval is the t interval"
    else:
        assert (ci["upper"] - ci["lower"] >= wald["upper"] - wald["lower"] - 1e-12).all()


def test_the_refits_solve_in_the_box_the_fit_solved_in(monkeypatch):
    """A USL fit holds sigma and kappa within [0, 1]: so do its bootstrap refits. A fit that states no
    box keeps its non-negative parameters non-negative and nothing more."""
    import dataclasses

    from mqperf.models import refits

    real, boxes = refits.refit_all, []

    def recorded(fn, x, ys, scales, theta0, free, lower, upper, start, **kwargs):
        boxes.append((list(free), np.array(lower), np.array(upper), np.array(start)))
        return real(fn, x, ys, scales, theta0, free, lower, upper, start, **kwargs)

    monkeypatch.setattr(refits, "refit_all", recorded)
    fit = _failing_checks_fit()
    assert [list(b) for b in fit.bounds] == [[0, 0, 0], [np.inf, 1, 1]]
    diagnostics.bootstrap_conf_int(fit)
    free, lower, upper, start = boxes[-1]
    assert lower.tolist() == [0.0] * len(free) and upper.tolist() == [[np.inf, 1.0, 1.0][i] for i in free]
    assert ((start >= lower) & (start <= upper)).all()
    diagnostics.bootstrap_conf_int(dataclasses.replace(fit, bounds=None))
    assert np.isinf(boxes[-1][2]).all() and (boxes[-1][1] == 0).all()


def test_the_spread_check_does_not_follow_the_cpu_on_tied_residuals():
    """Two points that measure the same under a flat fitted curve have equal residuals in exact
    arithmetic; one CPU puts them 1e-11 apart one way, another the other way or not at all
    (seen in request_reply's MVA fits: Spearman p 0.30 on Haswell kernels, 0.42 on AVX-512)."""
    from types import SimpleNamespace

    fitted = np.array([20000.0, 35000.0, 41000.0, 44000.0, 45000.0, 45000.0, 45000.0, 45000.0, 45000.0, 45000.0])
    resid = np.array([-1800.0, 2600.0, -2100.0, 860.0, 177.0, -168.0, 514.0, 514.0, 687.0, 687.0])
    ps = set()
    for jitter in (0.0, 1e-11, -1e-11):
        r, f = resid.copy(), fitted.copy()
        r[7] += jitter * abs(r[7])
        r[9] -= jitter * abs(r[9])
        f[5:] += np.array([0, 1, -1, 2, -2]) * jitter * f[5:]
        fit = SimpleNamespace(resid=r, fittedvalues=f, df_resid=8, resid_at_noise_level=False)
        ps.add(diagnostics.residual_checks(fit).spread_p)
    assert len(ps) == 1, ps
