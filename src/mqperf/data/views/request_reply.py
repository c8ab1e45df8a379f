"""The book's figures a request/reply system's service demands start from, one row per figure.

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


VIEWS = {"cpu_costs": cpu_costs, "log_bytes": log_bytes, "log_disk": log_disk, "network": network}
