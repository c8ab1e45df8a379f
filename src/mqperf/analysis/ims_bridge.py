"""IMS bridge (OTMA) tuning: settings before and after, throughput against CPUs, and the
coupling facility's headroom.

* :func:`tuning_table` lays the tuning steps side by side (before, after, effect).
* :func:`load_points` takes the transaction rates; the "parity with IMS V12" statement
  becomes a point with basis ``derived`` (IMS V13 tuned at 3:3:3 = IMS V12's rate).
* :func:`fit_models` fits what three CPU configurations can identify: Amdahl's law and the
  bottleneck model (two parameters, one residual degree of freedom each) and the USL
  (three parameters, exactly identified), all from :mod:`mqperf.models`.
* :func:`cf_headroom` turns the coupling facility's busy share at the peak into CF time per
  transaction and asks M/M/c (:mod:`mqperf.models.queueing`) what a higher rate would do.
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
from mqperf.models import bottleneck, queueing, usl
from mqperf.models._base import round_sig

TUNED = "IMS V13 tuned"




def _text(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _setting(row) -> str:
    value = f"{row['value_num']:g}" if pd.notna(row["value_num"]) else _text(row["setting_text"])
    unit = _text(row["unit"])
    return f"{value}{unit}" if unit == "%" else f"{value} {unit}".strip()


def tuning_table(source: str = "ims_bridge_tuning") -> pd.DataFrame:
    """One row per setting: before and after on IMS V13, other versions' values, the effect."""
    frame = mqdata.load(source)
    rows = []
    for (step, change, parameter), group in frame.groupby(["step", "change", "parameter"], sort=False):
        def pick(state, version=None):
            sub = group[group["state"] == state]
            if version is not None:
                sub = sub[sub["ims_version"] == version]
            return "; ".join(_setting(r) for _, r in sub.iterrows())
        others = "; ".join(f"IMS {int(r['ims_version'])}: {_setting(r)}" for _, r in group.iterrows()
                           if r["state"] == "in_effect" and int(r["ims_version"]) != 13)
        rows.append({"step": int(step), "change": change, "setting": parameter,
                     "ims_v13_before": pick("before") or pick("in_effect", 13), "ims_v13_after": pick("after"),
                     "other_versions": others, "effect_or_requirement": pick("effect") or pick("requirement")})
    return pd.DataFrame(rows)


def load_points(source: str) -> pd.DataFrame:
    """Rates with a readable series, the CPUs varied (``cpus``: LPAR 1 for the book's data).

    Several rows of a reader's file per series and CPU count (one per measurement
    interval) are averaged to one point with ``n`` and ``rate_tps_sd``
    (:func:`mqperf.data.aggregate.means`); the scaling fits go through these means unweighted,
    so their degrees of freedom are the distinct CPU counts, not the rows.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="ims_bridge")
        frame = aggregate.means(frame, [c for c in ("series", "basis", "cpus") if c in frame], ["rate_tps"])
        out = pd.DataFrame({"series": frame["series"].astype(str) if "series" in frame else "your data",
                            "cpus": frame["cpus"].astype(int), "cpu_config": frame["cpus"].astype(str),
                            "rate_tps": frame["rate_tps"].astype(float),
                            "basis": frame["basis"].astype(str) if "basis" in frame else "measured"})
        for col in (aggregate.COUNT, aggregate.sd_column("rate_tps")):
            if col in frame:
                out[col] = frame[col]
        return out.reset_index(drop=True)
    frame = mqdata.load(source)
    rates = frame[frame["metric"] == "transaction_rate"].copy()
    v12 = rates[(rates["ims_version"] == 12) & (rates["tuning"] == "initial")]["tps"]
    rows = []
    for r in rates.itertuples():
        tps, basis = r.tps, r.basis
        if r.basis == "constraint" and r.relation == "equal_to_ims_v12_initial":
            tps, basis = float(v12.iloc[0]), "derived"
        rows.append({"series": f"IMS V{r.ims_version} {r.tuning}", "cpus": int(r.lpar1_cps), "cpu_config": r.cpu_config,
                     "rate_tps": float(tps), "basis": basis})
    return pd.DataFrame(rows)


def aggregation_note(points: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many points; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(points, per="series and CPU count", value="rate_tps"))


def load_cf(source: str) -> dict | None:
    """The CF busy share at the peak: {'busy_pct', 'processors', 'rate_tps'}, or None."""
    if _is_path(source):
        frame = mqdata.load(source, contract="ims_bridge")
        if "cf_busy_pct" not in frame or "cf_processors" not in frame or frame["cf_busy_pct"].isna().all():
            return None
        row = frame.dropna(subset=["cf_busy_pct", "cf_processors"]).sort_values("rate_tps").iloc[-1]
        return {"busy_pct": float(row["cf_busy_pct"]), "processors": int(row["cf_processors"]), "rate_tps": float(row["rate_tps"])}
    frame = mqdata.load(source)
    busy = frame[frame["metric"] == "cf_busy"].iloc[0]
    rate = frame[(frame["metric"] == "transaction_rate") & (frame["cpu_config"] == busy["cpu_config"])
                 & (frame["ims_version"] == busy["ims_version"])]["tps"].dropna().iloc[0]
    env = mqdata.load("test_environments")
    procs = env[(env["env_id"] == busy["env_id"]) & (env["attribute"] == "processors")]["value_num"].iloc[0]
    return {"busy_pct": float(busy["pct"]), "processors": int(procs), "rate_tps": float(rate)}


def scaling_points(points: pd.DataFrame) -> pd.DataFrame:
    """The series that vary CPUs: the tuned IMS V13 runs for the book's data, all series for a reader's."""
    if TUNED in set(points["series"]):
        return points[points["series"] == TUNED].reset_index(drop=True)
    return points.reset_index(drop=True)


def fit_models(points: pd.DataFrame, *, data_name=None, data_hash=None) -> dict:
    """Amdahl, bottleneck and USL fits of rate against CPUs, where the points identify them."""
    n, x = points["cpus"].to_numpy(dtype=float), points["rate_tps"].to_numpy(dtype=float)
    distinct = np.unique(n).size
    if distinct < 2:
        raise ModelError("throughput against CPUs needs at least 2 distinct CPU counts (3 for the USL)")
    fits = {
        "amdahl": usl.fit(n, x, amdahl_only=True, data_name=data_name, data_hash=data_hash),
        "bottleneck": bottleneck.fit(n, x, data_name=data_name, data_hash=data_hash),
    }
    if distinct >= 3:
        fits["usl"] = usl.fit(n, x, data_name=data_name, data_hash=data_hash)
    return fits


def fits_table(fits: dict) -> pd.DataFrame:
    rows = []
    for name, r in fits.items():
        row = {"model": name, "formula": r.formula, "points": r.nobs, "df_resid": r.df_resid}
        for p in r.params.index:
            row[p] = round_sig(r.params[p], 4)
        if name == "bottleneck":
            row["knee_cpus"] = round_sig(r.knee(), 3)
        else:
            row["limit_tps"] = round_sig(r.peak_x(), 4)
            row["peak_cpus"] = round_sig(r.peak_n(), 3)
        row["rmse_tps"] = round_sig(r.rmse, 3)
        row["status"] = "; ".join(r.notes) or "fitted with intervals"
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fits: dict) -> pd.DataFrame:
    parts = []
    for name, r in fits.items():
        s = r.summary().reset_index()
        s.insert(0, "model", name)
        parts.append(s)
    return pd.concat(parts, ignore_index=True)


def holdout_largest(points: pd.DataFrame) -> pd.DataFrame:
    """Fit on every CPU count but the largest, predict the largest (an extrapolation)."""
    top = points["cpus"].max()
    rest, held = points[points["cpus"] < top], points[points["cpus"] == top]
    if rest["cpus"].nunique() < 2 or held.empty:
        return pd.DataFrame(columns=["model", "fitted_on_cpus", "cpus", "measured_tps", "predicted_tps", "error_pct"])
    rows = []
    for name, r in fit_models(rest).items():
        for h in held.itertuples():
            pred = float(r.predict([h.cpus])[0])
            rows.append({"model": name, "fitted_on_cpus": ", ".join(str(int(c)) for c in sorted(rest["cpus"].unique())),
                         "cpus": int(h.cpus), "measured_tps": h.rate_tps, "predicted_tps": round_sig(pred, 4),
                         "error_pct": round_sig((pred - h.rate_tps) / h.rate_tps * 100, 3)})
    return pd.DataFrame(rows)


def leave_one_out(points: pd.DataFrame, model: str = "amdahl") -> pd.DataFrame:
    """Each CPU count held out in turn, predicted by ``model`` fitted to the others."""
    rows = []
    for idx in points.index:
        rest, held = points.drop(index=idx), points.loc[idx]
        if rest["cpus"].nunique() < 2:
            continue
        r = fit_models(rest)[model]
        pred = float(r.predict([held["cpus"]])[0])
        rows.append({"model": model, "cpus": int(held["cpus"]), "measured_tps": held["rate_tps"],
                     "predicted_tps": round_sig(pred, 4), "error_pct": round_sig((pred - held["rate_tps"]) / held["rate_tps"] * 100, 3)})
    return pd.DataFrame(rows)


def curves(fits: dict, *, n_max: float, points: int = 61) -> pd.DataFrame:
    grid = np.round(np.linspace(1, n_max, points), 4)
    parts = []
    for name, r in fits.items():
        band = r.conf_band(grid)
        band["series"] = name
        parts.append(band)
    return pd.concat(parts, ignore_index=True)


def cpus_for_rate(fits: dict, target_tps: float, *, n_max: int = 32) -> pd.DataFrame:
    """CPUs each model says reach ``target_tps`` (None: not within ``n_max``)."""
    rows = []
    for name, r in fits.items():
        need = r.n_for_rate(target_tps) if name == "bottleneck" else r.n_for_rate(target_tps, n_max=n_max)
        if need is not None and need > n_max:
            need = None
        rows.append({"model": name, "target_tps": target_tps,
                     "cpus_needed": need if need is not None else f"not reachable (model limit {round_sig(r.x_max if name == 'bottleneck' else r.peak_x(), 4):g})"})
    return pd.DataFrame(rows)


def cf_time_per_transaction_us(cf: dict) -> float:
    """CF processor time per transaction: busy share × processors / rate (µs)."""
    return cf["busy_pct"] / 100 * cf["processors"] / cf["rate_tps"] * 1e6


def cf_headroom(cf: dict, rates_tps, *, processors, max_utilisation: float) -> pd.DataFrame:
    """CF utilisation, Erlang C and mean queueing in service times at each rate and CF size.

    Assumes CF time per transaction stays what it was at the measured peak (one point: the
    CF work per transaction cannot be checked against a second measurement).
    """
    if not 0 < max_utilisation < 1:
        raise ModelError("max_utilisation must be between 0 and 1")
    per_tx = cf_time_per_transaction_us(cf) / 1e6
    rows = []
    for rate in rates_tps:
        load = rate * per_tx  # offered load in CF processors (erlangs)
        for c in processors:
            rho = load / c
            stable = rho < 1
            rows.append({"rate_tps": rate, "cf_processors": c, "utilisation": round_sig(rho, 3),
                         "p_wait": round_sig(queueing.erlang_c(c, load), 3) if stable else 1.0,
                         "wait_in_service_times": round_sig(queueing.mmc_wait(load, 1.0, c), 3) if stable else math.inf,
                         "within_max": rho <= max_utilisation})
    return pd.DataFrame(rows)


def cf_processors_needed(cf: dict, rate_tps: float, max_utilisation: float) -> int:
    """Fewest CF processors keeping utilisation at or below ``max_utilisation`` at ``rate_tps``."""
    return max(1, math.ceil(rate_tps * cf_time_per_transaction_us(cf) / 1e6 / max_utilisation - 1e-12))


def rates_chart(points: pd.DataFrame) -> alt.Chart:
    """Transaction rates of every run, labelled by version, tuning and CPU configuration."""
    frame = points.assign(run=points["series"] + " (" + points["cpu_config"] + ")")
    return alt.Chart(charts.rounded(frame)).mark_bar().encode(
        y=alt.Y("run:N", sort=None, title=None, axis=alt.Axis(labelLimit=300)),
        x=alt.X("rate_tps:Q", title="transactions per second"),
        color=alt.Color("basis:N", title="basis", scale=alt.Scale(domain=["measured", "derived"], range=[charts.PALETTE[0], charts.PALETTE[3]])),
        tooltip=["run:N", "rate_tps:Q", "basis:N"],
    ).properties(title="Transaction rates by run", height=160)


def headroom_chart(table: pd.DataFrame, *, cap: float = 3.0) -> alt.Chart:
    """Mean CF queueing (in service times) against the rate, one line per CF size, cut at ``cap``."""
    wait = pd.to_numeric(table["wait_in_service_times"], errors="coerce")
    frame = table[np.isfinite(wait) & (wait <= cap)].copy()
    frame["cf_processors"] = frame["cf_processors"].astype(str) + " CF processors"
    return charts.lines(frame, x="rate_tps", y="wait_in_service_times", colour="cf_processors", points=False,
                        x_title="transactions per second", y_title="mean CF queueing (service times)",
                        title=f"Coupling facility queueing as the rate grows (M/M/c, shown up to {cap:g} service times)")
