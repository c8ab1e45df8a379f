"""The NativeHA storage chapter's analysis: every sentence, table and chart, in order.

Orchestration only: the arithmetic is :mod:`.fits` (on :mod:`mqperf.models.storage`), the
sentences and passages :mod:`.text`, the charts builders of :mod:`mqperf.present.charts`.
"""

from __future__ import annotations

import pandas as pd

from mqperf import numbers
from mqperf.chapters.nativeha_storage import SHARE, fits, text
from mqperf.chapters.nativeha_storage.text import num, quoted
from mqperf.data import aggregate, views
from mqperf.present import charts
from mqperf.present.charts import storage as storage_charts
from mqperf.models import storage
from mqperf.present.results import Results

# digits= where a table needs other digits than its columns' units give: "%" columns shown with four
# (log, mqldt, quorum, timeout, plan: the sentences quote e.g. 92.06 % busy), amqsrua's figures with all
# five they are printed with (53,425 µs), the records check with three (shares of 12,000 records), and
# the planning target with six (a target such as 403,939 bytes/s, shown as given).


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = ("the longest write latency for the planning target, and each latency's log utilisation and share of "
                 "records within the timeout at that target")
    k, timeout = int(p["forced_writes_per_record"]), float(p["timeout_s"])
    stats = fits.publications(views.open(p["data"], "nativeha_storage"))
    r.points = stats
    _setup(r, stats)
    mqldt = views.open(p["mqldt"], "nativeha_storage", "mqldt") if p.get("mqldt") else None

    text.measured(r)
    # This chapter fits nothing, so the shared note's clause about fits does not apply.
    r.text("aggregation", aggregate.note(stats, per="series", value="each figure")
           .replace(", and the fits go through the means", ""))
    r.table("publications", _publications_shown(stats), caption="amqsrua DISK/Log figures, one row per publication "
            "or series", digits=5)

    log = fits.log_table(stats)
    r.table("log", log.rename(columns=LOG_COLUMNS), caption="The figures read correctly, against a serial log "
            "writer's bound", digits=4)
    r.text("log_reading", *text.log_reading(log))
    r.chart("latency_chart", latency_chart(stats, mqldt))
    text.log(r)

    if mqldt is None:
        r.missing("mqldt", "No mqldt results were given (parameter mqldt), so the serial bound is not checked "
                           "against a disk driven back to back")
        r.text("mqldt_reading", None)
    else:
        check = fits.mqldt_check(mqldt)
        r.table("mqldt", check.rename(columns=MQLDT_COLUMNS), caption="mqldt's (or fio's) bandwidth predicted from its "
                "own average latency (concurrent writers × block size / latency), against what it measured", digits=4)
        r.text("mqldt_reading", text.mqldt_reading(check))

    copies = fits.replication_table(float(stats["physical_bytes_s"].iloc[0]))
    text.replication(r)
    r.table("replication", copies.rename(columns=REPLICATION_COLUMNS), caption="Copies of each log write, by layer")
    r.chart("replication_chart", replication_chart(copies))
    r.text("replication_reading", f"The last column prices the copies for a log writing "
           f"{num(stats['physical_bytes_s'].iloc[0])} bytes/s, the physical rate of "
           f"{quoted(stats['series'].iloc[0])} (the first row of the figures).")
    quorum = fits.quorum_check(stats)
    r.table("quorum", quorum.rename(columns=QUORUM_COLUMNS), digits=4, caption="Native HA's write latency predicted "
            "from one instance's on the same storage", missing="Your figures do not say which rows are one queue "
            "manager and which Native HA on the same storage (columns instances and storage), so there is no "
            "quorum check")
    r.text("quorum_reading", text.quorum_reading(quorum) if len(quorum) else None)
    text.advice(r)

    comparison = views.open(p["comparison"], "nativeha_storage", "comparison") if p.get("comparison") else None
    text.comparison(r, comparison)

    latencies = fits.candidate_latencies(stats, mqldt, p.get("your_latency_ms"))
    assumed = text.assumptions(r.book_data, k, timeout)
    curve = fits.timeout_curve(latencies, forced_writes=k, timeout_s=timeout)
    r.chart("timeout_chart", charts.lines(charts.sampled(curve, by=["latency"]), x="busy_pct", y="share_pct",
            colour="latency", points=False, x_title="log writer busy (%)",
            y_title=f"records finishing within {num(timeout)} s (%)",
            title="Under group commit a busy log delays each commit by at most one more write"))
    limits = fits.timeout_thresholds(latencies, forced_writes=k, timeout_s=timeout, share=SHARE)
    r.table("timeout", limits.drop(columns="where").rename(columns=timeout_columns(timeout)), digits=4,
            caption=f"How long a record's forced writes take under group commit, against the {num(timeout)} s "
                    "timeout")
    r.text("timeout_reading", text.timeout_reading(limits, timeout, assumed))

    received = views.open(p["records"], "nativeha_storage", "records") if p.get("records") else None
    records = fits.records_check(log, received, forced_writes=k, timeout_s=timeout) if received is not None else None
    r.table("records", None if records is None else records.rename(columns=records_columns(timeout)), digits=3,
            caption=f"The log-only model's share of records within {num(timeout)} s, against the share "
                    "that arrived",
            missing="There is no count of records sent and received for your runs (parameter records), so the "
                    "timeout model is not checked against what arrived" if received is None else
                    "None of your series is in the records dataset, so the timeout model is not checked against "
                    "what arrived")
    r.text("records_reading", text.records_reading(records, k, timeout) if records is not None and len(records) else None)
    text.records(r)

    target, size, origin = _target(p, log, r.book_data)
    most = float(p["max_log_utilisation"])
    t_max = storage.max_write_latency(target, size, most) * 1e3
    beyond = target > float(log["physical_bytes_s"].max()) * (1 + 1e-12)
    if beyond:
        r.extrapolated(f"the planning target, {num(target, 6)} bytes/s, above every measured physical rate")
    r.table("plan_limit", pd.DataFrame([{"target (bytes/s)": target, "write size (bytes)": size,
                                         "log writer busy at most (%)": most * 100,
                                         "longest write latency (ms)": t_max,
                                         "extrapolated": "above every measured rate" if beyond else "no"}]), digits=6,
            caption="The planning question: the longest write latency that keeps the log within the limit")
    plan = fits.latency_plan(target, size, latencies, forced_writes=k, timeout_s=timeout, max_utilisation=most)
    r.table("plan", plan.rename(columns=plan_columns(timeout)), digits=4,
            caption="Each write latency at the target rate")
    r.text("plan_reading", text.plan_reading(plan, target, size, most, t_max, origin, beyond, timeout))
    text.errata(r)
    return r


def _setup(r, stats) -> None:
    """The interval length the figures state (amqsrua publications), for "How this report was made"."""
    iv = stats["interval_s"].dropna() if "interval_s" in stats else stats.iloc[0:0]
    if len(iv):
        lo, hi = float(iv.min()), float(iv.max())
        r.setup["interval length"] = (f"{num(lo)} s" if num(lo) == num(hi) else
                                      f"{num(lo)} to {num(hi)} s") + " (amqsrua publications, interval_s)"


def _target(p, log, book: bool = False):
    """The planning target and write size, and where each comes from, in words."""
    target, size = p.get("target_log_bytes_s"), p.get("write_size_bytes")
    busiest = log.loc[numbers.idxmax(log["physical_bytes_s"])]
    whose = "the book's " if book else ""
    if target is None:
        target = float(busiest["physical_bytes_s"])
        origin = f"the highest physical rate in the figures, that of {quoted(busiest['series'])}"
    else:
        origin = f"{whose}`target_log_bytes_s`" + ("" if book else ", as given")
    if size is None:
        size = float(busiest["write_size_bytes"])
        size_origin = f"the write size of {quoted(busiest['series'])}"
    else:
        size_origin = f"{whose}`write_size_bytes`" + ("" if book else ", as given")
    return float(target), float(size), (origin, size_origin)


# -- columns for people ------------------------------------------------------------------------------

LOG_COLUMNS = {"series": "series", "write_latency_ms": "write latency (ms)", "write_size_bytes": "write size (bytes)",
               "physical_bytes_s": "physical (bytes/s)", "writes_s": "writes/s", "max_writes_s": "at most writes/s",
               "serial_bound_bytes_s": "serial bound (bytes/s)", "busy_pct": "log writer busy (%)",
               "records_per_write_bytes": "log records per write (bytes)",
               "write_amplification": "write amplification (physical/logical)"}
MQLDT_COLUMNS = {"blocksize_bytes": "block size (bytes)", "queue_managers": "concurrent writers",
                 "avg_latency_us": "average latency (µs)", "predicted_mb_s": "predicted (MB/s)",
                 "measured_mb_s": "measured (MB/s)", "error_pct": "error (%)",
                 "predicted_writes_s": "predicted writes/s", "measured_writes_s": "measured writes/s"}
REPLICATION_COLUMNS = {"configuration": "configuration", "instances": "instances keeping the log",
                       "storage_copies": "storage copies", "copies_written": "copies written",
                       "copies_beyond_first": "copies beyond the first",
                       "bytes_s_all_copies": "written across all copies (bytes/s)"}
QUORUM_COLUMNS = {"storage": "storage", "rule": "acknowledgement rule", "single_instance_ms": "one instance (ms)",
                  "predicted_ms": "predicted Native HA (ms)", "measured_nativeha_ms": "measured Native HA (ms)",
                  "error_pct": "error (%)"}


def timeout_columns(timeout):
    return {"latency": "write latency of", "write_latency_ms": "write latency (ms)",
            "forced_writes": "forced writes per record", "idle_chain_s": "chain on an idle log (s)",
            "busy_chain_s": "longest chain, log always busy (s)",
            "busy_limit_pct": f"busy (%) above which fewer than {num(SHARE * 100)} % finish within "
                              f"{num(timeout)} s",
            "saturated_share_pct": f"within {num(timeout)} s, log always busy (%)",
            "saturated_share_exp_pct": f"within {num(timeout)} s, log always busy, exponential writes (%)"}


def records_columns(timeout):
    return {"series": "series", "busy_pct": "log writer busy (%)", "chain_mean_s": "modelled chain mean (s)",
            "modelled_pct": f"modelled within {num(timeout)} s (%)",
            "exponential_pct": "with exponential write times (%)", "received_pct": "received (%)",
            "gap_points": "model − received (points)"}


def plan_columns(timeout):
    return {"latency": "write latency of", "write_latency_ms": "write latency (ms)",
            "serial_bound_bytes_s": "serial bound (bytes/s)", "busy_pct": "log writer busy at target (%)",
            "fits": "carries the target", "within_max": "within the limit",
            "share_pct": f"records within {num(timeout)} s (%)"}


def _publications_shown(stats):
    cols = {"series": "series", "interval_s": "interval (s)", "write_latency_us": "write latency (µs)",
            "write_size_bytes": "write size (bytes)", "physical_bytes_s": "physical (bytes/s)",
            "logical_bytes_s": "logical (bytes/s)", "instances": "instances", "storage": "storage",
            aggregate.COUNT: "publications (n)"}
    for c in ("write_latency_us", "physical_bytes_s"):
        cols[aggregate.sd_column(c)] = f"{cols[c].split(' (')[0]} sd ({cols[c].split('(')[1]}"
    shown = stats[[c for c in cols if c in stats and stats[c].notna().any()]]
    return shown.rename(columns=cols)


# -- charts ---------------------------------------------------------------------------------------

def latency_chart(stats: pd.DataFrame, mqldt: pd.DataFrame | None):
    """Log write latency of each configuration (log scale), mqldt's average beside them."""
    rows = [{"what": s, "latency_ms": v / 1e3, "tool": "amqsrua Log - write latency"}
            for s, v in zip(stats["series"], stats["write_latency_us"])]
    for r in (mqldt.itertuples() if mqldt is not None else []):
        writers = int(getattr(r, "queue_managers", 1) or 1)
        rows.append({"what": f"mqldt {int(r.blocksize_bytes):,}-byte writes" + (f", {writers} writers" if writers > 1
                                                                               else ""),
                     "latency_ms": r.avg_latency_us / 1e3, "tool": "mqldt average latency"})
    return storage_charts.dots(pd.DataFrame(rows), x="latency_ms", y="what", colour="tool", log_x=True,
                               x_title="average write latency (ms, log scale)",
                               title="Average log write latency by configuration")


def replication_chart(table: pd.DataFrame):
    """Copies written per log write, split into the first copy and the replicas."""
    long = pd.concat([
        pd.DataFrame({"configuration": table["configuration"], "copies": 1, "copy": "the write itself", "order": 0}),
        pd.DataFrame({"configuration": table["configuration"], "copies": table["copies_beyond_first"], "copy": "replicas",
                      "order": 1}),
    ], ignore_index=True)
    most = table.loc[numbers.idxmax(table["copies_written"])]
    return storage_charts.stacked_bars(
        long, y="configuration", x="copies", part="copy", order="order", parts=["the write itself", "replicas"],
        counts=True, x_title="copies of each log write",
        title=f"Replication on replication: {most['configuration']} writes every log block "
              f"{int(most['copies_written'])} times")
