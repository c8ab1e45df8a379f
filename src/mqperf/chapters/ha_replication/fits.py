"""HA replication latency: the points, the round-trip fits, their check and the planning tables.

One model per series, :func:`mqperf.models.replication.fit`: R(d) = a + k·d on the response time
N/X (Little's law for a closed loop with no think time), with the delay d as the file gives it
(added, or the whole round trip). Points at one delay in one series (replicates) are averaged
first (:func:`mqperf.data.aggregate.means`). Frames come out with the column names the report shows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.ha_replication import ADDED, RTT
from mqperf.data import aggregate
from mqperf.errors import DataError, ModelError
from mqperf.models import replication
from mqperf.models.fitset import FitSet

D = "delay_ms"


def prepare(frame: pd.DataFrame, source: str) -> tuple[pd.DataFrame, str]:
    """Rows with ``series`` and ``delay_ms``, and which delay column the file gave (ADDED or RTT)."""
    have = [c for c in (ADDED, RTT) if c in frame and frame[c].notna().any()]
    if len(have) != 1:
        raise DataError(source, "give the delay in exactly one column, added_latency_ms or rtt_ms"
                        + (" (the file has both)" if len(have) == 2 else " (the file has neither)"))
    col = have[0]
    rows = frame.copy()
    if rows[col].isna().any():
        line = int(np.flatnonzero(rows[col].isna().to_numpy())[0]) + 2
        raise DataError(source, "a row has no delay", column=col, row=line)
    rows["series"] = rows["series"].astype("string").fillna("").replace("", "all").astype(str) \
        if "series" in rows else "all"
    rows[D] = rows[col].astype(float)
    rows["rate"] = rows["rate"].astype(float)
    if "clients" in rows and rows["clients"].notna().any() and rows["clients"].isna().any():
        raise DataError(source, "clients is given on some rows and not on others: give it on every row or none",
                        column="clients")
    return rows, col


def points(rows: pd.DataFrame) -> pd.DataFrame:
    """One point per series and delay (clients too, when given): means of the rows there."""
    keys = ["series", D] + (["clients"] if "clients" in rows and rows["clients"].notna().all() else [])
    values = ["rate"] + (["cpu_pct"] if "cpu_pct" in rows and rows["cpu_pct"].notna().any() else [])
    cols = keys + values + [c for c in ("basis", "table") if c in rows]
    pts = aggregate.means(rows[cols], keys, values).copy()
    order = {k: i for i, k in enumerate(dict.fromkeys(pts["series"]))}
    pts["_order"] = pts["series"].map(order)
    pts = pts.sort_values(["_order", D], kind="stable").drop(columns="_order").reset_index(drop=True)
    if "clients" in pts:
        pts["response_ms"] = pts["clients"] * 1000.0 / pts["rate"]
    return pts


def has_clients(pts: pd.DataFrame) -> bool:
    return "clients" in pts


def _fit(rows: pd.DataFrame, **identity):
    clients = rows["clients"].to_numpy(float) if "clients" in rows else None
    if rows[D].nunique() < 2:
        raise ModelError("one delay: a single point says nothing about what a round trip costs")
    return replication.fit(rows[D], rows["rate"], clients, **identity)


def fitter(**identity):
    return lambda rows: _fit(rows, **identity)


def fit_all(pts: pd.DataFrame, **identity) -> FitSet:
    return FitSet.fit(pts, "series", fitter(**identity))


def k_interval(res) -> tuple[float, float]:
    """The slope's 95 % interval (k, or k/N without clients); NaN without residual df."""
    if res.df_resid <= 0 or res.cov is None:
        return math.nan, math.nan
    ci = res.conf_int().loc["k"]
    return float(ci["lower"]), float(ci["upper"])


def fits_table(fits: FitSet, per_client: bool) -> pd.DataFrame:
    slope = "k (round trips per request)" if per_client else "b = k/N (ms per ms)"

    def columns(r) -> dict:
        lo, hi = k_interval(r)
        return {"a (ms)": r.a, slope: r.slope, "95 % lower": lo, "95 % upper": hi,
                "rate halves at d½ = a/k (ms)": _finite(r.halving_delay()),
                "residual df": r.df_resid, "identification": r.identification}

    return fits.table(columns)


def _finite(v: float) -> float:
    return v if math.isfinite(v) else np.nan


def points_table(pts: pd.DataFrame, col: str) -> pd.DataFrame:
    names = {"series": "series", D: "added delay (ms)" if col == ADDED else "round trip (ms)",
             "clients": "clients", "rate": "rate (requests/s)", "response_ms": "N/rate (ms)",
             "cpu_pct": "CPU %", aggregate.COUNT: "rows (n)", "basis": "basis", "table": "printed in"}
    return pts[[c for c in names if c in pts]].rename(columns=names)


def validation(fits: FitSet, pts: pd.DataFrame, col: str) -> pd.DataFrame:
    """Each point's rate predicted by its series' fit without it (leave one out), at its own clients."""
    rows = []
    for name in fits.results:
        mine = pts[pts["series"] == name]
        for i in range(len(mine)):
            held, rest = mine.iloc[i], mine.drop(mine.index[i])
            row = {"series": name, D: float(held[D]), "measured": float(held["rate"])}
            try:
                res = _fit(rest)
                n = float(held["clients"]) if "clients" in held else None
                pred = float(res.rate([float(held[D])], clients=n)[0])
                row.update({"predicted": pred, "error %": 100.0 * (pred - row["measured"]) / row["measured"],
                            "note": ""})
            except ModelError as exc:
                row.update({"predicted": np.nan, "error %": np.nan, "note": str(exc)})
            rows.append(row)
    out = pd.DataFrame(rows, columns=["series", D, "measured", "predicted", "error %", "note"])
    return out.rename(columns={D: "added delay (ms)" if col == ADDED else "round trip (ms)",
                               "measured": "measured (requests/s)", "predicted": "predicted without it (requests/s)"})


def curves(fits: FitSet, pts: pd.DataFrame, upto: float) -> pd.DataFrame:
    """Each fit's rate and N/rate on a grid from 0 to ``upto``, at the series' clients (its median)."""
    grid = np.linspace(0.0, upto, 41)
    frames = []
    for name, res in fits.results.items():
        rate = res.rate(grid)
        frames.append(pd.DataFrame({"series": name, D: grid, "curve": "R = a + k·d fit", "rate": rate,
                                    "response_ms": res.clients * 1000.0 / rate}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def plan(fits: FitSet, pts: pd.DataFrame, your: float, target: float | None) -> pd.DataFrame:
    """Per series: the rate at ``your`` delay (with the curve's 95 % band), whether that is past the
    measured delays, and the largest delay that still reaches ``target``."""
    rows = []
    for name, res in fits.results.items():
        mine = pts[pts["series"] == name]
        lo_d, hi_d = float(mine[D].min()), float(mine[D].max())
        band = res.rate_band([your]).iloc[0]
        row = {"series": name, "clients": res.clients, "measured delays (ms)": f"{lo_d:g} to {hi_d:g}",
               "rate at your delay (requests/s)": float(band["rate"]), "95 % lower": float(band["lower"]),
               "95 % upper": float(band["upper"]),
               "extrapolated": "beyond the measured delays" if not (lo_d <= your <= hi_d) else "no"}
        if target is not None:
            d = res.delay_for(target)
            row["target (requests/s)"] = float(target)
            row["largest delay for the target (ms)"] = d if math.isfinite(d) else np.nan
            row["target: note"] = ("not reached even at 0 ms" if d != d else "no round-trip cost fitted"
                                   if math.isinf(d) else "beyond the measured delays" if not (lo_d <= d <= hi_d)
                                   else "within the measured delays")
        rows.append(row)
    return pd.DataFrame(rows)


def nativeha_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Native HA and SIQM persistent rates side by side, and Native HA / SIQM (derived, in %)."""
    p = frame[frame["persistence"] == "Persistent"]
    wide = p.pivot_table(index=["message_size", "size_bytes", "cpu_limit_cores"], columns="ha_config",
                         values="rate_rt_s", aggfunc="first").reset_index().sort_values(["size_bytes", "cpu_limit_cores"])
    if not {"NativeHA", "SIQM"} <= set(wide.columns):
        return pd.DataFrame()
    return pd.DataFrame({"message size": wide["message_size"].to_numpy(),
                         "CPU limit (cores)": wide["cpu_limit_cores"].to_numpy(),
                         "Native HA (requests/s)": wide["NativeHA"].to_numpy(),
                         "SIQM (requests/s)": wide["SIQM"].to_numpy(),
                         "Native HA / SIQM (%)": (100 * wide["NativeHA"] / wide["SIQM"]).to_numpy()})
