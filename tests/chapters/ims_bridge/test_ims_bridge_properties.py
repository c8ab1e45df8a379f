"""IMS bridge on generated data: the report is honest and its planning answers follow the fits.

Datasets come from the chapter's own models (the USL, Amdahl's law, the bottleneck) with noise,
plus awkward ones: flat, linear, falling, the fewest CPU counts a fit accepts, one series and
many, unicode and "/" in series names, with and without CF figures, and ~20,000 interval rows.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqperf.chapters.ims_bridge import fits as f
from mqperf.errors import DataError, ModelError
from mqperf.models import usl
from mqperf.present.prose import model_name

import props  # noqa: E402

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NAMES = st.text(alphabet="abcXYZ /é日µ-_0123456789", min_size=1, max_size=10).map(lambda s: "s" + s.strip())
SHAPES = ("usl", "bottleneck", "flat", "linear", "falling")


@st.composite
def datasets(draw):
    """A reader's file: 1–3 series, each with its own shape, CPU counts and noise; CF figures sometimes."""
    names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    frames = []
    for name in names:
        cpus = np.array(sorted(draw(st.sets(st.integers(1, 32), min_size=1, max_size=7))))
        shape = draw(st.sampled_from(SHAPES))
        lam = draw(st.floats(100, 1e4))
        if shape == "usl":
            x = usl.throughput(cpus, lam, draw(st.floats(0, 0.5)), draw(st.floats(0, 0.02)))
        elif shape == "bottleneck":
            x = np.minimum(lam * cpus, lam * draw(st.floats(1, 20)))
        elif shape == "flat":
            x = np.full(cpus.size, lam)
        elif shape == "linear":
            x = lam * cpus
        else:
            x = lam * 10 / cpus
        x = x * (1 + draw(st.sampled_from([0.0, 0.01, 0.05])) * rng.standard_normal(cpus.size))
        frames.append(pd.DataFrame({"series": name, "cpus": cpus, "rate_tps": np.maximum(x, 1.0)}))
    frame = pd.concat(frames, ignore_index=True)
    if draw(st.booleans()):
        top = frame["rate_tps"].idxmax()
        frame["cf_busy_pct"] = np.nan
        frame.loc[top, "cf_busy_pct"] = draw(st.floats(1, 95))
        frame["cf_processors"] = pd.array([pd.NA] * len(frame), dtype="Int64")
        frame.loc[top, "cf_processors"] = draw(st.integers(1, 16))
    if len(names) == 1 and draw(st.booleans()):
        frame = frame.drop(columns="series")
    return frame


def check_plan(r, target, n_max):
    fits = f.fit_all(r.points)
    res = f.results(fits)
    plan = r["plan"].frame
    assert len(plan) == len(res)
    for row, ((series, model), fit) in zip(plan.itertuples(index=False), res.items()):
        assert (row[0], row[1]) == (series, model_name(model))
        need = row[2]
        grid = np.arange(1, n_max + 1)
        if isinstance(need, float) and math.isnan(need):
            assert (fit.predict(grid) < target).all()
        else:
            need = int(need)
            assert fit.predict([need])[0] >= target * (1 - 1e-9)
            assert need == 1 or fit.predict([need - 1])[0] < target * (1 + 1e-9)


def check_cf(r, target, most):
    cf = f.cf_point(r.points)
    if cf is None:
        assert r.sentences()["cf"].startswith("Your file has no coupling-facility busy share")
        return
    need = int(r["cf"].frame["CF processors for the target"].iloc[0])
    load = target * f.cf_time_per_transaction_us(cf) / 1e6
    assert load / need <= most * (1 + 1e-9) and (need == 1 or load / (need - 1) > most * (1 - 1e-9))


@SETTINGS
@given(frame=datasets(), target=st.floats(100, 1e6), n_max=st.integers(1, 64), most=st.floats(0.1, 0.9))
def test_generated_reports_are_honest(tmp_path, frame, target, n_max, most):
    path = props.frame_to_csv(frame, tmp_path / "gen.csv")
    try:
        r = props.run("ims_bridge", path, target_tps=target, max_cpus=n_max, cf_max_util=most)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc)
        return
    res = f.results(f.fit_all(r.points))
    props.assert_report_is_honest(r, {f"{s} {m}": v for (s, m), v in res.items()})
    check_plan(r, target, n_max)
    check_cf(r, target, most)


def test_many_interval_rows(tmp_path):
    rng = np.random.default_rng(7)
    cpus = np.repeat([2, 4, 8, 12, 16], 4000)
    rate = usl.throughput(cpus, 2000, 0.05, 0.002) * (1 + 0.03 * rng.standard_normal(cpus.size))
    frame = pd.DataFrame({"series": "a/b 日", "cpus": cpus, "rate_tps": rate})
    r = props.run("ims_bridge", props.frame_to_csv(frame, tmp_path / "big.csv"))
    assert len(r.points) == 5 and int(r.points["n"].sum()) == 20_000
    assert "20,000 rows were averaged into 5 points" in r.sentences()["aggregation"]
    res = f.results(f.fit_all(r.points))
    props.assert_report_is_honest(r, {f"{s} {m}": v for (s, m), v in res.items()})


@pytest.mark.parametrize("rates", [[1000.0, 1000.0, 1000.0], [1000.0, 2000.0, 3000.0], [3000.0, 1500.0, 1000.0]])
def test_flat_linear_falling_three_points(tmp_path, rates):
    frame = pd.DataFrame({"cpus": [2, 4, 6], "rate_tps": rates})
    try:
        r = props.run("ims_bridge", props.frame_to_csv(frame, tmp_path / "f.csv"))
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc)
        return
    res = f.results(f.fit_all(r.points))
    props.assert_report_is_honest(r, {f"{s} {m}": v for (s, m), v in res.items()})
