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
        said.append(_reading(METRICS[metric], res))
    for metric, why in fits.failures.items():
        said.append(f"The {METRICS[metric]} is not fitted: {why}.")
    r.text("fit_text", " ".join(said))
    rows = []
    for f in fits:
        row = {"effect": METRICS[f.group], "sizes": f.nobs}
        if f.ok:
            res = f.result
            lo, hi = res.s50_conf_int()
            row.update({"plateau y_max (%)": res.y_max, "s50 (KB)": res.s50, "s50 95 % lower (KB)": lo,
                        "s50 95 % upper (KB)": hi, "h": res.h, "residual df": res.df_resid,
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


def _reading(effect: str, res) -> str:
    lo, hi = res.s50_conf_int()
    top = float(res.x.max())
    out = f"The {effect} levels off near {pct(res.y_max)}, with half of it reached at about {num(res.s50)} KB"
    if np.isfinite(lo) and np.isfinite(hi):
        out += f" (95 % interval {num(lo)} to {num(hi)} KB)"
        if hi > top or lo < float(res.x.min()):
            out += "; that interval reaches beyond the sizes measured, so the plateau is barely identified"
    out += "."
    if res.active_bounds:
        out += (f" Here {prose.listing(res.active_bounds)} is held at its bound: the plateau is an extrapolation, "
                "not an estimate.")
    elif res.s50 > top:
        out += f" The half-way size lies beyond the largest size measured ({num(top)} KB): the plateau is an extrapolation."
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

def cpu_section(r, effects) -> None:
    wide = effects.pivot_table(index="size_kb", columns="metric", values="pct", aggfunc="first")
    if not set(METRICS) <= set(wide.columns) or wide.dropna(subset=list(METRICS)).empty:
        r.missing("cpu", "Your data has no peak throughput gain at the sizes of the TCB increase, so CPU per "
                         "message cannot be separated from CPU per interval")
        r.text("cpu_text")
        return
    wide = wide.dropna(subset=list(METRICS)).reset_index()
    per_interval = ((1 + wide["qm_tcb_increase"] / 100) / (1 + wide["peak_throughput_increase"] / 100) - 1) * 100
    table = pd.DataFrame({"message size (KB)": wide["size_kb"], "TCB increase (%)": wide["qm_tcb_increase"],
                          "throughput gain (%)": wide["peak_throughput_increase"],
                          "CPU per message, TCB per interval (%)": per_interval,
                          "CPU per message, TCB per message (%)": wide["qm_tcb_increase"]})
    low = np.minimum(per_interval, wide["qm_tcb_increase"])
    high = np.maximum(per_interval, wide["qm_tcb_increase"])
    first, last = 0, len(table) - 1
    if (low > 0).all():
        head = "Either way, compression costs more CPU per message at every size"
    elif (high <= 0).all():
        head = "Either way, compression costs no more CPU per message at any size"
    else:
        head = "Whether compression costs more CPU per message depends on the reading and the size"
    r.text("cpu_text", f"{head}: between {pct(low[first])} and {pct(high[first])} at "
                       f"{kb(table['message size (KB)'][first])} KB"
                       + (f", and between {pct(low[last])} and {pct(high[last])} at "
                          f"{kb(table['message size (KB)'][last])} KB." if last > first else "."))
    r.table("cpu", table, caption="Change in CPU per message under both readings of the TCB figures", digits=4)


def at_size_section(r, fits, size_kb: float) -> None:
    rows, said = [], []
    for m, res in fits.results.items():
        band = res.conf_band([size_kb]).iloc[0]
        inside = bool(res.x.min() <= size_kb <= res.x.max())
        rows.append({"effect": METRICS[m], "message size (KB)": float(size_kb), "modelled (%)": float(band["fit"]),
                     "95 % lower (%)": float(band["lower"]), "95 % upper (%)": float(band["upper"]),
                     "within measured sizes": inside})
        where = "" if inside else " (outside the sizes measured: an extrapolation)"
        if not np.isfinite(band["lower"]):
            said.append(f"The {METRICS[m]} at {kb(size_kb)} KB is modelled at {pct(band['fit'])}{where}, with no "
                        "band: the fit has no residual degrees of freedom.")
        elif band["lower"] <= 0 <= band["upper"]:
            said.append(f"The {METRICS[m]}'s band at {kb(size_kb)} KB includes zero{where}: the data cannot promise "
                        "any effect at that size.")
        else:
            said.append(f"The {METRICS[m]} at {kb(size_kb)} KB is modelled at {pct(band['fit'])} (95 % band "
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
    if {"uncompressed", "zedc compressed"} <= set(by.index):
        u, c = by.loc["uncompressed"], by.loc["zedc compressed"]
        ratio = pd.DataFrame([{"compressed / uncompressed time": c["time (s)"] / u["time (s)"],
                               "compressed / uncompressed CPU": c["CPU (s)"] / u["CPU (s)"]}])
        said.append(f"Recovering {num(p['recovery_gb'])} GB from compressed archives takes "
                    f"{num(ratio.iloc[0, 0])} times as long ({num(c['rate (MB/s)'])} MB/s against "
                    f"{num(u['rate (MB/s)'])}) and {num(ratio.iloc[0, 1])} times the CPU, whichever unit the cost is "
                    f"read in: {num(u['time (min)'])} min uncompressed and {num(c['time (min)'])} min compressed, "
                    f"keeping {num(c['processors busy during recovery'])} of one processor busy.")
    else:
        ratio = None
    if book:
        plan["possible on the measured 3 processors"] = plan["processors busy during recovery"] <= 3
        said.append(("These are single measurements of highly compressible data (seed 004); " if r.book_data else
                     "These recovery figures are the book's (seed 004: one `RECOVER CFSTRUCT` of highly "
                     "compressible data), not measurements of your system; ") + (
                        "the printed \"CPU ms\" per MB is read as µs (erratum E039): set `cost_unit` to \"ms\" to "
                        "see that the printed unit would need more processors than the measured machine had."
                        if unit == "us" else
                        "read as printed (\"CPU ms\" per MB), they need more processors than the measured machine "
                        "had wherever the last column says no (erratum E039)."))
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
    r.text("capacity_text", f"On a {machine}, with {prose.count(qms, 'queue manager')} archiving at "
                            f"{pct(share * 100)} of the measured peak: {prose.listing(said, 'and')}.")
    r.table("capacity", pd.DataFrame(rows), caption=caption, digits=3)
