"""Message size's numbers: series labels, one latency–bandwidth fit per series, the frames shown.

The model (:mod:`mqperf.models.latency_bandwidth`) is t(s) = a + s/B in seconds and bytes;
this module converts to the chapter's units (µs, KB, MB/s) with the source article's
convention 1 KB = 1,024 bytes and 1 MB = 1,024 KB, so MB/s = messages/s × KB / 1,024.
Frames carry raw floats under human column names; sentences are made in :mod:`.text`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_message_size import KB, MB
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import latency_bandwidth as lb
from mqperf.models import planning, weighting
from mqperf.models.fitset import FitSet

SIZE = "size (KB)"
RATE = "rate (msg/s)"


def points(frame: pd.DataFrame) -> pd.DataFrame:
    """One point per series and size (means where the file has several rows), with MB/s computed."""
    keys = [c for c in ("connector", "series", "tasks", "basis", "msg_size_kb") if c in frame]
    out = aggregate.means(frame, keys, ["rate_msg_s", "approx_mb_s"]).copy()
    series = out["series"].fillna("your data").astype(str) if "series" in out else pd.Series("your data", index=out.index)
    if "connector" in out:
        series = (out["connector"].fillna("").astype(str) + " " + series).str.strip()
    if "tasks" in out and out["tasks"].nunique() > 1:
        series = series + " (" + out["tasks"].astype("Int64").astype(str) + " tasks)"
    out["series"] = series  # as the file gives it (the book's view maps the book's own identifiers)
    out["msg_size_kb"] = out["msg_size_kb"].astype(float)
    out["size_bytes"] = out["msg_size_kb"] * KB
    out["rate_msg_s"] = out["rate_msg_s"].astype(float)
    out["mb_s"] = out["rate_msg_s"] * out["msg_size_kb"] / KB
    out["approx_mb_s"] = out["approx_mb_s"].astype(float) if "approx_mb_s" in out else np.nan
    out["basis"] = out["basis"].fillna("measured").astype(str) if "basis" in out else "measured"
    # Series in the order they first appear, sizes ascending within each.
    out["_order"] = pd.factorize(out["series"])[0]
    return out.sort_values(["_order", "msg_size_kb"], kind="stable").drop(columns="_order").reset_index(drop=True)


def points_table(pts: pd.DataFrame) -> pd.DataFrame:
    cols = {"series": "series", "msg_size_kb": SIZE, "rate_msg_s": RATE, aggregate.COUNT: "rows (n)",
            aggregate.sd_column("rate_msg_s"): "sd (msg/s)", "mb_s": "MB/s (computed)",
            "approx_mb_s": "MB/s (printed)", "basis": "basis"}
    keep = [c for c in cols if c in pts and not (c == "approx_mb_s" and pts[c].isna().all())]
    return pts[keep].rename(columns=cols)


def mb_check(pts: pd.DataFrame) -> pd.DataFrame:
    """Printed MB/s against rate × size / 1,024, for rows that print one."""
    shown = pts[pts["approx_mb_s"].notna()]
    return pd.DataFrame({"series": shown["series"], SIZE: shown["msg_size_kb"], RATE: shown["rate_msg_s"],
                         "MB/s printed": shown["approx_mb_s"], "MB/s computed": shown["mb_s"],
                         "agrees": np.round(shown["mb_s"].to_numpy()) == shown["approx_mb_s"].to_numpy()}
                        ).reset_index(drop=True)


def fitter(data_name=None, data_hash=None):
    def fit(rows: pd.DataFrame):
        if rows["msg_size_kb"].nunique() < 2:
            raise ModelError("one message size: a single point says nothing about size")
        # Equal relative errors (weights 1/r²): residuals are checked, and bootstrapped, as relative errors.
        return weighting.relatively_checked(lb.fit(rows["size_bytes"], rows["rate_msg_s"], data_name=data_name,
                                                   data_hash=data_hash))

    return fit


def fit_all(pts: pd.DataFrame, **identity) -> FitSet:
    fits = FitSet.fit(pts, "series", fitter(**identity))
    if not fits.results:
        reasons = [why for why in fits.failures.values() if not why.startswith("one message size")]
        detail = f" ({reasons[0]})" if reasons else ""
        raise ModelError("no series can be fitted: the latency-bandwidth model needs at least 2 distinct message "
                         f"sizes per series, with rates that fall as the size grows{detail}")
    return fits


def fits_table(fits: FitSet) -> pd.DataFrame:
    """One row per series: a (µs), B (MB/s), half-size and 90 % size (KB), 1/a, fit quality."""
    def columns(r) -> dict:
        return {"fixed time a (µs per msg)": r.a * 1e6, "bandwidth B (MB/s)": r.bandwidth / MB,
                "half-size (KB)": r.s_half() / KB, "size for 90 % of B (KB)": r.size_for_fraction(0.9) / KB,
                "rate limit 1/a (msg/s)": 1 / r.a if r.a > 0 else np.nan, "residual df": r.df_resid,
                "largest miss (%)": worst_miss(r), "identification": r.identification}

    return fits.table(columns, count="sizes")


def worst_miss(result) -> float:
    """The largest relative miss of the curve at the measured sizes, in percent."""
    fitted = result.fittedvalues
    return float(np.max(np.abs(result.y - fitted) / fitted) * 100)


def parameter_table(fits: FitSet) -> pd.DataFrame:
    rows = []
    for name, r in fits.results.items():
        ci = r.conf_int()
        for p, label, scale, unit in (("a", "fixed time a", 1e6, "µs per message"), ("B", "bandwidth B", 1 / MB, "MB/s")):
            lo, hi = ci.loc[p, "lower"] * scale, ci.loc[p, "upper"] * scale
            rows.append({"series": name, "parameter": label, "unit": unit, "estimate": r.params[p] * scale,
                         "95 % lower": lo, "95 % upper": hi,
                         # evidence.identified: a value is stated only when this is at most 10 (and lower > 0)
                         "upper / lower": hi / lo if lo > 0 else np.nan,
                         "held at bound": p in r.active_bounds})
    return pd.DataFrame(rows)


def curves(fits: FitSet, kb_max: float, *, as_mb: bool = False) -> pd.DataFrame:
    """Fitted rate (or MB/s) against size with the 95 % confidence and prediction bands, their
    lower edges clipped at 0."""
    grid = np.round(np.linspace(1.0, float(kb_max), 60), 4)
    cols = ["x", "fit", "lower", "upper", "pred_lower", "pred_upper", "series"]
    frame = fits.curves(grid * KB, y="fit").reindex(columns=cols)  # the model's x is bytes: shown in KB
    frame["x"] = frame["x"] / KB
    frame["lower"], frame["pred_lower"] = frame["lower"].clip(lower=0), frame["pred_lower"].clip(lower=0)
    if as_mb:
        for col in ("fit", "lower", "upper", "pred_lower", "pred_upper"):
            frame[col] = frame[col] * frame["x"] / KB
    return frame


def residuals(fits: FitSet) -> pd.DataFrame:
    rows = [{"series": name, "msg_size_kb": s / KB, "resid_pct": (y - fy) / fy * 100}
            for name, r in fits.results.items() for s, y, fy in zip(r.x, r.y, r.fittedvalues)]
    return pd.DataFrame(rows)


def leave_one_out(fits: FitSet, pts: pd.DataFrame, data_name=None, data_hash=None) -> pd.DataFrame:
    """For series with 3+ sizes: refit on the others and predict the size left out, saying where it lies."""
    keep = [s for s in fits.results if pts.loc[pts["series"] == s, "msg_size_kb"].nunique() >= 3]
    sub = pts[pts["series"].isin(keep)]
    if sub.empty:
        return pd.DataFrame()
    # The model's x is bytes: leave out by size in bytes, then show KB.
    frame = fits.leave_one_out(sub, "series", "size_bytes", "rate_msg_s", fitter(data_name, data_hash))
    frame.insert(1, "msg_size_kb", frame.pop("size_bytes") / KB)
    where = []
    for row in frame.itertuples(index=False):
        rest = sub.loc[(sub["series"] == row.series) & (sub["msg_size_kb"] != row.msg_size_kb), "msg_size_kb"]
        kb = row.msg_size_kb
        where.append("inside the others' range" if rest.min() < kb < rest.max()
                     else "below the others" if kb < rest.min() else "above the others")
    frame["left-out size"] = where
    return frame.rename(columns={"msg_size_kb": SIZE, "measured": f"measured {RATE}",
                                 "predicted": f"predicted {RATE}", "note": "why no prediction"})


def plan(fits: FitSet, sizes_kb) -> pd.DataFrame:
    """Rate and MB/s at the given sizes, with 95 % intervals where the fit has them."""
    sizes = np.atleast_1d(np.asarray(sizes_kb, dtype=float))
    if np.any(~np.isfinite(sizes)) or np.any(sizes <= 0):
        raise ModelError(f"message sizes to plan for must be greater than zero (got {sizes_kb!r})")
    rows = []
    for name, r in fits.results.items():
        band = r.conf_band(sizes * KB)
        lo, hi = r.x.min() / KB, r.x.max() / KB
        for kb, b in zip(sizes, band.itertuples()):
            rows.append({"series": name, SIZE: kb, RATE: b.fit,
                         "95 % lower (msg/s)": max(b.lower, 0.0) if np.isfinite(b.lower) else np.nan,
                         "95 % upper (msg/s)": b.upper, "MB/s": b.fit * kb / KB,
                         "fixed share of time (%)": r.a / r.time_per_message(kb * KB) * 100,
                         "extrapolated": planning.extrapolated(kb, lo, hi)})
    return pd.DataFrame(rows)


def refit_without(pts: pd.DataFrame, series: str, kb: float):
    """The series' fit without the point at ``kb`` (None when the rest cannot be fitted)."""
    rows = pts[(pts["series"] == series) & (pts["msg_size_kb"] != kb)]
    try:
        return fitter()(rows)
    except ModelError:
        return None
