"""The persistent-messages chapter's steps: points, fits, readings, checks, what-ifs and plans.

Imported by :func:`mqperf.chapters.kafka_persistent_uow.analyse` only (it carries pandas).
Frames come out with the column names the report shows; sentences use :mod:`mqperf.present.prose`
so every number they state is a rounding of one a table of the same run shows.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import DataError, ModelError
from mqperf.models import batching
from mqperf.models.fitset import FitSet
from mqperf.present import charts, prose
from mqperf.present.cards import card_name

CHAPTER = "kafka_persistent_uow"
B, X = "msgs_per_commit", "rate_msg_s"
LOW, HIGH = "msgs_per_commit_low", "msgs_per_commit_high"
#: A sensitivity table past this many ranged points per series would be a combinatorial list.
MAX_RANGED = 6

# -- points --------------------------------------------------------------------------------------------

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


def aggregation_sentence(frame: pd.DataFrame) -> str:
    if X in frame:
        return aggregate.note(frame, per="series and messages-per-commit value", value="rate_msg_s")
    return aggregate.note(frame, per="operation and messages-per-commit value", value="log_bytes_per_msg")


def rows_caption(caption: str, frame: pd.DataFrame) -> str:
    """``caption``, with the file rows averaged into the points when there were several per point."""
    if frame is None or aggregate.COUNT not in frame:
        return caption
    return f"{caption} ({int(frame[aggregate.COUNT].sum()):,} file rows averaged into {len(frame):,} points)"


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


# -- X(b) ----------------------------------------------------------------------------------------------

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


def _fraction_label(fraction: float) -> str:
    return f"{prose.num(fraction * 100)} %"


def fit_table(fits: FitSet, fraction: float) -> pd.DataFrame:
    rows = []
    for f in fits:
        row = {"series": f.group, "points": f.nobs}
        if f.ok:
            r = f.result
            b_max = float(np.max(r.x))
            row.update({"commit time t_c (µs)": r.t_c * 1e6, "time per message t_m (µs)": r.t_m * 1e6,
                        "asymptote X∞ (msg/s)": _x_max(r),
                        f"msgs per commit for {_fraction_label(fraction)} of X∞": _b_for(r, fraction),
                        "largest measured (msgs)": b_max,
                        "% of X∞ at the largest": float(r.predict([b_max])[0]) * r.t_m * 100,
                        "residual df": r.df_resid, "identification": r.identification})
        else:
            row["identification"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows).reindex(columns=list(max(rows, key=len)))  # a fitted row has every column


def _x_max(r) -> float:
    return r.x_max() if r.t_m > 0 else math.inf


def _b_for(r, fraction: float) -> float:
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


def known(r, name: str, scale: float = 1e6) -> tuple[str, float, float]:
    """Whether the data tell a parameter: ("exact" | "identified" | "bound" | "unknown", low, high), the
    interval times ``scale`` (seconds to µs by default).

    An exactly identified fit states its values with no interval (two equations, two unknowns); a
    parameter its bound holds is at the bound; otherwise its 95 % interval must identify it
    (:func:`mqperf.models.evidence.identified`: finite, positive, within a factor 10).
    """
    from mqperf.models import evidence

    if r.df_resid <= 0:
        return "exact", math.nan, math.nan
    if name in r.active_bounds:
        return "bound", math.nan, math.nan
    ci = r.conf_int().loc[name] * scale
    lo, hi = float(ci["lower"]), float(ci["upper"])
    return ("identified" if evidence.identified(lo, hi) else "unknown"), lo, hi


def why_not(lo: float, hi: float, unit: str = "µs") -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "it has no finite interval"
    return f"its {prose.interval(lo, hi, unit)} " + ("reaches zero" if lo <= 0 else "spans more than a factor 10")


def asymptote_known(r) -> bool:
    return r.t_m > 0 and known(r, "t_m")[0] in ("exact", "identified")


def batch_known(r) -> bool:
    return asymptote_known(r) and r.t_c > 0 and known(r, "t_c")[0] in ("exact", "identified")


def fit_sentences(fits: FitSet, fraction: float) -> list[str]:
    def line(group, r) -> str:
        b_max = float(np.max(r.x))
        name = prose.quoted(group)
        (tc, tc_lo, tc_hi), (tm, tm_lo, tm_hi) = known(r, "t_c"), known(r, "t_m")
        if r.t_m <= 0:
            return (f"In {name} a commit takes {prose.num(r.t_c * 1e6, unit='µs')} and the time "
                    "per message is 0: the rate grows in proportion to the unit of work, with no asymptote.")
        if tm == "unknown":
            commit = (f" A commit takes {prose.num(r.t_c * 1e6, unit='µs')} ({prose.interval(tc_lo, tc_hi, 'µs')})."
                      if tc == "identified" else "")
            return (f"In {name} the data cannot tell the time per message ({why_not(tm_lo, tm_hi)}), so not the "
                    f"asymptote either: up to {prose.num(b_max)} messages per commit the rate has not levelled off "
                    f"enough to show it.{commit}")
        if r.t_c <= 0 or tc == "bound":
            return (f"In {name} the commit time is 0: the rate does not depend on the unit of work, "
                    f"{prose.num(_x_max(r), unit='msg/s')} at any size.")
        if tc == "unknown":
            return (f"In {name} the data cannot tell the commit time ({why_not(tc_lo, tc_hi)}); a message takes "
                    f"{prose.num(r.t_m * 1e6, unit='µs')}, so the rate approaches X∞ = "
                    f"{prose.num(_x_max(r), unit='msg/s')}, and the unit of work that reaches "
                    f"{_fraction_label(fraction)} of it cannot be told.")
        need = _b_for(r, fraction)
        return (f"In {name} a commit takes {prose.num(r.t_c * 1e6, unit='µs')} and a message "
                f"{prose.num(r.t_m * 1e6, unit='µs')}: the rate approaches X∞ = {prose.num(_x_max(r), unit='msg/s')}, "
                + prose.extrapolated(f"reaches {_fraction_label(fraction)} of it at {prose.num(need)} messages per "
                                     "commit", need > b_max)
                + f", and the largest measured unit of work ({prose.num(b_max)} messages) reaches "
                f"{prose.pct(float(r.predict([b_max])[0]) * r.t_m * 100)} of it.")

    return prose.per_fit(fits, line)


# -- readings of ranged points ---------------------------------------------------------------------------

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
                   "x_max": _x_max(res), "b_for": _b_for(res, fraction), "fit": res}
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
        f"msgs per commit for {_fraction_label(fraction)} of X∞": sens["b_for"]})
    for col in [c for c in sens.columns if c.startswith("X∞ vs ")]:
        table[col] = sens[col]
    return table


def sensitivity_sentences(sens: pd.DataFrame, fraction: float) -> list[str]:
    if sens.empty:
        return []
    out = []
    refs = [c for c in sens.columns if c.startswith("X∞ vs ")]
    for name, g in sens.groupby("series", sort=False):
        t = g["t_c"] * 1e6
        ratio = g["t_c"] / g.loc[g["central"], "t_c"].iloc[0]
        out.append(
            f"Read across the stated range, {prose.quoted(name)}'s commit time runs from "
            f"{prose.num(t.min(), unit='µs')} to {prose.num(t.max(), unit='µs')} (up to "
            f"{prose.num(ratio.max())}× the data's reading), the messages per commit for "
            f"{_fraction_label(fraction)} from {prose.num(g['b_for'].min())} to {prose.num(g['b_for'].max())}, "
            f"and the asymptote from {prose.num(g['x_max'].min(), unit='msg/s')} to "
            f"{prose.num(g['x_max'].max(), unit='msg/s')}: a reading, not a confidence interval.")
        if refs:
            miss = g[refs].abs().mean(axis=1)
            best = g.loc[miss.idxmin()]
            out.append(f"Of these readings, {prose.quoted(best['read as'])} puts the asymptote closest to the "
                       f"non-persistent reference rates (off by {listing_pct(best[refs])}).")
    return out


def listing_pct(values) -> str:
    return prose.listing([prose.pct(float(v)) for v in values])


def throughput_chart(points: pd.DataFrame, fits: FitSet, sens: pd.DataFrame, b_max: float):
    grid = np.round(np.linspace(1.0, b_max, 80), 4)
    parts = []
    for name, r in fits.results.items():
        band = r.bands(grid).assign(band=charts.CONF_BAND)
        readings = sens[sens["series"] == name]["fit"] if not sens.empty else []
        if len(readings):
            stack = np.vstack([res.predict(grid) for res in readings] + [band["fit"].to_numpy()])
            band["lower"], band["upper"] = stack.min(axis=0), stack.max(axis=0)
            band["band"] = "readings of the ranged points (sensitivity)"
        band["lower"] = band["lower"].fillna(band["fit"])
        band["upper"] = band["upper"].fillna(band["fit"])
        band["series"] = name
        parts.append(band)
    measured = pd.DataFrame({"series": points["series"], "b": points[B], "rate_msg_s": points[X],
                             "basis": points["basis"]})
    return charts.measured_vs_fitted(
        measured, pd.concat(parts, ignore_index=True), x="b", y="rate_msg_s",
        x_title="messages per commit (unit of work)", y_title="rate (msg/s)",
        title="Rate by unit of work, X(b) = b/(t_c + b·t_m); band: readings of ranged points or 95 %")


# -- checks ----------------------------------------------------------------------------------------------

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
                   "predicted (msg/s)": _x_max(r), "error (%)": (_x_max(r) / ref.rate_msg_s - 1) * 100}
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


def check_sentences(checks: pd.DataFrame) -> list[str]:
    if checks.empty:
        return []
    out = []
    loo = checks[checks["check"].str.startswith("leave out")].dropna(subset=["error (%)"])
    if len(loo):
        out.append(f"Left out in turn, each point is predicted by the refit from the others within "
                   f"{prose.pct(float(loo['error (%)'].abs().max()))}.")
    asym = checks[checks["check"].str.startswith("X∞")]
    if not len(asym):
        return out
    ranged = "readings: error from (%)" in asym and asym["readings: error from (%)"].notna().any()
    if ranged:
        lo = asym["readings: error from (%)"].astype(float)
        hi = asym["readings: error to (%)"].astype(float)
        inside = int(((lo <= 0) & (hi >= 0)).sum())
        where = ("every reference rate lies within that range" if inside == len(asym) else
                 "no reference rate lies within that range" if inside == 0 else
                 f"{prose.count(inside, 'x').split()[0]} of the {prose.count(len(asym), 'reference rate')} "
                 f"{'lies' if inside == 1 else 'lie'} within that range")
        out.append(f"Across the readings of the ranged points, the asymptote runs from "
                   f"{prose.num(float(asym['readings: lowest X∞ (msg/s)'].min()), unit='msg/s')} to "
                   f"{prose.num(float(asym['readings: highest X∞ (msg/s)'].max()), unit='msg/s')}, off the "
                   f"reference {'rates' if len(asym) > 1 else 'rate'} by {prose.pct(float(lo.min()))} to "
                   f"{prose.pct(float(hi.max()))}: {where}. A range read from the source is not a confidence "
                   "interval, so this is a consistency check, not a test.")
        return out
    err = asym["error (%)"].astype(float)
    if (err > 0).all():
        side = ("above every non-persistent rate given: the expected side, as a non-persistent commit is "
                "cheap but not free, so its rate sits a little below 1/t_m")
    elif (err < 0).all():
        side = ("below every non-persistent rate given: a persistent asymptote should not lie below a "
                "non-persistent rate, so the fit's time per message is too long for these data")
    else:
        side = "on both sides of the non-persistent rates given"
    out.append(f"The asymptote is off the reference rates by {prose.pct(float(err.min()))} to "
               f"{prose.pct(float(err.max()))}, {side}." if len(err) > 1 else
               f"The asymptote is off the reference rate by {prose.pct(float(err.iloc[0]))}, {side}.")
    return out


# -- a shorter commit --------------------------------------------------------------------------------

def log_io_what_if(src, points: pd.DataFrame, fits: FitSet, plan_b: float):
    """(table, None) when the data state throughput gains from faster log I/O, else (None, why)."""
    if not src.book_data:
        return None, ("a reader's file has no column for a measured throughput gain from faster log I/O, "
                      "so there is no commit-time what-if")
    from mqperf.data.views import kafka_persistent_uow as book

    name, r = next(iter(fits.results.items()))
    b = float(points.loc[points["series"] == name, B].min())
    x_b = float(r.predict([b])[0])
    rows = []
    for g in book.zhpf_gains(src.name):
        t_c = b / (x_b * (1 + g / 100)) - b * r.t_m
        if t_c < 0:
            return None, f"a gain of {prose.pct(g)} needs a negative commit time: the model cannot explain it"
        row = {"gain at b (%)": g, "messages per commit b": b, "commit time before (µs)": r.t_c * 1e6,
               "commit time after (µs)": t_c * 1e6, "commit time cut (%)": (1 - t_c / r.t_c) * 100}
        for other in sorted({10.0, float(plan_b)}):
            row[f"gain at {prose.num(other, 6)} per commit (%)"] = (
                batching.throughput(other, t_c, r.t_m) / batching.throughput(other, r.t_c, r.t_m) - 1) * 100
        rows.append(row)
    return pd.DataFrame(rows), None


def _msgs(b: float) -> str:
    return f"{prose.num(b)} message{'' if b == 1 else 's'}"


def what_if_sentence(table: pd.DataFrame, plan_b: float) -> str:
    cut, gain = table["commit time cut (%)"], table["gain at b (%)"]
    at_plan = table[f"gain at {prose.num(float(plan_b), 6)} per commit (%)"]
    return (f"A commit {prose.num(cut.min())} to {prose.pct(cut.max())} shorter explains gains of "
            f"{prose.num(gain.min())} to {prose.pct(gain.max())} at {_msgs(table['messages per commit b'].iloc[0])} "
            f"per commit; the same commit would add only {prose.num(at_plan.min())} to "
            f"{prose.pct(at_plan.max())} at {prose.num(plan_b)} messages per commit: faster log I/O matters most "
            "when units of work are small.")


# -- planning --------------------------------------------------------------------------------------------

def plan_batch(fits: FitSet, fraction: float, plan_b: float) -> pd.DataFrame:
    """Per series: the unit of work reaching ``fraction`` of X∞ (where the data tell both times) and
    the rate at ``plan_b``, each flagged when it lies beyond the largest measured unit of work."""
    rows = []
    for name, r in fits.results.items():
        b_max = float(np.max(r.x))
        asks = []
        if batch_known(r):
            need = max(1, math.ceil(round(r.batch_for_fraction(fraction), 9)))  # a unit of work holds a message
            asks.append((need, f"reaches {_fraction_label(fraction)} of X∞"))
        asks.append((plan_b, "asked for (plan_batch)"))
        for b, why in asks:
            x = float(r.predict([b])[0])
            rows.append({"series": name, "messages per commit": b, "why": why, "rate (msg/s)": x,
                         "% of X∞": x * r.t_m * 100 if asymptote_known(r) else math.nan,
                         "beyond measured": b > b_max})
    return pd.DataFrame(rows)


def plan_sentences(plan: pd.DataFrame, fraction: float, plan_b: float, fits: FitSet | None = None) -> list[str]:
    out = []
    for name, g in plan.groupby("series", sort=False):
        need = g[g["why"].str.startswith("reaches")]
        asked = g[g["why"].str.startswith("asked")].iloc[0]
        if len(need):
            n = need.iloc[0]
            first = (f"In {prose.quoted(name)}, {prose.num(n['messages per commit'])} messages per commit reach "
                     f"{_fraction_label(fraction)} of the asymptote ({prose.num(n['rate (msg/s)'], unit='msg/s')}"
                     + ("; extrapolated); " if n["beyond measured"] else "); "))
        else:
            first = (f"In {prose.quoted(name)} the data cannot tell which unit of work reaches "
                     f"{_fraction_label(fraction)} of the asymptote (see the fit above); ")
        tail = f", {prose.pct(asked['% of X∞'])} of X∞" if not math.isnan(asked["% of X∞"]) else ""
        out.append(first + prose.extrapolated(f"{prose.num(plan_b)} messages per commit give "
                                              f"{prose.num(asked['rate (msg/s)'], unit='msg/s')}{tail}",
                                              asked["beyond measured"]) + ".")
    return out


def cards(fits: FitSet, log_fits: FitSet | None, src, log_src) -> list[tuple[str, dict, object]]:
    out = [(card_name(CHAPTER, "throughput " + s), r.to_card(name=f"{CHAPTER}: throughput, {s}", dataset=src.name), r)
           for s, r in fits.results.items()]
    if log_fits:
        out += [(card_name(CHAPTER, "log bytes " + s), r.to_card(name=f"{CHAPTER}: log bytes, {s}", dataset=log_src.name), r)
                for s, r in log_fits.results.items()]
    return out
