"""Property tests: the TLS chapter on generated readers' files tells the truth about them.

Files come from the chapter's own model (ratio = 1 + a·(s/K)/(1 + s/s0)) with noise, plus
awkward ones: flat (no renegotiation cost), one size, the minimum of points, falling ratios,
ratios below 1 and 20,000 interval rows.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import props  # noqa: E402
from mqperf.chapters.tls_channel_costs import fits as tfits
from mqperf.chapters.tls_channel_costs import size_label
from mqperf.errors import DataError, ModelError

KB, MB = 1024, 1024 * 1024
SIZES = [1 * KB, 4 * KB, 32 * KB, 256 * KB, MB, 4 * MB]
KEYS = [256 * KB, MB, 10 * MB, 100 * MB, 500 * MB]
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def model(a, s0, s, k):
    return 1 + a * (s / np.maximum(k, 32 * KB)) / (1 + s / s0)


@st.composite
def files(draw):
    kind = draw(st.sampled_from(["model", "model", "model", "flat", "one size", "minimum", "falling", "large"]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    sizes = draw(st.lists(st.sampled_from(SIZES), min_size=1 if kind == "one size" else 2, max_size=4, unique=True))
    if kind == "one size":
        sizes = sizes[:1]
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3, unique=True))
    grid = pd.MultiIndex.from_product([sizes, keys], names=["message_size_bytes", "sslrkeyc_bytes"]).to_frame(index=False)
    if kind == "minimum":
        grid = grid.drop_duplicates("message_size_bytes").head(2)
    a = draw(st.floats(5, 2000))
    s0 = draw(st.floats(1e3, 1e7))
    s, k = grid["message_size_bytes"].to_numpy(float), grid["sslrkeyc_bytes"].to_numpy(float)
    if kind == "flat":
        y = np.ones(len(grid))
    elif kind == "falling":
        y = 1 + 0.5 / (1 + np.arange(len(grid)))
    else:
        y = model(a, s0, s, k)
    grid["cost_ratio"] = y
    if kind == "large":
        grid = grid.loc[grid.index.repeat(20_000 // len(grid) + 1)].head(20_000).reset_index(drop=True)
    if kind not in ("flat", "minimum"):
        grid["cost_ratio"] = 1 + (grid["cost_ratio"] - 1) * rng.lognormal(0, 0.05, len(grid))
    return kind, grid


def planning_agrees(r, fit, size, target):
    """The plan's SSLRKEYC for the planning size puts the fitted overhead at the target (or the floor)."""
    plan = r.items["plan"].frame
    label = size_label(size)
    if label not in set(plan["message size"]):
        assert not fit.size_model
        return
    row = plan[plan["message size"] == label].iloc[0]
    if not np.isfinite(row["smallest SSLRKEYC (MB)"]):
        # Either no SSLRKEYC up to MQ's maximum meets the target, or the size lies outside those measured
        # and the data cannot tell how the TLS cost grows with size (s0 not identified).
        assert (tfits.size_standing(fit, size) == "cannot tell"
                or fit.handshake * size / (target / 100 * float(fit.enc(size))) > 999_999_999)
        return
    k = row["smallest SSLRKEYC (MB)"] * MB
    overhead = float(fit.overhead(size, k)) * 100
    if k > 32 * KB * (1 + 1e-9):
        assert overhead == pytest.approx(target, rel=1e-6)
    else:
        assert overhead <= target * (1 + 1e-9)


@SETTINGS
@given(files(), st.sampled_from(SIZES), st.sampled_from([1.0, 5.0, 20.0]))
def test_report_is_honest_on_generated_files(tmp_path, generated, size, target):
    kind, frame = generated
    path = props.frame_to_csv(frame, tmp_path / "tls ü.csv")
    try:
        r = props.run("tls_channel_costs", path, message_size_bytes=size, target_overhead_pct=target)
    except (DataError, ModelError) as exc:
        assert "\n" not in str(exc).strip()
        return
    fit = tfits.fit(tfits.load_runs(str(path)))
    props.assert_report_is_honest(r, {"renegotiation": fit})
    planning_agrees(r, fit, size, target)
    assert ("exactly identified" in r.sentences()["fit_text"]) == fit.exactly_identified
    if fit.df_resid > 0:
        assert len(r.items["loo"].frame) == fit.nobs


@SETTINGS
@given(st.lists(st.floats(0.2, 0.999), min_size=1, max_size=4))
def test_ratios_below_one_are_refused_in_one_line(tmp_path, low):
    frame = pd.DataFrame({"message_size_bytes": [SIZES[i % len(SIZES)] for i in range(len(low))],
                          "sslrkeyc_bytes": MB, "cost_ratio": low})
    path = props.frame_to_csv(frame, tmp_path / "low.csv")
    with pytest.raises((DataError, ModelError)) as info:
        props.run("tls_channel_costs", path)
    assert "\n" not in str(info.value).strip()
