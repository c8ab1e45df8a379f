"""Recovery-log storage for a queue manager: the serial log writer bound, replication on
replication, and the request timeout (NativeHA on Red Hat ODF, seed 001).

* :func:`log_table` reads amqsrua DISK/Log figures correctly: physical bytes are what the
  disk wrote, logical bytes the log records; physical/logical is the log's write
  amplification; physical bytes/s over the write size is the writes per second; the write
  latency and the write size bound a serial writer (:mod:`mqperf.models.storage`).
* :func:`mqldt_check` predicts mqldt's bandwidth from its own latency and block size (a
  back-to-back single writer), a check of the serial bound on numbers it was not built on.
* :func:`replication_table` counts the copies each log write makes; :func:`quorum_check`
  predicts Native HA's write latency from a single instance's (a quorum: the active and the
  faster replica). :func:`timeout_curve` and :func:`records_check` follow a record through
  a chain of forced log writes (an Erlang-k sum of M/M/1 waits) to the 5 s timeout of the
  ACE TCP nodes; :func:`timeout_summary`, :func:`timeout_curve_summary` and
  :func:`quorum_summary` put the results into words.
* :func:`parse_amqsrua` and :func:`read_mqldt_csv` turn the tools' own output into rows.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import altair as alt
import numpy as np
import pandas as pd

from mqperf.present import charts
from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)
from mqperf.data import is_path as _is_path
from mqperf.errors import DataError, ModelError
from mqperf.models import storage
from mqperf.models._base import round_sig

#: amqsrua element names and the columns they fill (DISK/Log class).
ELEMENTS = {
    "Log - write latency": "write_latency_us",
    "Log - write size": "write_size_bytes",
    "Log - physical bytes written": "physical_bytes_s",
    "Log - logical bytes written": "logical_bytes_s",
}
CONFIG_LABELS = {"nativeha_odf": "NativeHA QM on ODF (test 1)", "single_resilient_odf": "single resilient QM on ODF (test 2)",
                 "vm": "QM on a VM (test 3)"}



# -- amqsrua --------------------------------------------------------------------------------------

MAX_PUBLICATIONS = 20  # a reader's publications shown one by one; more are averaged
AVERAGED = ("write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s")


def load_log_stats(source: str) -> pd.DataFrame:
    """One row per amqsrua publication (or series): series, interval_s, write_latency_us,
    write_size_bytes, physical_bytes_s, logical_bytes_s (NaN where not given).

    A reader's file holds one row per publication. Rows with the same ``series`` are one
    configuration and are averaged to one row with ``n`` and the standard deviations kept
    (:func:`mqperf.data.aggregate.means`). Without a ``series`` column, up to
    :data:`MAX_PUBLICATIONS` publications are shown one by one; a longer file is one
    series, "your data", averaged likewise. The means are unweighted (amqsrua publishes at
    a fixed interval, so equal weights are equal times); nothing here is fitted.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract="nativeha_storage")
        if "series" not in frame and len(frame) > MAX_PUBLICATIONS:
            frame = frame.assign(series="your data")
        if "series" in frame:
            frame = aggregate.means(frame, ["series"], ["interval_s", *AVERAGED])
        out = pd.DataFrame({
            "series": frame["series"].astype(str) if "series" in frame else [f"publication {i + 1}" for i in range(len(frame))],
            "interval_s": frame["interval_s"].astype(float) if "interval_s" in frame else np.nan,
            "write_latency_us": frame["write_latency_us"].astype(float),
            "write_size_bytes": frame["write_size_bytes"].astype(float),
            "physical_bytes_s": frame["physical_bytes_s"].astype(float),
            "logical_bytes_s": frame["logical_bytes_s"].astype(float) if "logical_bytes_s" in frame else np.nan,
        })
        for col in (aggregate.COUNT, *map(aggregate.sd_column, AVERAGED)):
            if col in frame:
                out[col] = frame[col].to_numpy()
        return out.reset_index(drop=True)
    frame = mqdata.load(source)
    rows = []
    for test_id, group in frame.groupby("test_id", sort=True):
        by = group.set_index("element")
        config = str(group["config"].iloc[0])
        rows.append({
            "series": CONFIG_LABELS.get(config, config), "test_id": int(test_id), "queue_manager": str(group["queue_manager"].iloc[0]),
            "interval_s": float(by.loc["Interval", "interval_s"]),
            "write_latency_us": float(by.loc["Log - write latency", "latency_us"]),
            "write_size_bytes": float(by.loc["Log - write size", "bytes"]),
            "physical_bytes_s": float(by.loc["Log - physical bytes written", "rate_bytes_s"]),
            "logical_bytes_s": float(by.loc["Log - logical bytes written", "rate_bytes_s"]),
        })
    return pd.DataFrame(rows)


def aggregation_note(stats: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many publications were averaged into how many rows; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(stats, per="series", value="each figure"))


def log_table(stats: pd.DataFrame) -> pd.DataFrame:
    """The figures read correctly, and how close each log was to its serial-writer bound."""
    latency_s = stats["write_latency_us"].to_numpy() / 1e6
    size = stats["write_size_bytes"].to_numpy()
    phys = stats["physical_bytes_s"].to_numpy()
    bound = storage.log_bandwidth_bound(latency_s, size)
    util = storage.log_writer_utilisation(phys, latency_s, size)
    amp = phys / stats["logical_bytes_s"].to_numpy()
    return pd.DataFrame({
        "series": stats["series"],
        "write_latency_ms": [round_sig(v * 1e3, 4) for v in latency_s],
        "write_size_bytes": size,
        "physical_bytes_s": phys,
        "writes_s": [round_sig(v, 4) for v in phys / size],
        "max_writes_s": [round_sig(v, 4) for v in storage.max_forced_writes(latency_s)],
        "serial_bound_bytes_s": [round_sig(v, 4) for v in bound],
        "log_utilisation": [round_sig(v, 3) for v in util],
        "write_amplification": [round_sig(v, 4) for v in amp],
    })


_HEADER = re.compile(r"Publication received PutDate:(?P<date>\d+) PutTime:(?P<time>\d+) Interval:(?P<interval>.+?)\s*$")
_ELEMENT = re.compile(r"^(?P<name>.+?) (?P<value>-?\d+(?:\.\d+)?)(?P<unit>%|KB|MB|GB| uSec)?(?: (?P<rate>-?\d+)/sec)?\s*$")
_INTERVAL = re.compile(r"(?P<n>\d+(?:\.\d+)?) (?P<unit>days?|hours?|minutes?|seconds?)")


def interval_seconds(text: str) -> float:
    """'1 minutes,4.785 seconds' → 64.785 (amqsrua's [D days,][H hours,][M minutes,]S.mmm seconds)."""
    scale = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
    parts = _INTERVAL.findall(text)
    if not parts:
        raise DataError("amqsrua output", f"interval not understood: {text!r}")
    return float(sum(float(n) * scale[u.rstrip("s")] for n, u in parts))


def parse_amqsrua(text: str) -> pd.DataFrame:
    """Rows (one per publication) from amqsrua ``-c DISK -t Log`` output, for :func:`load_log_stats`.

    Lines that are not DISK/Log elements are skipped; an en dash in element names (as blogs
    print them) is read as the hyphen amqsrua prints.
    """
    rows, current = [], None
    for raw in text.splitlines():
        line = raw.replace("\u2013", "-").strip()
        head = _HEADER.search(line)
        if head:
            current = {"put_date": head["date"], "put_time": head["time"], "interval_s": interval_seconds(head["interval"])}
            rows.append(current)
            continue
        m = _ELEMENT.match(line)
        if current is None or not m or m["name"] not in ELEMENTS:
            continue
        col = ELEMENTS[m["name"]]
        if col in ("physical_bytes_s", "logical_bytes_s"):
            count = float(m["value"])
            current[col] = float(m["rate"]) if m["rate"] else count / current["interval_s"]
        else:
            current[col] = float(m["value"])
    if not rows:
        raise DataError("amqsrua output", "no 'Publication received' line: expected amqsrua -c DISK -t Log output")
    out = pd.DataFrame(rows)
    missing = [c for c in ("write_latency_us", "write_size_bytes", "physical_bytes_s") if c not in out]
    if missing:
        raise DataError("amqsrua output", "DISK/Log element missing", column=missing[0])
    out.insert(0, "series", [f"{r.put_date} {r.put_time}" for r in out.itertuples()])
    return out


def amqsrua_to_csv(text_path: str | Path, csv_path: str | Path) -> Path:
    """Convert a saved amqsrua DISK/Log output file into the chapter's CSV."""
    frame = parse_amqsrua(Path(text_path).read_text(encoding="utf-8", errors="replace"))
    cols = ["series", "interval_s", "write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s"]
    frame.reindex(columns=cols).to_csv(csv_path, index=False)
    return Path(csv_path)


# -- mqldt ----------------------------------------------------------------------------------------

def load_mqldt(source: str | None) -> pd.DataFrame:
    """mqldt results, one row per block size: the book's dataset, or mqldt's own CSV (--csvFile)."""
    cols = ["blocksize_bytes", "queue_managers", "writes", "duration_s", "avg_bytes_s", "avg_latency_us"]
    if not source:
        return pd.DataFrame(columns=cols)
    if _is_path(source):
        return read_mqldt_csv(source)
    frame = mqdata.load(source)
    rows = []
    for size, group in frame.groupby("blocksize_bytes", sort=True):
        by = group.set_index("statistic")
        rows.append({"blocksize_bytes": int(size), "queue_managers": 1,
                     "writes": float(by.loc["Total writes to files", "writes"]),
                     "duration_s": float(by.loc["Duration", "duration_s"]),
                     "avg_bytes_s": float(by.loc["Avg bytes/sec written to files", "bytes_per_s"]),
                     "avg_latency_us": float(by.loc["Avg latency of write (ns)", "latency_ns"]) / 1000})
    return pd.DataFrame(rows, columns=cols)


def read_mqldt_csv(path: str | Path) -> pd.DataFrame:
    """mqldt's ``--csvFile`` output (single or multi-QM sections); latency ns → µs."""
    path = Path(path)
    if not path.exists():
        raise DataError(path, "file not found")
    rows, header, qms = [], None, 1
    for line_no, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):
        text = line.strip()
        banner = re.match(r"Running MQLDT over (\d+) Queue Managers", text)
        if banner:
            qms = int(banner[1])
            continue
        if text.startswith("Blocksize,"):
            header = next(csv.reader([text]))
            continue
        if not text:
            continue
        if header is None:
            raise DataError(path, "no mqldt header line (expected 'Blocksize,...' from mqldt --csvFile)", row=line_no)
        values = dict(zip(header, next(csv.reader(io.StringIO(text)))))
        rate_col = next((c for c in header if c.startswith("Avg bytes/sec written to files")), None)
        for need in ("Blocksize", "Avg latency of write (ns)"):
            if need not in values:
                raise DataError(path, "required mqldt column is missing", column=need)
        if rate_col is None:
            raise DataError(path, "required mqldt column is missing", column="Avg bytes/sec written to files")
        try:
            rows.append({"blocksize_bytes": int(values["Blocksize"]), "queue_managers": qms,
                         "writes": float(values.get("Total writes to files", "nan")), "duration_s": np.nan,
                         "avg_bytes_s": float(values[rate_col]), "avg_latency_us": float(values["Avg latency of write (ns)"]) / 1000})
        except ValueError:
            raise DataError(path, "value is not a number", row=line_no) from None
    if not rows:
        raise DataError(path, "no mqldt result rows")
    return pd.DataFrame(rows)


def mqldt_check(mqldt: pd.DataFrame) -> pd.DataFrame:
    """mqldt writes back to back, so blocksize / latency should predict its bandwidth."""
    if mqldt.empty:
        return pd.DataFrame(columns=["blocksize_bytes", "queue_managers", "avg_latency_us", "predicted_bytes_s",
                                     "measured_bytes_s", "error_pct"])
    qms = mqldt["queue_managers"].to_numpy(dtype=float)
    pred = qms * storage.log_bandwidth_bound(mqldt["avg_latency_us"].to_numpy() / 1e6, mqldt["blocksize_bytes"].to_numpy())
    meas = mqldt["avg_bytes_s"].to_numpy(dtype=float)
    out = pd.DataFrame({
        "blocksize_bytes": mqldt["blocksize_bytes"], "queue_managers": mqldt["queue_managers"],
        "avg_latency_us": mqldt["avg_latency_us"].map(lambda v: round_sig(v, 6)),
        "predicted_bytes_s": [round_sig(v, 5) for v in pred], "measured_bytes_s": meas,
        "error_pct": [round_sig(v, 3) for v in (pred - meas) / meas * 100],
    })
    iops = mqldt["writes"] / mqldt["duration_s"]
    if iops.notna().any():
        out["predicted_writes_s"] = [round_sig(v, 5) for v in qms * storage.max_forced_writes(mqldt["avg_latency_us"].to_numpy() / 1e6)]
        out["measured_writes_s"] = [round_sig(v, 5) for v in iops]
    return out


# -- the article's comparison ----------------------------------------------------------------------

def tool_comparison(source: str = "nativeha_tool_comparison") -> pd.DataFrame:
    """The article's amqsrua-versus-mqldt comparison as printed, beside what each number is."""
    frame = mqdata.load(source)
    what = {
        ("a.1", "logical"): "test 3 physical bytes written (label swapped, E030)",
        ("a.1", "physical"): "test 3 logical bytes written (label swapped, E030)",
        ("a.1", "sum"): "physical + logical: double counts (E031); disk bytes = 26,169,344",
        ("c.1", "sum"): "physical + logical rate: double counts (E032); disk rate = 403,939 B/s",
    }
    rows = []
    for r in frame.itertuples():
        value = next(v for v in (r.bytes, r.latency_us, r.bytes_per_s) if pd.notna(v))
        label = r.label_as_printed if isinstance(r.label_as_printed, str) else ""
        shown = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3f}"
        rows.append({"item": r.item, "tool": r.tool, "metric": r.metric, "printed_label": label, "value": shown,
                     "unit": "bytes" if pd.notna(r.bytes) else "us" if pd.notna(r.latency_us) else "bytes/s",
                     "what_it_is": what.get((r.item, label), "as printed")})
    return pd.DataFrame(rows)


# -- replication ------------------------------------------------------------------------------------

CONFIGURATIONS = [
    ("QM on a VM disk (test 3)", 1, 1),
    ("single resilient QM on ODF replica=3 (test 2)", 1, 3),
    ("NativeHA on ODF replica=3 (test 1)", 3, 3),
    ("NativeHA on non-replicating block storage", 3, 1),
    ("NativeHA on ODF non-resilient storage class", 3, 1),
]


def replication_table(configurations=CONFIGURATIONS, *, physical_bytes_s: float | None = None) -> pd.DataFrame:
    """Copies of each log write by layer; with a rate, the bytes/s written across all copies.

    The VM's own disk may replicate underneath (not stated in the article): counted as 1.
    """
    rows = []
    for name, app, store in configurations:
        row = {"configuration": name, "application_copies": app, "storage_copies": store,
               "copies_written": storage.total_copies(app, store), "copies_beyond_first": storage.extra_copies(app, store)}
        if physical_bytes_s is not None:
            row["bytes_s_written_all_copies"] = round_sig(physical_bytes_s * row["copies_written"], 4)
        rows.append(row)
    return pd.DataFrame(rows)


# -- the timeout ------------------------------------------------------------------------------------

def chain_response(latency_s, utilisation, forced_writes: int):
    """Mean time for a record's ``forced_writes`` commits, each an M/M/1 wait at the log: k·t/(1 − ρ)."""
    rho = np.asarray(utilisation, dtype=float)
    if np.any(rho < 0):
        raise ModelError("utilisation must be ≥ 0")
    if forced_writes < 1:
        raise ModelError("forced_writes must be ≥ 1")
    with np.errstate(divide="ignore"):
        return np.where(rho < 1, forced_writes * np.asarray(latency_s, dtype=float) / np.clip(1 - rho, 1e-12, None), np.inf)


def completed_share(latency_s, utilisation, *, forced_writes: int, timeout_s: float):
    """Share of records whose chain of forced writes ends within the timeout.

    Each of the ``forced_writes`` commits is an M/M/1 wait at the log, exponential with mean
    t/(1 − ρ), taken as independent of the others, so the chain is Erlang-``forced_writes``
    (:func:`mqperf.models.storage.chain_completed_fraction`), not one exponential of the
    chain's mean. An overloaded log (ρ ≥ 1) finishes nothing.
    """
    mean = np.atleast_1d(chain_response(latency_s, utilisation, forced_writes))
    out = np.zeros_like(mean, dtype=float)
    for i in np.flatnonzero(np.isfinite(mean)):
        out[i] = storage.chain_completed_fraction(timeout_s, [mean[i] / forced_writes] * forced_writes)
    return out.reshape(np.shape(chain_response(latency_s, utilisation, forced_writes)))


def timeout_curve(latencies_ms: dict, *, forced_writes: int, timeout_s: float, points: int = 41) -> pd.DataFrame:
    """Completed share against log utilisation, one curve per write latency."""
    rho = np.round(np.linspace(0, 0.99, points), 4)
    parts = []
    for label, ms in latencies_ms.items():
        parts.append(pd.DataFrame({"log_utilisation": rho, "share_within_timeout": completed_share(
            ms / 1e3, rho, forced_writes=forced_writes, timeout_s=timeout_s), "latency": label}))
    return pd.concat(parts, ignore_index=True)


def utilisation_for_share(latency_s: float, *, forced_writes: int, timeout_s: float, share: float = 0.9) -> float:
    """Log utilisation above which fewer than ``share`` of records finish within the timeout.

    0 when even an idle log misses it; the share falls monotonically with ρ, so one root.
    """
    from scipy.optimize import brentq

    def gap(rho):
        return float(completed_share(latency_s, np.array([rho]), forced_writes=forced_writes, timeout_s=timeout_s)[0]) - share

    if gap(0.0) < 0:
        return 0.0
    return float(brentq(gap, 0.0, 1.0 - 1e-12, xtol=1e-6))


def timeout_curve_summary(latencies_ms: dict, *, forced_writes: int, timeout_s: float, share: float = 0.9) -> str:
    """Markdown: for each write latency, the chain's time on an idle log and where the share falls below ``share``."""
    parts = []
    for label, ms in latencies_ms.items():
        rho = utilisation_for_share(ms / 1e3, forced_writes=forced_writes, timeout_s=timeout_s, share=share)
        idle = forced_writes * ms / 1e3
        # Rounded up, so "above X %" stays true; two decimals near 100 % so a fast log does not read "above 100 %".
        digits = 0 if rho < 0.99 else 2
        shown = np.ceil(rho * 100 * 10 ** digits) / 10 ** digits
        where = "even on an idle log" if rho == 0 else f"above {shown:.{digits}f} % utilisation"
        parts.append(f"* {label} ({ms:,.3g} ms a write): {forced_writes} writes take {idle:,.3g} s on an idle log; "
                     f"fewer than {share * 100:g} % of records finish within {timeout_s:g} s {where}.")
    return ("How much queueing each write latency leaves before the timeout (the Erlang-"
            f"{forced_writes} chain):\n\n" + "\n".join(parts))


def records_check(stats: pd.DataFrame, records_source: str | None, *, forced_writes: int, timeout_s: float) -> pd.DataFrame:
    """The log-only model's share of records finishing in time, against the share ACE received."""
    if not records_source:
        return pd.DataFrame()
    records = mqdata.load(records_source)
    share = records[records["metric"] == "received_share"].set_index("test_id")["pct"]
    table = log_table(stats)
    rows = []
    for (_, s), (_, t) in zip(stats.iterrows(), table.iterrows()):
        if "test_id" not in s or s["test_id"] not in share.index:
            continue
        model = float(completed_share(s["write_latency_us"] / 1e6, t["log_utilisation"], forced_writes=forced_writes,
                                      timeout_s=timeout_s)[()])
        mean = float(chain_response(s["write_latency_us"] / 1e6, t["log_utilisation"], forced_writes)[()])
        rows.append({"series": s["series"], "log_utilisation": t["log_utilisation"],
                     "modelled_chain_s": round_sig(mean, 3), "modelled_share_pct": round_sig(model * 100, 3),
                     "received_share_pct": float(share[s["test_id"]]),
                     "gap_points": round_sig(model * 100 - float(share[s["test_id"]]), 3)})
    return pd.DataFrame(rows)


def timeout_summary(records_table: pd.DataFrame, *, forced_writes: int, timeout_s: float) -> str:
    """Markdown comparing the log-only model's share of records finishing in time with what arrived."""
    if records_table.empty:
        return ""
    model = ", ".join(f"{v:.0f} %" for v in records_table["modelled_share_pct"])
    got = ", ".join(f"{v:.0f} %" for v in records_table["received_share_pct"])
    more = (records_table["modelled_share_pct"] > records_table["received_share_pct"]).all()
    # What one exponential of the chain's mean would say, to show what the Erlang form changes.
    single = ", ".join(f"{100 * -np.expm1(-timeout_s / m):.0f} %" for m in records_table["modelled_chain_s"])
    return ("**It does not explain them all.** " if more else "") + (
        f"With {forced_writes} forced writes per record, each an independent M/M/1 wait at the log, "
        f"a record's time is the sum of {forced_writes} exponential waits (an Erlang-{forced_writes} "
        f"distribution), and the log-only model expects {model} of records to finish within "
        f"{timeout_s:g} s where {got} arrived. Treating each record's time as one exponential of the "
        f"same mean would give {single}.")


def quorum_check(stats: pd.DataFrame) -> pd.DataFrame:
    """Native HA's write latency predicted from a single instance's on the same storage.

    Needs the book's tests 2 (one queue manager on ODF) and 1 (Native HA on ODF). Test 2's
    mean write latency is taken as each instance's write, exponential and independent
    (:func:`mqperf.models.storage.quorum_write_mean`); Native HA waits for its own write and
    one of two replicas, against the slowest of three if every copy had to finish.
    """
    if "test_id" not in stats or not {1, 2} <= set(stats["test_id"]):
        return pd.DataFrame()
    by = stats.set_index("test_id")["write_latency_us"] / 1e3
    single = float(by[2])
    rows = [("quorum: active and the faster of two replicas", storage.quorum_write_mean(single, replicas=2, acks=1)),
            ("all three copies (the slowest)", storage.quorum_write_mean(single, replicas=2, acks=2))]
    return pd.DataFrame([{"rule": rule, "single_instance_ms": round_sig(single, 4), "predicted_ms": round_sig(ms, 3),
                          "measured_nativeha_ms": round_sig(float(by[1]), 4),
                          "error_pct": round_sig((ms - by[1]) / by[1] * 100, 3)} for rule, ms in rows])


def quorum_summary(check: pd.DataFrame) -> str:
    """Markdown stating which acknowledgement rule the measured Native HA latency supports."""
    if check.empty:
        return ""
    q, slow = check.iloc[0], check.iloc[1]
    closer = "the quorum rule" if abs(q["error_pct"]) < abs(slow["error_pct"]) else "waiting for every copy"
    return (f"From the single instance's {q['single_instance_ms']:g} ms, the quorum rule predicts "
            f"{q['predicted_ms']:g} ms per Native HA write and waiting for all three copies "
            f"{slow['predicted_ms']:g} ms; test 1 measured {q['measured_nativeha_ms']:g} ms, closer to {closer}. "
            "Two single publications and an assumed exponential latency make this indicative, not a measurement "
            "of the rule.")


def latency_plan(target_bytes_s: float, write_size_bytes: float, latencies_ms: dict, *, forced_writes: int,
                 timeout_s: float, max_utilisation: float = 0.5) -> pd.DataFrame:
    """For each candidate write latency: can a serial log carry the target, and at what utilisation?"""
    if target_bytes_s <= 0 or write_size_bytes <= 0:
        raise ModelError("target rate and write size must be greater than zero")
    rows = []
    for label, ms in latencies_ms.items():
        rho = float(storage.log_writer_utilisation(target_bytes_s, ms / 1e3, write_size_bytes))
        share = float(completed_share(ms / 1e3, rho, forced_writes=forced_writes, timeout_s=timeout_s)[()]) if rho < 1 else 0.0
        rows.append({"latency": label, "write_latency_ms": round_sig(ms, 4),
                     "serial_bound_bytes_s": round_sig(float(storage.log_bandwidth_bound(ms / 1e3, write_size_bytes)), 4),
                     "log_utilisation_at_target": round_sig(rho, 3), "fits": rho < 1, "within_max_utilisation": rho <= max_utilisation,
                     "share_within_timeout_pct": round_sig(share * 100, 3)})
    return pd.DataFrame(rows)


def max_latency_ms(target_bytes_s: float, write_size_bytes: float, max_utilisation: float) -> float:
    """Longest write latency that keeps the log at or below ``max_utilisation``: ρ·S/rate."""
    if not 0 < max_utilisation <= 1:
        raise ModelError("max_utilisation must be in (0, 1]")
    return max_utilisation * write_size_bytes / target_bytes_s * 1e3


def latency_chart(stats: pd.DataFrame, mqldt: pd.DataFrame) -> alt.Chart:
    """Log write latency of each configuration (log scale), mqldt's average beside them."""
    rows = [{"what": s, "latency_ms": v / 1e3, "tool": "amqsrua Log - write latency"}
            for s, v in zip(stats["series"], stats["write_latency_us"])]
    for r in mqldt.itertuples():
        rows.append({"what": f"mqldt {int(r.blocksize_bytes) // 1024} KB writes", "latency_ms": r.avg_latency_us / 1e3,
                     "tool": "mqldt average latency"})
    frame = charts.rounded(pd.DataFrame(rows))
    return alt.Chart(frame).mark_point(size=140, filled=True).encode(
        y=alt.Y("what:N", sort=None, title=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("latency_ms:Q", scale=alt.Scale(type="log"), title="average write latency (ms, log scale)"),
        color=alt.Color("tool:N", title=None),
        tooltip=["what:N", "latency_ms:Q"],
    ).properties(title="Average log write latency by configuration", height=150)


def candidate_latencies(stats: pd.DataFrame, mqldt: pd.DataFrame, your_latency_ms: float | None) -> dict:
    """Label → write latency (ms): each amqsrua row, each mqldt block size, and the reader's value."""
    out = {str(s): float(v) / 1e3 for s, v in zip(stats["series"], stats["write_latency_us"])}
    for r in mqldt.itertuples():
        out[f"mqldt {int(r.blocksize_bytes) // 1024} KB writes"] = float(r.avg_latency_us) / 1e3
    if your_latency_ms:
        out["your latency"] = float(your_latency_ms)
    return out


def replication_chart(table: pd.DataFrame) -> alt.Chart:
    """Copies written per log write, split into the first copy and the replicas."""
    long = pd.concat([
        pd.DataFrame({"configuration": table["configuration"], "copies": 1, "copy": "the write itself", "order": 0}),
        pd.DataFrame({"configuration": table["configuration"], "copies": table["copies_beyond_first"], "copy": "replicas", "order": 1}),
    ], ignore_index=True)
    return alt.Chart(charts.rounded(long)).mark_bar().encode(
        y=alt.Y("configuration:N", sort=None, title=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("sum(copies):Q", title="copies of each log write", axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color("copy:N", title=None, sort=["the write itself", "replicas"]),
        order=alt.Order("order:Q"),
        tooltip=["configuration:N", "copy:N", "copies:Q"],
    ).properties(title="Replication on replication: Native HA on ODF writes every log block 9 times", height=170)
