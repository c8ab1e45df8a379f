"""z/OS on z16: the points, the USL fits per workload and machine, the machine comparison, the
LSPR comparison and the planning answers.

Each machine's peak rate against CPUs is fitted with the Universal Scalability Law
(:mod:`mqperf.models.usl`; Amdahl's law where only two CPU counts were measured). The machines
are compared where both measured the same CPU count: the change in rate, in CPU per transaction
and in transactions per CPU second (ITR, the quantity IBM's LSPR projects: z15 cost / z16 cost
− 1). A measured point is one run: its spread is unknown, so a change at one CPU count is a
single difference; the mean change across the counts has a t-interval from the counts' scatter
only under the assumption that the change is the same at every count, which the table lets the
reader judge. Planning uses the fit of the machine moved to; an answer past its largest measured
CPU count is an extrapolation, said so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.zos_z16 import ALL, COST, CPUS, MACHINE, WORKLOAD, X
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import planning, pvalues, usl
from mqperf.models.fitset import FitSet
from mqperf.present import prose

#: Extra columns the book's view carries (chart readings' uncertainty, the cost's own basis).
RATE_UNC, COST_UNC, COST_BASIS = "rate_reading_uncertainty", "cpu_reading_uncertainty", "cpu_basis"


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """One point per workload, machine and CPU count (rows averaged), with ``series``."""
    rows = frame.copy()
    rows[WORKLOAD] = rows[WORKLOAD].fillna("").astype(str).replace("", ALL) if WORKLOAD in rows else ALL
    rows[MACHINE] = rows[MACHINE].astype(str)
    rows[CPUS] = rows[CPUS].astype(int)
    rows["basis"] = rows["basis"].fillna("measured").astype(str) if "basis" in rows else "measured"
    if COST not in rows:
        rows[COST] = np.nan
    if COST_BASIS not in rows:
        rows[COST_BASIS] = np.where(rows[COST].notna(), rows["basis"], None)
    keys = [WORKLOAD, MACHINE, CPUS]
    chart = rows.groupby(keys, sort=False)["basis"].transform(lambda b: "chart" if (b == "chart").any() else b.iloc[0])
    rows["basis"] = chart
    extra = [c for c in (RATE_UNC, COST_UNC) if c in rows]
    pts = aggregate.means(rows[keys + [X, COST, "basis", COST_BASIS] + extra], keys, [X, COST])
    pts = pts.copy()
    pts["series"] = [label(w, m) for w, m in zip(pts[WORKLOAD], pts[MACHINE])]
    return pts.reset_index(drop=True)


def label(workload: str, machine: str) -> str:
    """A series' name: the machine, after the workload when the file names one."""
    return machine if workload == ALL else f"{workload}, {machine}"


def machines(pts: pd.DataFrame, p: dict) -> tuple[str | None, str | None, str]:
    """The machines moved from and to, and how they were chosen (in words)."""
    present = list(dict.fromkeys(pts[MACHINE]))
    a, b = str(p["from_machine"]), str(p["to_machine"])
    if a in present and b in present and a != b:
        return a, b, f"from {prose.quoted(a)} to {prose.quoted(b)}, as the parameters name them"
    if len(present) == 2:
        return present[0], present[1], (f"from {prose.quoted(present[0])} to {prose.quoted(present[1])}: the file's "
                                        f"two machines in the order it gives them (the parameters name "
                                        f"{prose.quoted(a)} and {prose.quoted(b)})")
    return None, None, (f"the file has {prose.count(len(present), 'machine')} and the parameters' "
                        f"{prose.quoted(a)} and {prose.quoted(b)} are not both among them")


def points_table(pts: pd.DataFrame) -> pd.DataFrame:
    cols = {WORKLOAD: "workload", MACHINE: "machine", CPUS: "CPUs", X: "peak rate (msg/s)", "basis": "rate basis",
            COST: "CPU per transaction (µs)", COST_BASIS: "CPU basis", aggregate.COUNT: "rows (n)",
            aggregate.sd_column(X): "rate sd (msg/s)", aggregate.sd_column(COST): "CPU sd (µs)"}
    table = pts[[c for c in cols if c in pts]].rename(columns=cols)
    if pts[COST].isna().all():
        table = table.drop(columns=["CPU per transaction (µs)", "CPU basis"])
    if (pts[WORKLOAD] == ALL).all():
        table = table.drop(columns=["workload"])
    return table


# -- the USL per workload and machine ----------------------------------------------------------

def _fit(rows: pd.DataFrame, **identity):
    distinct = rows[CPUS].nunique()
    if distinct < 2:
        raise ModelError("one CPU count: a single point says nothing about scaling")
    return usl.fit(rows[CPUS], rows[X], amdahl_only=distinct < 3, **identity)


def fitter(**identity):
    return lambda rows: _fit(rows, **identity)


def fit_all(pts: pd.DataFrame, **identity) -> FitSet:
    return FitSet.fit(pts, "series", fitter(**identity))


def _ci(res, name: str) -> tuple[float, float]:
    if res.df_resid <= 0 or res.cov is None or name not in res.params.index:
        return math.nan, math.nan
    ci = res.conf_int().loc[name]
    return float(ci["lower"]), float(ci["upper"])


def fits_table(fits: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        lo, hi = _ci(r, "lam")
        klo, khi = _ci(r, "kappa")
        return {"model": "USL" if r.model == "usl" else "Amdahl", "λ (msg/s per CPU)": r.lam,
                "λ 95 % lower": lo, "λ 95 % upper": hi, "σ": r.sigma, "κ": r.kappa, "κ 95 % lower": klo,
                "κ 95 % upper": khi, "peak at (CPUs)": _finite(r.peak_n()), "peak or limit (msg/s)": _finite(r.peak_x()),
                "residual df": r.df_resid, "identification": r.identification}

    return fits.table(columns)


def _finite(v: float) -> float:
    return v if np.isfinite(v) else np.nan


def basis_of(pts: pd.DataFrame) -> pd.DataFrame:
    """Per series: how many of the fitted rates are chart readings and how many printed or measured."""
    g = pts.groupby("series", sort=False)["basis"]
    return pd.DataFrame({"series": list(g.groups), "chart": g.apply(lambda b: int((b == "chart").sum())).to_numpy(),
                         "other": g.apply(lambda b: int((b != "chart").sum())).to_numpy()})


def validation(fits: FitSet, pts: pd.DataFrame, **identity) -> pd.DataFrame:
    """Leave-one-out: each point predicted by the fit of its series' other points."""
    fitted = pts[pts["series"].isin(list(fits.results))]
    table = fits.leave_one_out(fitted, "series", CPUS, X, fitter(**identity))
    return table.rename(columns={CPUS: "CPUs", "measured": "measured (msg/s)", "predicted": "predicted (msg/s)"})


# -- the machines compared -----------------------------------------------------------------------

def compare(pts: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Per workload and CPU count both machines measured: rates, CPU per transaction and changes."""
    keys = [WORKLOAD, CPUS]
    both = pts[pts[MACHINE] == a].merge(pts[pts[MACHINE] == b], on=keys, how="inner", suffixes=("_a", "_b"))
    if both.empty:
        return pd.DataFrame()
    out = pd.DataFrame({"workload": both[WORKLOAD], "CPUs": both[CPUS],
                        f"rate {a} (msg/s)": both[f"{X}_a"], f"rate {b} (msg/s)": both[f"{X}_b"],
                        "rate change %": 100 * (both[f"{X}_b"] / both[f"{X}_a"] - 1),
                        f"CPU {a} (µs)": both[f"{COST}_a"], f"CPU {b} (µs)": both[f"{COST}_b"],
                        "CPU change %": 100 * (both[f"{COST}_b"] / both[f"{COST}_a"] - 1),
                        "ITR change %": 100 * (both[f"{COST}_a"] / both[f"{COST}_b"] - 1)})
    if f"{COST_UNC}_a" in both:
        # The ITR change the two readings allow at their extremes (each reading ± its uncertainty).
        ua, ub = both[f"{COST_UNC}_a"].fillna(0), both[f"{COST_UNC}_b"].fillna(0)
        out["ITR change, readings' low %"] = 100 * ((both[f"{COST}_a"] - ua) / (both[f"{COST}_b"] + ub) - 1)
        out["ITR change, readings' high %"] = 100 * ((both[f"{COST}_a"] + ua) / (both[f"{COST}_b"] - ub) - 1)
    if f"{RATE_UNC}_a" in both:
        # A reading's uncertainty on each side: a change smaller than both together is not seen.
        out["rate change within readings"] = ((both[f"{X}_b"] - both[f"{X}_a"]).abs()
                                              <= both[f"{RATE_UNC}_a"].fillna(0) + both[f"{RATE_UNC}_b"].fillna(0))
    if f"{COST_UNC}_a" in both:
        out["CPU change within readings"] = ((both[f"{COST}_b"] - both[f"{COST}_a"]).abs()
                                             <= both[f"{COST_UNC}_a"].fillna(0) + both[f"{COST_UNC}_b"].fillna(0))
    if both[f"{COST}_a"].isna().all() or both[f"{COST}_b"].isna().all():
        out = out.drop(columns=[f"CPU {a} (µs)", f"CPU {b} (µs)", "CPU change %", "ITR change %"]
                       + [c for c in ["CPU change within readings", "ITR change, readings' low %",
                                      "ITR change, readings' high %"] if c in out])
    return out


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per workload and quantity: the change across the CPU counts both machines measured."""
    rows = []
    for w, g in table.groupby("workload", sort=False):
        for what in ("rate change %", "CPU change %"):
            if what not in g:
                continue
            v = g[what].dropna().to_numpy(float)
            if v.size == 0:
                continue
            lo = hi = math.nan
            if v.size >= 3:
                half = pvalues.t_ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
                lo, hi = float(v.mean() - half), float(v.mean() + half)
            rows.append({"workload": w, "change": what.removesuffix(" %"), "CPU counts": int(v.size),
                         "mean %": float(v.mean()), "95 % lower (if the same at every count) %": lo,
                         "95 % upper (if the same at every count) %": hi, "smallest %": float(v.min()),
                         "largest %": float(v.max()), "counts lower": int((v < 0).sum()),
                         "counts higher": int((v > 0).sum())})
    return pd.DataFrame(rows)


def lspr_compare(table: pd.DataFrame, lspr: pd.DataFrame) -> pd.DataFrame:
    """At each CPU count the LSPR table gives and the data measured: the measured ITR change
    against the expectation for LOW, AVERAGE and HIGH RNI."""
    if "ITR change %" not in table:
        return pd.DataFrame()
    wide = lspr.pivot_table(index="cpus", columns="rni", values="expected_improvement_pct", aggfunc="first")
    rows = []
    for c in wide.index:
        exp = wide.loc[c]
        lo, hi = float(exp.min()), float(exp.max())
        here = table[table["CPUs"] == c]
        if here.empty:
            rows.append({"workload": "", "CPUs": int(c), "LSPR LOW %": exp.get("LOW"), "LSPR AVERAGE %": exp.get("AVERAGE"),
                         "LSPR HIGH %": exp.get("HIGH"), "measured ITR change %": np.nan,
                         "against the LSPR range": "not measured at this CPU count"})
            continue
        for row in here.to_dict("records"):
            itr = float(row["ITR change %"])
            side = planning.side(itr, lo, hi)
            band = (row.get("ITR change, readings' low %"), row.get("ITR change, readings' high %"))
            if band[0] is not None and not pd.isna(band[0]):
                # The verdict holds only when every ITR change the readings allow is on the same side.
                if {planning.side(band[0], lo, hi), planning.side(band[1], lo, hi)} != {side}:
                    side = "overlaps the range within the readings"
            item = {"workload": row["workload"], "CPUs": int(c), "LSPR LOW %": exp.get("LOW"),
                    "LSPR AVERAGE %": exp.get("AVERAGE"), "LSPR HIGH %": exp.get("HIGH"),
                    "measured ITR change %": itr, "against the LSPR range": side}
            if band[0] is not None and not pd.isna(band[0]):
                item["readings' low %"], item["readings' high %"] = float(band[0]), float(band[1])
            if "CPU change within readings" in row:
                item["CPU change within readings"] = bool(row["CPU change within readings"])
            rows.append(item)
    return pd.DataFrame(rows)


# -- planning ------------------------------------------------------------------------------------

def plan(fits: FitSet, pts: pd.DataFrame, table: pd.DataFrame, a: str | None, b: str | None,
         target: float, at: int) -> pd.DataFrame:
    """Per workload: the change to plan for at ``at`` CPUs and at the peak, and CPUs for ``target``."""
    rows = []
    for w in dict.fromkeys(pts[WORKLOAD]):
        sa, sb = label(w, a) if a else None, label(w, b) if b else None
        ra, rb = fits.results.get(sa), fits.results.get(sb)
        if rb is None:
            continue
        mine = pts[pts["series"] == sb]
        lo_n, hi_n = int(mine[CPUS].min()), int(mine[CPUS].max())
        need = planning.first_reaching(rb.predict, target, limit=planning.LIMIT)
        row = {"workload": w, "machine": b, "measured CPUs": f"{lo_n} to {hi_n}",
               "CPUs for the target": need if need is not None else "above the modelled peak"
               if math.isfinite(rb.peak_x()) else f"not within {planning.LIMIT:,} CPUs",
               "target: extrapolated": planning.extrapolated(need, lo_n, hi_n),
               f"peak or limit {b} (msg/s)": _finite(rb.peak_x()), f"peak at {b} (CPUs)": _finite(rb.peak_n()),
               "peak: extrapolated": not (lo_n <= rb.peak_n() <= hi_n)}
        if ra is not None:
            mine_a = pts[pts["series"] == sa]
            lo_a, hi_a = int(mine_a[CPUS].min()), int(mine_a[CPUS].max())
            # A modelled peak is compared only where both fits place theirs within their measured CPUs.
            inside = lo_n <= rb.peak_n() <= hi_n and lo_a <= ra.peak_n() <= hi_a
            row.update({f"peak or limit {a} (msg/s)": _finite(ra.peak_x()), f"peak at {a} (CPUs)": _finite(ra.peak_n()),
                        "peak change %": 100 * (rb.peak_x() / ra.peak_x() - 1) if inside else np.nan,
                        "highest measured change %": 100 * (float(mine[X].max()) / float(mine_a[X].max()) - 1),
                        f"rate change at {at} CPUs (fits) %": 100 * float(rb.predict([at])[0] / ra.predict([at])[0] - 1),
                        "rate at plan CPUs: extrapolated": not (max(lo_n, lo_a) <= at <= min(hi_n, hi_a))})
            here = table[(table["workload"] == w) & (table["CPUs"] == at)] if len(table) else table
            row[f"rate change at {at} CPUs (measured) %"] = float(here["rate change %"].iloc[0]) if len(here) else np.nan
            cpu = float(here["CPU change %"].iloc[0]) if len(here) and "CPU change %" in here else np.nan
            row[f"CPU change at {at} CPUs (measured) %"] = cpu
            need_a = planning.first_reaching(ra.predict, target, limit=planning.LIMIT)
            row[f"CPUs for the target on {a}"] = need_a if need_a is not None else "not reached"
            mine_t = table[table["workload"] == w] if len(table) else table
            if "CPU change %" in mine_t and mine_t["CPU change %"].notna().any():
                row["CPU change, smallest (measured) %"] = float(mine_t["CPU change %"].min())
                row["CPU change, largest (measured) %"] = float(mine_t["CPU change %"].max())
            for col in ("rate change within readings", "CPU change within readings"):
                if col in here and len(here):
                    row[f"{col} at {at} CPUs"] = bool(here[col].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows)


# -- IBM's other published changes --------------------------------------------------------------------

def ams_table(ams: pd.DataFrame) -> pd.DataFrame:
    """The AMS changes, one row per message size and policy, cost and throughput side by side."""
    wide = ams.pivot_table(index=["message_size", "size_as_described", "policy"], columns="metric",
                           values="change_pct", aggfunc="first", sort=False).reset_index()
    return pd.DataFrame({"message size": wide["message_size"] + " (" + wide["size_as_described"] + ")",
                         "policy": wide["policy"], "transaction cost change %": wide["transaction cost"],
                         "throughput change %": wide["throughput"]})


def tls_key_table(key: pd.DataFrame) -> pd.DataFrame:
    """CPU per secret key negotiation on each machine, and the change (derived: z16 / z15 − 1)."""
    wide = key.pivot_table(index="cipher", columns="machine", values="cpu_ms", aggfunc="first", sort=False).reset_index()
    return pd.DataFrame({"CipherSpec": wide["cipher"], "z15 CPU (ms)": wide["z15"], "z16 CPU (ms)": wide["z16"],
                         "change %": 100 * (wide["z16"] / wide["z15"] - 1)})


def cost_points(pts: pd.DataFrame) -> pd.DataFrame | None:
    """CPU per transaction against CPUs, one line per series (None when the data have none)."""
    have = pts[pts[COST].notna()]
    return None if have.empty else have[["series", CPUS, COST]]
