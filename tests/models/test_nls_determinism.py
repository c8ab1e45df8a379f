"""Multi-start fits give the same bits whatever order their starts run in."""

from types import SimpleNamespace

import numpy as np
import pytest

from mqperf.models import _nls, saturation, usl

KB, MB = 1024, 1024 * 1024


def _fit_all(monkeypatch, perturb: bool):
    monkeypatch.setattr(_nls, "REVERSED", perturb)
    size = np.array([4 * KB, 32 * KB, 1 * MB, 4 * MB], dtype=float)
    hill = saturation.fit(size, np.array([1.0, 2.0, 30.0, 45.0])).params.to_numpy()
    n = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    scal = usl.fit(n, np.array([995.0, 1920.0, 3400.0, 5100.0, 5600.0])).params.to_numpy()
    exact = usl.fit(n[:3], np.array([1000.0, 1900.0, 3300.0])).params.to_numpy()
    return np.concatenate([hill, scal, exact])


def test_reversed_start_order_gives_identical_parameters(monkeypatch):
    normal = _fit_all(monkeypatch, False)
    reversed_ = _fit_all(monkeypatch, True)
    assert normal.tobytes() == reversed_.tobytes(), np.column_stack([normal, reversed_])


def test_start_order_is_reversed_only_when_asked(monkeypatch):
    monkeypatch.setattr(_nls, "REVERSED", False)
    assert _nls.start_order([1, 2, 3]) == [1, 2, 3]
    monkeypatch.setenv("MQPERF_PERTURB", "1")  # the environment no longer reaches the solver
    assert _nls.start_order([1, 2, 3]) == [1, 2, 3]
    _nls.reverse_starts(True)
    try:
        assert _nls.start_order([1, 2, 3]) == [3, 2, 1]
    finally:
        _nls.reverse_starts(False)


@pytest.mark.parametrize("order", [slice(None), slice(None, None, -1)])
def test_near_tied_minima_are_decided_by_the_parameters_not_the_order(order):
    sols = [SimpleNamespace(cost=1.0 + 1e-13, x=np.array([2.0, 5.0])),
            SimpleNamespace(cost=1.0, x=np.array([3.0, 1.0])),
            SimpleNamespace(cost=1.0 + 1e-13, x=np.array([1.5, 9.0])),
            SimpleNamespace(cost=1.1, x=np.array([0.5, 0.5]))]
    best = _nls.pick_best(sols[order], scale=100.0)
    # The three within 1e-9 tie; the clearly worse 0.5 start cannot win however small its θ.
    assert best.x.tolist() == [1.5, 9.0]


def test_a_clearly_lower_cost_wins():
    sols = [SimpleNamespace(cost=2.0, x=np.array([1.0])), SimpleNamespace(cost=1.0, x=np.array([9.0]))]
    assert _nls.pick_best(sols, scale=100.0).x.tolist() == [9.0]
