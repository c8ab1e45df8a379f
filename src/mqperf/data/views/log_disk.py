"""The book's mqio and V9.3 datasets in the shape of the log_disk chapter's inputs.

* ``data``: ``mqio_mq_vs_mqldt_chart`` holds, per figure, MQLDT's MB/s at each block size that
  amqsrua reported for MQ (and MQ's own MB/s beside it), read off the report's charts (basis
  ``chart``). MQLDT writes one block at a time (a single writer), so its time per write is
  block size / bytes per second: ``avg_latency_us = blocksize_bytes / (mqldt_mb_s × 10⁶) × 10⁶``
  (derived; the chart prints no latency). MB is 10⁶ bytes (the report's tables' KB is 1,000
  bytes; mqio NOTES). One series per figure; MQ's MB/s at the same block size is kept as
  ``mq_bytes_s`` and the figure's reading uncertainty as ``uncertainty_bytes_s``.
* ``amqsrua``: ``mqio_log_device_results`` (printed Tables 12–14, every device and message size;
  Tables 3–11 reprint their cells and are left out here) as amqsrua DISK/Log figures: write latency,
  write size (KB × 1,000 bytes) and MB/s × 10⁶ bytes/s. Each device is matched to the MQLDT
  series of the same device with the 1GiB log (Figures 7, 14, 20, 21; the 2K tests ran with the
  1GiB log set); the remote NFS columns (NFS-1GR, NFS-10GR, an added network delay) have no MQLDT
  figure and are left out.
* ``sample``: ``mqio_mqldt_sample``, the MQLDT output printed in section 3.4.1 (SAN, 128K blocks,
  20 s, basis measured) in mqldt's ``--csvFile`` columns: one block size, printed.
* ``published``: ``xlinux93_rr_bb_peak``, Table 7's persistent RR-BB rows by log device (SSD, SAN, NFS).
"""

from __future__ import annotations

import pandas as pd

#: Short names of the charts' devices, as the chapter's series say them.
DEVICES = {"Local HDD (RAID 0, 4GB RAID cache, WriteBack)": "local HDD", "Local SSD (RAID 0, 4GB RAID cache, WriteBack)":
           "local SSD", "SAN": "SAN", "NFS over 40Gb": "NFS over 40Gb", "NFS over 1Gb": "NFS over 1Gb",
           "NFS over 10Gb": "NFS over 10Gb"}
#: The tables' device columns and the MQLDT figure of the same device with the 1GiB log.
TABLE_DEVICES = {"Local HDD": 7, "SAN": 14, "NFS-1G": 20, "NFS-10G": 21}
MB = 1e6


def series_name(figure: int, device: str, log_set: str, message_size: str) -> str:
    return f"{DEVICES.get(device, device)}, {log_set} log, {message_size} messages (Figure {int(figure)})"


def _names(frame: pd.DataFrame) -> dict:
    return {int(f): series_name(f, g["device"].iloc[0], g["log_file_set"].iloc[0], g["message_size"].iloc[0])
            for f, g in frame.groupby("figure", sort=True)}


def mqldt_sweeps(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    names = _names(frame)
    bytes_s = frame["mqldt_mb_s"].astype(float) * MB
    out = pd.DataFrame({
        "series": [names[int(f)] for f in frame["figure"]],
        "blocksize_bytes": frame["block_size_bytes"].astype(int),
        "avg_bytes_s": bytes_s,
        "avg_latency_us": frame["block_size_bytes"].astype(float) / bytes_s * 1e6,
        "queue_managers": 1,
        "requesters": frame["requesters"].astype(int),
        "mq_bytes_s": frame["mq_mb_s"].astype(float) * MB,
        "basis": "derived",
    })
    return out.reset_index(drop=True)


def mq_log_writes(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    from mqperf.data import loader

    names = _names(loader.load("mqio_mq_vs_mqldt_chart"))
    rows = frame[frame["table_no"].isin([12, 13, 14]) & frame["device"].isin(list(TABLE_DEVICES))]
    return pd.DataFrame({
        "series": [names[TABLE_DEVICES[d]] for d in rows["device"]],
        "label": [f"{d}, {m} messages, {int(n)} requester{'s' if n != 1 else ''} (Table {int(t)})"
                  for d, m, n, t in zip(rows["device"], rows["message_size"], rows["requesters"], rows["table_no"])],
        "write_latency_us": rows["latency_us"].astype(float),
        "write_size_bytes": rows["write_size_kb"].astype(float) * 1000,
        "physical_bytes_s": rows["mb_s"].astype(float) * MB,
    }).reset_index(drop=True)


def rr_bb_by_device(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[(frame["table_no"] == 7) & (frame["persistence"] == "Persistent")]
    return rows[["log_device", "message_size", "size_bytes", "rate_rt_s", "cpu_pct", "clients"]].reset_index(drop=True)


def printed_sample(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    by = frame.set_index("statistic")
    return pd.DataFrame([{
        "series": "SAN (the printed MQLDT sample)",
        "blocksize_bytes": int(by.loc["Write blocksize (--bsize)", "blocksize_value_bytes"]),
        "queue_managers": 1,
        "writes": float(by.loc["Total writes to files", "writes"]),
        "duration_s": float(by.loc["Test duration (--duration)", "duration_s"]),
        "avg_bytes_s": float(by.loc["Avg bytes/sec written to files", "bytes_s"]),
        "avg_latency_us": float(by.loc["Avg latency of write (ns)", "latency_ns"]) / 1000,
        "basis": "measured",
    }])


VIEWS = {"data": mqldt_sweeps, "amqsrua": mq_log_writes, "sample": printed_sample, "published": rr_bb_by_device}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ("mqio_mq_vs_mqldt_chart",)
