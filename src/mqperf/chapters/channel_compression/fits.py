"""The channel compression chapter's model choice and its frames.

One cost line per technique (:func:`mqperf.models.compression.fit`): CPU per transaction, and
the time per transaction 10⁶ / rate where the runs have rates. Fitted on the runs of one
channel set-up. Frames keep unrounded values; :mod:`.text` words them, :mod:`.analysis` shows them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.chapters.channel_compression import CHAPTER, KB, NONE
from mqperf.data import views
from mqperf.errors import DataError, ModelError
from mqperf.models import compression, evidence
from mqperf.models.fitset import FitSet
from mqperf.present.text import markdown as md_text


def load(source, channel: str) -> tuple[pd.DataFrame, list[str], str]:
    """(runs of the chosen channel, every channel in the file, the chosen one). Runs have technique,
    size_kb, share (0 to 1), compressibility_pct, cpu_us, rate_tx_s, us_per_tx, basis."""
    frame = views.open(source, CHAPTER)
    name = views.describe(source).name or "data"
    has_pct = "compressibility_pct" in frame and frame["compressibility_pct"].notna().any()
    has_ratio = "compression_ratio" in frame and frame["compression_ratio"].notna().any()
    if not (has_pct or has_ratio):
        raise DataError(name, "give compressibility_pct (share removed, %) or compression_ratio (original/compressed) "
                              "for each run", column="compressibility_pct")
    pct = frame["compressibility_pct"].astype(float) if has_pct else pd.Series(np.nan, index=frame.index)
    if has_ratio:
        pct = pct.fillna(pd.Series(compression.share_from_ratio(frame["compression_ratio"]) * 100, index=frame.index))
    if pct.isna().any():
        line = int(np.flatnonzero(pct.isna().to_numpy())[0]) + 2
        raise DataError(name, "this run has neither compressibility_pct nor compression_ratio", row=line,
                        column="compressibility_pct")
    chan = (frame["channel"].astype("string").fillna("").replace("", "(one set-up)") if "channel" in frame
            else pd.Series("(one set-up)", index=frame.index, dtype="string"))
    channels = list(dict.fromkeys(chan))
    chosen = channel if channel in channels else channels[0]
    if channel and channel not in channels and "channel" in frame:
        raise DataError(name, f"no runs for channel {md_text(channel)}; the file has {', '.join(map(md_text, channels))}",
                        column="channel")
    keep = (chan == chosen).to_numpy()
    f = frame[keep]
    runs = pd.DataFrame({
        "technique": f["technique"].astype(str).str.strip().to_numpy(),
        "size_kb": f["message_bytes"].astype(float).to_numpy() / KB,
        "compressibility_pct": pct[keep].to_numpy(),
        "cpu_us": f["cpu_us_per_tx"].astype(float).to_numpy(),
        "rate_tx_s": (f["rate_tx_s"].astype(float) if "rate_tx_s" in f else pd.Series(np.nan, index=f.index)).to_numpy(),
        "basis": (f["basis"].fillna("measured") if "basis" in f else pd.Series("measured", index=f.index)).to_numpy(),
    })
    runs["share"] = runs["compressibility_pct"] / 100
    runs["us_per_tx"] = 1e6 / runs["rate_tx_s"]
    return runs.reset_index(drop=True), channels, chosen


def techniques(runs: pd.DataFrame) -> list[str]:
    """Techniques in the file's order, NONE first when present."""
    seen = list(dict.fromkeys(runs["technique"]))
    return sorted(seen, key=lambda t: t.upper() != NONE)


def fit(runs: pd.DataFrame, y: str, *, data_name=None, data_hash=None) -> FitSet:
    """One cost line per technique for column ``y`` (``cpu_us`` or ``us_per_tx``); rows without it left out."""
    rows = runs.dropna(subset=[y])
    order = techniques(rows) if len(rows) else []
    rows = rows.assign(_o=rows["technique"].map(order.index)).sort_values("_o", kind="stable").drop(columns="_o")

    def line(g: pd.DataFrame):
        if len(g) < 3:
            raise ModelError(f"{len(g)} run(s): the cost line needs at least three runs")
        return compression.fit(g["size_kb"], g["share"], g[y], what=y, data_name=data_name, data_hash=data_hash)

    return FitSet.fit(rows, "technique", line)


def fit_table(fs: FitSet, runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for f in fs:
        g = runs[runs["technique"] == f.group]
        row = {"technique": f.group, "runs": f.nobs, "sizes": g["size_kb"].nunique(),
               "compressibilities": g["compressibility_pct"].nunique()}
        if f.ok:
            res = f.result
            row.update({"model": "a + b·S + c·S·p" if res.has_c else "a + b·S", "identification": res.identification,
                        "rmse (µs)": res.rmse, "R²": res.r2, "residual checks": res.residual_checks.words(),
                        "intervals": res.interval_method.split(",")[0]})
        else:
            row["identification"] = f"not fitted: {f.reason}"
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fs: FitSet, unit: str = "µs") -> pd.DataFrame:
    names = {"a": f"a: per transaction ({unit})", "b": f"b: per KB of message ({unit}/KB)",
             "c": f"c: per KB removed ({unit}/KB)"}
    rows = []
    for tech, res in fs.results.items():
        ci = res.conf_int()
        for p in res.params.index:
            rows.append({"technique": tech, "parameter": names[p], "estimate": float(res.params[p]),
                         "95 % lower": float(ci.loc[p, "lower"]), "95 % upper": float(ci.loc[p, "upper"])})
    return pd.DataFrame(rows)


def residual_table(fs: FitSet) -> pd.DataFrame:
    rows = []
    for tech, res in fs.results.items():
        for (s, p), y, f in zip(res.x, res.y, res.fittedvalues):
            rows.append({"technique": tech, "message (KB)": s, "compressibility (%)": p * 100, "measured (µs)": y,
                         "fitted (µs)": f, "residual (%)": (y - f) / f * 100 if f else np.nan})
    return pd.DataFrame(rows)


def leave_one_size_out(runs: pd.DataFrame, y: str = "cpu_us") -> pd.DataFrame:
    """Each message size held out in turn (techniques with three sizes or more): the line through the
    other sizes predicts its runs. Mean and largest error per technique and size, in %."""
    rows = []
    for tech in techniques(runs):
        g = runs[(runs["technique"] == tech)].dropna(subset=[y])
        sizes = sorted(g["size_kb"].unique())
        if len(sizes) < 3:
            continue
        for s in sizes:
            held, rest = g[g["size_kb"] == s], g[g["size_kb"] != s]
            try:
                res = compression.fit(rest["size_kb"], rest["share"], rest[y])
            except ModelError:
                continue
            pred = res.predict(held[["size_kb", "share"]].to_numpy())
            if not res.has_c and held["share"].nunique() > 1:
                continue
            err = (pred - held[y].to_numpy()) / held[y].to_numpy() * 100
            rows.append({"technique": tech, "held-out size (KB)": s, "runs": len(held),
                         "outside the other sizes": bool(s < min(rest["size_kb"]) or s > max(rest["size_kb"])),
                         "mean |error| (%)": float(np.mean(np.abs(err))), "largest |error| (%)": float(np.max(np.abs(err)))})
    return pd.DataFrame(rows)


def replicates(runs: pd.DataFrame, fs: FitSet, y: str = "cpu_us") -> pd.DataFrame:
    """Per technique: repeated runs of one point, and with them the lack-of-fit F-test of the line."""
    rows = []
    for tech, res in fs.results.items():
        g = runs[runs["technique"] == tech].dropna(subset=[y])
        cells = g.groupby(["size_kb", "share"])[y]
        n_cells = cells.ngroups
        ss_pure = float(cells.apply(lambda v: ((v - v.mean()) ** 2).sum()).sum())
        df_pure = len(g) - n_cells
        row = {"technique": tech, "points": n_cells, "runs": len(g), "repeated runs": df_pure}
        if df_pure > 0 and res.df_resid - df_pure > 0:
            v = evidence.interaction(res.ssr, res.df_resid, ss_pure, df_pure)
            row.update({"line misses the points": "yes" if v else "not shown", "test": v.test})
        rows.append(row)
    return pd.DataFrame(rows)


def extrapolation(res, size_kb: float, share: float, technique: str) -> list[str]:
    """Why an answer at (size, share) leaves what the technique's runs cover; empty when it does not."""
    why = []
    lo, hi = res.size_range
    if size_kb < lo or size_kb > hi:
        why.append(f"size outside the {lo:g} to {hi:g} KB measured")
    plo, phi = res.share_range
    if technique.upper() != NONE and (share < plo - 1e-9 or share > phi + 1e-9):
        why.append(f"compressibility outside the {plo * 100:g} to {phi * 100:g} % measured")
    return why


def plan(cpu: FitSet, time: FitSet, size_kb: float, share: float) -> pd.DataFrame:
    """Per technique at (size, share): the CPU per transaction and the rate with their 95 % bands, extrapolation
    noted, sorted cheapest first."""
    rows = []
    x = np.array([[size_kb, share]])
    for tech, res in cpu.results.items():
        b = res.band(x).iloc[0]
        why = extrapolation(res, size_kb, share, tech)
        row = {"technique": tech, "CPU per transaction (µs)": b["fit"], "95 % lower (µs)": b["lower"],
               "95 % upper (µs)": b["upper"], "band": b["method"]}
        t = time.results.get(tech)
        if t is not None:
            tb = t.band(x).iloc[0]
            why += [w for w in extrapolation(t, size_kb, share, tech) if w not in why]
            ok = tb["fit"] > 0
            row.update({"rate (tx/s)": 1e6 / tb["fit"] if ok else np.nan,
                        "rate 95 % lower": 1e6 / tb["upper"] if ok and tb["upper"] > 0 else np.nan,
                        "rate 95 % upper": 1e6 / tb["lower"] if ok and tb["lower"] > 0 else np.nan})
        row["extrapolated"] = "; ".join(why)
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    return table.sort_values("CPU per transaction (µs)", kind="stable").reset_index(drop=True)


def against_cheapest(cpu: FitSet, table: pd.DataFrame) -> pd.DataFrame:
    """The plan with each technique's extra CPU over the cheapest and its 95 % interval (the two fits' band
    half-widths combined, :func:`mqperf.models.compression.difference_band`)."""
    if table.empty:
        return table
    first = table.iloc[0]
    one = pd.Series({"fit": first["CPU per transaction (µs)"], "lower": first["95 % lower (µs)"],
                     "upper": first["95 % upper (µs)"]})
    extra = []
    for i, row in table.iterrows():
        if i == 0:
            extra.append((np.nan, np.nan, np.nan))
            continue
        other = pd.Series({"fit": row["CPU per transaction (µs)"], "lower": row["95 % lower (µs)"],
                           "upper": row["95 % upper (µs)"]})
        df = min(cpu.results[first["technique"]].df_resid, cpu.results[row["technique"]].df_resid)
        extra.append(compression.difference_band(one, other, df))
    out = table.copy()
    pos = list(out.columns).index("band") + 1
    for j, name in enumerate(["above the cheapest (µs)", "above: 95 % lower", "above: 95 % upper"]):
        out.insert(pos + j, name, [e[j] for e in extra])
    return out


def cheapest(table: pd.DataFrame) -> dict | None:
    """The cheapest technique and whether the data tell it from the next (the interval of the difference)."""
    if table.empty:
        return None
    first = table.iloc[0]
    out = {"technique": first["technique"], "row": first, "next": None}
    if len(table) > 1:
        second = table.iloc[1]
        lo, hi = second["above: 95 % lower"], second["above: 95 % upper"]
        out["next"] = {"technique": second["technique"], "diff": second["above the cheapest (µs)"], "lower": lo,
                       "upper": hi, "sign": evidence.sign(lo, hi)}
    return out


def curves(fs: FitSet, share: float, runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """(measured points at the compressibility nearest ``share``, each technique's line at ``share`` with its
    band over its measured sizes, the compressibility the points are at)."""
    levels = np.sort(runs["share"].unique())
    near = float(levels[np.argmin(np.abs(levels - share))]) if len(levels) else share
    pts = runs[(np.isclose(runs["share"], near)) | (runs["technique"].str.upper() == NONE)]
    pts = pts[pts["technique"].isin(list(fs.results))]
    measured = pd.DataFrame({"x": pts["size_kb"], "cpu": pts["cpu_us"], "series": pts["technique"],
                             "basis": "measured"})
    parts = []
    for tech, res in fs.results.items():
        lo, hi = res.size_range
        grid = np.linspace(lo, hi, 25)
        b = res.band(np.column_stack([grid, np.full_like(grid, share)]))
        parts.append(pd.DataFrame({"x": grid, "fit": b["fit"], "lower": b["lower"], "upper": b["upper"],
                                   "series": tech}))
    return measured, pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(), near


def by_channel(source, channels: list[str], size_kb: float, share: float) -> pd.DataFrame:
    """The planning answer for every channel set-up in the file: the cheapest technique at (size, share), the
    next, the difference's interval, and what no compression (NONE) costs there."""
    rows = []
    for ch in channels:
        runs, _, _ = load(source, ch if ch != "(one set-up)" else "")
        cpu, time = fit(runs, "cpu_us"), fit(runs, "us_per_tx")
        if not cpu.results:
            continue
        table = against_cheapest(cpu, plan(cpu, time, size_kb, share))
        best = cheapest(table)
        row = {"channel": ch, "cheapest": best["technique"],
               "its CPU (µs)": best["row"]["CPU per transaction (µs)"]}
        nxt = best["next"]
        if nxt is not None:
            row.update({"next": nxt["technique"], "next costs more (µs)": nxt["diff"],
                        "95 % lower": nxt["lower"], "95 % upper": nxt["upper"],
                        "told apart": "yes" if nxt["sign"] == "positive" else "no"})
        none = table[table["technique"].str.upper() == NONE]
        row["NONE (µs)"] = float(none["CPU per transaction (µs)"].iloc[0]) if len(none) else np.nan
        row["extrapolated"] = "; ".join(sorted({w for w in table["extrapolated"] if w}))
        rows.append(row)
    return pd.DataFrame(rows)


def comptime_table(frame: pd.DataFrame, channel: str, direction: str) -> pd.DataFrame:
    """COMPTIME per request of one channel and direction: technique and size by compressibility, with notes."""
    g = frame[(frame["channel"] == channel) & (frame["direction"] == direction)]
    if g.empty:
        return g
    wide = g.pivot_table(index=["technique", "size_kb"], columns="compressibility_pct", values="comptime_us",
                         sort=False)
    wide.columns = [f"{c:g} %" for c in wide.columns]
    notes = g.groupby(["technique", "size_kb"], sort=False)["note"].agg(
        lambda v: "; ".join(dict.fromkeys(x for x in v if x)))
    out = wide.reset_index().rename(columns={"size_kb": "message (KB)"})
    out["note"] = [notes.loc[(t, s)] for t, s in zip(wide.index.get_level_values(0), wide.index.get_level_values(1))]
    return out
