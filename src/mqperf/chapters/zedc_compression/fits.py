"""The zEDC compression chapter's model and its arithmetic: Hill curves by effect, the values'
scatter, CPU per message under both readings, recovery and zEDC capacity.

The curves and the tests of what a curve shows are :mod:`mqperf.models.saturation` (a Hill curve,
logistic in ln size), as are recovery times and CPU (``recovery_*``); the stretch of a zEDC feature
is :func:`mqperf.models.queueing.mmc_response`. Frames keep unrounded values; :mod:`.text` words
them and :mod:`.analysis` shows them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.zedc_compression import CHAPTER, METRICS, READER_COLUMNS
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import pvalues, queueing, saturation


def hill(rows: pd.DataFrame):
    """The Hill curve through one effect's values by size (unweighted: the values are rounded to whole points)."""
    return saturation.fit(rows["size_kb"], rows["pct"])


def load_effects(source) -> pd.DataFrame:
    """Long table (size_kb, metric, effect, pct [, n, pct_sd]): one value per effect and size.

    Several rows of one size (one per measurement interval) are averaged; the Hill curves go
    through the means unweighted, so their degrees of freedom are the distinct sizes.
    """
    frame = views.open(source, CHAPTER)
    cols = [c for c in READER_COLUMNS if c in frame and frame[c].notna().any()]
    long = frame.melt(id_vars=["message_size_bytes"], value_vars=cols, var_name="metric", value_name="pct")
    long["metric"] = long["metric"].map(READER_COLUMNS)
    long = long.dropna(subset=["pct"])
    if long.duplicated(["metric", "message_size_bytes"]).any():
        long = aggregate.means(long, ["metric", "message_size_bytes"], ["pct"])
    long["size_kb"] = long["message_size_bytes"].astype(float) / 1024
    long["effect"] = long["metric"].map(METRICS)
    spread = [c for c in (aggregate.COUNT, aggregate.sd_column("pct")) if c in long]
    out = long[["size_kb", "metric", "effect", "pct", *spread]]
    out = out.sort_values(["metric", "size_kb"], key=lambda c: c.map(list(METRICS).index) if c.name == "metric" else c,
                          kind="stable")
    if out.empty:
        raise ModelError("no effect values: need qm_tcb_increase_pct (and optionally peak_throughput_increase_pct) by size")
    return out.reset_index(drop=True)


def span(lo, hi) -> float:
    """hi / lo of a positive interval (NaN where it reaches zero or has no interval)."""
    lo, hi = float(lo), float(hi)
    return hi / lo if np.isfinite(lo) and np.isfinite(hi) and lo > 0 else np.nan


def leave_one_out(effects: pd.DataFrame) -> pd.DataFrame:
    """Each size held out in turn: the Hill curve through the others predicts it (effects with four
    sizes or more; a refit that fails keeps its reason). Empty when no effect has four sizes."""
    rows = []
    for metric, g in effects.groupby("metric", sort=False):
        if g["size_kb"].nunique() < 4:
            continue
        for i in range(len(g)):
            held, rest = g.iloc[i], g.drop(g.index[i])
            row = {"effect": METRICS[metric], "held-out size (KB)": float(held["size_kb"]),
                   "measured (%)": float(held["pct"])}
            try:
                res = hill(rest)
                pred = float(res.predict(np.array([held["size_kb"]]))[0])
                row.update({"predicted (%)": pred, "error (points)": pred - row["measured (%)"],
                            "refit plateau (%)": res.y_max, "refit": res.identification})
            except ModelError as exc:
                row.update({"predicted (%)": np.nan, "error (points)": np.nan, "refit plateau (%)": np.nan,
                            "refit": str(exc)})
            rows.append(row)
    return pd.DataFrame(rows)


def scatter(effects, fits, metric):
    """Standard error of each size's value of ``metric`` and its degrees of freedom, or None.

    From the rows averaged into each value (sd/√n on n − 1 df) where the file has repeats, else
    from the Hill fit's residual scatter (its RMSE on its residual df); None when neither exists.
    """
    g = effects[effects["metric"] == metric].set_index("size_kb")
    sd = aggregate.sd_column("pct")
    if aggregate.COUNT in g and sd in g and (g[aggregate.COUNT] > 1).all():
        return (g[sd] / np.sqrt(g[aggregate.COUNT])), int(g[aggregate.COUNT].min() - 1), "the rows behind each value"
    res = fits.results.get(metric)
    if res is not None and res.df_resid > 0 and np.isfinite(res.rmse):
        return pd.Series(float(res.rmse), index=g.index), int(res.df_resid), "the Hill fit's residual scatter"
    return None


def per_message(effects: pd.DataFrame, fits) -> dict | None:
    """CPU per message under both readings of the TCB figures (per interval and per message), and
    where both readings agree beyond the values' scatter; None without a throughput gain at the
    sizes of the TCB increase.

    Returns ``table``, ``low``/``high`` (the readings' range at each size) and, where the values have a
    scatter (:func:`scatter`), ``more``/``less`` (both readings above/below zero at 95 %) and ``how``.
    """
    wide = effects.pivot_table(index="size_kb", columns="metric", values="pct", aggfunc="first")
    if not set(METRICS) <= set(wide.columns) or wide.dropna(subset=list(METRICS)).empty:
        return None
    wide = wide.dropna(subset=list(METRICS)).reset_index()
    a, b = wide["qm_tcb_increase"], wide["peak_throughput_increase"]
    per_interval = ((1 + a / 100) / (1 + b / 100) - 1) * 100
    table = pd.DataFrame({"message size (KB)": wide["size_kb"], "TCB increase (%)": a,
                          "throughput gain (%)": b,
                          "CPU per message, TCB per interval (%)": per_interval,
                          "CPU per message, TCB per message (%)": a})
    low = np.minimum(per_interval, a)
    high = np.maximum(per_interval, a)
    sa, sb = scatter(effects, fits, "qm_tcb_increase"), scatter(effects, fits, "peak_throughput_increase")
    out = {"table": table, "low": low, "high": high}
    if sa is None or sb is None:
        return out
    se_a = sa[0].reindex(wide["size_kb"]).to_numpy(float)
    se_b = sb[0].reindex(wide["size_kb"]).to_numpy(float)
    # Delta method for ((1 + a)/(1 + b) − 1)·100 in percentage points.
    se_i = np.sqrt((se_a / (1 + b / 100)) ** 2 + (se_b * (1 + a / 100) / (1 + b / 100) ** 2) ** 2)
    df = min(sa[1], sb[1])
    q = pvalues.t_ppf(0.975, df)
    more = (a - q * se_a > 0) & (per_interval - q * se_i > 0)
    less = (a + q * se_a < 0) & (per_interval + q * se_i < 0)
    table["both readings above zero (95 %)"] = more.to_numpy()
    table["both readings below zero (95 %)"] = less.to_numpy()
    how = (f"each reading's 95 % interval from {sa[2]}" if sa[2] == sb[2]
           else f"each reading's 95 % interval from {sa[2]} and {sb[2]}")
    return {**out, "more": more, "less": less, "how": how}


def recovery(frame: pd.DataFrame, recovery_gb: float, unit: str, source: str) -> pd.DataFrame:
    """Time and CPU of a RECOVER CFSTRUCT of ``recovery_gb`` by archive type (``unit``: how the
    printed CPU per MB is read, "us" or "ms")."""
    rate = frame.dropna(subset=["rate_mb_s"]).groupby("archives", sort=False)["rate_mb_s"].mean()
    cost = frame.dropna(subset=["cpu_ms_per_mb"]).groupby("archives", sort=False)["cpu_ms_per_mb"].mean()
    rec = pd.DataFrame({"rate": rate, "cost": cost}).dropna()
    if rec.empty:
        raise ModelError(f"{source}: no archive type has both a recovery rate and a CPU cost per MB")
    amount = recovery_gb * 1024
    seconds = saturation.recovery_time(amount, rec["rate"].to_numpy())
    cpu = saturation.recovery_cpu(amount, rec["cost"].to_numpy() * (1e-6 if unit == "us" else 1e-3))
    plan = pd.DataFrame({"archives": [a.replace("_", " ") for a in rec.index], "rate (MB/s)": rec["rate"].to_numpy(),
                         "time (s)": seconds, "time (min)": seconds / 60,
                         f"CPU per MB ({'µs' if unit == 'us' else 'ms'})": rec["cost"].to_numpy(),
                         "CPU (s)": cpu, "processors busy during recovery": cpu / seconds})
    return plan


def capacity(proc: pd.DataFrame, queue_managers: int, share: float, most: float) -> tuple[pd.DataFrame, list]:
    """zEDC Express features for ``queue_managers`` at ``share`` of the measured archive rate, each at
    most ``most`` busy: one row per feature count up to the need, and per kind of message its
    (kind, offered load in features, features needed)."""
    util = proc[proc["kind"] == "utilisation"]
    qms, cap = queue_managers, most
    rows, needs = [], []
    for kind, u in zip(util["messages"], util["value"]):
        load = qms * u / 100 * share
        need = max(1, math.ceil(load / cap - 1e-12))
        for c in range(1, need + 1):
            stable = load < c
            rows.append({"messages": kind, "offered load (features)": load, "features": c, "utilisation": load / c,
                         "stable": stable, "stretch R/S": queueing.mmc_response(load, 1.0, c) if stable else np.nan,
                         "at most the busiest allowed": load / c <= cap + 1e-12})
        needs.append((kind, load, need))
    return pd.DataFrame(rows), needs


def at_size(fitset, size_kb: float) -> pd.DataFrame:
    """The planning answer: each fitted effect at ``size_kb`` with its 95 % band, where the size lies
    against those measured (``side``) and the nearest measured size beyond it (``edge (KB)``)."""
    from mqperf.models import planning

    rows = []
    for m, res in fitset.results.items():
        band = res.conf_band([size_kb]).iloc[0]
        side = planning.side(size_kb, float(res.x.min()), float(res.x.max()))
        rows.append({"effect": METRICS[m], "message size (KB)": float(size_kb), "modelled (%)": float(band["fit"]),
                     "95 % lower (%)": float(band["lower"]), "95 % upper (%)": float(band["upper"]),
                     "extrapolated": side != "within", "side": side,
                     "edge (KB)": float(res.x.max() if side == "above" else res.x.min())})
    return pd.DataFrame(rows)


def fit_table(fitset) -> pd.DataFrame:
    """One row per effect: the Hill curve's plateau, half-way size and steepness with the spans of
    their intervals, or why the effect is not fitted."""
    rows = []
    for f in fitset:
        row = {"effect": METRICS[f.group], "sizes": f.nobs}
        if f.ok:
            res = f.result
            lo, hi = res.s50_conf_int()
            y_lo, y_hi = (res.conf_int().loc["y_max"] if res.df_resid > 0 and res.cov is not None
                          else (np.nan, np.nan))
            row.update({"plateau y_max (%)": res.y_max, "plateau interval spans (factor)": span(y_lo, y_hi),
                        "s50 (KB)": res.s50, "s50 95 % lower (KB)": lo,
                        "s50 95 % upper (KB)": hi, "s50 interval spans (factor)": span(lo, hi), "h": res.h,
                        "residual df": res.df_resid,
                        "RMSE (points)": res.rmse if res.df_resid > 0 else np.nan,
                        "identification": res.identification})
        else:
            row["identification"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)
