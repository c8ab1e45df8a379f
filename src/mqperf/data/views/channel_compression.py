"""The book's channel compression datasets in the shape the ``channel_compression`` chapter reads.

``zos_chcomp_cost`` (Tables 1, 5, 9, 13, 17) and ``zos_chcomp_rate`` (Tables 2, 6, 10, 14, 18) of
"IBM MQ for z/OS on Channel Compression" hold one run per appendix (channel), message size,
COMPMSG and nominal compressibility; joined, they are the contract's rows. Two readings the
report leaves open, made here and stated by the chapter:

* sizes are printed "2KB" … "100KB" without saying 1000 or 1024 bytes: the book reads KB as
  1024 bytes (MQ's convention), so ``message_bytes = size_kb × 1024``;
* COMPMSG(NONE) is printed in all five compressibility columns with the same value (one run
  repeated, not five): the view keeps it once per size, at compressibility 0.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

KB = 1024
KEYS = ["appendix", "cipher", "message_size", "size_kb", "compmsg", "compressibility_pct"]


def cost_and_rate(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Cost rows joined with their rate rows: channel, technique, message_bytes, compressibility_pct,
    cpu_us_per_tx, rate_tx_s, basis; NONE once per size."""
    rate = loader.load("zos_chcomp_rate")[KEYS + ["rate_tx_s"]]
    rows = frame.merge(rate, on=KEYS, how="left", validate="one_to_one")
    rows = rows[(rows["compmsg"] != "NONE") | (rows["compressibility_pct"] == 0)]
    return pd.DataFrame({
        "channel": rows["cipher"].to_numpy(),
        "technique": rows["compmsg"].to_numpy(),
        "message_bytes": (rows["size_kb"].astype(float) * KB).astype("int64").to_numpy(),
        "compressibility_pct": rows["compressibility_pct"].astype(float).to_numpy(),
        "cpu_us_per_tx": rows["cpu_us"].astype(float).to_numpy(),
        "rate_tx_s": rows["rate_tx_s"].astype(float).to_numpy(),
        "basis": rows["basis"].to_numpy(),
    }).reset_index(drop=True)


def achieved(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The chart readings of page 23: the 100KB ZLIBFAST runs' achieved compressibility (x positions) beside
    the nominal column they belong to (the chart plots Table 2's 0-80 % runs in order)."""
    x = frame[(frame["axis"] == "x")].sort_values("point")
    nominal = [0, 20, 40, 60, 80][: len(x)]
    return pd.DataFrame({"nominal compressibility (%)": nominal,
                         "achieved compressibility (%)": x["compressibility_pct"].astype(float).to_numpy(),
                         "reading uncertainty (± points)": x["chart_uncertainty"].astype(float).to_numpy(),
                         "basis": x["basis"].to_numpy()})


def software(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The 32KB ZLIBFAST-in-software series read off page 27's charts (cost and rate), by nominal compressibility."""
    rows = frame[frame["series"] == "ZLIBFAST in software"]
    cost = rows[rows["cpu_us"].notna()]
    rate = rows[rows["rate_tx_s"].notna()]
    out = pd.DataFrame({"compressibility_pct": cost["point_label"].str.rstrip("%").astype(float).to_numpy(),
                        "cpu_us_per_tx": cost["cpu_us"].astype(float).to_numpy(),
                        "cpu_uncertainty": cost["chart_uncertainty"].astype(float).to_numpy()})
    r = pd.DataFrame({"compressibility_pct": rate["point_label"].str.rstrip("%").astype(float).to_numpy(),
                      "rate_tx_s": rate["rate_tx_s"].astype(float).to_numpy(),
                      "rate_uncertainty": rate["chart_uncertainty"].astype(float).to_numpy()})
    return out.merge(r, on="compressibility_pct", how="outer")


def comptime(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """COMPTIME per request (Tables 3-4, 7-8, 11-12, 15-16, 19-20): channel, direction, technique, size_kb,
    compressibility_pct, comptime_us and the dataset's note (E276's suspect rows among them)."""
    return pd.DataFrame({"channel": frame["cipher"].to_numpy(), "direction": frame["direction"].to_numpy(),
                         "side": frame["side"].to_numpy(), "technique": frame["compmsg"].to_numpy(),
                         "size_kb": frame["size_kb"].astype(float).to_numpy(),
                         "compressibility_pct": frame["compressibility_pct"].astype(float).to_numpy(),
                         "comptime_us": frame["comptime_us"].astype(float).to_numpy(),
                         "note": frame["note"].fillna("").to_numpy()})


def chin_tasks(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The report's "CPU by task" example (page 21) side by side: task, without and with compression, change."""
    wide = frame.pivot_table(index="task", columns="configuration", values="cpu_us", sort=False)
    return pd.DataFrame({"channel initiator task": wide.index.to_numpy(),
                         "not compressed (µs)": wide["Non-Compressed"].to_numpy(),
                         "compressed (µs)": wide["Compressed"].to_numpy(),
                         "change (µs)": (wide["Compressed"] - wide["Non-Compressed"]).to_numpy()})


VIEWS = {"data": cost_and_rate, "achieved": achieved, "software": software, "comptime": comptime,
         "chin_tasks": chin_tasks}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ("zos_chcomp_rate", "zos_chcomp_chart", "zos_chcomp_comptime", "zos_chcomp_chin_task_cpu")
