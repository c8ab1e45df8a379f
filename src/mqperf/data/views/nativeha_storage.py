"""The book's NativeHA datasets in the shape of the nativeha_storage chapter's inputs.

* ``data``: ``nativeha_amqsrua_log`` holds one row per amqsrua element per test; the view
  keeps the four DISK/Log figures and the interval per test, labels each test, and says how
  many instances keep its log and on what storage (test 1 Native HA on ODF, test 2 one queue
  manager on the same ODF, test 3 one queue manager on a VM).
* ``mqldt``: ``nativeha_mqldt`` (one row per mqldt statistic) as mqldt's ``--csvFile`` columns
  (:mod:`mqperf.data.readers.mqldt`); a reader's file is read by that reader.
* ``records``: ``nativeha_records`` as the share of records ACE received, per labelled test.
* ``comparison``: ``nativeha_tool_comparison``, one row per printed figure with its unit.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data.readers import mqldt as mqldt_reader

#: How the chapter names each of the article's configurations (one row per test).
LABELS = {"nativeha_odf": "NativeHA QM on ODF (test 1)", "single_resilient_odf": "single resilient QM on ODF (test 2)",
          "vm": "QM on a VM (test 3)"}
INSTANCES = {"nativeha_odf": 3, "single_resilient_odf": 1, "vm": 1}
STORAGE = {"nativeha_odf": "ODF replica=3", "single_resilient_odf": "ODF replica=3", "vm": "VM disk"}


def log_figures(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for test_id, group in frame.groupby("test_id", sort=True):
        by = group.set_index("element")
        config = str(group["config"].iloc[0])
        rows.append({
            "series": LABELS.get(config, config),
            "interval_s": float(by.loc["Interval", "interval_s"]),
            "write_latency_us": float(by.loc["Log - write latency", "latency_us"]),
            "write_size_bytes": float(by.loc["Log - write size", "bytes"]),
            "physical_bytes_s": float(by.loc["Log - physical bytes written", "rate_bytes_s"]),
            "logical_bytes_s": float(by.loc["Log - logical bytes written", "rate_bytes_s"]),
            "instances": INSTANCES.get(config, 1),
            "storage": STORAGE.get(config, config),
        })
    return pd.DataFrame(rows)


def mqldt_runs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for size, group in frame.groupby("blocksize_bytes", sort=True):
        by = group.set_index("statistic")
        rows.append({"blocksize_bytes": int(size), "queue_managers": 1,
                     "writes": float(by.loc["Total writes to files", "writes"]),
                     "duration_s": float(by.loc["Duration", "duration_s"]),
                     "avg_bytes_s": float(by.loc["Avg bytes/sec written to files", "bytes_per_s"]),
                     "avg_latency_us": float(by.loc["Avg latency of write (ns)", "latency_ns"]) / 1000})
    return pd.DataFrame(rows, columns=mqldt_reader.COLUMNS)


def received(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    share = frame[frame["metric"] == "received_share"]
    return pd.DataFrame({"series": [LABELS.get(str(c), str(c)) for c in share["config"]],
                         "received_share_pct": share["pct"].astype(float).to_numpy()})


def comparison(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in frame.itertuples():
        value = next(v for v in (r.bytes, r.latency_us, r.bytes_per_s) if pd.notna(v))
        rows.append({"item": r.item, "tool": r.tool, "metric": r.metric.replace("_", " "),
                     "label_as_printed": r.label_as_printed if isinstance(r.label_as_printed, str) else "",
                     "value": float(value),
                     "unit": "bytes" if pd.notna(r.bytes) else "µs" if pd.notna(r.latency_us) else "bytes/s"})
    return pd.DataFrame(rows)


VIEWS = {"data": log_figures, "mqldt": mqldt_runs, "records": received, "comparison": comparison}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('test_environments',)
