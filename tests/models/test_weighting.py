"""Weights chosen from the residuals: the rule, the relatively weighted USL and the shared criterion."""

import math

import numpy as np
import pytest

from mqperf.models import bottleneck, usl, weighting

N = np.array([1, 2, 3, 4, 6, 8, 10, 12, 14, 16], dtype=float)
TRUTH = (10000.0, 0.02, 0.0005)


def noisy(kind: str, seed: int, sd: float = 0.04) -> np.ndarray:
    x = usl.throughput(N, *TRUTH)
    scale = x if kind == "proportional" else np.full_like(x, x.mean())
    return x + sd * scale * np.random.default_rng(seed).standard_normal(N.size)


def chosen(kind: str, seed: int) -> str:
    x = noisy(kind, seed)
    return weighting.choose(usl.fit(N, x), weighting.fit_usl(N, x, weights="relative")).kind


def test_the_rule_finds_proportional_noise_and_mostly_leaves_additive_noise_alone():
    # benchmarks/usl_weighting.py measures the rates on 400 datasets each (76 % and 6.5 % at 3 % noise);
    # twenty seeded ones at 4 % keep the test fast and still tell a working rule from a broken one.
    prop = [chosen("proportional", s) for s in range(20)]
    add = [chosen("additive", s) for s in range(20)]
    assert prop.count("relative") >= 12, prop
    assert add.count("relative") <= 3, add


def test_too_few_residuals_stay_unweighted_and_say_why():
    n = np.array([1.0, 2.0, 4.0, 8.0])
    x = usl.throughput(n, *TRUTH) * np.array([1.01, 0.99, 1.02, 0.98])
    plain = usl.fit(n, x)
    how = weighting.choose(plain, weighting.fit_usl(n, x, weights="relative"))
    assert how.kind == "none" and "too few residuals" in how.words


def test_the_choice_states_its_test():
    x = noisy("proportional", 3)
    how = weighting.choose(usl.fit(N, x), weighting.fit_usl(N, x, weights="relative"))
    assert "log-likelihood" in how.test and ("relative" in how.words or "unweighted" in how.words)


def test_without_noise_both_weightings_find_the_curve():
    x = usl.throughput(N, *TRUTH)
    rel = weighting.fit_usl(N, x, weights="relative")
    assert isinstance(rel, weighting.RelativeUSLResult)
    assert rel.params.to_numpy() == pytest.approx(np.array(TRUTH), rel=1e-5)
    assert weighting.fit_usl(N, x).params.to_numpy() == pytest.approx(usl.fit(N, x).params.to_numpy())


def test_relative_fit_minimises_relative_errors():
    x = noisy("proportional", 5)
    rel, plain = weighting.fit_usl(N, x, weights="relative"), usl.fit(N, x)
    assert rel.wssr <= weighting.weighted_ssr(plain, "relative") * (1 + 1e-9)
    assert plain.ssr <= rel.ssr * (1 + 1e-9)


def test_relative_prediction_band_grows_with_the_curve():
    x = noisy("proportional", 7)
    rel = weighting.fit_usl(N, x, weights="relative")
    fit = rel.predict(np.array([1.0, 16.0]))
    var = rel.new_measurement_var(fit)
    assert var[1] / var[0] == pytest.approx((fit[1] / fit[0]) ** 2)
    band = rel.pred_band(np.array([1.0, 16.0]))
    assert (band["upper"] - band["fit"]).iloc[1] > (band["upper"] - band["fit"]).iloc[0] * 5


def test_relative_fit_checks_its_residuals_as_it_weighs_them():
    x = noisy("proportional", 9)
    rel = weighting.fit_usl(N, x, weights="relative")
    pearson = rel.resid / x
    assert rel.residual_checks.made
    from scipy import stats

    assert rel.residual_checks.normal_p == pytest.approx(float(stats.shapiro(pearson).pvalue))


def test_relative_bootstrap_brackets_the_estimates():
    x = noisy("proportional", 11)
    rel = weighting.fit_usl(N, x, weights="relative")
    ci = weighting.relative_bootstrap(rel, refits=60, seed=1)
    for p in ("lam", "sigma"):
        assert ci.loc[p, "lower"] <= rel.params[p] <= ci.loc[p, "upper"]


def test_constraints_enter_the_relative_fit():
    n, x = np.array([1.0, 2.0]), np.array([28000.0, 46480.0])
    cons = [usl.Equal(4, 5, "no gain from 4 to 5")]
    rel = weighting.fit_usl(n, x, weights="relative", constraints=cons)
    assert rel.predict(np.array([4.0]))[0] == pytest.approx(rel.predict(np.array([5.0]))[0], rel=1e-6)
    assert rel.n_constraints == 1


def test_weighted_bottleneck_matches_the_plain_one_on_exact_data():
    n = np.arange(1.0, 11.0)
    x = np.minimum(1000 * n, 3500.0)
    plain, rel = bottleneck.fit(n, x), weighting.fit_bottleneck(n, x, weights="relative")
    assert rel.lam == pytest.approx(plain.lam) and rel.x_max == pytest.approx(plain.x_max)


def test_weighted_bottleneck_lowers_the_relative_sum_of_squares():
    n = np.arange(1.0, 11.0)
    x = np.minimum(1000 * n, 3500.0) * (1 + 0.05 * np.random.default_rng(2).standard_normal(n.size))
    plain, rel = bottleneck.fit(n, x), weighting.fit_bottleneck(n, x, weights="relative")
    assert weighting.weighted_ssr(rel, "relative") <= weighting.weighted_ssr(plain, "relative") * (1 + 1e-12)


def test_aicc_needs_residuals_and_points():
    x = noisy("additive", 1)
    res = usl.fit(N, x)
    k = res.df_model + 1
    expected = N.size * math.log(res.ssr / N.size) + 2 * k + 2 * k * (k + 1) / (N.size - k - 1)
    assert weighting.aicc(res) == pytest.approx(expected)
    assert math.isnan(weighting.aicc(usl.fit(N[:4], x[:4])))  # n ≤ K + 1
    exact = usl.fit(N[:3], usl.throughput(N[:3], *TRUTH))
    assert math.isnan(weighting.aicc(exact))  # no residual


def test_unknown_weights_are_refused():
    from mqperf.errors import ModelError

    with pytest.raises(ModelError, match="weights"):
        weighting.fit_usl(N, noisy("additive", 1), weights="inverse")


def test_a_relatively_weighted_fit_is_checked_on_relative_errors():
    from mqperf.models import latency_bandwidth as lb

    kb = np.array([1.0, 4.0, 16.0, 64.0, 256.0, 1024.0])
    rate = 1 / (30e-6 + kb * 1024 / (150 * 1024**2)) * (1 + 0.03 * np.random.default_rng(3).standard_normal(6))
    plain = lb.fit(kb * 1024, rate)
    checked = weighting.relatively_checked(plain)
    assert isinstance(checked, type(plain)) and checked.params.equals(plain.params)
    from mqperf.models.diagnostics import residual_checks

    from scipy import stats

    # Raw residuals grow with the rate by design (equal relative errors); the check reads the
    # relative ones, as residual_checks does for a weighted fit, and not the raw ones.
    raw = float(stats.spearmanr(np.abs(checked.resid), checked.fittedvalues).pvalue)
    assert checked.residual_checks.spread_p != pytest.approx(raw)
    assert checked.residual_checks.spread_p == pytest.approx(residual_checks(plain).spread_p)
    relative = np.abs(checked.resid / checked.y)

    assert checked.residual_checks.spread_p == pytest.approx(
        float(stats.spearmanr(relative, checked.fittedvalues).pvalue))
    # An unweighted fit is left as it is.
    flat = lb.fit(kb * 1024, rate, weights="none")
    assert weighting.relatively_checked(flat) is flat


def skewed(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Relative errors from a skewed law (5 % exponential, centred): a relatively weighted fit's
    residual checks fail, so its interval is the bootstrap of relative errors."""
    n = np.repeat(np.arange(1, 13, dtype=float), 2)
    rng = np.random.default_rng(seed)
    return n, usl.throughput(n, 1000, 0.03, 0.001) * (1 + 0.05 * (rng.exponential(1, n.size) - 1))


@pytest.mark.parametrize("seed", [0, 1, 12])
def test_a_relative_fit_that_fails_its_checks_is_widened_to_the_t_interval_as_its_card_says(seed):
    """The bootstrap of relative errors alone is narrower than the t interval here (for λ and σ at
    least); the reported interval covers both, as every other bootstrap interval does."""
    rel = weighting.fit_usl(*skewed(seed), weights="relative")
    assert not rel.residual_checks.passed
    boot = weighting.relative_bootstrap(rel)
    wald, ci = rel._wald(0.05), rel.conf_int()
    assert (boot.loc[["lam", "sigma"], "lower"] > wald.loc[["lam", "sigma"], "lower"]).any()
    held = wald["lower"].isna()  # κ held on its bound: no t interval to cover
    assert (ci["lower"] <= wald["lower"])[~held].all() and (ci["upper"] >= wald["upper"])[~held].all()
    free = boot["lower"].notna()
    assert (ci["lower"] <= boot["lower"])[free].all() and (ci["upper"] >= boot["upper"])[free].all()
    method = rel.interval_method
    assert method.startswith("bootstrap of the relative errors (weights 1/y²), 199 refits,")
    assert "widened where narrower to the t interval" in method and "Pearson residuals" in method


def test_the_relative_bootstrap_refits_within_the_usl_box(monkeypatch):
    """The relatively weighted USL solves with sigma and kappa in [0, 1], and so does each refit."""
    from mqperf.models import refits

    real, boxes = refits.refit_all, []

    def recorded(fn, x, ys, scales, theta0, free, lower, upper, start, **kwargs):
        boxes.append(([list(result.params.index)[i] for i in free], np.array(lower), np.array(upper)))
        return real(fn, x, ys, scales, theta0, free, lower, upper, start, **kwargs)

    monkeypatch.setattr(refits, "refit_all", recorded)
    result = weighting.fit_usl(*skewed(0), weights="relative")
    weighting.relative_bootstrap(result)
    names, lower, upper = boxes[-1]
    assert (lower == 0).all()
    assert dict(zip(names, upper.tolist())) == {n: {"lam": np.inf, "sigma": 1.0, "kappa": 1.0}[n] for n in names}
