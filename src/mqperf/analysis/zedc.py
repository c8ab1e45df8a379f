"""zEDC archive-log compression: what it costs and gains by message size, and what it does
to recovery.

* Effects by message size (queue manager TCB cost increase, peak throughput gain): one Hill
  curve per effect in ln(size) (:mod:`mqperf.models.saturation`), fitted where there are at
  least three sizes, with leave-one-out predictions as the check on points a fit did not use.
* Recovery (RECOVER CFSTRUCT from archives): time = amount / rate and CPU = amount × cost
  per MB (:func:`mqperf.models.saturation.recovery_time`, ``recovery_cpu``), with the cost
  unit read as printed or as erratum E039 reads it.
* zEDC capacity: the utilisation one queue manager's archiving put on the LPAR's zEDC
  processor, scaled to several queue managers, and the queueing stretch that utilisation
  implies (M/M/c, :mod:`mqperf.models.queueing`).
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from mqperf.present import charts
from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)
from mqperf.data import is_path as _is_path
from mqperf.errors import ModelError
from mqperf.models import queueing, saturation
from mqperf.models._base import round_sig
from mqperf.models.validation import leave_one_out as _loo

#: Effects the chapter fits, with the words the tables use.
METRICS = {
    "qm_tcb_increase": "queue manager TCB cost increase",
    "peak_throughput_increase": "peak throughput gain",
}
READER_COLUMNS = {"qm_tcb_increase_pct": "qm_tcb_increase", "peak_throughput_increase_pct": "peak_throughput_increase"}
#: Processors of the measured z13 2964-703 (errata E039 uses them to bound the CPU per MB).
MEASURED_CPS = 3




def load_effects(source: str) -> pd.DataFrame:
    """Long table (size_kb, metric, pct, basis) from the book's dataset or a reader's CSV.

    A reader's file has one row per message size: ``message_size_bytes``,
    ``qm_tcb_increase_pct`` and optionally ``peak_throughput_increase_pct``. Several rows
    of one size (one per measurement interval) are averaged to one value per effect and
    size, with ``n`` and ``pct_sd`` (:func:`mqperf.data.aggregate.means`). The Hill curves go
    through these means unweighted: each size is one experiment, so the fit's degrees of
    freedom are the distinct sizes.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="zedc_compression")
        cols = [c for c in READER_COLUMNS if c in frame]
        long = frame.melt(id_vars=["message_size_bytes"], value_vars=cols, var_name="metric", value_name="pct")
        long["metric"] = long["metric"].map(READER_COLUMNS)
        long["basis"] = frame["basis"].astype(str).tolist() * len(cols) if "basis" in frame else "measured"
    else:
        frame = mqdata.load(source)
        long = frame[frame["metric"].isin(list(METRICS)) & frame["message_size_bytes"].notna()].copy()
        long = long[["message_size_bytes", "metric", "pct", "basis"]]
    long = long.dropna(subset=["pct"])
    if _is_path(source):
        long = aggregate.means(long, ["metric", "basis", "message_size_bytes"], ["pct"])
    long["size_kb"] = long["message_size_bytes"].astype(float) / 1024
    long["effect"] = long["metric"].map(METRICS)
    spread = [c for c in (aggregate.COUNT, aggregate.sd_column("pct")) if c in long]
    out = long[["size_kb", "metric", "effect", "pct", *spread, "basis"]].sort_values(["metric", "size_kb"], kind="stable")
    if out.empty:
        raise ModelError("no effect values: need qm_tcb_increase_pct (and optionally peak_throughput_increase_pct) by size")
    return out.reset_index(drop=True)


def effects_table(effects: pd.DataFrame) -> pd.DataFrame:
    """The effects as the chapter shows them, with the count and spread where rows were averaged."""
    return effects[[c for c in ("size_kb", "effect", "pct", aggregate.COUNT, aggregate.sd_column("pct"), "basis") if c in effects]]


def aggregation_note(effects: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many values; nothing if none were."""
    if not aggregate.aggregated(effects):
        return aggregate.AggregationNote("")
    # A file row carries both effects: its rows are the most any one effect averaged.
    rows = int(effects.groupby("metric")[aggregate.COUNT].sum().max())
    return aggregate.AggregationNote(aggregate.note(effects, per="effect and message size", value="pct", rows=rows))


def fit_effects(effects: pd.DataFrame, *, data_name=None, data_hash=None) -> dict:
    """metric → HillResult, or the reason a metric could not be fitted (a string)."""
    fits = {}
    for metric, group in effects.groupby("metric", sort=False):
        try:
            fits[metric] = saturation.fit(group["size_kb"], group["pct"], data_name=data_name, data_hash=data_hash)
        except ModelError as exc:
            fits[metric] = str(exc)
    if not any(not isinstance(f, str) for f in fits.values()):
        raise ModelError("no effect has enough message sizes for the Hill curve: it needs at least 3 distinct sizes")
    return fits


def fits_table(fits: dict) -> pd.DataFrame:
    """One row per effect: plateau, half-effect size with its interval, steepness, what it can claim."""
    rows = []
    for metric, r in fits.items():
        row = {"effect": METRICS.get(metric, metric)}
        if isinstance(r, str):
            row["status"] = r
        else:
            lo, hi = r.s50_conf_int()
            row.update(points=r.nobs, df_resid=r.df_resid, y_max_pct=round_sig(r.y_max, 4), s50_kb=round_sig(r.s50, 4),
                       s50_ci95_kb=("none (exactly identified)" if r.exactly_identified
                                    else f"{round_sig(lo, 3):g} to {round_sig(hi, 3):g}"),
                       h=round_sig(r.h, 3), rmse_pct=round_sig(r.rmse, 3),
                       status="; ".join(n for n in r.notes if n != "unweighted least squares") or "fitted with intervals")
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fits: dict) -> pd.DataFrame:
    parts = []
    for metric, r in fits.items():
        if not isinstance(r, str):
            s = r.summary().reset_index()
            s.insert(0, "effect", METRICS.get(metric, metric))
            parts.append(s)
    return pd.concat(parts, ignore_index=True)


def curves(fits: dict, *, kb_min: float, kb_max: float, points: int = 61) -> pd.DataFrame:
    """Fitted curves with 95 % bands on a log grid of sizes (KB)."""
    grid = np.geomspace(kb_min, kb_max, points)
    parts = []
    for metric, r in fits.items():
        if isinstance(r, str):
            continue
        band = r.conf_band(grid)
        band["effect"] = METRICS.get(metric, metric)
        parts.append(band)
    return pd.concat(parts, ignore_index=True)


def effects_chart(effects: pd.DataFrame, curve: pd.DataFrame, *, measured_max_kb: float, title: str) -> alt.LayerChart:
    """Measured effects and Hill fits against message size (log scale); dashed past the data."""
    colour = alt.Color("effect:N", title=None)
    domain = [float(round_sig(curve["x"].min(), 5)), float(round_sig(curve["x"].max(), 5))]
    x = alt.X("x:Q", title="message size (KB, log scale)", scale=alt.Scale(type="log", domain=domain, nice=False))
    y_title = "increase with zEDC archives (%)"
    y = alt.Y("fit:Q", title=y_title)
    base = alt.Chart(charts.rounded(curve.assign(beyond=curve["x"] > measured_max_kb)))
    band = base.mark_area(opacity=0.15).encode(x=x, y=alt.Y("lower:Q", title=y_title), y2="upper:Q", color=colour)
    inside = base.transform_filter("!datum.beyond").mark_line().encode(x=x, y=y, color=colour)
    outside = base.transform_filter("datum.beyond").mark_line(strokeDash=[5, 4]).encode(x=x, y=y, color=colour)
    pts = alt.Chart(charts.rounded(effects.rename(columns={"size_kb": "x"}))).mark_point().encode(
        x=x, y=alt.Y("pct:Q", title=y_title), color=colour, tooltip=["effect:N", "x:Q", "pct:Q", "basis:N"])
    return alt.layer(band, inside, outside, pts).properties(title=title)


def residual_table(fits: dict) -> pd.DataFrame:
    rows = []
    for metric, r in fits.items():
        if isinstance(r, str):
            continue
        for x, y, f in zip(r.x, r.y, r.fittedvalues):
            rows.append({"effect": METRICS.get(metric, metric), "size_kb": round_sig(x, 6), "measured_pct": y,
                         "fitted_pct": round_sig(f, 4), "residual_points": round_sig(y - f, 3)})
    return pd.DataFrame(rows)


def leave_one_out(effects: pd.DataFrame) -> pd.DataFrame:
    """Each size held out in turn: the Hill curve through the other sizes predicts it."""
    parts = []
    for metric, group in effects.groupby("metric", sort=False):
        if group["size_kb"].nunique() < 4:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):  # error_pct is undefined for a measured 0 %
            table = _loo(saturation.fit, group["size_kb"], group["pct"])
        table.insert(0, "effect", METRICS.get(metric, metric))
        parts.append(table)
    if not parts:
        return pd.DataFrame(columns=["effect", "size_kb", "measured_pct", "predicted_pct", "error_points", "note"])
    out = pd.concat(parts, ignore_index=True)
    return pd.DataFrame({
        "effect": out["effect"], "size_kb": out["x"].map(lambda v: round_sig(v, 6)), "measured_pct": out["measured"],
        "predicted_pct": out["predicted"].map(lambda v: round_sig(v, 3)),
        "error_points": (out["predicted"] - out["measured"]).map(lambda v: round_sig(v, 3)),
        "note": out["note"],
    })


def cpu_per_message(effects: pd.DataFrame) -> pd.DataFrame:
    """Per size with both effects: the CPU per message change, (1 + tcb)/(1 + gain) − 1.

    Reads the TCB increase as CPU over the same measured interval, so a run that moves more
    messages spends some of the extra CPU on them (the article: "some of the increase in
    queue manager TCB is associated with the increased log capacity rate").
    """
    wide = effects.pivot_table(index="size_kb", columns="metric", values="pct", aggfunc="first")
    if not set(METRICS) <= set(wide.columns):
        return pd.DataFrame(columns=["size_kb", "tcb_increase_pct", "throughput_gain_pct", "cpu_per_message_increase_pct"])
    wide = wide.dropna(subset=list(METRICS)).reset_index()
    per_msg = ((1 + wide["qm_tcb_increase"] / 100) / (1 + wide["peak_throughput_increase"] / 100) - 1) * 100
    return pd.DataFrame({"size_kb": wide["size_kb"].map(lambda v: round_sig(v, 6)),
                         "tcb_increase_pct": wide["qm_tcb_increase"], "throughput_gain_pct": wide["peak_throughput_increase"],
                         "cpu_per_message_increase_pct": per_msg.map(lambda v: round_sig(v, 3))})


def at_size(fits: dict, size_kb: float) -> pd.DataFrame:
    """Each fitted effect at one message size, with the 95 % band and whether it is inside the data."""
    rows = []
    for metric, r in fits.items():
        if isinstance(r, str):
            continue
        band = r.conf_band([size_kb]).iloc[0]
        inside = r.x.min() <= size_kb <= r.x.max()
        rows.append({"effect": METRICS.get(metric, metric), "size_kb": size_kb, "modelled_pct": round_sig(band["fit"], 3),
                     "ci95_lower": round_sig(band["lower"], 3), "ci95_upper": round_sig(band["upper"], 3),
                     "within_measured_sizes": bool(inside)})
    return pd.DataFrame(rows)


# -- recovery ---------------------------------------------------------------------------------

def load_recovery(source: str = "zedc_recovery") -> pd.DataFrame:
    """One row per archive type: rate_mb_s and the printed cost per MB."""
    frame = mqdata.load(source, contract="zedc_recovery") if _is_path(source) else mqdata.load(source)
    rate = frame.dropna(subset=["rate_mb_s"]).set_index("archives")["rate_mb_s"]
    cost = frame.dropna(subset=["cpu_ms_per_mb"]).set_index("archives")["cpu_ms_per_mb"]
    out = pd.DataFrame({"rate_mb_s": rate, "cost_per_mb_printed": cost}).reset_index()
    return out.rename(columns={"index": "archives"})


def recovery_plan(recovery: pd.DataFrame, amount_mb: float, *, cost_unit: str = "us") -> pd.DataFrame:
    """Time and CPU to recover ``amount_mb`` per archive type.

    ``cost_unit`` "us" reads the printed cost as CPU microseconds per MB (erratum E039), "ms"
    as printed. ``cpu_share_of_one_cp`` is CPU seconds per elapsed second during recovery.
    """
    if cost_unit not in ("us", "ms"):
        raise ModelError(f"cost_unit must be 'us' (erratum E039) or 'ms' (as printed), not {cost_unit!r}")
    scale = 1e-6 if cost_unit == "us" else 1e-3
    seconds = saturation.recovery_time(amount_mb, recovery["rate_mb_s"].to_numpy())
    cpu_s = saturation.recovery_cpu(amount_mb, recovery["cost_per_mb_printed"].to_numpy() * scale)
    share = cpu_s / seconds
    return pd.DataFrame({
        "archives": recovery["archives"], "rate_mb_s": recovery["rate_mb_s"],
        "recovery_s": [round_sig(v, 4) for v in seconds], "recovery_min": [round_sig(v / 60, 3) for v in seconds],
        f"cpu_per_mb_{cost_unit}": recovery["cost_per_mb_printed"], "cpu_s": [round_sig(v, 4) for v in cpu_s],
        "cpu_share_of_one_cp": [round_sig(v, 3) for v in share],
        "possible_on_measured_3_cps": [bool(v <= MEASURED_CPS) for v in share],
    })


def recovery_chart(plan: pd.DataFrame, *, title: str) -> alt.HConcatChart:
    """Minutes to recover and CPU seconds used, side by side, per archive type."""
    frame = charts.rounded(plan.assign(archives=plan["archives"].str.replace("_", " ")))
    base = alt.Chart(frame).encode(y=alt.Y("archives:N", title=None, sort=None),
                                   color=alt.Color("archives:N", legend=None))
    time = base.mark_bar().encode(x=alt.X("recovery_min:Q", title="minutes to recover"),
                                  tooltip=["archives:N", "recovery_min:Q"]).properties(width=240, height=90)
    cpu = base.mark_bar().encode(x=alt.X("cpu_s:Q", title="CPU seconds used"),
                                 tooltip=["archives:N", "cpu_s:Q"]).properties(width=240, height=90)
    return alt.hconcat(time, cpu).properties(title=title)


def recovery_ratio(plan: pd.DataFrame) -> dict:
    """Compressed over uncompressed: recovery time and CPU (independent of the cost unit)."""
    by = plan.set_index("archives")
    if not {"uncompressed", "zedc_compressed"} <= set(by.index):
        return {}
    return {"time_ratio": round_sig(by.loc["zedc_compressed", "recovery_s"] / by.loc["uncompressed", "recovery_s"], 3),
            "cpu_ratio": round_sig(by.loc["zedc_compressed", "cpu_s"] / by.loc["uncompressed", "cpu_s"], 3)}


# -- zEDC processor capacity -----------------------------------------------------------------------

def load_processor(source: str = "zedc_processor") -> dict:
    frame = mqdata.load(source)
    util = frame.dropna(subset=["util_pct"]).set_index("item")["util_pct"]
    return {"incompressible": float(util[[i for i in util.index if "incompressible" in i][0]]),
            "compressible": float(util[[i for i in util.index if "highly compressible" in i][0]])}


def zedc_capacity(util_pct: dict, *, queue_managers: int, rate_share: float = 1.0, max_util: float = 0.5,
                  max_features: int = 8) -> pd.DataFrame:
    """zEDC features for ``queue_managers`` archiving at ``rate_share`` of the measured peak.

    Offered load A = queue managers × measured utilisation × share (in features' worth of
    work). Features needed keep A / c ≤ ``max_util``; the stretch R/S is the M/M/c mean
    response time over the service time at that c, the factor by which a compression
    request takes longer than on an idle feature.
    """
    if queue_managers < 1 or not 0 < rate_share <= 1 or not 0 < max_util < 1:
        raise ModelError("queue_managers must be ≥ 1, rate_share in (0, 1] and max_util in (0, 1)")
    rows = []
    for data, pct in util_pct.items():
        load = queue_managers * pct / 100 * rate_share
        need = max(1, math.ceil(load / max_util - 1e-12))
        for c in range(1, need + 1):
            stable = load < c
            stretch = queueing.mmc_response(load, 1.0, c) if stable else math.inf
            rows.append({"messages": data, "offered_load_features": round_sig(load, 3), "features": c,
                         "utilisation": round_sig(load / c, 3), "stretch_R_over_S": round_sig(stretch, 3) if stable else "unstable",
                         "meets_max_util": load / c <= max_util + 1e-12,
                         "within_one_drawer": c <= max_features})
    return pd.DataFrame(rows)
