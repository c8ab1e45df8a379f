"""The sections of the zEDC compression chapter: each adds its sentences, tables and charts.

Kept apart from :mod:`mqperf.chapters.zedc_compression` so that module imports cheaply
(``PARAMETERS``); every function here takes the :class:`~mqperf.present.results.Results`
being built and adds to it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.zedc_compression import CHAPTER, FEATURE_MACHINES, METRICS, READER_COLUMNS
from mqperf.data import aggregate, views
from mqperf.errors import ModelError
from mqperf.models import queueing, saturation
from mqperf.models.fitset import FitSet
from mqperf.present import prose
from mqperf.present.prose import num, pct

Y_TITLE = "increase with zEDC archives (%)"


def kb(value) -> str:
    """A message size in KB as sentences give it: exact (4,096, not 4,100), as the tables show it."""
    return num(value, 6)
X_TITLE = "message size (KB, log scale)"


def _hill(rows: pd.DataFrame):
    return saturation.fit(rows["size_kb"], rows["pct"])


# -- the effects -----------------------------------------------------------------------------------

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


def measured_section(r, effects) -> None:
    r.about("measured_about", (
        "The source article ran an MQ V9 queue manager on an IBM z13 (2964-703, three processors) with the LPAR's "
        "single zEDC processor, and archives written to an SMS data class with zEDC compaction required (`ZR`) "
        "and the `EXTENDED` data set name type; without `EXTENDED`, its first attempt compressed nothing. The "
        "{ref}`Data catalog <data-catalog>` gives every quote; the environment rows are these:"))
    env = views.open("test_environments", CHAPTER, "environment") if r.book_data else None
    if env is not None:
        r.table("environment", env, caption="The measured system (seed 004)")
    else:
        r.text("environment")
    r.about("tests_about", (
        "Two kinds of test. A dedicated persistent workload drove the log to its limit at four message sizes, with "
        "dual logs and dual archives, once with and once without compressed archives "
        "({ref}`dataset <data-zedc_log_compression>`). And a `RECOVER CFSTRUCT` read 4 GB of highly compressible "
        "shared-queue data (offloaded to SMDS) back from single archives, uncompressed and compressed "
        "({ref}`dataset <data-zedc_recovery>`). The effects by size, as printed (percent increase with zEDC over "
        "the same run without):"))
    if not r.book_data:
        said = []
        for metric, g in effects.groupby("metric", sort=False):
            said.append(f"the {METRICS[metric]} at {prose.count(len(g), 'message size')} "
                        f"({kb(g['size_kb'].min())} to {kb(g['size_kb'].max())} KB)")
        r.text("measured_text", f"Your data gives {prose.listing(said)}.")
    else:
        r.text("measured_text")
    table = effects.rename(columns={"size_kb": "message size (KB)", "pct": "increase (%)",
                                    aggregate.sd_column("pct"): "sd (%)"}).drop(columns="metric")
    rows = int(effects.groupby("metric")[aggregate.COUNT].sum().max()) if aggregate.aggregated(effects) else 0
    note = aggregate.note(effects, per="effect and message size", value="increase", rows=rows) if rows else ""
    r.text("aggregation", note)
    caption = (f"Effect of compressed archives by message size: means of {rows:,} rows" if rows
               else "Effect of compressed archives by message size")
    r.table("effects", table, caption=caption, digits=4)
    r.about("dfwbp_about", (
        "The throughput gain has a cause the article names: log copy 2 and the archives shared a disk control unit "
        "whose cache showed disk fast write bypass (DFWBP); compressing the archives cut their I/O, DFWBP fell to 0 "
        "and log copy 2's response time with it, which \"manifested in a 45% improvement in peak throughput with "
        "large messages\". The gain is a property of that I/O configuration: a log whose devices are not contended "
        "would not see it."))


# -- fits --------------------------------------------------------------------------------------------

def fit_section(r, effects, source) -> FitSet:
    fits = FitSet.fit(effects, "metric", _hill)
    if not fits.results:
        raise ModelError("no effect has enough message sizes for the Hill curve: it needs at least 3 distinct sizes")
    said = [prose.identification({METRICS[m]: res for m, res in fits.results.items()})]
    for metric, res in fits.results.items():
        said.append(_reading(METRICS[metric], res, res.x, res.y))
    for metric, why in fits.failures.items():
        said.append(f"The {METRICS[metric]} is not fitted: {why}.")
    r.text("fit_text", " ".join(said))
    rows = []
    for f in fits:
        row = {"effect": METRICS[f.group], "sizes": f.nobs}
        if f.ok:
            res = f.result
            lo, hi = res.s50_conf_int()
            y_lo, y_hi = (res.conf_int().loc["y_max"] if res.df_resid > 0 and res.cov is not None
                          else (np.nan, np.nan))
            row.update({"plateau y_max (%)": res.y_max, "plateau interval spans (factor)": _span(y_lo, y_hi),
                        "s50 (KB)": res.s50, "s50 95 % lower (KB)": lo,
                        "s50 95 % upper (KB)": hi, "s50 interval spans (factor)": _span(lo, hi), "h": res.h,
                        "residual df": res.df_resid,
                        "RMSE (points)": res.rmse if res.df_resid > 0 else np.nan,
                        "identification": res.identification})
        else:
            row["identification"] = f.reason
        rows.append(row)
    r.table("fits", pd.DataFrame(rows), caption="Hill curve per effect", digits=4)
    params = fits.parameters(group="effect")
    params["effect"] = params["effect"].map(METRICS)
    r.table("parameters", params.rename(columns={"std err": "std err", "lower": "95 % lower", "upper": "95 % upper"}),
            caption="Parameters (ln_s50 is ln of the size in KB)", digits=4)
    r.chart("chart", _chart(effects, fits))
    resid = [{"effect": METRICS[m], "message size (KB)": x, "measured (%)": y, "fitted (%)": f,
              "residual (points)": y - f}
             for m, res in fits.results.items() for x, y, f in zip(res.x, res.y, res.fittedvalues)]
    resid = pd.DataFrame(resid)
    readings = []
    for m, res in fits.results.items():
        reading = prose.residual_reading(res.y - res.fittedvalues, res.y, "points")
        readings.append(f"For the {METRICS[m]}, {reading[0].lower()}{reading[1:]}")
    r.text("residual_text", " ".join(readings))
    steps = [f"{METRICS[m]} given to {num(prose.printed_step(res.y))} points, rounding up to "
             f"±{num(0.5 * prose.printed_step(res.y))}" for m, res in fits.results.items()]
    r.table("residuals", resid, caption=f"Residuals of the Hill fits ({'; '.join(steps)})", digits=4)
    return fits


def slope_test(size_kb, pct):
    """The least-squares slope of the effect against ln(size) and its two-sided t-test:
    (slope, p, words), or None with fewer than three sizes.

    Points that lie exactly on a line (no scatter) make any slope real.
    """
    import math

    from scipy import stats

    from mqperf.models.evidence import _p

    x, y = np.log(np.asarray(size_kb, dtype=float)), np.asarray(pct, dtype=float)
    n = x.size
    if n < 3 or np.ptp(x) == 0:
        return None
    xc = x - x.mean()
    slope = float(xc @ (y - y.mean()) / (xc @ xc))
    resid = y - y.mean() - slope * xc
    ss = float(resid @ resid)
    if ss <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if abs(slope) > 1e-12 * max(float(np.abs(y).max()), 1.0) else 1.0
        return slope, p, ("t-test of the slope against log size: the points lie exactly on a line, so "
                          + ("any slope is real" if p == 0 else "there is no slope"))
    se = math.sqrt(ss / (n - 2) / float(xc @ xc))
    t = slope / se
    p = float(2 * stats.t.sf(abs(t), n - 2))
    return slope, p, f"t-test of the slope against log size: t = {t:.2f} on {n - 2} df, {_p(p)}"


def rise_test(res):
    """Does the Hill curve beat a constant effect by more than its scatter? (p, words), or None.

    The extra-sum-of-squares F-test of the Hill fit against the mean of the points: the fall in
    the residual sum of squares per parameter beyond the mean, over the Hill fit's residual
    variance. A Hill curve only rises, so a significant F is evidence of a rise. It needs
    residual degrees of freedom; a fit that passes through its points makes any gain real.
    """
    from scipy import stats

    from mqperf.models.evidence import _p

    y = np.asarray(res.y, dtype=float)
    ss0 = float(((y - y.mean()) ** 2).sum())
    ss1 = float(((y - np.asarray(res.fittedvalues, dtype=float)) ** 2).sum())
    df1 = int(res.df_resid)
    k = (y.size - 1) - df1
    if df1 <= 0 or k <= 0:
        return None
    if ss0 <= 1e-24 * max(float(y @ y), 1.0):
        return 1.0, "F-test of the Hill curve against a constant effect: the effect is the same at every size"
    if ss1 <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if ss0 > 0 else 1.0
        return p, "F-test of the Hill curve against a constant effect: the curve passes through the points"
    f = max(((ss0 - ss1) / k) / (ss1 / df1), 0.0)
    p = float(stats.f.sf(f, k, df1))
    return p, f"F-test of the Hill curve against a constant effect: F = {f:.2f} on {k} and {df1} df, {_p(p)}"


def bend_test(res):
    """Does the Hill curve beat a straight line in log size by more than its scatter? (p, words), or None.

    A plateau is a bend: an effect that keeps rising in proportion to log size has none, yet a Hill
    curve with a shallow slope fits such a line with a plateau and a half-way size whose intervals
    look tight (they assume the curve is right). The extra-sum-of-squares F-test of the Hill fit
    (three parameters) against the least-squares line in ln(size) (two) decides whether the data
    show the levelling off; it needs residual degrees of freedom.
    """
    from scipy import stats

    from mqperf.models.evidence import _p

    x, y = np.log(np.asarray(res.x, dtype=float)), np.asarray(res.y, dtype=float)
    df1 = int(res.df_resid)
    if df1 <= 0 or x.size < 3:
        return None
    slope, icpt = np.polyfit(x, y, 1)
    ss_line = float(((y - (icpt + slope * x)) ** 2).sum())
    ss_hill = float(((y - np.asarray(res.fittedvalues, dtype=float)) ** 2).sum())
    k = (x.size - 2) - df1
    if k <= 0:
        return None
    if ss_hill <= 1e-24 * max(float(y @ y), 1.0):
        p = 0.0 if ss_line > 1e-24 * max(float(y @ y), 1.0) else 1.0
        return p, ("F-test of the Hill curve against a straight line in log size: the curve passes through the "
                   "points" + ("" if p == 0 else ", and so does the line"))
    # A Hill fit can miss a straight line by more than the line does (F < 0): no gain at all, F = 0.
    f = max(((ss_line - ss_hill) / k) / (ss_hill / df1), 0.0)
    p = float(stats.f.sf(f, k, df1))
    return p, f"F-test of the Hill curve against a straight line in log size: F = {f:.2f} on {k} and {df1} df, {_p(p)}"


def _span(lo, hi) -> float:
    """hi / lo of a positive interval (NaN where it reaches zero or has no interval)."""
    lo, hi = float(lo), float(hi)
    return hi / lo if np.isfinite(lo) and np.isfinite(hi) and lo > 0 else np.nan


def _unknown(what: str, lo: float, hi: float, unit: str) -> str:
    """"the data cannot tell X: its 95 % interval (a to b) reaches zero / spans a factor f"."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"the data cannot tell {what}: it has no finite interval"
    if lo <= 0:
        return f"the data cannot tell {what}: its 95 % interval ({num(lo)} to {num(hi, unit=unit)}) reaches zero or below"
    return f"the data cannot tell {what}: its 95 % interval ({num(lo)} to {num(hi, unit=unit)}) spans a factor {num(hi / lo)}"


def _reading(effect: str, res, size_kb, pct_values) -> str:
    """What a Hill fit may say of one effect: only what its data identify.

    Rules (issue 21): the curve's plateau and half-way size are read only when the effect rises
    with size beyond its scatter (:func:`trend`); the half-way size s50 is stated only when its
    95 % interval identifies it (:func:`mqperf.models.evidence.identified`) and it lies within the
    sizes measured; the plateau only when its interval identifies it and s50 lies within the
    sizes (else the plateau is an extrapolation, said so); with no residual degrees of freedom
    the data cannot tell how far either is from the truth.
    """
    from mqperf.models import evidence

    lo_x, hi_x = float(np.min(size_kb)), float(np.max(size_kb))
    slope = slope_test(size_kb, pct_values)
    side = evidence.within(res.s50, lo_x, hi_x)
    if slope is not None and slope[1] < 0.05 and slope[0] < 0:
        return (f"The {effect} falls with message size ({slope[2]}), which a Hill curve (an effect that rises and "
                "levels off) cannot describe: its plateau and half-way size mean nothing here.")
    # A rise is tested against a constant with the Hill fit's own scatter where it has some, else
    # (three sizes) by the slope against ln(size).
    rise = rise_test(res)
    test = (rise[0], rise[1]) if rise is not None else ((slope[1], slope[2]) if slope is not None else None)
    if test is not None and test[0] >= 0.05:
        return (f"The {effect} shows no rise with message size beyond its scatter ({test[1]}), so the data cannot "
                "tell a plateau or a half-way size.")
    rises = f"The {effect} rises with message size" + (f" ({test[1]})" if test is not None else "")
    if res.df_resid <= 0 or res.cov is None:
        return (f"{rises}, but the data cannot tell its plateau or half-way size: with no residual degrees of "
                f"freedom the curve through the points (plateau {pct(res.y_max)}, half of it at {num(res.s50)} KB) "
                "has no interval.")
    ci = res.conf_int()
    y_lo, y_hi = (float(v) for v in ci.loc["y_max"])
    s_lo, s_hi = res.s50_conf_int()
    if side == "above":
        return (f"{rises}, and the fitted curve has not reached half its plateau by the largest size measured: its "
                f"half-way size, {num(res.s50)} KB, lies beyond {kb(hi_x)} KB, so the data cannot tell where the "
                f"effect levels off (the fitted plateau, {pct(res.y_max)}, is an extrapolation).")
    if side == "below":
        out = (f"{rises}, but the fitted half-way size, {num(res.s50)} KB, lies below the smallest size "
               f"measured ({kb(lo_x)} KB), so the data cannot tell where the rise happens")
        plateau = evidence.identified(y_lo, y_hi)
        return out + (f"; across the sizes measured it stays near its plateau, {pct(res.y_max)} "
                      f"({prose.interval(y_lo, y_hi, '%')})." if plateau else ".")
    plateau, half = evidence.identified(y_lo, y_hi), evidence.identified(s_lo, s_hi)
    bend = bend_test(res)
    if bend is not None and bend[0] >= 0.05:
        # A line in log size does as well: the data do not show the effect levelling off at all.
        return (f"{rises}, but the data cannot tell whether it levels off: the Hill curve fits no better than a "
                f"straight line in log size ({bend[1]}), so neither its plateau (fitted at {pct(res.y_max)}) nor its "
                f"half-way size (fitted at {num(res.s50)} KB) is located.")
    if not half:
        # Without the bend located, the plateau it leads to is not located either.
        out = (f"{rises}, but {_unknown('where it reaches half its plateau', s_lo, s_hi, 'KB')}, so the plateau "
               f"(fitted at {pct(res.y_max)}) is not located either.")
    elif plateau:
        out = (f"{rises} and levels off near {pct(res.y_max)} ({prose.interval(y_lo, y_hi, '%')}), with half of it "
               f"reached at about {num(res.s50)} KB ({prose.interval(s_lo, s_hi, 'KB')}).")
    else:
        out = (f"{rises}, with half of its plateau reached at about {num(res.s50)} KB "
               f"({prose.interval(s_lo, s_hi, 'KB')}); {_unknown('the plateau itself', y_lo, y_hi, '%')}.")
    if res.active_bounds:
        out += (f" Here {prose.listing(res.active_bounds)} is held at its bound, so the intervals are conditional on "
                "that.")
    return out


def _chart(effects, fits):
    import altair as alt

    from mqperf.present import charts

    lo, hi = float(effects["size_kb"].min()) / 2, float(effects["size_kb"].max()) * 4
    grid = np.geomspace(lo, hi, 61)
    parts = []
    for m, res in fits.results.items():
        band = res.conf_band(grid)
        band["effect"] = METRICS[m]
        band["beyond"] = (band["x"] > res.x.max()) | (band["x"] < res.x.min())
        parts.append(band)
    curve = pd.concat(parts, ignore_index=True)
    colour = alt.Color("effect:N", title=None)
    x = alt.X("x:Q", title=X_TITLE, scale=alt.Scale(type="log", domain=[float(charts.rounded(pd.DataFrame({"v": [lo]}))["v"][0]),
                                                                         float(charts.rounded(pd.DataFrame({"v": [hi]}))["v"][0])], nice=False))
    base = alt.Chart(charts.rounded(curve))
    layers = []
    if curve["lower"].notna().any():
        layers.append(base.mark_area(opacity=0.15).encode(x=x, y=alt.Y("lower:Q", title=Y_TITLE), y2="upper:Q",
                                                            color=colour))
    layers.append(base.transform_filter("!datum.beyond").mark_line().encode(x=x, y=alt.Y("fit:Q", title=Y_TITLE),
                                                                             color=colour))
    layers.append(base.transform_filter("datum.beyond").mark_line(strokeDash=[5, 4]).encode(
        x=x, y=alt.Y("fit:Q", title=Y_TITLE), color=colour))
    pts = charts.sampled(effects.rename(columns={"size_kb": "x"})[["x", "pct", "effect"]], by=["effect"])
    layers.append(alt.Chart(charts.rounded(pts)).mark_point().encode(
        x=x, y=alt.Y("pct:Q", title=Y_TITLE), color=colour, tooltip=["effect:N", "x:Q", "pct:Q"]))
    return alt.layer(*layers).properties(title="zEDC archive compression: CPU cost and throughput gain by message size")


# -- leave-one-out -------------------------------------------------------------------------------------

def loo_section(r, effects) -> None:
    """Each size held out in turn: the Hill curve through the others predicts it (four sizes or more)."""
    rows = []
    for metric, g in effects.groupby("metric", sort=False):
        if g["size_kb"].nunique() < 4:
            continue
        for i in range(len(g)):
            held, rest = g.iloc[i], g.drop(g.index[i])
            row = {"effect": METRICS[metric], "held-out size (KB)": float(held["size_kb"]),
                   "measured (%)": float(held["pct"])}
            try:
                res = _hill(rest)
                pred = float(res.predict(np.array([held["size_kb"]]))[0])
                row.update({"predicted (%)": pred, "error (points)": pred - row["measured (%)"],
                            "refit plateau (%)": res.y_max, "refit": res.identification})
            except ModelError as exc:
                row.update({"predicted (%)": np.nan, "error (points)": np.nan, "refit plateau (%)": np.nan,
                            "refit": str(exc)})
            rows.append(row)
    if not rows:
        r.missing("loo", "Every effect has fewer than four message sizes, so no size can be held out while three "
                         "remain to fit the curve")
        r.text("loo_text")
        return
    table = pd.DataFrame(rows)
    said = []
    for effect, g in table.groupby("effect", sort=False):
        ok = g.dropna(subset=["error (points)"])
        if ok.empty:
            said.append(f"No held-out size of the {effect} could be predicted.")
            continue
        worst = ok.loc[ok["error (points)"].abs().idxmax()]
        said.append(f"Held out in turn, every size of the {effect} is predicted within "
                    f"{num(abs(worst['error (points)']))} percentage points (the largest miss at "
                    f"{kb(worst['held-out size (KB)'])} KB, predicted {pct(worst['predicted (%)'])} against "
                    f"{pct(worst['measured (%)'])}).")
        bound = ok[ok["refit"].str.startswith("on a bound")]
        if len(bound):
            said.append(f"{prose.count(len(bound), 'refit').capitalize()} of the {effect} "
                        f"{'holds' if len(bound) == 1 else 'hold'} a parameter at its bound (plateau "
                        f"{prose.listing(pct(v, 4) for v in bound['refit plateau (%)'])}): such a plateau is an "
                        "extrapolation, not an estimate.")
    r.table("loo", table, caption="Leave-one-out: each size predicted by the curve through the others", digits=4)
    r.text("loo_text", " ".join(said))


# -- CPU per message -------------------------------------------------------------------------------------

def _scatter(effects, fits, metric):
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


def cpu_section(r, effects, fits) -> None:
    from scipy import stats

    wide = effects.pivot_table(index="size_kb", columns="metric", values="pct", aggfunc="first")
    if not set(METRICS) <= set(wide.columns) or wide.dropna(subset=list(METRICS)).empty:
        r.missing("cpu", "Your data has no peak throughput gain at the sizes of the TCB increase, so CPU per "
                         "message cannot be separated from CPU per interval")
        r.text("cpu_text")
        return
    wide = wide.dropna(subset=list(METRICS)).reset_index()
    a, b = wide["qm_tcb_increase"], wide["peak_throughput_increase"]
    per_interval = ((1 + a / 100) / (1 + b / 100) - 1) * 100
    table = pd.DataFrame({"message size (KB)": wide["size_kb"], "TCB increase (%)": a,
                          "throughput gain (%)": b,
                          "CPU per message, TCB per interval (%)": per_interval,
                          "CPU per message, TCB per message (%)": a})
    low = np.minimum(per_interval, a)
    high = np.maximum(per_interval, a)
    first, last = 0, len(table) - 1
    span = (f"between {pct(low[first])} and {pct(high[first])} at {kb(table['message size (KB)'][first])} KB"
            + (f", and between {pct(low[last])} and {pct(high[last])} at {kb(table['message size (KB)'][last])} KB"
               if last > first else ""))
    sa, sb = _scatter(effects, fits, "qm_tcb_increase"), _scatter(effects, fits, "peak_throughput_increase")
    if sa is None or sb is None:
        # No scatter to test against: the readings are described as given, no direction is claimed.
        if (low > 0).all():
            head = "As given, both readings show more CPU per message at every size"
        elif (high <= 0).all():
            head = "As given, neither reading shows more CPU per message at any size"
        else:
            head = "As given, the readings differ in sign across the sizes"
        r.text("cpu_text", f"{head}: {span}. With no estimate of the values' scatter (one value per size and a Hill "
                           "fit with no residual degrees of freedom), no direction is tested.")
        r.table("cpu", table, caption="Change in CPU per message under both readings of the TCB figures", digits=4)
        return
    se_a = sa[0].reindex(wide["size_kb"]).to_numpy(float)
    se_b = sb[0].reindex(wide["size_kb"]).to_numpy(float)
    # Delta method for ((1 + a)/(1 + b) − 1)·100 in percentage points.
    se_i = np.sqrt((se_a / (1 + b / 100)) ** 2 + (se_b * (1 + a / 100) / (1 + b / 100) ** 2) ** 2)
    df = min(sa[1], sb[1])
    q = float(stats.t.ppf(0.975, df))
    more = (a - q * se_a > 0) & (per_interval - q * se_i > 0)
    less = (a + q * se_a < 0) & (per_interval + q * se_i < 0)
    table["both readings above zero (95 %)"] = more.to_numpy()
    table["both readings below zero (95 %)"] = less.to_numpy()
    how = (f"each reading's 95 % interval from {sa[2]}" if sa[2] == sb[2]
           else f"each reading's 95 % interval from {sa[2]} and {sb[2]}")
    if more.all():
        text = f"Either way, compression costs more CPU per message at every size ({how}): {span}."
    elif less.all():
        text = f"Either way, compression costs less CPU per message at every size ({how}): {span}."
    else:
        said = []
        if more.any():
            said.append(f"costs more CPU per message at "
                        f"{prose.listing(kb(v) for v in table['message size (KB)'][more.to_numpy()])} KB")
        if less.any():
            said.append(f"costs less CPU per message at "
                        f"{prose.listing(kb(v) for v in table['message size (KB)'][less.to_numpy()])} KB")
        rest = ~(more | less)
        tail = (f"; at {prose.listing(kb(v) for v in table['message size (KB)'][rest.to_numpy()])} KB the readings "
                "disagree or the data cannot tell" if rest.any() else "")
        text = (f"Under both readings, compression {prose.listing(said)}{tail} ({how}). The readings span {span}."
                if said else f"At no size do both readings agree beyond the values' scatter ({how}): {span}.")
    r.text("cpu_text", text)
    r.table("cpu", table, caption="Change in CPU per message under both readings of the TCB figures", digits=4)


def at_size_section(r, fits, size_kb: float) -> None:
    """The planning answer: each fitted effect at the reader's size, labelled when beyond the sizes measured."""
    from mqperf.models import evidence

    rows, said = [], []
    for m, res in fits.results.items():
        band = res.conf_band([size_kb]).iloc[0]
        side = evidence.within(size_kb, float(res.x.min()), float(res.x.max()))
        beyond = side != "within"
        rows.append({"effect": METRICS[m], "message size (KB)": float(size_kb), "modelled (%)": float(band["fit"]),
                     "95 % lower (%)": float(band["lower"]), "95 % upper (%)": float(band["upper"]),
                     "extrapolated": beyond})
        where = (f", {'above the largest' if side == 'above' else 'below the smallest'} size measured "
                 f"({kb(res.x.max() if side == 'above' else res.x.min())} KB)") if beyond else ""
        if beyond:
            r.extrapolated(f"the {METRICS[m]} at {kb(size_kb)} KB{where}")
        at = prose.extrapolated(f"at {kb(size_kb)} KB", beyond)
        if not np.isfinite(band["lower"]):
            said.append(f"The {METRICS[m]} {at} is modelled at {pct(band['fit'])}{where}, with no band: the fit has "
                        "no residual degrees of freedom, so the data cannot tell how far the true effect may be.")
        elif band["lower"] <= 0 <= band["upper"]:
            said.append(f"The {METRICS[m]}'s band {at} includes zero{where}: the data cannot promise any effect at "
                        "that size.")
        else:
            said.append(f"The {METRICS[m]} {at} is modelled at {pct(band['fit'])} (95 % band "
                        f"{pct(band['lower'])} to {pct(band['upper'])}){where}.")
    r.text("at_size_text", " ".join(said))
    r.table("at_size", pd.DataFrame(rows), caption=f"The fitted effects at {kb(size_kb)} KB", digits=3)


# -- recovery ----------------------------------------------------------------------------------------------

def recovery_section(r, p) -> None:
    frame = views.open(p["recovery"], CHAPTER, "recovery")
    rate = frame.dropna(subset=["rate_mb_s"]).groupby("archives", sort=False)["rate_mb_s"].mean()
    cost = frame.dropna(subset=["cpu_ms_per_mb"]).groupby("archives", sort=False)["cpu_ms_per_mb"].mean()
    rec = pd.DataFrame({"rate": rate, "cost": cost}).dropna()
    if rec.empty:
        raise ModelError(f"{p['recovery']}: no archive type has both a recovery rate and a CPU cost per MB")
    unit = p["cost_unit"]
    amount = p["recovery_gb"] * 1024
    seconds = saturation.recovery_time(amount, rec["rate"].to_numpy())
    cpu = saturation.recovery_cpu(amount, rec["cost"].to_numpy() * (1e-6 if unit == "us" else 1e-3))
    plan = pd.DataFrame({"archives": [a.replace("_", " ") for a in rec.index], "rate (MB/s)": rec["rate"].to_numpy(),
                         "time (s)": seconds, "time (min)": seconds / 60,
                         f"CPU per MB ({'µs' if unit == 'us' else 'ms'})": rec["cost"].to_numpy(),
                         "CPU (s)": cpu, "processors busy during recovery": cpu / seconds})
    book = views.describe(p["recovery"]).book_data
    said = []
    by = plan.set_index("archives")
    # Whose numbers: on a reader's run with the book's recovery measurements, the sentence says so.
    whose = "With the book's recovery measurements (seed 004), r" if book and not r.book_data else "R"
    if {"uncompressed", "zedc compressed"} <= set(by.index):
        u, c = by.loc["uncompressed"], by.loc["zedc compressed"]
        ratio = pd.DataFrame([{"compressed / uncompressed time": c["time (s)"] / u["time (s)"],
                               "compressed / uncompressed CPU": c["CPU (s)"] / u["CPU (s)"]}])
        said.append(f"{whose}ecovering {num(p['recovery_gb'])} GB from compressed archives takes "
                    f"{num(ratio.iloc[0, 0])} times as long ({num(c['rate (MB/s)'])} MB/s against "
                    f"{num(u['rate (MB/s)'])}) and {num(ratio.iloc[0, 1])} times the CPU, whichever unit the cost is "
                    f"read in: {num(u['time (min)'])} min uncompressed and {num(c['time (min)'])} min compressed, "
                    f"keeping {num(c['processors busy during recovery'])} of one processor busy.")
    else:
        ratio = None
    if book:
        plan["possible on the measured 3 processors"] = plan["processors busy during recovery"] <= 3
        said.append(("These are single measurements of highly compressible data (seed 004); " if r.book_data else
                     "These are the book's figures (seed 004: one `RECOVER CFSTRUCT` of highly compressible data), "
                     "not measurements of your system; ") + (
                        "the book reads their printed \"CPU ms\" per MB as µs (erratum E039): set `cost_unit` to "
                        "\"ms\" to see that the printed unit would need more processors than the measured machine had."
                        if unit == "us" else
                        "read as printed (\"CPU ms\" per MB), the book's figures need more processors than the "
                        "measured machine had wherever the last column says no (erratum E039)."))
    r.text("recovery_text", " ".join(said))
    r.table("recovery", plan, caption=f"RECOVER CFSTRUCT of {num(p['recovery_gb'])} GB by archive type", digits=4)
    r.table("recovery_ratio", ratio, caption="Compressed over uncompressed", digits=3,
            missing="The recovery data lack an uncompressed or a zEDC-compressed row, so there is no ratio")
    r.chart("recovery_chart", _recovery_chart(plan, p["recovery_gb"]))


def _recovery_chart(plan, gb):
    import altair as alt

    from mqperf.present import charts

    frame = charts.rounded(plan[["archives", "time (min)", "CPU (s)"]].rename(
        columns={"time (min)": "minutes", "CPU (s)": "cpu_s"}))
    base = alt.Chart(frame).encode(y=alt.Y("archives:N", title=None, sort=None), color=alt.Color("archives:N", legend=None))
    time = base.mark_bar().encode(x=alt.X("minutes:Q", title="time to recover (min)"),
                                  tooltip=["archives:N", "minutes:Q"]).properties(width=240, height=90)
    cpu = base.mark_bar().encode(x=alt.X("cpu_s:Q", title="CPU used (s)"),
                                 tooltip=["archives:N", "cpu_s:Q"]).properties(width=240, height=90)
    return alt.hconcat(time, cpu).properties(title=f"RECOVER CFSTRUCT of {gb:g} GB: time and CPU")


# -- capacity -------------------------------------------------------------------------------------------------

def capacity_section(r, p) -> None:
    machine = p["machine"]
    if machine not in FEATURE_MACHINES:
        r.text("capacity_text")
        r.missing("capacity", f"On a {machine}, zEDC compression runs on the Integrated Accelerator for zEDC on each "
                              "processor chip, not on zEDC Express PCIe features, so there are no features to count; "
                              "the utilisation one z13 feature showed says nothing about the on-chip accelerator's "
                              "headroom (counting features applies to z13 and z14 only)")
        return
    proc = views.open(p["processor"], CHAPTER, "processor")
    util = proc[proc["kind"] == "utilisation"]
    limits = proc[proc["kind"] == "limit"].set_index("messages")["value"]
    qms, share, cap = p["queue_managers"], p["archive_rate_share"], p["zedc_max_util"]
    rows, said = [], []
    for kind, u in zip(util["messages"], util["value"]):
        load = qms * u / 100 * share
        need = max(1, math.ceil(load / cap - 1e-12))
        for c in range(1, need + 1):
            stable = load < c
            rows.append({"messages": kind, "offered load (features)": load, "features": c, "utilisation": load / c,
                         "stable": stable, "stretch R/S": queueing.mmc_response(load, 1.0, c) if stable else np.nan,
                         "at most the busiest allowed": load / c <= cap + 1e-12})
        said.append(f"with {kind} messages the offered load is {num(load)} "
                    f"{'feature' + chr(39) + 's' if num(load) == '1' else 'features' + chr(39)} worth and keeping each at most "
                    f"{pct(cap * 100)} busy needs {prose.count(need, 'feature')}"
                    + (" (one feature alone would be overloaded)" if load >= 1 else ""))
    drawer = [v for k, v in limits.items() if "drawer" in k]
    lpars = [v for k, v in limits.items() if "partitions" in k]
    caption = (f"zEDC Express features needed for {prose.count(qms, 'queue manager')} at {pct(share * 100)} of "
               f"the measured peak rate, each feature at most {pct(cap * 100)} busy") + (
        f" (a PCIe I/O drawer takes up to {num(drawer[0])}; each can be shared by up to {num(lpars[0])} LPARs)"
        if drawer and lpars else "")
    # The utilisations are the book's (seed 004: one queue manager on a z13), scaled by the reader's
    # queue managers and archive rate: the sentence says whose numbers they are.
    r.text("capacity_text", f"Scaled from the book's measurement of one queue manager archiving on a z13's zEDC "
                            f"Express feature (seed 004{'' if r.book_data else ', not your system'}): on a {machine}, "
                            f"with {prose.count(qms, 'queue manager')} archiving at {pct(share * 100)} of that "
                            f"measured peak, {prose.listing(said, 'and')}.")
    r.table("capacity", pd.DataFrame(rows), caption=caption, digits=3)
