"""The book's zEDC datasets in the shapes the ``zedc_compression`` chapter reads.

``zedc_log_compression`` stores seed 004's table long (one row per size and metric, with the
quote); the chapter's contract is one row per message size with the effects as columns.
Rows without a message size (the DFWBP remarks about "large messages") are not effects.
"""

from __future__ import annotations

import pandas as pd

COLUMNS = {"qm_tcb_increase": "qm_tcb_increase_pct", "peak_throughput_increase": "peak_throughput_increase_pct"}


def effects(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[frame["metric"].isin(list(COLUMNS)) & frame["message_size_bytes"].notna()]
    wide = rows.pivot_table(index="message_size_bytes", columns="metric", values="pct", aggfunc="first")
    wide = wide.rename(columns=COLUMNS).reset_index()
    wide["message_size_bytes"] = wide["message_size_bytes"].astype("int64")
    wide["basis"] = "measured"
    wide.columns.name = None
    return wide[["message_size_bytes", *[c for c in COLUMNS.values() if c in wide], "basis"]]


def processor(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Utilisation by kind of message, and the zEDC Express limits, as two kinds of row."""
    util = frame.dropna(subset=["util_pct"])
    kind = ["incompressible" if "incompressible" in i else "highly compressible" for i in util["item"]]
    out = pd.DataFrame({"kind": "utilisation", "messages": kind, "value": util["util_pct"].astype(float).to_numpy()})
    limits = frame.dropna(subset=["count"])
    lim = pd.DataFrame({"kind": "limit", "messages": limits["item"].to_numpy(),
                        "value": limits["count"].astype(float).to_numpy()})
    return pd.concat([out, lim], ignore_index=True)


def environment(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["env_id"] == "zedc"][["component", "attribute", "value"]].reset_index(drop=True)


VIEWS = {"data": effects, "processor": processor, "environment": environment}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('test_environments',)
