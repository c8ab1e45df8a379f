"""Message rate against message size: one latency–bandwidth fit per series.

The model (:mod:`mqperf.models.latency_bandwidth`) is t(s) = a + s/B: a fixed time per
message ``a`` plus the message's bytes at an asymptotic bandwidth ``B``. This module turns
the chapter's units (sizes in KB, bandwidth in MB/s) into the model's (bytes, bytes/s) and
back, and builds the chapter's tables.

Units follow the source article's table: 1 KB = 1,024 bytes and 1 MB = 1,024 KB, so
MB/s = messages per second × size in KB / 1,024.

What the data can support: the fit has two parameters, so a series needs at least two
distinct sizes; with two it is exactly identified (no intervals), with three it has one
residual degree of freedom, and its intervals use a Student-t quantile of 12.7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import ModelError
from mqperf.models import latency_bandwidth as lb
from mqperf.models._base import round_sig
from mqperf.models.validation import leave_one_out as _loo
from mqperf.data import is_path as _is_path
from mqperf.present.cards import card_name  # noqa: F401 (the chapter calls it from here)

KB = 1024.0
MB = 1024.0 * 1024.0
CONTRACT = "kafka_message_size"


@dataclass(frozen=True)
class SizeFit:
    series: str
    result: lb.LatencyBandwidthResult | None
    n_sizes: int
    reason: str


def load_points(source: str) -> pd.DataFrame:
    """Rows (series, msg_size_kb, size_bytes, rate_msg_s, mb_s, approx_mb_s, basis).

    ``source`` is a book dataset name (``kafka_message_size``) or a reader's CSV checked
    against the ``message_size`` contract. ``mb_s`` is computed from the rate and size;
    ``approx_mb_s`` is the value printed with the measurement when the file has one.

    Several rows per series and size (one per measurement interval) are averaged to one
    point per size, keeping ``n`` and ``rate_msg_s_sd`` (:func:`mqperf.data.aggregate.means`).
    The fit goes through these means unweighted, so its degrees of freedom are the
    distinct sizes: a size is one experiment, its intervals successive samples of one run.
    """
    frame = mqdata.load(source, contract=CONTRACT) if _is_path(source) else mqdata.load(source)
    keys = [c for c in ("connector", "series", "tasks", "basis", "msg_size_kb") if c in frame]
    return label_series(aggregate.means(frame, keys, ["rate_msg_s", "approx_mb_s"]))


def aggregation_note(points: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many points; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(points, per="series and message size", value="rate_msg_s"))


def label_series(frame: pd.DataFrame) -> pd.DataFrame:
    """Add ``series`` (connector, workload, and tasks when it varies) and the unit columns."""
    out = frame.copy()
    series = out["series"].astype(str) if "series" in out else pd.Series("your data", index=out.index)
    if "connector" in out:
        series = out["connector"].astype(str) + " " + series
    if "tasks" in out and out["tasks"].nunique() > 1:
        series = series + " (" + out["tasks"].astype(str) + " tasks)"
    out["series"] = series.str.replace("_", " ", regex=False)
    out["msg_size_kb"] = out["msg_size_kb"].astype(float)
    out["size_bytes"] = out["msg_size_kb"] * KB
    out["rate_msg_s"] = out["rate_msg_s"].astype(float)
    out["mb_s"] = out["rate_msg_s"] * out["msg_size_kb"] / KB
    if "approx_mb_s" not in out:
        out["approx_mb_s"] = np.nan
    out["approx_mb_s"] = out["approx_mb_s"].astype(float)
    if "basis" not in out:
        out["basis"] = "measured"
    out["basis"] = out["basis"].fillna("measured").astype(str)
    # Series in the order they first appear in the file, sizes ascending within each.
    out["_order"] = pd.factorize(out["series"])[0]
    out = out.sort_values(["_order", "msg_size_kb"], kind="stable").drop(columns="_order")
    return out.reset_index(drop=True)


def points_table(points: pd.DataFrame) -> pd.DataFrame:
    """The data as shown in the chapter: rates, computed and printed MB/s."""
    spread = [c for c in (aggregate.COUNT, aggregate.sd_column("rate_msg_s")) if c in points]
    table = points[["series", "msg_size_kb", "rate_msg_s", *spread, "mb_s", "approx_mb_s", "basis"]].copy()
    table["mb_s"] = table["mb_s"].map(lambda v: round_sig(v, 4))
    return table.rename(columns={"mb_s": "mb_s_computed", "approx_mb_s": "mb_s_printed"})


def fit_series(points: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> list[SizeFit]:
    """Fit the latency–bandwidth model to every series with two or more distinct sizes.

    Raises
    ------
    ModelError
        When no series can be fitted (each has a single size, or no series' rate falls
        with size).
    """
    fits, reasons = [], []
    for name, group in points.groupby("series", sort=False):
        distinct = group["msg_size_kb"].nunique()
        if distinct < 2:
            fits.append(SizeFit(name, None, distinct, "one message size: nothing to fit"))
            continue
        try:
            result = lb.fit(group["size_bytes"], group["rate_msg_s"], data_name=data_name, data_hash=data_hash)
        except ModelError as exc:
            fits.append(SizeFit(name, None, distinct, f"not fitted: {exc}"))
            reasons.append(str(exc))
            continue
        fits.append(SizeFit(name, result, distinct, verdict(result)))
    if not any(f.result is not None for f in fits):
        detail = f" ({reasons[0]})" if reasons else ""
        raise ModelError(
            "no series can be fitted: the latency-bandwidth model needs at least 2 distinct message sizes "
            f"per series, with rates that fall as the size grows{detail}"
        )
    return fits


def verdict(result: lb.LatencyBandwidthResult) -> str:
    """What the fit can claim, in words."""
    return result.identification


def fits_table(fits: list[SizeFit]) -> pd.DataFrame:
    """One row per series: fixed cost (µs), bandwidth (MB/s), half-size (KB), fit quality."""
    rows = []
    for f in fits:
        row = {"series": f.series, "sizes": f.n_sizes}
        r = f.result
        if r is not None:
            row.update(
                fixed_us_per_msg=round_sig(r.a * 1e6, 4),
                bandwidth_mb_s=round_sig(r.bandwidth / MB, 4),
                half_size_kb=round_sig(r.s_half() / KB, 3),
                size_for_90pct_kb=round_sig(r.size_for_fraction(0.9) / KB, 3),
                max_rate_msg_s=round_sig(1 / r.a, 4),
                df_resid=r.df_resid,
                rel_rmse_pct=None if np.isnan(r.wrmse) else round_sig(r.wrmse * 100, 3),
            )
        row["status"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fits: list[SizeFit]) -> pd.DataFrame:
    """Parameters in the chapter's units with 95 % intervals (empty where not identified)."""
    rows = []
    for f in fits:
        r = f.result
        if r is None:
            continue
        ci = r.conf_int()
        for name, scale, unit in (("a", 1e6, "µs per message"), ("B", 1 / MB, "MB/s")):
            rows.append({
                "series": f.series, "parameter": name,
                "estimate": round_sig(r.params[name] * scale, 4),
                "ci95_lower": round_sig(ci.loc[name, "lower"] * scale, 4),
                "ci95_upper": round_sig(ci.loc[name, "upper"] * scale, 4),
                "unit": unit, "df_resid": r.df_resid,
            })
    return pd.DataFrame(rows)


def _grid(kb_max: float, points: int = 60) -> np.ndarray:
    return np.round(np.linspace(1.0, float(kb_max), points), 4)


def curves(fits: list[SizeFit], *, kb_max: float) -> pd.DataFrame:
    """Fitted message rate against size (KB) with its 95 % band, lower edge clipped at 0.

    Rates cannot be negative; a band that reaches below zero (one residual degree of
    freedom) is drawn from zero.
    """
    grid = _grid(kb_max)
    parts = []
    for f in fits:
        if f.result is None:
            continue
        band = f.result.conf_band(grid * KB)
        band["x"] = grid
        band["lower"] = band["lower"].clip(lower=0)
        band["series"] = f.series
        parts.append(band)
    return pd.concat(parts, ignore_index=True)


def byte_curves(fits: list[SizeFit], *, kb_max: float) -> pd.DataFrame:
    """Fitted MB/s against size (KB): the rate curves times the size."""
    frame = curves(fits, kb_max=kb_max)
    for col in ("fit", "lower", "upper"):
        frame[col] = frame[col] * frame["x"] / KB
    return frame


def residual_frame(fits: list[SizeFit]) -> pd.DataFrame:
    """Relative residuals (measured − fitted) / fitted, in percent, per measured point."""
    rows = []
    for f in fits:
        if f.result is None:
            continue
        for s, y, fy in zip(f.result.x, f.result.y, f.result.fittedvalues):
            rows.append({"series": f.series, "msg_size_kb": s / KB, "resid_pct": round_sig((y - fy) / fy * 100, 3)})
    return pd.DataFrame(rows)


def printed_mb_check(points: pd.DataFrame) -> pd.DataFrame:
    """Printed MB/s against rate × size / 1,024, for rows that print one."""
    shown = points[points["approx_mb_s"].notna()].copy()
    if shown.empty:
        return pd.DataFrame(columns=["series", "msg_size_kb", "rate_msg_s", "mb_s_printed", "mb_s_computed", "agrees"])
    computed = shown["mb_s"]
    return pd.DataFrame({
        "series": shown["series"],
        "msg_size_kb": shown["msg_size_kb"],
        "rate_msg_s": shown["rate_msg_s"],
        "mb_s_printed": shown["approx_mb_s"],
        "mb_s_computed": computed.map(lambda v: round_sig(v, 4)),
        "agrees": np.round(computed.to_numpy()) == shown["approx_mb_s"].to_numpy(),
    }).reset_index(drop=True)


def leave_one_out(points: pd.DataFrame) -> pd.DataFrame:
    """For series with 3+ sizes: refit on the others, predict the size left out.

    ``position`` says whether the left-out size lies inside the remaining sizes
    (interpolation) or outside them (extrapolation).
    """
    rows = []
    for name, group in points.groupby("series", sort=False):
        if group["msg_size_kb"].nunique() < 3:
            continue
        table = _loo(lb.fit, group["size_bytes"], group["rate_msg_s"])
        sizes = group["msg_size_kb"].to_numpy()
        for i, r in enumerate(table.itertuples()):
            rest = np.delete(sizes, i)
            kb = r.x / KB
            position = "inside" if rest.min() < kb < rest.max() else "below" if kb < rest.min() else "above"
            rows.append({
                "series": name, "msg_size_kb": kb, "measured_msg_s": r.measured,
                "predicted_msg_s": round_sig(r.predicted, 5), "error_pct": round_sig(r.error_pct, 3),
                "left_out_size": position + (" the others" if position != "inside" else " the others' range"),
                "note": r.note,
            })
    return pd.DataFrame(rows)


def plan(fits: list[SizeFit], sizes_kb) -> pd.DataFrame:
    """Rate and MB/s at the given message sizes, with 95 % intervals where the fit has them.

    ``within_measured`` is False where the size lies outside the sizes the series was
    fitted on: that prediction is an extrapolation.
    """
    sizes = np.atleast_1d(np.asarray(sizes_kb, dtype=float))
    if np.any(~np.isfinite(sizes)) or np.any(sizes <= 0):
        raise ModelError(f"message sizes to plan for must be greater than zero (got {sizes_kb!r})")
    rows = []
    for f in fits:
        r = f.result
        if r is None:
            continue
        band = r.conf_band(sizes * KB)
        lo, hi = r.x.min() / KB, r.x.max() / KB
        for kb, b in zip(sizes, band.itertuples()):
            t = r.time_per_message(kb * KB)
            rows.append({
                "series": f.series, "msg_size_kb": kb,
                "rate_msg_s": round_sig(b.fit, 4),
                "rate_ci95_lower": round_sig(max(b.lower, 0.0), 4) if np.isfinite(b.lower) else np.nan,
                "rate_ci95_upper": round_sig(b.upper, 4),
                "mb_s": round_sig(b.fit * kb / KB, 4),
                "fixed_share_pct": round_sig(r.a / t * 100, 3),
                "within_measured": bool(lo <= kb <= hi),
            })
    return pd.DataFrame(rows)


