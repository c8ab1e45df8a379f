"""The NativeHA storage chapter's arithmetic: serial-writer bound, replication, timeout, quorum.

Nothing here is fitted: every figure is arithmetic on measured values through
:mod:`mqperf.models.storage` (the bounds, the copies, the quorum's order statistics, group
commit's chain of forced writes and the utilisation where it misses the timeout). Frames keep
unrounded values under plain column names; :mod:`.analysis` names the columns for people and
the display rule rounds them.

* :func:`log_table` reads amqsrua DISK/Log figures correctly: physical bytes are what the
  disk wrote, logical bytes the log records; physical/logical is the log's write
  amplification; physical bytes/s over the write size is the writes per second; the write
  latency and the write size bound a serial writer.
* :func:`mqldt_check` predicts mqldt's bandwidth from its own latency and block size.
* :func:`replication_table` counts the copies each log write makes; :func:`quorum_check`
  predicts Native HA's write latency from a single instance's.
* :func:`timeout_thresholds` and :func:`timeout_curve` follow a record through a chain of forced
  log writes under group commit to a timeout; :func:`records_check` sets it against the records
  that arrived; :func:`latency_plan` answers the planning question.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import storage

MAX_PUBLICATIONS = 20  # a reader's publications shown one by one; more are averaged
AVERAGED = ("interval_s", "write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s")


def publications(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per publication or series, the contract's columns (NaN where not given).

    Rows with the same ``series`` are one configuration and are averaged to one row with
    ``n`` and the standard deviations kept (:func:`mqperf.data.aggregate.means`). Without a
    ``series`` column, up to :data:`MAX_PUBLICATIONS` publications are shown one by one; a
    longer file is one series, "your data". The byte rates are total bytes over total time
    (each publication's rate weighted by its ``interval_s``; equal weights where the file gives
    no interval); latencies and write sizes are plain means of the publications.
    """
    frame = frame.copy()
    if "series" not in frame:
        many = len(frame) > MAX_PUBLICATIONS
        frame["series"] = "your data" if many else [f"publication {i + 1}" for i in range(len(frame))]
    frame["series"] = frame["series"].astype(str)
    for col in (*AVERAGED, "instances", "storage"):
        if col not in frame:
            frame[col] = np.nan
    frame = aggregate.means(frame, ["series"], list(AVERAGED), weight="interval_s",
                            rates=["physical_bytes_s", "logical_bytes_s"])
    keep = ["series", *AVERAGED, "instances", "storage"]
    extra = [c for c in (aggregate.COUNT, *map(aggregate.sd_column, AVERAGED)) if c in frame]
    out = frame[keep + extra].reset_index(drop=True)
    for col in AVERAGED:
        out[col] = out[col].astype(float)
    return out


def log_table(stats: pd.DataFrame) -> pd.DataFrame:
    """The figures read correctly, and how close each log was to its serial-writer bound."""
    latency_s = stats["write_latency_us"].to_numpy(dtype=float) / 1e6
    size = stats["write_size_bytes"].to_numpy(dtype=float)
    phys = stats["physical_bytes_s"].to_numpy(dtype=float)
    logical = stats["logical_bytes_s"].to_numpy(dtype=float)
    writes = phys / size
    with np.errstate(divide="ignore", invalid="ignore"):
        per_write = np.where(writes > 0, logical / writes, np.nan)
        amp = np.where(logical > 0, phys / logical, np.nan)
    return pd.DataFrame({
        "series": stats["series"].to_numpy(),
        "write_latency_ms": latency_s * 1e3,
        "write_size_bytes": size,
        "physical_bytes_s": phys,
        "writes_s": writes,
        "max_writes_s": storage.max_forced_writes(latency_s),
        "serial_bound_bytes_s": storage.log_bandwidth_bound(latency_s, size),
        "busy_pct": 100 * storage.log_writer_utilisation(phys, latency_s, size),
        "records_per_write_bytes": per_write,
        "write_amplification": amp,
    })


def mqldt_check(mqldt: pd.DataFrame) -> pd.DataFrame:
    """mqldt writes back to back, so blocksize / latency should predict its bandwidth."""
    qms = mqldt["queue_managers"].to_numpy(dtype=float)
    latency_s = mqldt["avg_latency_us"].to_numpy(dtype=float) / 1e6
    pred = qms * storage.log_bandwidth_bound(latency_s, mqldt["blocksize_bytes"].to_numpy(dtype=float))
    meas = mqldt["avg_bytes_s"].to_numpy(dtype=float)
    out = pd.DataFrame({
        "blocksize_bytes": mqldt["blocksize_bytes"].astype(int).to_numpy(),
        "queue_managers": mqldt["queue_managers"].astype(int).to_numpy(),
        "avg_latency_us": latency_s * 1e6,
        "predicted_mb_s": pred / 1e6, "measured_mb_s": meas / 1e6,
        "error_pct": (pred - meas) / meas * 100,
    })
    iops = (mqldt["writes"] / mqldt["duration_s"]).to_numpy(dtype=float)
    if np.isfinite(iops).any():
        out["predicted_writes_s"] = qms * storage.max_forced_writes(latency_s)
        out["measured_writes_s"] = iops
    return out


#: Configurations whose copies the chapter counts: (name, instances keeping the log, storage copies).
CONFIGURATIONS = [
    ("one queue manager on a local disk", 1, 1),
    ("one queue manager on ODF replica=3", 1, 3),
    ("Native HA on ODF replica=3", 3, 3),
    ("Native HA on non-replicating block storage", 3, 1),
    ("Native HA on ODF's non-resilient storage class", 3, 1),
]


def replication_table(physical_bytes_s: float, configurations=CONFIGURATIONS) -> pd.DataFrame:
    """Copies of each log write by layer, and the bytes/s written across all copies at a rate."""
    rows = []
    for name, app, store in configurations:
        total = storage.total_copies(app, store)
        rows.append({"configuration": name, "instances": app, "storage_copies": store, "copies_written": total,
                     "copies_beyond_first": storage.extra_copies(app, store),
                     "bytes_s_all_copies": physical_bytes_s * total})
    return pd.DataFrame(rows)


def quorum_check(stats: pd.DataFrame) -> pd.DataFrame:
    """Native HA's write latency predicted from a single instance's on the same storage.

    Needs, on one storage (the ``storage`` column, or the whole file without it), a row with
    one instance and a row with three. The single instance's mean write latency is taken as
    each instance's write, exponential and independent
    (:func:`mqperf.models.storage.quorum_write_mean`); Native HA waits for its own write and
    one of two replicas, against the slowest of three if every copy had to finish.
    """
    if stats["instances"].isna().all():
        return pd.DataFrame()
    frame = stats.assign(storage=stats["storage"].fillna("").astype(str))
    rows = []
    for where, group in frame.groupby("storage", sort=False):
        single = group.loc[group["instances"] == 1, "write_latency_us"]
        ha = group.loc[group["instances"] == 3, "write_latency_us"]
        if single.empty or ha.empty:
            continue
        single_ms, ha_ms = float(single.mean()) / 1e3, float(ha.mean()) / 1e3
        for rule, acks in (("quorum: the active and the faster of two replicas", 1), ("all three copies (the slowest)", 2)):
            ms = storage.quorum_write_mean(single_ms, replicas=2, acks=acks)
            rows.append({"storage": where, "rule": rule, "single_instance_ms": single_ms, "predicted_ms": ms,
                         "measured_nativeha_ms": ha_ms, "error_pct": (ms - ha_ms) / ha_ms * 100})
    return pd.DataFrame(rows)


# -- the timeout -----------------------------------------------------------------------------------
#
# Group commit (seed 001's own evidence: the ODF log, 92 % busy, wrote 5,021 bytes of records per
# write at write amplification 1.2): a commit waits at most the write in progress and its own write,
# so a forced write costs t·(1 + ρ/2) on average, not the M/M/1 t/(1 − ρ). "fixed" write times are
# the model; "exponential" ones show what spread in write times adds
# (:func:`mqperf.models.storage.group_commit_completed_fraction`).

def _share(latency_s, utilisation, forced_writes: int, timeout_s: float, spread: str = "fixed"):
    return storage.group_commit_completed_fraction(timeout_s, latency_s, utilisation, forced_writes, spread=spread)


def timeout_curve(latencies_ms: dict, *, forced_writes: int, timeout_s: float, points: int = 41) -> pd.DataFrame:
    """Completed share (%) against log utilisation (%), one curve per write latency (fixed write times)."""
    rho = np.linspace(0, 1.0, points)
    parts = [pd.DataFrame({"busy_pct": rho * 100, "share_pct": 100 * _share(
        ms / 1e3, rho, forced_writes, timeout_s), "latency": label})
        for label, ms in latencies_ms.items()]
    return pd.concat(parts, ignore_index=True)


def _limit_words(limit_pct: float) -> str:
    if limit_pct == 0:
        return "even on an idle log"
    if not np.isfinite(limit_pct):
        return "at no utilisation"
    return f"above {limit_pct:.2f} % busy"


def timeout_thresholds(latencies_ms: dict, *, forced_writes: int, timeout_s: float, share: float = 0.9) -> pd.DataFrame:
    """Per write latency: the chain's time on an idle and on a saturated log, and the utilisation where
    the share finishing in time falls below ``share`` (NaN: at no utilisation)."""
    rows = []
    for label, ms in latencies_ms.items():
        t = ms / 1e3
        # Rounded up to 0.01 %, so "fewer finish once busier than X %" stays true of the shown X.
        limit = storage.group_commit_utilisation_for_share(t, forced_writes, timeout_s, share)
        limit_pct = np.ceil(1e4 * limit) / 100 if np.isfinite(limit) else np.nan
        rows.append({"latency": label, "write_latency_ms": ms, "forced_writes": forced_writes,
                     "idle_chain_s": forced_writes * t, "busy_chain_s": 2 * forced_writes * t,
                     "busy_limit_pct": limit_pct,
                     "saturated_share_pct": 100 * float(_share(t, 1.0, forced_writes, timeout_s)),
                     "saturated_share_exp_pct": 100 * float(_share(t, 1.0, forced_writes, timeout_s, "exponential")),
                     "where": _limit_words(limit_pct)})
    return pd.DataFrame(rows)


def records_check(log: pd.DataFrame, received: pd.DataFrame, *, forced_writes: int, timeout_s: float) -> pd.DataFrame:
    """The log-only model's share of records finishing in time, against the share that arrived."""
    share = dict(zip(received["series"], received["received_share_pct"]))
    rows = []
    for r in log.itertuples():
        if r.series not in share:
            continue
        rho = min(r.busy_pct / 100, 1.0)
        t = r.write_latency_ms / 1e3
        mean = float(storage.group_commit_mean(t, rho, forced_writes))
        model = 100 * float(_share(t, rho, forced_writes, timeout_s))
        spread = 100 * float(_share(t, rho, forced_writes, timeout_s, "exponential"))
        rows.append({"series": r.series, "busy_pct": r.busy_pct, "chain_mean_s": mean, "modelled_pct": model,
                     "exponential_pct": spread, "received_pct": float(share[r.series]),
                     "gap_points": min(model, spread) - float(share[r.series])})
    return pd.DataFrame(rows)


def latency_plan(target_bytes_s: float, write_size_bytes: float, latencies_ms: dict, *, forced_writes: int,
                 timeout_s: float, max_utilisation: float = 0.5) -> pd.DataFrame:
    """For each candidate write latency: can a serial log carry the target, and at what utilisation?"""
    if target_bytes_s <= 0 or write_size_bytes <= 0:
        raise ModelError("target rate and write size must be greater than zero")
    rows = []
    for label, ms in latencies_ms.items():
        rho = float(storage.log_writer_utilisation(target_bytes_s, ms / 1e3, write_size_bytes))
        # At ρ ≥ 1 the log cannot carry the target in writes of this size (it would write larger ones).
        share = float(_share(ms / 1e3, rho, forced_writes, timeout_s)) if rho < 1 else np.nan
        rows.append({"latency": label, "write_latency_ms": ms,
                     "serial_bound_bytes_s": float(storage.log_bandwidth_bound(ms / 1e3, write_size_bytes)),
                     "busy_pct": rho * 100, "fits": rho < 1, "within_max": rho <= max_utilisation,
                     "share_pct": share * 100})
    return pd.DataFrame(rows)


def candidate_latencies(stats: pd.DataFrame, mqldt: pd.DataFrame | None, your_latency_ms: float | None) -> dict:
    """Label → write latency (ms): each amqsrua row, each mqldt block size, and the value given."""
    out = {str(s): float(v) / 1e3 for s, v in zip(stats["series"], stats["write_latency_us"])}
    if mqldt is not None:
        for r in mqldt.itertuples():
            writers = int(getattr(r, "queue_managers", 1) or 1)
            label = f"mqldt {int(r.blocksize_bytes):,}-byte writes" + (f", {writers} writers" if writers > 1 else "")
            out[label] = float(r.avg_latency_us) / 1e3
    if your_latency_ms:
        out["your_latency_ms"] = float(your_latency_ms)
    return out
