"""Validation helpers (leave-one-out, held-out points) and the shared weighted-fit machinery."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import batching, bottleneck, latency_bandwidth
from mqperf.models._nls import resolve_weights
from mqperf.models.validation import holdout, leave_one_out


def test_leave_one_out_refits_without_each_point():
    b = np.array([1.0, 2.0, 5.0, 10.0])
    y = 140 + 350 / b
    table = leave_one_out(batching.fit_log_bytes, b, y)
    # Exact data: every refit recovers the line, so every left-out point is predicted exactly.
    assert_allclose(table["predicted"], y, rtol=1e-8)
    assert (table["note"] == "").all()


def test_leave_one_out_reports_refits_the_data_cannot_support():
    table = leave_one_out(bottleneck.fit, [1.0, 2.0], [100.0, 150.0])
    assert table["predicted"].isna().all()
    assert table["note"].str.contains("at least 2 distinct").all()


def test_holdout_error_is_relative_to_the_measurement():
    res = latency_bandwidth.fit([1024, 32768], [28776, 3750])
    table = holdout(res, [10240], [10030])
    pred = 1 / (res.a + 10240 / res.bandwidth)
    assert_allclose(table["error_pct"].iloc[0], (pred - 10030) / 10030 * 100, rtol=1e-12)


def test_weighted_result_reports_both_scales_on_the_card():
    rng = np.random.default_rng(9)
    size = np.geomspace(1024, 1 << 20, 6)
    rate = 1 / (3e-5 + size / 1.2e8) * (1 + 0.01 * rng.standard_normal(size.size))
    card = latency_bandwidth.fit(size, rate).to_card()
    assert card["fit"]["wrmse"] == pytest.approx(0.01, rel=0.6)  # relative error put in: 1 %
    assert card["fit"]["rmse"] > 1  # in messages per second
    assert card["derived"]["s_half"] > 0


def test_resolve_weights():
    y = np.array([1.0, 2.0, 4.0])
    assert_allclose(resolve_weights("relative", y)[0], [1.0, 0.25, 0.0625])
    assert_allclose(resolve_weights("none", y)[0], 1.0)
    assert_allclose(resolve_weights([1, 2, 3], y)[0], [1, 2, 3])
    for bad in ([1, 2], [1, 0, 1], "abs"):
        with pytest.raises(ModelError):
            resolve_weights(bad, y)


def test_every_fitted_model_card_is_json_ready():
    import json

    import pandas as pd

    from mqperf.models import contention, costs, saturation

    results = [
        bottleneck.fit([1, 2, 3, 4], [100, 190, 240, 250]),
        latency_bandwidth.fit([1024, 10240, 32768], [28776, 10030, 3750]),
        batching.fit_throughput([1, 10, 100], [2500, 15000, 27000]),
        batching.fit_log_bytes([1, 10], [492, 178]),
        contention.fit([4, 5], [293, 449]),
        costs.fit(pd.DataFrame({"f": ["a", "b", "a", "b"], "y": [1.0, 2.0, 1.1, 2.1]}), "y ~ C(f)"),
        saturation.fit([4096, 32768, 1 << 20, 1 << 22], [1.0, 0.0, 30.0, 45.0]),
    ]
    for res in results:
        card = json.loads(json.dumps(res.to_card(name="t"), allow_nan=False))
        assert card["parameters"] and card["formula"]
