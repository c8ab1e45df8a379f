"""Request/reply measurements: the Little's-law check, the USL fit and the response time it implies.

A closed loop of N clients, each with one request outstanding and Z seconds of think time,
obeys Little's law N = X·(R + Z) whatever the system inside (Lazowska et al. 1984, §3.2). A
row that breaks it by more than the tolerance was measured over mismatched windows or counts
something else (messages rather than requests, one client's time rather than the mean), so it
is flagged and left out of the fits. The USL fitted to X against N then gives the response
time R(N) = N / X(N) − Z (the same law read the other way: Gunther, GCaP ch. 6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import queueing, usl
from mqperf.models.fitset import FitSet
from mqperf.present import prose

N, X, R, Z = "clients", "rate_msg_s", "response_time_ms", "think_time_ms"


def prepare(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with a ``series`` (split by think time where a series has several) and ``line``."""
    rows = frame.copy()
    rows["line"] = np.asarray(rows.index, dtype=int) + 2  # line 1 is the header; blank lines keep their numbers
    rows["series"] = rows["series"].fillna("").astype(str).replace("", "all") if "series" in rows else "all"
    rows[Z] = rows[Z].fillna(0.0).astype(float) if Z in rows else 0.0
    several = rows.groupby("series", sort=False)[Z].transform("nunique") > 1
    rows.loc[several, "series"] = [f"{s}, think {prose.num(z)} ms" for s, z in zip(rows.loc[several, "series"],
                                                                                 rows.loc[several, Z])]
    return rows.reset_index(drop=True)


def little(rows: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Every row's implied clients X·(R + Z) and its ratio to the stated clients."""
    check = queueing.littles_law_check(rows[N], rows[X], rows[R] / 1e3, rows[Z] / 1e3, tolerance=tolerance)
    return rows.assign(implied=check["implied"].to_numpy(), ratio=check["ratio"].to_numpy(),
                       consistent=check["consistent"].to_numpy())


def flagged_table(checked: pd.DataFrame) -> pd.DataFrame:
    bad = checked[~checked["consistent"]]
    return pd.DataFrame({"line": bad["line"], "series": bad["series"], "clients": bad[N],
                         "rate (requests/s)": bad[X], "response (ms)": bad[R], "think (ms)": bad[Z],
                         "X·(R + Z) (clients)": bad["implied"], "ratio to clients": bad["ratio"]})


def little_summary(checked: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Per series: rows, rows within the tolerance, and the spread of X·(R + Z) / N."""
    g = checked.groupby("series", sort=False)
    return pd.DataFrame({"series": list(g.groups), "rows": g.size().to_numpy(),
                         "within tolerance": g["consistent"].sum().astype(int).to_numpy(),
                         "tolerance %": 100 * tolerance, "smallest ratio": g["ratio"].min().to_numpy(),
                         "median ratio": g["ratio"].median().to_numpy(), "largest ratio": g["ratio"].max().to_numpy()})


def little_reading(checked: pd.DataFrame, summary: pd.DataFrame, tolerance: float, messages: int) -> str:
    bad = int((~checked["consistent"]).sum())
    tol = prose.pct(100 * tolerance)
    if bad == 0:
        text = (f"Every row agrees with Little's law within {tol}: X·(R + Z) is between "
                f"{prose.num(summary['smallest ratio'].min(), 4)} and {prose.num(summary['largest ratio'].max(), 4)} "
                "times the stated clients, so every row goes into the fits.")
        if float((checked["ratio"] - 1).abs().max()) <= 1e-9:
            text += (" It holds exactly in every row, as it does when the response times were computed from the "
                     "rates (mqperf does so for cphtestp's results, which give none): then the check tests nothing.")
        return text
    rows = prose.count(bad, "row") if bad <= 10 else "Rows"
    text = (f"{rows} {'disagrees' if bad == 1 else 'disagree'} with Little's law by more than {tol} "
            f"(listed below); ")
    one = bad == 1
    text += (f"the fits leave {'it' if one else 'them'} out." if bad < len(checked) else
             f"that is every row, so the fits use {'it' if one else 'them all'}: read them with care.")
    near = summary[(summary["median ratio"] / messages - 1).abs() <= tolerance] if messages > 1 else summary.iloc[:0]
    for s in near.itertuples(index=False):
        text += (f" In {prose.quoted(s.series)} the median ratio, {prose.num(s[5], 4)}, is near the messages per "
                 "request: the rate may count messages rather than requests.")
    return prose.not_supported(text)


def points(checked: pd.DataFrame) -> pd.DataFrame:
    """One point per series and client count, from the rows that agree (all rows if none does)."""
    keep = checked[checked["consistent"]] if checked["consistent"].any() else checked
    return aggregate.means(keep[["series", N, X, R, Z]], ["series", N], [X, R])


def points_table(pts: pd.DataFrame) -> pd.DataFrame:
    cols = {"series": "series", N: "clients", X: "rate (requests/s)", R: "response (ms)", Z: "think (ms)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column(X): "rate sd", aggregate.sd_column(R): "response sd"}
    return pts[[c for c in cols if c in pts]].rename(columns=cols)


# -- the USL fit --------------------------------------------------------------------------------

def _fit(rows: pd.DataFrame, **identity):
    distinct = rows[N].nunique()
    if distinct < 2:
        raise ModelError("one client count: a single point says nothing about scaling")
    return usl.fit(rows[N], rows[X], amdahl_only=distinct < 3, **identity)


def fit_all(pts: pd.DataFrame, **identity) -> FitSet:
    return FitSet.fit(pts, "series", lambda rows: _fit(rows, **identity))


def fits_table(fits: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        return {"model": "USL" if r.model == "usl" else "Amdahl", "λ (requests/s per client)": r.lam, "σ": r.sigma,
                "κ": r.kappa, "peak at (clients)": _finite(r.peak_n()), "peak or limit (requests/s)": _finite(r.peak_x()),
                "residual df": r.df_resid, "identification": r.identification}

    table = fits.table(columns)
    return table.assign(model=table["model"].fillna("none")) if "model" in table else table


def _finite(v: float) -> float:
    return v if np.isfinite(v) else np.nan


def think_s(pts: pd.DataFrame, series: str) -> float:
    return float(pts.loc[pts["series"] == series, Z].iloc[0]) / 1e3


def implied_response(fits: FitSet, pts: pd.DataFrame) -> pd.DataFrame:
    """At every measured point: the response time the USL fit implies, N / X(N) − Z, against the measured."""
    rows = []
    for name, res in fits.results.items():
        mine = pts[pts["series"] == name]
        z = think_s(pts, name)
        for p in mine.itertuples(index=False):
            n, measured = float(getattr(p, N)), float(getattr(p, R))
            implied = (n / float(res.predict([n])[0]) - z) * 1e3
            rows.append({"series": name, "clients": int(n), "measured response (ms)": measured,
                         "USL-implied response (ms)": implied,
                         "error %": 100 * (implied - measured) / measured if measured > 0 else np.nan})
    return pd.DataFrame(rows)


def implied_reading(table: pd.DataFrame, pts: pd.DataFrame, tolerance: float) -> str:
    done = table.dropna(subset=["error %"]) if len(table) else table
    if done.empty:
        return ""
    worst = done.loc[done["error %"].abs().idxmax()]
    text = (f"The response time the throughput fit implies, N / X(N) − Z, misses the measured response time by at "
            f"most {prose.pct(abs(worst['error %']))} ({prose.quoted(worst['series'])} at "
            f"{prose.count(int(worst['clients']), 'client')}: {prose.num(worst['USL-implied response (ms)'])} ms "
            f"implied against {prose.num(worst['measured response (ms)'])} ms measured).")
    if abs(worst["error %"]) <= 100 * tolerance:
        return text + " That is within the Little's-law tolerance: the fit reads the response time as well as the rows agree."
    if think_s(pts, worst["series"]) * 1e3 > worst["measured response (ms)"]:
        return text + (" There the think time is longer than the response time, and N / X(N) − Z is a small "
                       "difference of large numbers: a few per cent of error in the fitted rate becomes many per cent "
                       "in the response time. Read the response time from the measurements or the MVA.")
    return text + " There the throughput curve misses the rate: read the response time from the measurements or the MVA."


def curves(fits: FitSet, pts: pd.DataFrame, grid: np.ndarray) -> pd.DataFrame:
    """The USL fit's throughput and implied response time on the client grid, per series."""
    frames = []
    for name, res in fits.results.items():
        x = res.predict(grid)
        frames.append(pd.DataFrame({"series": name, "clients": grid, "curve": "USL fit to the measurements",
                                    "rate": x, "response_ms": (grid / x - think_s(pts, name)) * 1e3}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# -- planning with the fit ------------------------------------------------------------------------

def first_reaching(rate: np.ndarray, target: float) -> int | None:
    """The smallest client count (grid 1 … n) whose rate reaches ``target``."""
    ok = np.nonzero(rate >= target)[0]
    return int(ok[0]) + 1 if ok.size else None


def most_within(response_ms: np.ndarray, limit_ms: float) -> int | None:
    """The largest client count (grid 1 … n) up to which every response time stays within ``limit_ms``."""
    over = np.nonzero(response_ms > limit_ms)[0]
    if not over.size:
        return len(response_ms)
    return int(over[0]) if over[0] > 0 else None


# -- charts -----------------------------------------------------------------------------------------

def chart(pts: pd.DataFrame, lines: pd.DataFrame, *, y: str, y_title: str, title: str):
    """Measured points and model lines (USL fit, MVA, bound) against clients, one colour per series."""
    import altair as alt

    from mqperf.present import charts

    measured = pts.rename(columns={X: "rate", R: "response_ms"})[["series", N, "rate", "response_ms"]]
    colour = alt.Color("series:N", title=None)
    xenc = alt.X(f"{N}:Q", title="clients")
    yenc = alt.Y(f"{y}:Q", title=y_title)
    drawn = alt.Chart(charts.rounded(lines, columns=["series", N, "curve", y])).mark_line().encode(
        x=xenc, y=yenc, color=colour, detail="curve:N",
        strokeDash=alt.StrokeDash("curve:N", title=None, sort=["USL fit to the measurements", "MVA fitted to the measurements",
                                                                 "MVA from the figures", "the figures' asymptotic bound"]),
        tooltip=["series:N", "curve:N", f"{N}:Q", f"{y}:Q"])
    points = alt.Chart(charts.rounded(charts.sampled(measured, by=["series"]), columns=["series", N, y])).mark_point().encode(
        x=xenc, y=yenc, color=colour, tooltip=["series:N", f"{N}:Q", f"{y}:Q"])
    return alt.layer(drawn, points).properties(title=title)
