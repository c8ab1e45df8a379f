"""TLS renegotiation amortisation: cost = enc(s) + H·s/SSLRKEYC."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import tls

KB, MB = 1024, 1024 * 1024


def test_handshake_cost_from_seed_002_ratios():
    # Seed 002: renegotiating every 1 MB raised channel-initiator cost per message 2.5x for
    # 10 KB messages and "nearly 6x" for 1 MB messages. Solved by hand:
    # 1 MB: 6 = 1 + H/enc(1 MB)                  -> H = 5 enc(1 MB)
    # 10 KB: 2.5 = 1 + H (10 KB / 1 MB)/enc(10 KB) -> H = 1.5 x 102.4 enc(10 KB) = 153.6 enc(10 KB)
    assert_allclose(tls.handshake_cost_from_ratio(6, 1 * MB, 1 * MB), 5.0, rtol=1e-12)
    assert_allclose(tls.handshake_cost_from_ratio(2.5, 10 * KB, 1 * MB), 153.6, rtol=1e-12)
    # With MB = 10^6 bytes and KB = 10^3 the 10 KB case gives 1.5 x 100 = 150: the unit matters by 2.4 %.
    assert_allclose(tls.handshake_cost_from_ratio(2.5, 10_000, 1_000_000), 150.0, rtol=1e-12)


def test_cost_per_message_reproduces_the_ratio_it_was_solved_from():
    enc = 40.0
    h = tls.handshake_cost_from_ratio(2.5, 10 * KB, 1 * MB, enc=enc)
    cost = tls.cost_per_message(10 * KB, enc=enc, handshake_cost=h, sslrkeyc=1 * MB)
    assert_allclose(cost / enc, 2.5, rtol=1e-12)


def test_enc_may_be_a_function_of_size():
    enc = lambda s: 10.0 + s / 1e4  # noqa: E731
    sizes = np.array([1 * KB, 1 * MB])
    cost = tls.cost_per_message(sizes, enc=enc, handshake_cost=100.0, sslrkeyc=1 * MB)
    assert_allclose(cost, enc(sizes) + 100.0 * sizes / MB, rtol=1e-12)


def test_sslrkeyc_zero_disables_renegotiation_and_small_values_act_as_32kb():
    assert tls.cost_per_message(1 * MB, enc=5.0, handshake_cost=1e6, sslrkeyc=0) == 5.0
    # MQ treats 1 byte .. 32 KB as 32 KB (IBM docs, "Resetting SSL and TLS secret keys").
    assert_allclose(tls.renegotiations_per_message(64 * KB, 1000), 2.0, rtol=1e-12)
    assert_allclose(tls.renegotiations_per_message(64 * KB, 64 * KB), 1.0, rtol=1e-12)


def test_sslrkeyc_for_overhead_meets_the_target():
    h, enc, size = 5.0, 1.0, 1 * MB  # H = 5 enc(1 MB), seed 002
    k = tls.sslrkeyc_for_overhead(0.05, size, enc=enc, handshake_cost=h)
    assert_allclose(k, 100 * MB, rtol=1e-12)  # 5 x 1 MB / 0.05
    assert_allclose(tls.overhead_fraction(size, enc=enc, handshake_cost=h, sslrkeyc=k), 0.05, rtol=1e-12)


def test_target_beyond_the_largest_sslrkeyc_is_refused():
    with pytest.raises(ModelError, match="maximum"):
        tls.sslrkeyc_for_overhead(1e-4, 1 * MB, enc=1.0, handshake_cost=500.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tls.handshake_cost_from_ratio(0.8, 10 * KB, MB),
        lambda: tls.handshake_cost_from_ratio(2.0, 10 * KB, 0),
        lambda: tls.handshake_cost_from_ratio(2.0, 0, MB),
        lambda: tls.handshake_cost_from_ratio(2.0, 10 * KB, MB, enc=0),
        lambda: tls.cost_per_message(-1, enc=1.0, handshake_cost=1.0, sslrkeyc=MB),
        lambda: tls.cost_per_message(KB, enc=0.0, handshake_cost=1.0, sslrkeyc=MB),
        lambda: tls.renegotiations_per_message(KB, -5),
        lambda: tls.sslrkeyc_for_overhead(0, KB, enc=1.0, handshake_cost=1.0),
    ],
)
def test_bad_input_raises_model_error(call):
    with pytest.raises(ModelError):
        call()


def test_two_ratios_at_two_sizes_are_solved_exactly():
    # Seed 002 with "nearly 6x" read as 5.5: in exact rational arithmetic, hᵢ = (rᵢ − 1)·K/sᵢ
    # and 1/h = 1/a + s/(a·s0) through both points give a = 4563/20 = 228.15, a tie at four
    # digits: an optimiser stopped at its default tolerance printed 228.1 or 228.2.
    from fractions import Fraction as F

    s, k, r = [F(10 * KB), F(MB)], F(MB), [F(5, 2), F(11, 2)]
    inv_h = [si / ((ri - 1) * k) for si, ri in zip(s, r)]
    beta = (inv_h[1] - inv_h[0]) / (s[1] - s[0])
    alpha = inv_h[0] - beta * s[0]
    a, s0 = tls.size_model_from_two([10 * KB, MB], [MB, MB], [2.5, 5.5])
    assert a == pytest.approx(float(1 / alpha), rel=4e-16)
    assert s0 == pytest.approx(float(alpha / beta), rel=4e-16)
    ratio = 1 + a * (np.array([10 * KB, MB]) / MB) / (1 + np.array([10 * KB, MB]) / s0)
    assert_allclose(ratio, [2.5, 5.5], rtol=1e-15)


def test_two_ratios_without_a_positive_solution_are_left_to_the_bounded_fit():
    # The ratio per renegotiation grows with size: no s0 > 0 makes enc grow that way.
    assert tls.size_model_from_two([10 * KB, MB], [MB, MB], [1.01, 9.0]) is None
    assert tls.size_model_from_two([10 * KB, MB], [MB, MB], [1.0, 6.0]) is None
    assert tls.size_model_from_two([MB, MB], [MB, MB], [2.0, 6.0]) is None


# -- identification and intervals (issue 21) --------------------------------------------------------------


def _grid(a, s0, sizes, keys, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    x = np.array([(s, k) for s in sizes for k in keys], dtype=float)
    y = 1 + a * (x[:, 0] / np.maximum(x[:, 1], 32 * KB)) / (1 + x[:, 0] / s0)
    if noise:
        y = np.maximum(y * rng.lognormal(0, noise, y.size), 1.0)
    return x, y


def test_every_ratio_one_leaves_s0_unknown():
    # Issue 21: every ratio 1 once gave s0 ≈ 243,000 bytes. With no renegotiation seen, s0 means nothing.
    x, y = _grid(0.0, 200 * KB, [4 * KB, 32 * KB, MB], [MB, 10 * MB])
    res = tls.fit_renegotiation(x, y)
    assert not res.renegotiation_seen
    assert np.isnan(res.conf_int().loc["s0"]).all()


def test_a_flat_direction_gets_no_zero_width_interval():
    # s0 far above every size: a bootstrap whose refits never move s0 would call it known to the byte; the
    # interval also covers the Wald one, which says the data cannot tell it.
    x, y = _grid(30.0, 1e12, [KB, 4 * KB, 16 * KB], [256 * KB, MB, 10 * MB], noise=0.02)
    res = tls.fit_renegotiation(x, y)
    lo, hi = res.conf_int().loc["s0"]
    from mqperf.models import evidence

    assert not evidence.identified(lo, hi)


def test_h_interval_covers_the_truth_and_fits_are_weighted():
    # Over 40 datasets with 2 % relative noise, the 95 % interval of H / enc(s) holds the truth about 95 % of
    # the time (at least 90 % here, at three sizes: one inside, two at the edges of the sizes measured).
    a, s0 = 25.0, 200 * KB
    covered = total = 0
    for seed in range(40):
        x, y = _grid(a, s0, [4 * KB, 32 * KB, MB], [256 * KB, MB, 10 * MB], noise=0.02, seed=seed)
        res = tls.fit_renegotiation(x, y)
        assert any("1/y²" in n for n in res.notes)
        assert_allclose(res.weights, 1 / y**2)
        for s in (4 * KB, 64 * KB, MB):
            h, lo, hi = res.h_interval(s)
            assert h == pytest.approx(res.handshake / float(res.enc(s)))
            covered += lo <= a / (1 + s / s0) <= hi
            total += 1
    assert covered / total >= 0.9


def test_the_renegotiation_gradient_is_the_curves_derivative():
    from mqperf.models import _base

    x = np.array([[1024, 32768], [4096, 1048576], [32768, 10485760], [1048576, 1048576], [65536, 1024]], dtype=float)
    for theta in ([3.0, 1e4], [0.2, 1e6], [40.0, 50.0]):
        numeric = _base.jacobian(lambda t: tls._ratio_two(x, *t), np.array(theta))
        assert_allclose(tls._ratio_two_gradient(x, *theta), numeric, rtol=1e-5, atol=1e-9)


def test_refits_with_the_gradient_reach_the_refits_without_it():
    """The bootstrap's least_squares fallback takes the closed-form Jacobian: same refits, fewer evaluations."""
    from mqperf.models import refits

    x = np.array([[s, k] for s in (1024, 32768, 1048576) for k in (32768, 1048576, 10485760)], dtype=float)
    rng = np.random.default_rng(3)
    y = tls._ratio_two(x, 2.5, 2e4) * (1 + 0.02 * rng.standard_normal(len(x)))
    theta0, free = np.array([2.5, 2e4]), [0, 1]
    args = (x, y, np.ones_like(y), theta0, free, np.zeros(2), np.full(2, np.inf), theta0, False)
    with_grad = refits._one(tls._ratio_two, *args, tls._ratio_two_gradient)
    without = refits._one(tls._ratio_two, *args)
    assert with_grad is not None and without is not None
    assert_allclose(with_grad, without, rtol=1e-5)


def _flat_fit():
    """Every ratio the same (1.863) at three sizes and three SSLRKEYC values: the curve cannot follow them."""
    x = np.array([(s, k) for s in (4 * KB, 32 * KB, MB) for k in (MB, 10 * MB, 100 * MB)], dtype=float)
    res = tls.fit_renegotiation(x, np.full(len(x), 1.863))
    assert not res.residual_checks.passed
    return res


def test_the_refits_solve_within_the_fits_own_box(monkeypatch):
    """The bootstrap refits the fit's problem, s0 within [1, 1e15] as the fit solved it. Let below 1,
    the refits of the flat ratios crept along s0 → 0 (a·s0 fixed) for their whole iteration budget:
    95 of 199 were dropped, after 4 s of least_squares."""
    from mqperf.models import refits

    real, made = refits.refit_all, []

    def recorded(*args, **kwargs):
        made.extend(real(*args, **kwargs))
        return made

    monkeypatch.setattr(refits, "refit_all", recorded)
    res = _flat_fit()
    assert res.interval_method.startswith("bootstrap of the weighted residuals, 199 refits, percentile")
    assert len(made) == 199 and all(theta is not None for theta in made)
    s0 = np.array([theta[1] for theta in made])
    assert (s0 >= tls.TWO_LOWER[1]).all() and (s0 <= tls.TWO_UPPER[1]).all()


@pytest.mark.parametrize("dropped", [40, 120])
def test_an_interval_from_the_refits_that_converged_says_how_many(monkeypatch, dropped):
    """Refits that did not converge are left out: the method says how many the interval rests on,
    and with fewer than half there is no bootstrap interval (the Wald one stands)."""
    from mqperf.models import refits

    real = refits.refit_all
    monkeypatch.setattr(refits, "refit_all", lambda *a, **k: [None if i < dropped else t
                                                                for i, t in enumerate(real(*a, **k))])
    res = _flat_fit()
    method = res.interval_method
    assert method.startswith(f"bootstrap of the weighted residuals, 199 refits, {'of which' if dropped < 100 else 'of which only'} "
                             f"{199 - dropped} converged")
    boot = res._bootstrap_interval(0.05)
    assert boot.attrs["refits"] == (199 - dropped, 199)
    assert boot.notna().all().all() == (dropped < 199 / 2)
