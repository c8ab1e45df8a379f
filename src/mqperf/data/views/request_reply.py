"""The book's request/reply measurements in the chapter's shape, and the figures its demands start from.

``data``: the V9.3 xLinux report's rate charts (``xlinux93_rate_chart``; any ``*_rate_chart`` of the same
columns) become contract rows, one series per figure and curve, leaving out the TLS figures (the
``tls_ciphers`` chapter reads those). The report prints no response time: ``response_time_ms`` is
derived from Little's law with no think time, R = N / X (PerfHarness requesters send the next request as
soon as the reply arrives), so the chapter's Little's-law check holds by construction on this data. The
printed peak tables of the same workloads (:data:`PEAKS`, by :func:`peaks`: rate, CPU % and clients at
each message size) are for the chapter to show beside the curves. They are not kept in the frame's
``attrs``: pandas deep-copies ``attrs`` into every frame an operation makes, and copying that table
was a fifth of the chapter's analysis.


The request/reply chapter prices a message with three of the book's published figures when the
reader gives none of their own: the CPU of the MQ verbs (class(3) accounting in the Kafka
connector article), the log bytes of a persistent put and get (MP16, quoted there), the log
disk's bandwidth and the latency of one forced write (mqldt in the NativeHA article) and a network round trip (the Q Replication
notes' threshold for a healthy ``nettime``). Each view returns the rows it uses in one shape:
``figure``, ``low``, ``high``, ``unit`` and the ``quote`` that states the number, so the chapter
can say where each default comes from and do the arithmetic itself.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader
from mqperf.errors import DataError

COLUMNS = ["figure", "low", "high", "unit", "quote"]

#: The V9.3 report's printed peak tables of the request/reply workloads (Table 4 is an image, read digit by
#: digit: basis chart, uncertainty 0).
PEAKS = ("xlinux93_rr_bb_peak", "xlinux93_rr_cb_peak", "xlinux93_rr_dq_bb_peak", "xlinux93_rr_cc_jms_peak_chart")
READS = PEAKS
#: Chart curves that are TLS comparisons (a CipherSpec or "No TLS" in ``variant``): the tls_ciphers chapter's.
_TLS_MARKS = ("TLS", "_SHA")


def _is_tls(variant) -> bool:
    return any(m in str(variant) for m in _TLS_MARKS)


def _series_label(row) -> str:
    """"Figure 8: RR-BB 2KB persistent, SAN" -- the figure keeps two drawings of one test apart."""
    what = f"{row.workload}{' JMS' if str(row.api) == 'JMS' else ''} {row.message_size} {str(row.persistence).lower()}"
    if str(row.persistence).lower() == "persistent":
        what += f", {row.log_device}"
        if "logging" in str(row.variant):
            what += f" {str(row.variant).split()[-2]}"  # SAN circular / linear logging
    return f"Figure {int(row.figure_no)}: {what}"


def rate_chart(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Chart readings of rate against requesters as contract rows; response time by Little's law, N / X."""
    rows = frame[~frame["variant"].map(_is_tls)].dropna(subset=["clients", "rate_rt_s"])
    if rows.empty:
        raise DataError(loader.resource_path(name), "no request/reply chart readings outside the TLS figures")
    rate = rows["rate_rt_s"].astype(float).to_numpy()
    clients = rows["clients"].astype(int).to_numpy()
    labels = [_series_label(r) for r in rows.itertuples(index=False)]
    keys = {}
    for r, label in zip(rows.itertuples(index=False), labels):
        if "logging" not in str(r.variant):  # Figure 12's circular/linear SAN runs: no table prints them
            key = (str(r.workload), str(r.api), str(r.persistence).lower(), str(r.log_device), int(r.size_bytes))
            keys.setdefault(key, [])
            if label not in keys[key]:
                keys[key].append(label)
    out = pd.DataFrame({"series": labels, "clients": clients,
                        "rate_msg_s": rate, "response_time_ms": 1e3 * clients / rate, "think_time_ms": 0.0,
                        "figure_no": rows["figure_no"].astype(int).to_numpy(),
                        "chart_uncertainty": rows["chart_uncertainty"].astype(float).to_numpy()})
    out.attrs["setup"] = {"response time": "not printed; derived as clients / rate (Little's law, no think time)",
                          "rates": f"read off the report's charts ({name}, basis chart), not printed values"}
    out.attrs["chart_keys"] = keys  # (workload, api, persistence, log_device, size_bytes) -> series drawn
    out.attrs["dataset"] = name
    return out


def peaks() -> pd.DataFrame:
    """The printed peaks of :data:`PEAKS`, one row per table row: rate, CPU % and clients with their basis."""
    keep = ["table_no", "test", "workload", "api", "persistence", "message_size", "size_bytes", "log_device",
            "rate_rt_s", "cpu_pct", "clients", "basis"]
    frames = [loader.load(n)[keep].assign(dataset=n) for n in PEAKS]
    out = pd.concat(frames, ignore_index=True)
    # Table 6 repeats Table 7's SSD rows (log_device "local"): keep one copy, the device-named one.
    out = out[~((out["table_no"] == 6) & (out["dataset"] == "xlinux93_rr_bb_peak"))]
    return out.sort_values(["workload", "api", "persistence", "log_device", "size_bytes"], kind="stable").reset_index(drop=True)


def _figures(name: str, rows: list[dict], what: str) -> pd.DataFrame:
    if not rows:
        raise DataError(loader.resource_path(name), f"no rows giving {what}")
    return pd.DataFrame(rows, columns=COLUMNS)


def cpu_costs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """MQPUT1 (6 to 8 µs) and MQGET (5 µs): the CPU of putting and getting one 1 KB message."""
    verbs = {"mq_put1": "MQPUT1", "mq_get": "MQGET"}
    rows = []
    for item, label in verbs.items():
        part = frame[(frame["cost_item"] == item) & (frame["basis"] == "measured")]
        if part.empty:
            continue
        values = part["cpu_us"].astype(float)
        rows.append({"figure": f"{label} CPU", "low": float(values.min()), "high": float(values.max()),
                     "unit": "µs", "quote": str(part["quote"].iloc[0])})
    return _figures(name, rows, "the CPU of MQPUT1 and MQGET")


def log_bytes(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """A 1 KB persistent message put and committed, then got and committed (one per unit of work)."""
    ops = {"put_commit": "log bytes of a put and commit", "get_commit": "log bytes of a get and commit"}
    rows = []
    for op, label in ops.items():
        part = frame[(frame["operation"] == op) & (frame["msgs_per_commit"] == 1) & (frame["msg_size_kb"] == 1)]
        if part.empty:
            continue
        value = float(part["log_bytes_per_msg"].iloc[0])
        rows.append({"figure": label, "low": value, "high": value, "unit": "bytes", "quote": str(part["quote"].iloc[0])})
    return _figures(name, rows, "log bytes per 1 KB message with one message per commit")


def log_disk(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """mqldt's average write rate and average write latency over one run: the log disk's bandwidth,
    and the time a forced write takes, as that tool measured them (one row each, the same run)."""
    part = frame[frame["statistic"] == "Avg bytes/sec written to files"]
    rows = [{"figure": f"log disk bandwidth (mqldt, {int(r.blocksize_bytes):,}-byte writes)",
             "low": float(r.bytes_per_s) / 1e6, "high": float(r.bytes_per_s) / 1e6, "unit": "MB/s",
             "quote": str(r.quote)} for r in part.itertuples()][:1]
    if rows:
        run = part.iloc[0]["test_id"]
        late = frame[(frame["statistic"] == "Avg latency of write (ns)") & (frame["test_id"] == run)]
        rows += [{"figure": f"log write latency (mqldt average, {int(r.blocksize_bytes):,}-byte writes)",
                  "low": float(r.latency_ns) / 1e3, "high": float(r.latency_ns) / 1e3, "unit": "µs",
                  "quote": str(r.quote)} for r in late.itertuples()][:1]
    return _figures(name, rows, "mqldt's average bytes per second")


def network(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The round trip above which the Q Replication notes suspect the network (channel ``nettime``)."""
    part = frame[(frame["setting"] == "nettime") & (frame["relation"] == "problem_above")]
    rows = []
    for r in part.itertuples():
        scale = {"ms": 1000.0, "us": 1.0, "µs": 1.0}.get(str(r.unit))
        if scale is None:
            continue
        rows.append({"figure": "network round trip (channel nettime)", "low": float(r.value_num) * scale,
                     "high": float(r.value_num) * scale, "unit": "µs", "quote": str(r.quote)})
    return _figures(name, rows[:1], "a network round trip (nettime)")


VIEWS = {"data": rate_chart, "cpu_costs": cpu_costs, "log_bytes": log_bytes, "log_disk": log_disk, "network": network}
