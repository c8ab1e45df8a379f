"""FitSet: one fit per group, failures kept with their reason, frames built from the fits."""

import numpy as np
import pandas as pd
import pytest

from mqperf.models import usl
from mqperf.models.fitset import FitSet
from mqperf.present import cards

LAM, SIGMA, KAPPA = 1000.0, 0.08, 0.004


def fitter(rows):
    return usl.fit(rows["n"].to_numpy(float), rows["x"].to_numpy(float))


@pytest.fixture
def frame():
    n = np.array([1, 2, 3, 4, 6, 8, 12, 16], float)
    rng = np.random.default_rng(7)
    good = pd.DataFrame({"series": "good/ü", "n": n,
                         "x": usl.throughput(n, LAM, SIGMA, KAPPA) * (1 + rng.normal(0, 0.003, n.size))})
    short = pd.DataFrame({"series": "short", "n": [1.0, 2.0], "x": [100.0, 180.0]})
    return pd.concat([good, short], ignore_index=True)


def test_fits_by_group_and_keeps_failures(frame):
    fits = FitSet.fit(frame, "series", fitter)
    assert [f.group for f in fits] == ["good/ü", "short"]
    assert list(fits.results) == ["good/ü"] and "short" in fits.failures
    assert "3" in fits.failures["short"]  # the USL needs three points: the reason says so
    r = fits["good/ü"].result
    assert r.params["sigma"] == pytest.approx(SIGMA, abs=0.02) and r.params["kappa"] == pytest.approx(KAPPA, abs=0.002)
    assert fits.any_intervals


def test_frames(frame):
    fits = FitSet.fit(frame, "series", fitter)
    summary = fits.summary()
    assert list(summary["series"]) == ["good/ü", "short"]
    assert summary.loc[1, "model"] == "none" and summary.loc[1, "identification"] == fits.failures["short"]
    params = fits.parameters()
    assert set(params["parameter"]) == {"lam", "sigma", "kappa"}
    assert (params["lower"] <= params["estimate"]).all() and (params["estimate"] <= params["upper"]).all()
    curves = fits.curves(np.array([1.0, 5.0, 10.0]))
    assert len(curves) == 3 and (curves["lower"] <= curves["y"]).all()
    assert np.allclose(curves["y"], fits["good/ü"].result.predict(np.array([1.0, 5.0, 10.0])))


def test_leave_one_out_predicts_each_held_point(frame):
    fits = FitSet.fit(frame, "series", fitter)
    loo = fits.leave_one_out(frame, "series", "n", "x", fitter)
    good = loo[loo["series"] == "good/ü"]
    assert len(good) == 8 and good["error %"].abs().max() < 5
    short = loo[loo["series"] == "short"]
    assert short["predicted"].isna().all() and (short["note"] != "").all()


def test_cards_named_by_chapter_and_group(frame):
    fits = FitSet.fit(frame, "series", fitter)
    (name, card, result), = cards.of_fits(fits, "kafka_task_scaling", "mine.csv")
    assert name == "kafka_task_scaling__good" or name.startswith("kafka_task_scaling__good")
    assert card["data"]["dataset"] == "mine.csv" and card["model"] == fits["good/ü"].result.model
    assert result is fits["good/ü"].result  # what `mqperf compare` sets beside another run's


def test_no_groups_gives_empty_frames():
    fits = FitSet([])
    assert fits.results == {} and not fits.any_intervals
    assert fits.curves(np.array([1.0])).empty and fits.parameters().empty


def test_table_keeps_a_fitted_rows_columns_whichever_group_fails(frame):
    order = pd.concat([frame[frame["series"] == "short"], frame[frame["series"] != "short"]], ignore_index=True)
    fits = FitSet.fit(order, "series", fitter)
    table = fits.table(lambda r: {"σ": r.params["sigma"], "identification": r.identification})
    assert list(table.columns) == ["series", "points", "σ", "identification"]  # the failed group came first
    assert table.loc[0, "identification"] == fits.failures["short"] and np.isnan(table.loc[0, "σ"])
    assert table.loc[1, "σ"] == pytest.approx(fits["good/ü"].result.params["sigma"])
    assert list(FitSet([]).table(lambda r: {}).columns) == ["series", "points", "identification"]


def test_mape_is_undefined_when_a_measured_value_is_zero():
    from mqperf.models._base import FitResult

    line = FitResult(model="line", formula="y = b x", params=pd.Series({"b": 1.0}), cov=None,
                     x=np.array([0.0, 1.0, 2.0]), y=np.array([0.0, 1.1, 1.9]), fn=lambda x, b: b * x)
    assert np.isnan(line.mape)  # no percentage of a measured 0 exists
    nonzero = FitResult(model="line", formula="y = b x", params=pd.Series({"b": 1.0}), cov=None,
                        x=np.array([1.0, 2.0]), y=np.array([1.1, 1.9]), fn=lambda x, b: b * x)
    assert nonzero.mape == pytest.approx((0.1 / 1.1 + 0.1 / 1.9) / 2 * 100)
