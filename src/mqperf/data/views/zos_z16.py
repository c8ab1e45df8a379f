"""The book's z15/z16 scalability data in the shape a reader's file has.

``z16_scaling_chart`` holds readings off the report's four scalability charts (pages 36-38): one
reading per row, rate or CPU cost per transaction, with ``chart_uncertainty``. The four rates the
text prints (z15 at 32 and z16 at 28 CPUs out of syncpoint; both in-syncpoint peaks, whose CPU
count, 30, only the chart gives) are in ``z16_scaling_peaks`` and were left out of the readings;
the view puts them back, with ``basis`` measured, so each row says which its rate is.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

PEAKS = "z16_scaling_peaks"
GENERATIONS = "z16_generation_peak_rate"
RATE_METRIC = "peak messaging rate"
COST_METRIC = "CPU cost per transaction at peak rate"
#: The in-syncpoint peaks' CPU count: the text prints none, the chart draws both at 30 CPUs.
IN_SYNC_PEAK_CPUS = 30


def _printed_peaks() -> pd.DataFrame:
    """The printed peak message rates, one row per workload and machine, with their CPU count."""
    peaks = loader.load(PEAKS)
    rows = peaks[(peaks["metric"] == "peak messages/s") & peaks["rate_msg_s"].notna()
                 & (peaks["accounting_class3"] == "enabled")]
    cpus = pd.to_numeric(rows["cpus"], errors="coerce").fillna(IN_SYNC_PEAK_CPUS).astype(int)
    return pd.DataFrame({"workload": rows["workload"].to_numpy(), "machine": rows["machine"].to_numpy(),
                         "cpus": cpus.to_numpy(), "rate_msg_s": rows["rate_msg_s"].astype(float).to_numpy(),
                         "basis": "measured", "rate_reading_uncertainty": 0.0})


def scaling(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """One row per workload, machine and CPU count: workload, machine, cpus, rate_msg_s,
    cpu_us_per_tx, basis (of the rate), cpu_basis, and each chart reading's uncertainty."""
    keys = ["workload", "machine", "cpus"]
    rate = frame[frame["metric"] == RATE_METRIC]
    rate = pd.DataFrame({**{k: rate[k].to_numpy() for k in keys}, "rate_msg_s": rate["rate_msg_s"].astype(float).to_numpy(),
                         "basis": rate["basis"].to_numpy(),
                         "rate_reading_uncertainty": rate["chart_uncertainty"].astype(float).to_numpy()})
    rate = pd.concat([rate, _printed_peaks()], ignore_index=True)
    cost = frame[frame["metric"] == COST_METRIC]
    cost = pd.DataFrame({**{k: cost[k].to_numpy() for k in keys}, "cpu_us_per_tx": cost["cpu_us"].astype(float).to_numpy(),
                         "cpu_basis": cost["basis"].to_numpy(),
                         "cpu_reading_uncertainty": cost["chart_uncertainty"].astype(float).to_numpy()})
    out = rate.merge(cost, on=keys, how="outer")
    out["cpus"] = out["cpus"].astype(int)
    order = {w: i for i, w in enumerate(dict.fromkeys(frame["workload"]))}
    out["_w"] = out["workload"].map(order).fillna(len(order))
    out = out.sort_values(["_w", "machine", "cpus"]).drop(columns="_w").reset_index(drop=True)
    return out[["workload", "machine", "cpus", "rate_msg_s", "cpu_us_per_tx", "basis", "cpu_basis",
                "rate_reading_uncertainty", "cpu_reading_uncertainty"]]


VIEWS = {"data": scaling}

def published_peaks() -> pd.DataFrame:
    """The peak rates the report prints: the scalability text's (messages and transactions per
    second, with their CPU counts as printed) and the generation table's, for the about-passages."""
    peaks = loader.load(PEAKS)
    text = pd.DataFrame({"source": "scalability text", "workload": peaks["workload"], "machine": peaks["machine"],
                         "CPUs as printed": peaks["cpus"].astype(str), "accounting class 3": peaks["accounting_class3"],
                         "printed": peaks["metric"],
                         "value": peaks["rate_msg_s"].fillna(peaks["rate_tx_s"]).fillna(peaks["rate_million_msg_s"] * 1e6),
                         "qualifier": peaks["qualifier"].fillna("")})
    gen = loader.load(GENERATIONS)
    table = pd.DataFrame({"source": "generation table", "workload": "not named",
                          "machine": gen["generation"].str.replace("IBM ", "", regex=False),
                          "CPUs as printed": "not stated", "accounting class 3": "",
                          "printed": "peak messages/s (" + gen["when"] + ")", "value": gen["peak_million_msg_s"] * 1e6,
                          "qualifier": ""})
    return pd.concat([text, table], ignore_index=True)


MACHINES = "z16_machine_comparison"


def _cell(row) -> str:
    """One cell of the comparison table as printed: a count, a range, or a cache size with its unit."""
    for col, unit in (("cache_kb", " KB"), ("cache_mb", " MB"), ("cache_gb", " GB")):
        if pd.notna(row[col]):
            return f"{row[col]:g}{unit}"
    if pd.notna(row["count"]):
        return f"{row['count']:g}"
    return f"{row['count_min']:g} to {row['count_max']:g}"


def machine_comparison() -> pd.DataFrame:
    """The report's z15 / z16 comparison table (page 9), one row per attribute, as printed."""
    frame = loader.load(MACHINES)
    frame = frame.assign(cell=[_cell(r) for r in frame.to_dict("records")])
    wide = frame.pivot_table(index="attribute", columns="machine", values="cell", aggfunc="first", sort=False)
    return wide.reindex(columns=["z15", "z16"]).fillna("").reset_index()


#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = (PEAKS, GENERATIONS, MACHINES)
