"""USL against the coefficients established implementations publish (../shared/reference-data).

Sources are in usl_published.md: R package usl 3.0.x (nlxb, bounded 3-parameter least
squares, no normalisation) for specsdm91 and raytracer; the Cisco values from
Schwartz's e-book that usl4j, the Go and the Rust ports test against.
"""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import usl


@pytest.fixture(scope="module")
def ref(reference_dir):
    return lambda name: pd.read_csv(reference_dir / name)


def test_specsdm91_matches_r_usl(ref):
    d = ref("usl_specsdm91.csv")
    r = usl.fit(d["load"], d["throughput"])
    # R prints 7 decimals (usl-nlxb.Rout.save): agree to the printed precision.
    assert_allclose(r.sigma, 0.0277285, atol=5e-7)
    assert_allclose(r.kappa, 0.0001044, atol=5e-8)
    assert_allclose(r.lam, 89.9952304, rtol=1e-5)
    assert_allclose(r.bse[["sigma", "kappa", "lam"]].to_numpy(), [0.0091217, 0.0000199, 14.2134888], rtol=5e-3)
    assert_allclose(r.rmse, 82.85, atol=5e-3)  # summary.Rout.save: residual std. error 82.85 on 4 df
    assert r.df_resid == 4
    assert_allclose(r.peak_n(), 96.51956, rtol=1e-4)  # peak.scalability, all.equal tol 1e-4
    assert_allclose(r.peak_x(), 1884, atol=0.5)  # summary bounds, 4 significant digits
    assert_allclose(r.peak_n(sigma=0.001, kappa=1e-5), 316.0696, rtol=1e-4)  # what-if override
    assert_allclose(r.efficiency(), [0.7211, 0.6148, 0.5100, 0.2860, 0.1882, 0.1370, 0.0876], atol=5e-5)
    assert_allclose(r.fittedvalues, [90, 1078, 1541, 1850, 1879, 1822, 1646], atol=0.5)


def test_cisco_matches_book_values(ref):
    d = ref("usl_cisco_schwartz.csv")
    r = usl.fit(d["concurrency"], d["throughput"])
    # The ports check these to 1e-5 relative (usl4j: 0.02 %).
    assert_allclose([r.sigma, r.kappa, r.lam], [0.02671591, 7.690945e-4, 995.6486], rtol=1e-5)
    assert math.floor(r.peak_n()) == 35


def test_raytracer_kappa_on_bound(ref):
    d = ref("usl_raytracer.csv")
    r = usl.fit(d["processors"], d["throughput"])
    assert_allclose([r.sigma, r.lam], [0.0578, 21.8488], atol=5e-4)  # usl 2.0.0 confint.Rout.save
    assert r.kappa == 0.0 and "kappa" in r.at_bound
    assert any("kappa is on its bound" in n for n in r.notes)
    assert math.isinf(r.peak_n())


def test_raytracer_first_six_rows(ref):
    d = ref("usl_raytracer.csv").head(6)
    r = usl.fit(d["processors"], d["throughput"])
    # confint.Rout.save @3.0.3 prints 5 significant digits.
    assert_allclose(r.sigma, 0.02444, atol=5e-6)
    assert_allclose(r.kappa, 0.00163, atol=5e-6)
    assert_allclose(r.lam, 20.85605, atol=5e-5)


def test_synthetic_reference(ref):
    d = ref("usl_synthetic_alpha002_beta002.csv")
    r = usl.fit(d["load"], d["tput"])
    assert_allclose([r.sigma, r.kappa, r.lam], [0.02, 0.02, 1.0], atol=5e-4)  # data rounded to 4 decimals


@pytest.mark.parametrize("sigma,kappa,lam", [(0.05, 0.002, 1000.0), (0.3, 0.0, 50.0), (0.01, 0.03, 7.5)])
def test_recovers_known_parameters_from_noisy_data(sigma, kappa, lam):
    rng = np.random.default_rng(20261121)
    n = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32], dtype=float)
    x = usl.throughput(n, lam, sigma, kappa) * (1 + rng.normal(0, 0.01, n.size))
    r = usl.fit(n, x)
    for name, true in (("sigma", sigma), ("kappa", kappa), ("lam", lam)):
        if name in r.at_bound:
            assert true == 0.0
            continue
        # Three standard errors: a single draw must not fail by chance (coverage is tested below).
        assert abs(r.params[name] - true) <= 3 * r.bse[name], (name, r.params[name], r.bse[name])
    assert_allclose(r.lam, lam, rtol=0.03)


@pytest.mark.slow  # a rate estimated over many simulated data sets: see SLOW in tests/conftest.py
def test_interval_coverage_is_honest():
    """Over many noisy data sets, the 95 % intervals hold the true value about 95 % of the time."""
    rng = np.random.default_rng(7)
    n = np.array([1, 2, 3, 4, 6, 8, 12, 16], dtype=float)
    truth = {"lam": 1000.0, "sigma": 0.05, "kappa": 0.002}
    hits = {k: 0 for k in truth}
    runs = 300
    for _ in range(runs):
        # Additive noise of constant variance: what unweighted least squares assumes.
        x = usl.throughput(n, **truth) + rng.normal(0, 80, n.size)
        ci = usl.fit(n, x).conf_int()
        for k, v in truth.items():
            hits[k] += ci.loc[k, "lower"] <= v <= ci.loc[k, "upper"]
    for k, h in hits.items():
        # Binomial(300, 0.95) lies in [0.91, 0.985] with probability > 0.999; Wald intervals
        # of a nonlinear model may be a little liberal, hence the lower end.
        assert 0.88 <= h / runs <= 0.99, (k, h / runs)


def test_exactly_identified_has_no_interval():
    r = usl.fit([1, 2, 4], [33767, 35056, 30592])
    assert r.df_resid == 0 and r.exactly_identified
    assert r.bse.isna().all() and r.conf_int().isna().all().all()
    assert_allclose(r.fittedvalues, [33767, 35056, 30592], rtol=1e-8)
    assert r.conf_band([1, 2, 3])["lower"].isna().all()


def test_constraint_counts_as_an_equation():
    # Source connector: 28,000 at 1 task, +66 % at 2, no gain from 4 to 5: solvable by hand,
    # sigma + 2 kappa = 56000/46480 - 1 and sigma + 20 kappa = 1.
    r = usl.fit([1, 2], [28000, 46480], constraints=[usl.Equal(4, 5)])
    kappa = (1 - (56000 / 46480 - 1)) / 18
    assert_allclose([r.kappa, r.sigma], [kappa, 1 - 20 * kappa], rtol=1e-6)
    assert r.exactly_identified
    assert_allclose(r.predict([4])[0], r.predict([5])[0], rtol=1e-8)


def test_amdahl_is_the_kappa_zero_case():
    n = np.array([1, 2, 4, 8, 16.0])
    x = usl.amdahl(n, 100, 0.1)
    r = usl.fit(n, x, amdahl_only=True)
    assert_allclose([r.lam, r.sigma], [100, 0.1], rtol=1e-6)
    assert r.kappa == 0 and "kappa" not in r.params
    assert_allclose(r.peak_x(), 1000, rtol=1e-6)  # lambda / sigma


def test_bottleneck_shows_as_sigma_at_its_bound():
    # Throughput that falls from the first step is beyond USL with sigma <= 1.
    r = usl.fit([1, 2, 3, 4], [100, 60, 45, 36])
    assert "sigma" in r.at_bound
    assert any("bottleneck" in n for n in r.notes)


@pytest.mark.parametrize("n,x,match", [
    ([1, 2], [10, 18], "at least 3"),
    ([2, 2, 2], [10, 11, 12], "at least 3 distinct"),
    ([0, 1, 2], [1, 2, 3], "greater than zero"),
    ([1, 2, 3], [1, -2, 3], "greater than zero"),
    ([1, 2, 3], [1, float("nan"), 3], "missing"),
    ([1, 2, 3], [1, 2], "3 values but throughput has 2"),
    ([0.5, 1, 2], [1, 2, 3], "at least 1"),
])
def test_bad_input_is_a_model_error(n, x, match):
    with pytest.raises(ModelError, match=match):
        usl.fit(n, x)


def test_n_for_rate_and_marginal_gain():
    r = usl.fit([1, 2, 4, 8], usl.throughput(np.array([1, 2, 4, 8]), 100, 0.1, 0.01))
    assert r.n_for_rate(300) == int(np.argmax(usl.throughput(np.arange(1, 50), 100, 0.1, 0.01) >= 300) + 1)
    assert r.n_for_rate(1e9) is None
    assert r.marginal_gain([20])[0] < 0  # past the peak sqrt(0.9/0.01) = 9.5


def test_card_is_json_ready():
    import json

    card = usl.fit([1, 2, 4, 8], [100, 180, 300, 420]).to_card(dataset="synthetic")
    text = json.dumps(card)
    assert '"formula"' in text and card["fit"]["df_resid"] == 1
    assert set(card["parameters"]) == {"lam", "sigma", "kappa"}
