"""TLS CipherSpecs: the ratios against no TLS, the tests repeats allow, and the CPU at a reader's rate.

No model is fitted: a peak rate and its CPU per CipherSpec give two ratios against the series' run
without TLS, the rate ratio r = X_none / X_c (the reports' "No-TLS/TLS") and the CPU-per-round-trip ratio
c = (U_c / X_c) / (U_none / X_none), with U the CPU % and X the rate. Priced at a rate x the reader needs,
a CipherSpec takes U_c(x) = x · U_c / X_c, CPU proportional to the rate (a line through the origin and the
one measured point: fixed costs that do not grow with the rate make it an upper bound below the peak).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.tls_ciphers import ALL, BASELINES
from mqperf.data import aggregate
from mqperf.models import pvalues

PER = 10_000  # CPU % per this many round trips/s: the unit the tables show


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame.copy()
    rows["series"] = rows["series"].fillna("").astype(str).replace("", ALL) if "series" in rows else ALL
    rows["cipherspec"] = rows["cipherspec"].astype(str).str.strip()
    rows["baseline"] = rows["cipherspec"].str.lower().isin(BASELINES)
    rows["cost"] = PER * rows["cpu_pct"].astype(float) / rows["rate_rt_s"].astype(float)
    if "clients" not in rows:
        rows["clients"] = np.nan
    return rows.reset_index(drop=True)


def points(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per series and CipherSpec: mean rate, CPU and clients, with the runs' count and spread."""
    keep = rows[["series", "cipherspec", "baseline", "rate_rt_s", "cpu_pct", "cost", "clients"]]
    pts = aggregate.means(keep, ["series", "cipherspec"], ["rate_rt_s", "cpu_pct", "cost", "clients"])
    if aggregate.COUNT not in pts:
        pts = pts.assign(**{aggregate.COUNT: 1})
    base = rows.groupby(["series", "cipherspec"], sort=False)["baseline"].first()
    pts["baseline"] = [bool(base[(s, c)]) for s, c in zip(pts["series"], pts["cipherspec"])]
    return pts


def costs(pts: pd.DataFrame) -> pd.DataFrame:
    """Each CipherSpec against its series' baseline (series without one: ratios left blank)."""
    out = []
    for s, g in pts.groupby("series", sort=False):
        base = g[g["baseline"]]
        x0 = float(base["rate_rt_s"].iloc[0]) if len(base) else math.nan
        c0 = float(base["cost"].iloc[0]) if len(base) else math.nan
        for p in g.itertuples(index=False):
            out.append({"series": s, "CipherSpec": p.cipherspec, "runs (n)": int(getattr(p, aggregate.COUNT)),
                        "clients": p.clients, "rate (round trips/s)": p.rate_rt_s,
                        "rate sd": getattr(p, aggregate.sd_column("rate_rt_s"), math.nan), "CPU %": p.cpu_pct,
                        "CPU % sd": getattr(p, aggregate.sd_column("cpu_pct"), math.nan),
                        f"CPU % per {PER:,} round trips/s": p.cost,
                        "rate ratio No TLS / this": x0 / p.rate_rt_s, "CPU per round trip, this / No TLS": p.cost / c0,
                        "baseline": bool(p.baseline)})
    table = pd.DataFrame(out)
    rates = table["rate (round trips/s)"]
    if bool((rates == rates.round()).all() and (rates.abs() < 1e15).all()):  # whole numbers: every digit shown
        table["rate (round trips/s)"] = rates.round().astype("int64")
    return table


def compared(table: pd.DataFrame) -> pd.DataFrame:
    """The TLS rows of series that have a baseline."""
    return table[(~table["baseline"]) & table["rate ratio No TLS / this"].notna()]


def difference_test(rows: pd.DataFrame, series: str, a: str, b: str):
    """Welch's t-test of the CPU per round trip of CipherSpecs ``a`` and ``b`` in ``series``; None without
    two runs of each (one run per CipherSpec has no spread to test against)."""
    mine = rows[rows["series"] == series]
    xa, xb = mine.loc[mine["cipherspec"] == a, "cost"], mine.loc[mine["cipherspec"] == b, "cost"]
    if len(xa) < 2 or len(xb) < 2:
        return None
    scale = max(float(xa.abs().mean()), float(xb.abs().mean()), 1e-300)
    if max(float(xa.std()), float(xb.std())) <= 1e-9 * scale:  # no spread to test against
        return None
    return pvalues.welch(xa, xb)


def plan(table: pd.DataFrame, rate: float) -> pd.DataFrame:
    """CPU % at ``rate`` by each CipherSpec (proportional to the rate), the increase over no TLS, and whether
    the rate lies within the one the run reached."""
    out = []
    for p in table.to_dict("records"):
        need = rate * p[f"CPU % per {PER:,} round trips/s"] / PER
        base = table[(table["series"] == p["series"]) & table["baseline"]]
        base_need = rate * float(base[f"CPU % per {PER:,} round trips/s"].iloc[0]) / PER if len(base) else math.nan
        out.append({"series": p["series"], "CipherSpec": p["CipherSpec"], "your rate (round trips/s)": rate,
                    "CPU % at your rate": need, "CPU % added to No TLS": need - base_need,
                    "measured peak (round trips/s)": p["rate (round trips/s)"],
                    "your rate / measured peak %": 100 * rate / p["rate (round trips/s)"],
                    "extrapolated": bool(rate > p["rate (round trips/s)"]), "baseline": p["baseline"]})
    return pd.DataFrame(out)


def published_check(pub: pd.DataFrame) -> pd.DataFrame:
    """Section 6.3's printed ratios against the ratio of the rates printed beside them."""
    out = []
    for comp, g in pub.groupby("comparison", sort=False):
        rates = g.dropna(subset=["rate_rt_s"])
        base = rates[rates["scenario"].str.startswith("No-TLS")]
        for r in g.dropna(subset=["ratio"]).itertuples(index=False):
            version = "TLS 1.3" if "TLS 1.3" in r.scenario else "TLS 1.2"
            tls = rates[rates["scenario"].str.contains(version, regex=False) & ~rates["scenario"].str.startswith("No-TLS")]
            if base.empty or tls.empty:
                continue
            x0, x1 = float(base["rate_rt_s"].iloc[0]), float(tls["rate_rt_s"].iloc[0])
            out.append({"comparison": comp, "CipherSpec": tls["scenario"].iloc[0], "No TLS (round trips/s)": x0,
                        "with TLS (round trips/s)": x1, "printed ratio": float(r.ratio), "recomputed ratio": x0 / x1,
                        "agrees to the printed digits": bool(round(x0 / x1, 2) == round(float(r.ratio), 2))})
    return pd.DataFrame(out)
