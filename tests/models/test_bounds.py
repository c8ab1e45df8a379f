"""Fits that end on a bound the data press them against: fixed there, not "exactly identified".

A parameter on an active bound is not estimated, so it takes no degree of freedom: three
points for the USL with sigma held at 0 leave one residual degree of freedom, a noise
estimate, and intervals for lambda and kappa (none for sigma).
"""

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import curve_fit

from mqperf.chapters.ims_bridge import fits as ims
from mqperf.data import views
from mqperf.models import saturation, usl
from mqperf.models import _nls

# Per-unit rate rises from 1 to 2 and falls by 4: the USL wants sigma < 0 with kappa > 0.
SUPER_N = np.array([1.0, 2.0, 4.0])
SUPER_X = np.array([100.0, 205.0, 330.0])

KB, MB = 1024, 1024 * 1024
SIZES = np.array([4 * KB, 32 * KB, 1 * MB], dtype=float)


def test_usl_with_sigma_pressed_to_zero_has_one_degree_of_freedom():
    r = usl.fit(SUPER_N, SUPER_X)
    assert r.sigma == 0.0 and r.active_bounds == ("sigma",)
    assert r.df_resid == 1 and r.ssr > 1.0
    assert not r.exactly_identified
    ci = r.conf_int()
    assert ci.loc["sigma"].isna().all()
    assert np.isfinite(ci.loc[["lam", "kappa"]].to_numpy()).all()
    assert "on a bound" in r.identification and "1 residual degree of freedom" in r.identification
    assert any("super-linear" in n and "fixed" in n for n in r.notes)
    assert not any("exactly identified" in n for n in r.notes)


def test_free_parameters_get_the_covariance_of_the_fit_with_the_bound_held():
    # Independent check: the two-parameter model with sigma = 0, fitted by scipy's curve_fit
    # (whose covariance is s² (JᵀJ)⁻¹ with s² = SSR / (n − 2)), gives the same errors.
    r = usl.fit(SUPER_N, SUPER_X)

    def sigma_zero(n, lam, kappa):
        return lam * n / (1 + kappa * n * (n - 1))

    popt, pcov = curve_fit(sigma_zero, SUPER_N, SUPER_X, p0=[100.0, 0.01])
    assert_allclose([r.lam, r.kappa], popt, rtol=1e-5)
    assert_allclose(r.bse[["lam", "kappa"]].to_numpy(), np.sqrt(np.diag(pcov)), rtol=1e-3)
    band = r.conf_band([1.0, 3.0, 6.0])
    assert np.isfinite(band[["lower", "upper"]].to_numpy()).all()
    assert (band["lower"] < band["fit"]).all() and (band["fit"] < band["upper"]).all()


def test_card_says_the_parameter_is_fixed_by_its_bound():
    card = json.loads(json.dumps(usl.fit(SUPER_N, SUPER_X).to_card(dataset="synthetic")))
    assert card["parameters"]["sigma"]["fixed_by_bound"] is True
    assert card["parameters"]["sigma"]["ci95"] == [None, None]
    assert card["parameters"]["kappa"]["fixed_by_bound"] is False and None not in card["parameters"]["kappa"]["ci95"]
    assert card["fit"]["df_resid"] == 1 and card["fit"]["exactly_identified"] is False
    assert card["fit"]["identification"].startswith("on a bound")


def test_exact_three_point_fit_on_a_bound_stays_exactly_identified():
    # Amdahl data (kappa = 0) through three points: kappa ends on 0 but the curve goes through
    # every point, so nothing presses it there and no degree of freedom is left.
    n = np.array([1.0, 2.0, 4.0])
    r = usl.fit(n, usl.throughput(n, 100.0, 0.1, 0.0))
    assert "kappa" in r.at_bound and r.active_bounds == ()
    assert r.df_resid == 0 and r.exactly_identified
    assert r.identification.startswith("exactly identified")
    assert r.conf_int().isna().all().all()


def test_hill_plateau_pressed_against_its_cap():
    r = saturation.fit(SIZES, [7.0, 26.0, 90.0], y_max_upper=60.0)
    assert r.y_max == pytest.approx(60.0) and r.active_bounds == ("y_max",)
    assert r.df_resid == 1 and not r.exactly_identified
    ci = r.conf_int()
    assert ci.loc["y_max"].isna().all() and np.isfinite(ci.loc[["ln_s50", "h"]].to_numpy()).all()
    assert "on a bound" in r.identification


def test_hill_midpoint_at_the_edge_of_its_search_range_is_not_exact():
    # zEDC throughput gain without 4 MB: the curve wants s50 beyond any bound (the chapter's
    # leave-one-out refits with plateaus of 1,116 % and 1,387 % were of this kind).
    r = saturation.fit(SIZES, [1.0, 2.0, 30.0])
    assert r.active_bounds == ("ln_s50",) and r.ssr > 0.01
    assert r.df_resid == 1 and not r.exactly_identified
    assert np.isnan(r.bse["ln_s50"]) and all(np.isnan(v) for v in r.s50_conf_int())


def test_ims_bridge_usl_on_the_book_data_is_not_exactly_identified():
    fits = ims.fit_all(ims.points(views.open("ims_bridge_rates", "ims_bridge")))
    r = fits["usl"]["IMS V13 tuned"].result
    # 11,000 / 3, 19,000 / 6, 21,400 / 9 CPUs: three points and sigma held at 0.
    assert r.nobs == 3 and r.active_bounds == ("sigma",)
    assert r.df_resid == 1 and not r.exactly_identified and r.ssr > 1000
    assert not r.to_card()["fit"]["exactly_identified"]
    assert np.isfinite(r.conf_int().loc[["lam", "kappa"]].to_numpy()).all()


@pytest.mark.parametrize("fitter", [
    lambda: usl.fit(SUPER_N, SUPER_X),
    lambda: saturation.fit(SIZES, [1.0, 2.0, 30.0]),
    lambda: saturation.fit(SIZES, [7.0, 26.0, 90.0], y_max_upper=60.0),
])
def test_active_set_does_not_depend_on_start_order(fitter, monkeypatch):
    monkeypatch.setattr(_nls, "REVERSED", False)
    a = fitter()
    monkeypatch.setattr(_nls, "REVERSED", True)
    b = fitter()
    assert a.active_bounds == b.active_bounds and a.df_resid == b.df_resid
    assert a.params.to_numpy().tobytes() == b.params.to_numpy().tobytes()
    assert a.bse.to_numpy().tobytes() == b.bse.to_numpy().tobytes()
