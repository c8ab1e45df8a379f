"""Persistent messages and units of work: the points, X(b) and L(b) per series, readings and plans.

X(b) = b/(t_c + b·t_m) per series (:mod:`mqperf.models.batching`), with every ranged point
(``msgs_per_commit_low``/``_high``) refitted across its range: a reading sensitivity, not a
confidence interval. L(b) = l_m + l_c/b per operation (an MQPUT logs the message, an MQGET a
small record: their points do not lie on one curve; :func:`mixed_fit` is that mistake, shown).
An operation's log bandwidth is its bytes per message times the rate of the series that does
that operation (the getter's log at the getter's rate): :func:`pairing` reads which series that
is from the rows that carry both, or takes the only throughput series there is, and says so; an
operation no series is stated for gets no bandwidth. Frames come out with the column names the
report shows.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_persistent_uow import B, CHAPTER, HIGH, LOW, MAX_RANGED, X
from mqperf.data import aggregate
from mqperf.errors import DataError, ModelError
from mqperf.models import batching, evidence
from mqperf.models.fitset import FitSet
from mqperf.present import prose
from mqperf.present.cards import card_name


def throughput_points(frame: pd.DataFrame, b_read: float | None) -> pd.DataFrame:
    """Contract rows as fitted points: series, msgs_per_commit with its range, rate (means per setting).

    Raises
    ------
    DataError
        A range that does not contain its value.
    ModelError
        ``b_read`` given where no point has a range, or outside a point's range.
    """
    frame = frame.copy()
    if "series" not in frame:
        frame["series"] = "your data"
    frame["series"] = frame["series"].fillna("your data").astype(str)
    frame["basis"] = frame["basis"].fillna("measured").astype(str) if "basis" in frame else "measured"
    b = frame[B].astype(float)
    frame[LOW] = frame[LOW].astype(float).fillna(b) if LOW in frame else b
    frame[HIGH] = frame[HIGH].astype(float).fillna(b) if HIGH in frame else b
    bad = (frame[LOW] > b) | (frame[HIGH] < b)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError("data", f"row {i + 2}: {LOW} to {HIGH} ({frame[LOW].iloc[i]:g} to {frame[HIGH].iloc[i]:g}) "
                                f"does not contain {B} = {b.iloc[i]:g}")
    if b_read is not None:
        ranged = frame[LOW] < frame[HIGH]
        if not ranged.any():
            raise ModelError(f"b_put_commit = {b_read:g}: no point gives its messages per commit as a range "
                             f"({LOW} to {HIGH}), so there is nothing to read it into")
        inside = ranged & (frame[LOW] <= b_read) & (frame[HIGH] >= b_read)
        if not inside.any():
            stated = ", ".join(dict.fromkeys(f"{lo:g}-{hi:g}" for lo, hi in zip(frame.loc[ranged, LOW], frame.loc[ranged, HIGH])))
            raise ModelError(f"b_put_commit must lie in a stated range ({stated}), not {b_read:g}")
        frame.loc[inside, B] = float(b_read)  # the point(s) whose stated range holds it
    frame[B] = frame[B].astype(float)
    frame[X] = frame[X].astype(float)
    return aggregate.means(frame[["series", B, LOW, HIGH, X, "basis"]], ["series", B], [X]).reset_index(drop=True)


def points_table(points: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"series": points["series"], "messages per commit": points[B]})
    if (points[LOW] < points[HIGH]).any():
        out["lowest reading (msgs)"] = points[LOW]
        out["highest reading (msgs)"] = points[HIGH]
    out["rate (msg/s)"] = points[X]
    if aggregate.COUNT in points:
        out["rows averaged (n)"] = points[aggregate.COUNT].astype(int)
        out["rate sd (msg/s)"] = points[aggregate.sd_column(X)]
    out["basis"] = points["basis"]
    return out


def _throughput_fitter(src):
    def fit(rows: pd.DataFrame):
        if rows[B].nunique() < 2:
            raise ModelError("one unit-of-work size: nothing to fit")
        return batching.fit_throughput(rows[B], rows[X], data_name=src.name, data_hash=src.sha256)
    return fit


def fit_throughput(points: pd.DataFrame, src) -> FitSet:
    """X(b) per series. Raises ModelError when no series has two distinct messages per commit."""
    fits = FitSet.fit(points, "series", _throughput_fitter(src))
    if not fits.results:
        raise ModelError("no series can be fitted: X(b) = b/(t_c + b t_m) needs at least 2 distinct "
                         "msgs_per_commit values per series")
    return fits


def fit_table(fits: FitSet, fraction: float) -> pd.DataFrame:
    rows = []
    for f in fits:
        row = {"series": f.group, "points": f.nobs}
        if f.ok:
            r = f.result
            b_max = float(np.max(r.x))
            row.update({"commit time t_c (µs)": r.t_c * 1e6, "time per message t_m (µs)": r.t_m * 1e6,
                        "asymptote X∞ (msg/s)": x_max(r),
                        f"msgs per commit for {fraction_label(fraction)} of X∞": b_for(r, fraction),
                        "largest measured (msgs)": b_max,
                        "% of X∞ at the largest": float(r.predict([b_max])[0]) * r.t_m * 100,
                        "residual df": r.df_resid, "identification": r.identification})
        else:
            row["identification"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows).reindex(columns=list(max(rows, key=len)))  # a fitted row has every column


def x_max(r) -> float:
    return r.x_max() if r.t_m > 0 else math.inf


def b_for(r, fraction: float) -> float:
    return r.batch_for_fraction(fraction) if r.t_m > 0 else math.inf


def parameter_table(fits: FitSet) -> pd.DataFrame | None:
    if not fits.any_intervals:
        return None
    table = fits.parameters()
    table = table[table["series"].isin([s for s, r in fits.results.items() if r.df_resid > 0])].copy()
    scale = 1e6  # seconds to µs: both parameters are times
    for col in ("estimate", "std err", "lower", "upper"):
        table[col] = table[col] * scale
    table["unit"] = "µs"
    return table.rename(columns={"estimate": "estimate (µs)", "std err": "std err (µs)",
                                 "lower": "95 % lower (µs)", "upper": "95 % upper (µs)"}).drop(columns="unit")


def fraction_label(fraction: float) -> str:
    return f"{prose.num(fraction * 100)} %"


def known(r, name: str, scale: float = 1e6) -> tuple[str, float, float]:
    """Whether the data tell a parameter: ("exact" | "identified" | "bound" | "unknown", low, high), the
    interval times ``scale`` (seconds to µs by default).

    An exactly identified fit states its values with no interval (two equations, two unknowns); a
    parameter its bound holds is at the bound; otherwise its 95 % interval must identify it
    (:func:`mqperf.models.evidence.identified`: finite, positive, within a factor 10).
    """
    if r.df_resid <= 0:
        return "exact", math.nan, math.nan
    if name in r.active_bounds:
        return "bound", math.nan, math.nan
    ci = r.conf_int().loc[name] * scale
    lo, hi = float(ci["lower"]), float(ci["upper"])
    return ("identified" if evidence.identified(lo, hi) else "unknown"), lo, hi


def asymptote_known(r) -> bool:
    return r.t_m > 0 and known(r, "t_m")[0] in ("exact", "identified")


def batch_known(r) -> bool:
    return asymptote_known(r) and r.t_c > 0 and known(r, "t_c")[0] in ("exact", "identified")


def _readings(low: float, value: float, high: float) -> list[float]:
    return sorted({low, value, high, (low + high) / 2}) if low < high else [value]


def sensitivity(points: pd.DataFrame, refs: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Refits of X(b) with each ranged point's messages per commit read across its range."""
    rows = []
    for name, g in points.groupby("series", sort=False):
        ranged = g[LOW] < g[HIGH]
        if not ranged.any() or g[B].nunique() < 2:
            continue
        if int(ranged.sum()) > MAX_RANGED:
            raise ModelError(f"{name}: {int(ranged.sum())} points give a range of messages per commit; "
                             f"the readings table takes at most {MAX_RANGED}")
        choices = [_readings(lo, v, hi) for lo, v, hi in zip(g[LOW], g[B], g[HIGH])]
        for combo in itertools.product(*choices):
            b = np.asarray(combo, dtype=float)
            if np.unique(b).size < 2:
                continue
            try:
                res = batching.fit_throughput(b, g[X])
            except ModelError:
                continue
            row = {"series": name, "read as": " / ".join(prose.num(v, 6) for v in b),
                   "central": bool(np.allclose(b, g[B].to_numpy())), "t_c": res.t_c, "t_m": res.t_m,
                   "x_max": x_max(res), "b_for": b_for(res, fraction), "fit": res}
            for ref in refs.itertuples():
                row[f"X∞ vs {ref.reference} (%)"] = (row["x_max"] / ref.rate_msg_s - 1) * 100
            rows.append(row)
    return pd.DataFrame(rows)


def sensitivity_table(sens: pd.DataFrame, fraction: float) -> pd.DataFrame | None:
    if sens.empty:
        return None
    central = sens[sens["central"]].set_index("series")["t_c"]
    table = pd.DataFrame({
        "series": sens["series"], "messages per commit read as": sens["read as"], "the data's reading": sens["central"],
        "commit time t_c (µs)": sens["t_c"] * 1e6, "× the data's commit time": sens["t_c"] / sens["series"].map(central),
        "time per message t_m (µs)": sens["t_m"] * 1e6, "asymptote X∞ (msg/s)": sens["x_max"],
        f"msgs per commit for {fraction_label(fraction)} of X∞": sens["b_for"]})
    for col in [c for c in sens.columns if c.startswith("X∞ vs ")]:
        table[col] = sens[col]
    return table


def throughput_curves(fits: FitSet, sens: pd.DataFrame, b_max: float) -> pd.DataFrame:
    """X(b) per series on a grid up to ``b_max``, with its 95 % band, or instead the band the readings of
    its ranged points span (a sensitivity, labelled so) where it has any."""
    from mqperf.present import charts

    grid = np.round(np.linspace(1.0, b_max, 80), 4)
    curves = fits.curves(grid, y="fit").assign(band=charts.CONF_BAND)
    for col in ("lower", "upper"):
        curves[col] = curves[col] if col in curves else np.nan
    for name in fits.results:
        readings = sens[sens["series"] == name]["fit"] if not sens.empty else []
        if len(readings):
            mine = curves["series"] == name
            stack = np.vstack([res.predict(grid) for res in readings] + [curves.loc[mine, "fit"].to_numpy()])
            curves.loc[mine, "lower"], curves.loc[mine, "upper"] = stack.min(axis=0), stack.max(axis=0)
            curves.loc[mine, "band"] = "readings of the ranged points (sensitivity)"
    curves["lower"] = curves["lower"].fillna(curves["fit"])
    curves["upper"] = curves["upper"].fillna(curves["fit"])
    return curves


def references(which: str, rate: float | None) -> pd.DataFrame:
    """Non-persistent rates to hold X∞ against: the book's ("book"), the reader's, both or none."""
    frames = []
    if which == "book":
        from mqperf.data.views import kafka_persistent_uow as book

        frames.append(book.reference_rates())
    if rate is not None:
        frames.append(pd.DataFrame({"reference": ["your non-persistent rate"], "rate_msg_s": [float(rate)]}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["reference", "rate_msg_s"])


def validation(points: pd.DataFrame, fits: FitSet, refs: pd.DataFrame, sens: pd.DataFrame | None = None) -> pd.DataFrame:
    """Leave-one-out predictions, and the asymptote against each reference rate: from the data's
    reading, and across the readings of any ranged point (a range like "up to 250" is a range)."""
    rows = []
    for name, r in fits.results.items():
        g = points[points["series"] == name]
        if g[B].nunique() >= 3:
            loo = fits.leave_one_out(g, None, B, X, _throughput_fitter(_NoSource))
            for row in loo.itertuples(index=False):
                rows.append({"series": name, "check": f"leave out b = {prose.num(row[1], 6)}", "measured (msg/s)": row[2],
                             "predicted (msg/s)": row[3], "error (%)": row[4]})
        if not asymptote_known(r):
            continue
        readings = sens[sens["series"] == name]["x_max"] if sens is not None and not sens.empty else pd.Series([], dtype=float)
        readings = readings[np.isfinite(readings)]
        for ref in refs.itertuples():
            row = {"series": name, "check": f"X∞ against {ref.reference}", "measured (msg/s)": ref.rate_msg_s,
                   "predicted (msg/s)": x_max(r), "error (%)": (x_max(r) / ref.rate_msg_s - 1) * 100}
            if len(readings):
                row.update({"readings: lowest X∞ (msg/s)": float(readings.min()),
                            "readings: highest X∞ (msg/s)": float(readings.max()),
                            "readings: error from (%)": (float(readings.min()) / ref.rate_msg_s - 1) * 100,
                            "readings: error to (%)": (float(readings.max()) / ref.rate_msg_s - 1) * 100})
            rows.append(row)
    columns = ["series", "check", "measured (msg/s)", "predicted (msg/s)", "error (%)"]
    table = pd.DataFrame(rows)
    return table.reindex(columns=columns + [c for c in table.columns if c not in columns]) if rows else \
        pd.DataFrame(columns=columns)


class _NoSource:
    name = sha256 = None


def plan_batch(fits: FitSet, fraction: float, plan_b: float) -> pd.DataFrame:
    """Per series: the unit of work reaching ``fraction`` of X∞ (where the data tell both times) and
    the rate at ``plan_b``, each flagged when it lies beyond the largest measured unit of work."""
    rows = []
    for name, r in fits.results.items():
        b_max = float(np.max(r.x))
        asks = []
        if batch_known(r):
            need = max(1, math.ceil(round(r.batch_for_fraction(fraction), 9)))  # a unit of work holds a message
            asks.append((need, f"reaches {fraction_label(fraction)} of X∞"))
        asks.append((plan_b, "asked for (plan_batch)"))
        for b, why in asks:
            x = float(r.predict([b])[0])
            rows.append({"series": name, "messages per commit": b, "why": why, "rate (msg/s)": x,
                         "% of X∞": x * r.t_m * 100 if asymptote_known(r) else math.nan,
                         "beyond measured": b > b_max})
    return pd.DataFrame(rows)


def cards(fits: FitSet, log_fits: FitSet | None, src, log_src) -> list[tuple[str, dict, object]]:
    out = [(card_name(CHAPTER, "throughput " + s), r.to_card(name=f"{CHAPTER}: throughput, {s}", dataset=src.name), r)
           for s, r in fits.results.items()]
    if log_fits:
        out += [(card_name(CHAPTER, "log bytes " + s), r.to_card(name=f"{CHAPTER}: log bytes, {s}", dataset=log_src.name), r)
                for s, r in log_fits.results.items()]
    return out


def log_points(log_file: pd.DataFrame | None, data: pd.DataFrame) -> pd.DataFrame | None:
    """(operation, msgs_per_commit, log_bytes_per_msg) means from the log file, else the data's column."""
    frame = log_file
    if frame is None:
        if "log_bytes_per_msg" not in data or data["log_bytes_per_msg"].isna().all():
            return None
        frame = data[data["log_bytes_per_msg"].notna()]
    op = frame["operation"].fillna("your data").astype(str) if "operation" in frame else "your data"
    out = pd.DataFrame({"operation": op, B: frame[B].astype(float),
                        "log_bytes_per_msg": frame["log_bytes_per_msg"].astype(float)}).reset_index(drop=True)
    return aggregate.means(out, ["operation", B], ["log_bytes_per_msg"]).reset_index(drop=True)


def fit_log(log: pd.DataFrame | None, src) -> FitSet | None:
    if log is None:
        return None

    def fit(rows):
        if rows[B].nunique() < 2:
            raise ModelError("one unit-of-work size: per-message and per-commit bytes cannot be separated")
        return batching.fit_log_bytes(rows[B], rows["log_bytes_per_msg"], data_name=src.name, data_hash=src.sha256)
    return FitSet.fit(log, "operation", fit)


def log_curves(log: pd.DataFrame, fits: FitSet) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(measured, curves) of L(b) per operation up to five times the largest fitted unit of work; None
    when no operation was fitted."""
    fitted = fits.results
    if not fitted:
        return None
    b_max = 5 * max(float(np.max(r.x)) for r in fitted.values())
    curves = fits.curves(np.round(np.geomspace(1.0, b_max, 80), 4), y="fit")
    for col in ("lower", "upper"):
        curves[col] = curves[col].fillna(curves["fit"]) if col in curves else curves["fit"]
    label = [op if op in fitted else f"{op} (not fitted)" for op in log["operation"]]
    measured = pd.DataFrame({"series": label, "b": log[B], "log_bytes_per_msg": log["log_bytes_per_msg"],
                             "basis": "measured"})
    return measured, curves


def log_table(fits: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        ci = r.conf_int() if r.df_resid > 0 else None
        row = {"bytes per message l_m": r.l_m, "bytes per commit l_c": r.l_c}
        if ci is not None:
            row.update({"l_m 95 % lower": ci.loc["l_m", "lower"], "l_m 95 % upper": ci.loc["l_m", "upper"],
                        "l_c 95 % lower": ci.loc["l_c", "lower"], "l_c 95 % upper": ci.loc["l_c", "upper"]})
        return {**row, "bytes per message at 1 per commit": r.l_m + r.l_c,
                "msgs per commit within 10 % of l_m": r.batch_for_excess(0.1) if r.l_m > 0 else math.nan,
                "residual df": r.df_resid, "identification": r.identification}

    return fits.table(columns, group="operation")


def mixed_fit(log: pd.DataFrame):
    """One L(b) through every operation's points (the mistake the chapter warns about), or None."""
    if log["operation"].nunique() < 2 or log[B].nunique() < 2:
        return None
    try:
        res = batching.fit_log_bytes(log[B], log["log_bytes_per_msg"])
    except ModelError:
        return None
    fitted = res.predict(log[B])
    error = (fitted - log["log_bytes_per_msg"]) / log["log_bytes_per_msg"] * 100
    error = error.where(error.abs() > 1e-6, 0.0)  # an exactly fitted point's error is solver noise
    table = pd.DataFrame({"operation": log["operation"], "messages per commit": log[B],
                          "measured (bytes/msg)": log["log_bytes_per_msg"], "mixed fit (bytes/msg)": fitted,
                          "error (%)": error})
    return res, table


def pairing(log: pd.DataFrame | None, data: pd.DataFrame, fits: FitSet, separate: bool) -> dict[str, tuple[str, str]]:
    """Operation -> (throughput series whose rate it runs at, how that is known)."""
    if log is None:
        return {}
    fitted = list(fits.results)
    out = {}
    if not separate and "series" in data and "operation" in data:
        rows = data.dropna(subset=["operation"])
        for op, g in rows.groupby(rows["operation"].astype(str), sort=False):
            mine = [s for s in dict.fromkeys(g["series"].astype(str)) if s in fitted]
            if len(mine) == 1:
                out[op] = (mine[0], "its rows' series")
    if len(fitted) == 1:
        for op in dict.fromkeys(log["operation"]):
            out.setdefault(op, (fitted[0], "the only throughput series"))
    return out


def plan_log(log_fits: FitSet, fits: FitSet, plan_b: float, pairs: dict) -> pd.DataFrame | None:
    if not log_fits.results:
        return None
    rows = []
    for op, r in log_fits.results.items():
        series, how = pairs.get(op, (None, "no series is stated for this operation"))
        rate = float(fits.results[series].predict([plan_b])[0]) if series else math.nan
        b_rate = float(np.max(fits.results[series].x)) if series else math.inf
        for b in sorted({1.0, 10.0, float(plan_b)}):
            per = float(r.predict([b])[0])
            row = {"operation": op, "messages per commit": b, "log bytes per message": per,
                   "% above l_m": (per / r.l_m - 1) * 100 if r.l_m > 0 else math.nan,
                   "beyond measured": b > float(np.max(r.x))}
            if b == float(plan_b):
                row.update({"rate of series": series or "none", "which series": how, "at rate (msg/s)": rate,
                            "rate beyond measured": bool(series) and b > b_rate,
                            "log (MB/s)": per * rate / 1e6})
            rows.append(row)
    return pd.DataFrame(rows)
