"""Persistent messages and units of work: throughput and log bytes against messages per commit.

Two models from :mod:`mqperf.models.batching`:

* throughput of one task committing every ``b`` messages, X(b) = b / (t_c + b·t_m);
* MQ log bytes per message, L(b) = l_m + l_c / b, fitted **per operation**: an MQPUT logs the
  message itself, an MQGET only a small record, so a put/commit point and get/commit points
  do not lie on one curve and must not be fitted together.

For the book's data the connector's messages per commit are stated as ranges ("2-3") or
caps ("up to 250"): the loader keeps the range (``b_low``, ``b_high``) beside the value
used, and :func:`sensitivity` refits at the ends of each range.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import DataError, ModelError
from mqperf.models import batching
from mqperf.models._base import round_sig
from mqperf.models.validation import leave_one_out as _loo
from mqperf.data import is_path as _is_path
from mqperf.present.cards import card_name  # noqa: F401 (the chapter calls it from here)

CONTRACT = "kafka_persistent_uow"

#: A reader's separate log-bytes file (the ``log_bytes`` parameter given a path).
LOG_BYTES_CONTRACT = {
    "title": "Log bytes per message against messages per commit",
    "fields": [
        {"name": "msgs_per_commit", "type": "number", "unit": "msgs", "constraints": {"required": True, "minimum": 1}},
        {"name": "log_bytes_per_msg", "type": "number", "unit": "bytes/msg", "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "operation", "type": "string"},
    ],
}

PUTTER_LABELS = {
    "put_commit": "putter MQPUT/commit",
    "put100_commit": "putter 100 MQPUTs/commit",
}


@dataclass(frozen=True)
class UowFit:
    series: str
    result: object | None  # BatchThroughputResult or LogBytesResult
    n_points: int
    reason: str


# -- loading ------------------------------------------------------------------------------------

def load_throughput(source: str, *, b_put_commit: float | None = None) -> pd.DataFrame:
    """Rows (series, point, msgs_per_commit, b_low, b_high, rate_msg_s, basis).

    From the book's ``kafka_persistent_uow``: the source connector's two single-task rates
    (putters committing every message, or every 100), each with the connector's messages
    per commit as the article states them (2-3, and 250). ``b_put_commit`` picks the value
    inside 2-3 (default: the middle). From a reader's CSV (``uow`` contract): every row
    with its own ``msgs_per_commit``; several rows per series and value (one per
    measurement interval) are averaged to one point with ``n`` and ``rate_msg_s_sd``
    (:func:`mqperf.data.aggregate.means`). X(b) is fitted through the means unweighted: each
    unit-of-work size is one experiment, so the degrees of freedom are the distinct sizes.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract=CONTRACT)
        keys = [c for c in ("series", "basis", "msgs_per_commit") if c in frame]
        frame = aggregate.means(frame, keys, ["rate_msg_s"])
        series = frame["series"].astype(str) if "series" in frame else pd.Series("your data", index=frame.index)
        b = frame["msgs_per_commit"].astype(float)
        averaged = aggregate.aggregated(frame)
        out = pd.DataFrame({
            "series": series.str.replace("_", " ", regex=False),
            "point": [f"mean of {int(k):,} rows" for k in frame[aggregate.COUNT]] if averaged
            else [f"row {i + 2}" for i in range(len(frame))],
            "msgs_per_commit": b, "b_low": b, "b_high": b,
            "rate_msg_s": frame["rate_msg_s"].astype(float),
            "basis": frame["basis"].fillna("measured").astype(str) if "basis" in frame else "measured",
        })
        if averaged:
            out[aggregate.COUNT] = frame[aggregate.COUNT].to_numpy()
            out[aggregate.sd_column("rate_msg_s")] = frame[aggregate.sd_column("rate_msg_s")].to_numpy()
        return out.reset_index(drop=True)
    return _book_throughput(mqdata.load(source), b_put_commit)


def _book_throughput(frame: pd.DataFrame, b_put_commit: float | None) -> pd.DataFrame:
    rows = []
    rates = frame[(frame["item"] == "rate") & frame["putter_model"].isin(list(PUTTER_LABELS))]
    for r in rates.itertuples():
        per = frame[(frame["item"] == "msgs_per_commit") & (frame["putter_model"] == r.putter_model)]
        if per.empty:
            continue
        values = per.set_index("statistic")["msgs_per_commit"].astype(float)
        low, high = float(values.min()), float(values.max())
        b = (low + high) / 2
        if r.putter_model == "put_commit" and b_put_commit is not None:
            if not low <= b_put_commit <= high:
                raise ModelError(f"b_put_commit must lie in the stated range {low:g}-{high:g}, not {b_put_commit!r}")
            b = float(b_put_commit)
        rows.append({
            "series": f"{r.connector} persistent, {int(r.tasks)} task",
            "point": PUTTER_LABELS[r.putter_model],
            "msgs_per_commit": b, "b_low": low, "b_high": high,
            "rate_msg_s": float(r.rate_msg_s), "basis": str(r.basis),
        })
    if not rows:
        raise DataError(mqdata.resource_path("kafka_persistent_uow"), "no rate rows with messages per commit")
    return pd.DataFrame(rows)


def load_gains(source: str, item: str = "zhpf_gain") -> pd.DataFrame:
    """Printed throughput gains (percent) of the book's dataset; empty for a reader's file."""
    if _is_path(source):
        return pd.DataFrame(columns=["statistic", "pct", "quote"])
    frame = mqdata.load(source)
    rows = frame[frame["item"] == item]
    return rows[["statistic", "pct", "quote"]].reset_index(drop=True)


def context_table(source: str) -> pd.DataFrame:
    """The book dataset's rows as printed (rates, gains, units of work); empty for a reader's file."""
    if _is_path(source):
        return pd.DataFrame()
    frame = mqdata.load(source)
    cols = ["item", "putter_model", "tasks", "base_tasks", "statistic", "rate_msg_s", "pct", "msgs_per_commit", "basis"]
    return frame[cols]


def load_log_bytes(source: str, data: str | None = None) -> pd.DataFrame:
    """Rows (operation, msgs_per_commit, log_bytes_per_msg).

    ``source`` is a dataset name (``kafka_log_bytes``) or a CSV path; ``""`` takes the
    ``log_bytes_per_msg`` column of the reader's ``data`` file when it has one (else empty).
    """
    cols = ["operation", "msgs_per_commit", "log_bytes_per_msg"]
    if not source:
        if not data or not _is_path(data):
            return pd.DataFrame(columns=cols)
        frame = mqdata.load(data, contract=CONTRACT)
        if "log_bytes_per_msg" not in frame:
            return pd.DataFrame(columns=cols)
        frame = frame[frame["log_bytes_per_msg"].notna()]
    elif _is_path(source):
        frame = mqdata.load(source, contract=LOG_BYTES_CONTRACT)
    else:
        frame = mqdata.load(source)
    op = frame["operation"].astype(str) if "operation" in frame else pd.Series("your data", index=frame.index)
    out = pd.DataFrame({
        "operation": op.to_numpy(),
        "msgs_per_commit": frame["msgs_per_commit"].astype(float).to_numpy(),
        "log_bytes_per_msg": frame["log_bytes_per_msg"].astype(float).to_numpy(),
    })
    # Interval rows of a reader's file: one mean per operation and size, fitted unweighted
    # (as the throughput points are; see load_throughput).
    return aggregate.means(out, ["operation", "msgs_per_commit"], ["log_bytes_per_msg"])


def aggregation_note(frame: pd.DataFrame) -> aggregate.AggregationNote:
    """How many rows were averaged into how many points (throughput or log bytes); nothing if none were."""
    if "rate_msg_s" in frame:
        return aggregate.AggregationNote(aggregate.note(frame, per="series and messages-per-commit value", value="rate_msg_s"))
    return aggregate.AggregationNote(aggregate.note(frame, per="operation and messages-per-commit value", value="log_bytes_per_msg"))


# -- throughput ---------------------------------------------------------------------------------

def fit_throughput(points: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> list[UowFit]:
    """X(b) per series with two or more distinct messages per commit.

    Raises
    ------
    ModelError
        When no series has two distinct values of messages per commit.
    """
    fits = []
    for name, group in points.groupby("series", sort=False):
        distinct = group["msgs_per_commit"].nunique()
        if distinct < 2:
            fits.append(UowFit(name, None, len(group), "one unit-of-work size: nothing to fit"))
            continue
        result = batching.fit_throughput(group["msgs_per_commit"], group["rate_msg_s"], data_name=data_name, data_hash=data_hash)
        fits.append(UowFit(name, result, len(group), _verdict(result)))
    if not any(f.result is not None for f in fits):
        raise ModelError("no series can be fitted: X(b) = b/(t_c + b t_m) needs at least 2 distinct msgs_per_commit values per series")
    return fits


def _verdict(result) -> str:
    return result.identification


def throughput_table(fits: list[UowFit]) -> pd.DataFrame:
    """Commit time (ms), time per message (µs), asymptote, batch for 90 % and what the largest batch reached."""
    rows = []
    for f in fits:
        row = {"series": f.series, "points": f.n_points}
        r = f.result
        if r is not None:
            b_max = float(np.max(r.x))
            row.update(
                t_c_ms=round_sig(r.t_c * 1e3, 4),
                t_m_us=round_sig(r.t_m * 1e6, 4),
                x_max_msg_s=round_sig(r.x_max(), 5),
                batch_for_90pct=round_sig(r.batch_for_fraction(0.9), 4),
                largest_batch=b_max,
                pct_of_max_at_largest=round_sig(float(r.predict([b_max])[0]) / r.x_max() * 100, 3),
                df_resid=r.df_resid,
            )
        row["status"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)


def sensitivity(points: pd.DataFrame) -> pd.DataFrame:
    """Refit X(b) with each point's messages per commit at the ends of its stated range.

    One row per combination (and the central reading), for series where some point's
    range is wider than one value; empty when every value is exact.
    """
    rows = []
    for name, group in points.groupby("series", sort=False):
        if group["msgs_per_commit"].nunique() < 2 or (group["b_low"] == group["b_high"]).all():
            continue
        if len(group) > 8:
            raise ModelError(f"{name}: too many ranged points for a sensitivity table ({len(group)})")
        choices = [sorted({lo, mid, hi}) for lo, mid, hi in zip(group["b_low"], group["msgs_per_commit"], group["b_high"])]
        for combo in itertools.product(*choices):
            b = np.asarray(combo, dtype=float)
            if np.unique(b).size < 2:
                continue
            r = batching.fit_throughput(b, group["rate_msg_s"])
            rows.append({
                "series": name,
                "msgs_per_commit_read_as": " / ".join(f"{v:g}" for v in b),
                "central": bool(np.allclose(b, group["msgs_per_commit"].to_numpy())),
                "t_c_ms": round_sig(r.t_c * 1e3, 4), "t_m_us": round_sig(r.t_m * 1e6, 4),
                "x_max_msg_s": round_sig(r.x_max(), 5), "batch_for_90pct": round_sig(r.batch_for_fraction(0.9), 4),
            })
    return pd.DataFrame(rows)


def curves(points: pd.DataFrame, fits: list[UowFit], *, b_max: float, n: int = 80) -> pd.DataFrame:
    """Fitted X(b) on a grid, with the envelope of the :func:`sensitivity` refits as the band.

    The band is a reading-sensitivity band (where the stated messages per commit are a
    range), not a confidence interval; where the fit has intervals and no range, the band
    is the 95 % confidence band.
    """
    grid = np.round(np.linspace(1.0, float(b_max), n), 4)
    parts = []
    for f in fits:
        if f.result is None:
            continue
        band = f.result.conf_band(grid)
        group = points[points["series"] == f.series]
        if (group["b_low"] != group["b_high"]).any():
            stack = []
            for combo in itertools.product(*[sorted({lo, hi}) for lo, hi in zip(group["b_low"], group["b_high"])]):
                if np.unique(combo).size >= 2:
                    stack.append(batching.fit_throughput(np.asarray(combo, float), group["rate_msg_s"]).predict(grid))
            stack.append(band["fit"].to_numpy())
            arr = np.vstack(stack)
            band["lower"], band["upper"] = arr.min(axis=0), arr.max(axis=0)
        band["series"] = f.series
        parts.append(band)
    return pd.concat(parts, ignore_index=True)


def measured_points(points: pd.DataFrame) -> pd.DataFrame:
    """Points for the chart: x = messages per commit, with the point's label as tooltip series."""
    return points.rename(columns={"msgs_per_commit": "b"})[["series", "b", "rate_msg_s", "basis", "point"]]


# -- log bytes ----------------------------------------------------------------------------------

def fit_log_bytes(log: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> list[UowFit]:
    """L(b) = l_m + l_c/b per operation with two or more batch sizes; never across operations."""
    fits = []
    for op, group in log.groupby("operation", sort=False):
        if group["msgs_per_commit"].nunique() < 2:
            fits.append(UowFit(op, None, len(group),
                               "one batch size: per-message and per-commit bytes cannot be separated"))
            continue
        result = batching.fit_log_bytes(group["msgs_per_commit"], group["log_bytes_per_msg"], data_name=data_name, data_hash=data_hash)
        fits.append(UowFit(op, result, len(group), _verdict(result)))
    return fits


def log_table(fits: list[UowFit]) -> pd.DataFrame:
    """Per operation: bytes per message l_m, per commit l_c, at one per commit, batch within 10 % of l_m."""
    rows = []
    for f in fits:
        row = {"operation": f.series, "points": f.n_points}
        r = f.result
        if r is not None:
            row.update(
                l_m_bytes_per_msg=round_sig(r.l_m, 4),
                l_c_bytes_per_commit=round_sig(r.l_c, 4),
                bytes_at_1_per_commit=round_sig(r.l_m + r.l_c, 4),
                batch_within_10pct_of_l_m=round_sig(r.batch_for_excess(0.1), 3) if r.l_m > 0 else np.nan,
                df_resid=r.df_resid,
            )
        row["status"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)


def mixed_fit(log: pd.DataFrame):
    """The mistake this chapter warns about: one L(b) through every operation's points.

    Returns ``(result, table)`` with each point's measured and fitted bytes, or ``None``
    when the file has only one operation (nothing is mixed).
    """
    if log["operation"].nunique() < 2 or log["msgs_per_commit"].nunique() < 2:
        return None
    result = batching.fit_log_bytes(log["msgs_per_commit"], log["log_bytes_per_msg"])
    fitted = result.predict(log["msgs_per_commit"])
    table = pd.DataFrame({
        "operation": log["operation"], "msgs_per_commit": log["msgs_per_commit"],
        "measured_bytes": log["log_bytes_per_msg"], "mixed_fit_bytes": [round_sig(v, 4) for v in fitted],
        # Rounded to 0.1 %: an exactly fitted point's error is float noise, not a number to print.
        "error_pct": [round(float(v), 1) + 0.0 for v in (fitted - log["log_bytes_per_msg"]) / log["log_bytes_per_msg"] * 100],
    })
    return result, table


def log_points(log: pd.DataFrame, fits: list[UowFit]) -> pd.DataFrame:
    """Measured log bytes for the chart; operations that were not fitted are labelled so."""
    fitted = {f.series for f in fits if f.result is not None}
    series = [op if op in fitted else f"{op} (not fitted)" for op in log["operation"]]
    return pd.DataFrame({"series": series, "b": log["msgs_per_commit"], "log_bytes_per_msg": log["log_bytes_per_msg"],
                         "basis": "measured"})


def log_curves(fits: list[UowFit], *, b_max: float | None = None, n: int = 80) -> pd.DataFrame:
    """Fitted L(b) with its band (none when exactly identified); ``b_max`` defaults to 5 × the
    largest measured batch, where the curve is flat."""
    fitted = [f for f in fits if f.result is not None]
    if b_max is None:
        b_max = 5 * max((float(np.max(f.result.x)) for f in fitted), default=10.0)
    grid = np.round(np.geomspace(1.0, float(b_max), n), 4)
    parts = []
    for f in fitted:
        band = f.result.conf_band(grid)
        band["series"] = f.series
        parts.append(band)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["x", "fit", "lower", "upper", "series"])


# -- validation ---------------------------------------------------------------------------------

def reference_rates(source: str, *, rate_msg_s: float | None = None) -> pd.DataFrame:
    """Non-persistent single-task rates to hold the asymptote X∞ against.

    ``"book"``: the article's source connector with one task and 1KB non-persistent
    messages (sustainable, from ``kafka_task_scaling``; peak, from ``kafka_message_size``).
    ``rate_msg_s``: a reader's own non-persistent rate. ``""`` and no rate: none.
    """
    rows = []
    if source == "book":
        ts = mqdata.load("kafka_task_scaling")
        hit = ts[(ts["connector"] == "source") & (ts["series"] == "sustainable_nonpersistent") & (ts["tasks"] == 1)]
        rows += [{"reference": "non-persistent 1KB, 1 task, sustainable (kafka_task_scaling)", "rate_msg_s": float(v)}
                 for v in hit["rate_msg_s"]]
        size = mqdata.load("kafka_message_size")
        hit = size[(size["connector"] == "source") & (size["msg_size_kb"] == 1) & (size["tasks"] == 1)]
        rows += [{"reference": "non-persistent 1KB, 1 task, peak (kafka_message_size)", "rate_msg_s": float(v)}
                 for v in hit["rate_msg_s"]]
    elif source:
        raise ModelError(f"reference must be 'book' or '' (got {source!r}); give your own rate with reference_rate_msg_s")
    if rate_msg_s is not None:
        if not math.isfinite(float(rate_msg_s)) or float(rate_msg_s) <= 0:
            raise ModelError(f"reference_rate_msg_s must be greater than zero, not {rate_msg_s!r}")
        rows.append({"reference": "your non-persistent rate", "rate_msg_s": float(rate_msg_s)})
    return pd.DataFrame(rows, columns=["reference", "rate_msg_s"])


def validate(points: pd.DataFrame, fits: list[UowFit], references: pd.DataFrame) -> pd.DataFrame:
    """Predictions the fits did not use.

    * leave-one-out, for series with three or more distinct messages per commit;
    * the asymptote X∞ = 1/t_m against a non-persistent rate at the same tasks and size:
      without a forced log write the commit costs little, so a non-persistent run with
      large units of work should run near 1/t_m.
    """
    rows = []
    for f in fits:
        if f.result is None:
            continue
        group = points[points["series"] == f.series]
        if group["msgs_per_commit"].nunique() >= 3:
            table = _loo(batching.fit_throughput, group["msgs_per_commit"], group["rate_msg_s"])
            for r in table.itertuples():
                rows.append({"series": f.series, "check": f"leave out b = {r.x:g}", "measured_msg_s": r.measured,
                             "predicted_msg_s": round_sig(r.predicted, 5), "error_pct": round_sig(r.error_pct, 3)})
        for ref in references.itertuples():
            pred = f.result.x_max()
            rows.append({"series": f.series, "check": f"X∞ against {ref.reference}", "measured_msg_s": ref.rate_msg_s,
                         "predicted_msg_s": round_sig(pred, 5),
                         "error_pct": round_sig((pred - ref.rate_msg_s) / ref.rate_msg_s * 100, 3)})
    return pd.DataFrame(rows, columns=["series", "check", "measured_msg_s", "predicted_msg_s", "error_pct"])


# -- planning -----------------------------------------------------------------------------------

def plan_batch(fits: list[UowFit], *, fraction: float = 0.9, batches=()) -> pd.DataFrame:
    """Messages per commit reaching ``fraction`` of X∞ (rounded up), and X at given batch sizes."""
    if not 0 < fraction < 1:
        raise ModelError(f"fraction must be between 0 and 1 (exclusive), not {fraction}")
    rows = []
    for f in fits:
        r = f.result
        if r is None:
            continue
        need = math.ceil(round(r.batch_for_fraction(fraction), 9))
        b_max = float(np.max(r.x))
        rows.append({"series": f.series, "msgs_per_commit": need, "why": f"reaches {fraction:.0%} of X∞",
                     "rate_msg_s": round_sig(float(r.predict([need])[0]), 5),
                     "pct_of_max": round_sig(float(r.predict([need])[0]) / r.x_max() * 100, 3),
                     "beyond_measured": need > b_max})
        for b in batches:
            x = float(r.predict([b])[0])
            rows.append({"series": f.series, "msgs_per_commit": b, "why": "asked for",
                         "rate_msg_s": round_sig(x, 5), "pct_of_max": round_sig(x / r.x_max() * 100, 3),
                         "beyond_measured": b > b_max})
    return pd.DataFrame(rows)


def plan_log(fits: list[UowFit], batches, *, rate_msg_s: float | None = None) -> pd.DataFrame:
    """Log bytes per message at the given messages per commit, and the log MB/s at a rate."""
    rows = []
    for f in fits:
        r = f.result
        if r is None:
            continue
        b_max = float(np.max(r.x))
        for b in batches:
            per = float(r.predict([b])[0])
            row = {"operation": f.series, "msgs_per_commit": b, "log_bytes_per_msg": round_sig(per, 4),
                   "pct_above_floor": round_sig((per / r.l_m - 1) * 100, 3) if r.l_m > 0 else np.nan,
                   "beyond_measured": b > b_max}
            if rate_msg_s is not None:
                row["at_rate_msg_s"] = rate_msg_s
                row["log_mb_s"] = round_sig(per * rate_msg_s / 1024 / 1024, 4)
            rows.append(row)
    return pd.DataFrame(rows)


def rate_at(fits: list[UowFit], b: float) -> tuple[str, float] | None:
    """(series, X(b)) of the first fitted series, e.g. to price the log at a planned batch."""
    for f in fits:
        if f.result is not None:
            return f.series, float(f.result.predict([b])[0])
    return None


def commit_time_what_if(fit: UowFit, *, b: float, gains_pct, b_other=()) -> pd.DataFrame:
    """What a throughput gain at ``b`` messages per commit says about the commit time.

    A change that shortens only the log I/O (zHPF) changes t_c, not t_m. A gain g at b
    then implies t_c' = b / (X(b)·(1 + g)) − b·t_m, and the model predicts the gain at
    other unit-of-work sizes ``b_other``.
    """
    r = fit.result
    if r is None:
        raise ModelError(f"{fit.series}: no fitted throughput model")
    x_b = float(r.predict([b])[0])
    rows = []
    for g in gains_pct:
        t_c_new = b / (x_b * (1 + g / 100)) - b * r.t_m
        if t_c_new < 0:
            raise ModelError(f"a gain of {g}% at b = {b:g} needs a negative commit time: the model cannot explain it")
        row = {"gain_at_b_pct": g, "b": b, "t_c_ms_before": round_sig(r.t_c * 1e3, 4),
               "t_c_ms_after": round_sig(t_c_new * 1e3, 4),
               "commit_time_cut_pct": round_sig((1 - t_c_new / r.t_c) * 100, 3)}
        for other in b_other:
            before = batching.throughput(other, r.t_c, r.t_m)
            after = batching.throughput(other, t_c_new, r.t_m)
            row[f"gain_at_b{other:g}_pct"] = round_sig((after / before - 1) * 100, 3)
        rows.append(row)
    return pd.DataFrame(rows)


