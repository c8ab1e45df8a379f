"""The USL's closed-form gradient, which the solver and the covariance use instead of finite differences."""

import numpy as np
from scipy.optimize import approx_fprime

from mqperf.models import usl


def test_the_closed_form_gradient_is_the_derivative():
    n = np.array([1.0, 2.0, 5.0, 12.0, 40.0])
    theta = np.array([1234.0, 0.07, 0.0011])
    analytic = usl.gradient(n, *theta)
    for i, ni in enumerate(n):
        numeric = approx_fprime(theta, lambda t: float(usl.throughput(ni, *t)), epsilon=theta * 1e-7)
        np.testing.assert_allclose(analytic[i], numeric, rtol=1e-4, atol=1e-9)


def test_fits_with_the_gradient_match_finite_differences():
    """The same minimum either way: the gradient changes the speed, not the answer."""
    from mqperf.models import _nls

    rng = np.random.default_rng(5)
    n = np.arange(1, 13, dtype=float)
    x = usl.throughput(n, 900, 0.04, 0.003) * (1 + rng.normal(0, 0.02, n.size))
    fast = usl.fit(n, x)
    calls = []
    real = _nls.solve

    def without_gradient(*args, **kwargs):
        calls.append(kwargs.pop("jac", None))
        return real(*args, **kwargs)

    _nls_solve, usl.solve = usl.solve, without_gradient
    try:
        slow = usl.fit(n, x)
    finally:
        usl.solve = _nls_solve
    assert calls and calls[0] is not None
    # Finite differences stop the solver about 1e-7 (relative) short of the exact minimum.
    np.testing.assert_allclose(fast.params.to_numpy(), slow.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(fast.bse.to_numpy(), slow.bse.to_numpy(), rtol=1e-5)
