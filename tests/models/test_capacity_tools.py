"""USL overhead decomposition and Little's-law consistency check."""

import numpy as np
import pytest

from mqperf.errors import ModelError
from mqperf.models import queueing, usl


@pytest.mark.parametrize("sigma, kappa", [(0.0, 0.0), (0.05, 0.0), (0.02, 0.0004), (0.3, 0.01)])
def test_overhead_parts_add_up_to_the_relative_processing_time(sigma, kappa):
    n = np.array([1, 2, 4, 8, 16, 64])
    parts = usl.overhead(n, sigma, kappa)
    lam = 1000.0
    total = parts[["ideal", "contention", "coherency"]].sum(axis=1).to_numpy()
    np.testing.assert_allclose(total, lam / usl.throughput(n, lam, sigma, kappa), rtol=1e-12)
    assert parts.iloc[0].tolist()[1:] == [1.0, 0.0, 0.0]  # one unit: all ideal, no overhead


def test_overhead_against_r_usls_convention():
    # R's usl::overhead writes coherency as kappa_R (N-1)/2, its kappa_R being twice ours.
    n, kappa = np.array([3.0, 10.0]), 0.001
    np.testing.assert_allclose(usl.overhead(n, 0.1, kappa)["coherency"], (2 * kappa) * 0.5 * (n - 1))
    with pytest.raises(ValueError):
        usl.overhead([0.5], 0.1, 0.0)


def test_littles_law_flags_rows_that_disagree():
    check = queueing.littles_law_check([10, 10, 20], [100.0, 100.0, 100.0], [0.1, 0.05, 0.2], 0.0, tolerance=0.1)
    assert check["implied"].tolist() == pytest.approx([10.0, 5.0, 20.0])
    assert check["consistent"].tolist() == [True, False, True]
    with_think = queueing.littles_law_check([10], [50.0], [0.1], [0.1])
    assert bool(with_think["consistent"].iloc[0])
    with pytest.raises(ModelError, match="tolerance"):
        queueing.littles_law_check([1], [1.0], [1.0], tolerance=0)
    with pytest.raises(ModelError, match="concurrency must be > 0"):
        queueing.littles_law_check([0], [1.0], [1.0])
