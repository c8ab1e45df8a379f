"""The book's Q Replication dataset in the chapter's contract shape.

The source (seed 002) gives recommended settings, not measured channels, so the book's
"scenarios" are the channels those settings describe: the smallest and largest recommended
message size at the recommended TCP buffers, BATCHSZ and default BATCHLIM, at the round trip
the article calls the edge of a network problem (NETTIME above 1 ms), and the largest
message once more with the largest BATCHLIM the article suggests. Link speed and commit time
are not in the article: they stay empty, and the chapter fills them from its parameters as it
does for a reader's file without those columns.
"""

from __future__ import annotations

import pandas as pd

from mqperf.errors import DataError

_UNIT_BYTES = {"bytes": 1, "KB": 1024, "MB": 1024 * 1024}


def _value(settings: pd.DataFrame, setting: str, relation: str) -> tuple[float, str]:
    row = settings[(settings["setting"] == setting) & (settings["relation"] == relation)]
    if row.empty:
        raise DataError(f"qrep_settings: no row for {setting} ({relation})")
    return float(row["value_num"].iloc[0]), str(row["unit"].iloc[0])


def recommended(settings: pd.DataFrame) -> dict:
    """The article's numeric channel advice in the chapter's units (bytes, KB, ms)."""
    low, low_unit = _value(settings, "message size", "range_low")
    high, high_unit = _value(settings, "message size", "range_high")
    pings = settings[settings["setting"] == "ping length"]["value_num"].astype(float)
    return {
        "tcp_window_bytes": _value(settings, "TCPSENDBFRSIZE", "equal")[0],
        "batch_size": _value(settings, "batch size", "equal")[0],
        "batchlim_kb": _value(settings, "batchlim", "default")[0],
        "batchlim_kb_max": _value(settings, "batchlim", "maximum_suggested")[0],
        "message_bytes_low": low * _UNIT_BYTES[low_unit],
        "message_bytes_high": high * _UNIT_BYTES[high_unit],
        "nettime_problem_ms": _value(settings, "nettime", "problem_above")[0],
        "ping_bytes": sorted(pings.tolist()),
    }


def scenarios(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The recommended settings as channel scenarios (contract ``qrep_channel``)."""
    rec = recommended(frame)
    base = {"rtt_ms": rec["nettime_problem_ms"], "tcp_window_bytes": int(rec["tcp_window_bytes"]),
            "batch_size": int(rec["batch_size"])}
    rows = []
    for size in (rec["message_bytes_low"], rec["message_bytes_high"]):
        rows.append({**base, "message_bytes": int(size), "batchlim_kb": rec["batchlim_kb"],
                     "series": f"{_size(size)} messages, BATCHLIM {rec['batchlim_kb']:,.0f} KB"})
    rows.append({**base, "message_bytes": int(rec["message_bytes_high"]), "batchlim_kb": rec["batchlim_kb_max"],
                 "series": f"{_size(rec['message_bytes_high'])} messages, BATCHLIM {rec['batchlim_kb_max']:,.0f} KB"})
    out = pd.DataFrame(rows)
    out["link_mb_s"] = float("nan")
    out["commit_ms"] = float("nan")
    return out[["series", "rtt_ms", "tcp_window_bytes", "message_bytes", "batch_size", "batchlim_kb",
                "link_mb_s", "commit_ms"]]


def _size(nbytes: float) -> str:
    for unit, factor in (("MB", 1024 * 1024), ("KB", 1024)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes / factor:g} {unit}"
    return f"{nbytes:g} bytes"


VIEWS = {"data": scenarios}
