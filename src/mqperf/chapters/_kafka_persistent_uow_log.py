"""The persistent-messages chapter's log-bytes steps: L(b) = l_m + l_c/b per operation, the
mixed fit it warns against, and the log bytes and bandwidth at a planned unit of work.

An operation's log bandwidth is its bytes per message times the rate of the series that does
that operation (the getter's log at the getter's rate): :func:`pairing` reads which series that
is from the rows that carry both, or takes the only throughput series there is, and says so; an
operation no series is stated for gets no bandwidth."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import batching
from mqperf.models.fitset import FitSet
from mqperf.present import charts, prose

B = "msgs_per_commit"

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


def log_sentences(fits: FitSet) -> list[str]:
    from mqperf.chapters._kafka_persistent_uow_parts import known, why_not

    def line(group, r) -> str:
        (lm, lm_lo, lm_hi), (lc, lc_lo, lc_hi) = known(r, "l_m", 1.0), known(r, "l_c", 1.0)
        name = prose.quoted(group)
        if lm == "unknown":
            return f"In {name} the data cannot tell the log bytes per message l_m ({why_not(lm_lo, lm_hi, 'bytes')})."
        if lc == "unknown":
            return (f"{name} logs {prose.num(r.l_m)} bytes per message; the data cannot tell the bytes per commit l_c "
                    f"({why_not(lc_lo, lc_hi, 'bytes')}).")
        if r.l_m <= 0:
            return f"{name} logs {prose.num(r.l_c)} bytes per commit; l_m is 0, so every byte is per commit."
        b_max, within = float(np.max(r.x)), r.batch_for_excess(0.1)
        return (f"{name} logs {prose.num(r.l_m)} bytes per message and {prose.num(r.l_c)} bytes per commit; "
                + prose.extrapolated(f"{prose.num(within)} messages per commit bring a message within 10 % of l_m",
                                     within > b_max) + ".")

    return prose.per_fit(fits, line)


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


def mixed_sentence(mixed) -> str:
    res, table = mixed
    worst = float(table["error (%)"].abs().max())
    df = res.df_resid
    claim = (f"has {prose.count(df, 'residual degree')} of freedom, so it reports intervals, yet"
             if df > 0 else "has no residual degrees of freedom and")
    return (f"Fitted as one curve, the operations' points give a model that {claim} misses the measured bytes "
            f"by up to {prose.pct(worst)}: an interval does not protect against fitting two operations as one.")


def log_chart(log: pd.DataFrame, fits: FitSet):
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
    return charts.measured_vs_fitted(measured, curves, x="b", y="log_bytes_per_msg", x_title="messages per commit",
                                     y_title="log bytes per message", title="MQ log bytes per message, L(b) = l_m + l_c/b")


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


def plan_log_sentence(table: pd.DataFrame, plan_b: float) -> str:
    at = table[table["messages per commit"] == float(plan_b)]
    parts = []
    for _, row in at.iterrows():
        op = prose.quoted(row["operation"])
        beyond = bool(row["beyond measured"] or row["rate beyond measured"])
        if row["rate of series"] == "none":
            parts.append(prose.extrapolated(f"{op} logs {prose.num(row['log bytes per message'])} bytes per message",
                                            bool(row["beyond measured"]))
                         + " (no series is stated for it, so no log bandwidth)")
            continue
        parts.append(f"{op} logs {prose.num(row['log bytes per message'])} bytes per message, "
                     f"{prose.num(row['log (MB/s)'], unit='MB/s')} at the rate of {prose.quoted(row['rate of series'])} "
                     f"({prose.num(row['at rate (msg/s)'], unit='msg/s')}; {row['which series']}"
                     + ("; extrapolated)" if beyond else ")"))
    return f"At {prose.num(plan_b)} messages per commit, {prose.listing(parts)}."
