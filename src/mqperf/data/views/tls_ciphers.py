"""The xLinux reports' TLS peak tables in the shape the ``tls_ciphers`` chapter reads.

``data``: a ``*_tls_peak`` dataset becomes contract rows (``series``, ``cipherspec``, ``rate_rt_s``,
``cpu_pct``, ``clients``), one series per release and persistence ("V9.3 GM, non-persistent"). Given the
V9.3 table, the V9.2 and V9.1 tables of the same test (RR-CC, 2KB, TLS 1.2 and 1.3 CipherSpecs against no
TLS) join it as series of their own (:data:`RELEASES`). Each report prints its no-TLS baseline once per
table (TLS 1.2 and TLS 1.3): the same printed run twice, kept once per series, not as two runs.

``published``: section 6.3 of the V9.3 report (``xlinux93_tls_log_comparison``): its rates and its printed
No-TLS / TLS ratios, one row each, as printed.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

#: The TLS peak tables of the three xLinux reports, newest first; the first is the book's default.
RELEASES = ("xlinux93_tls_peak", "xlinux92_tls_peak", "xlinux91_tls_peak")
READS = RELEASES
BASELINE = "No TLS"


def _rows(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    series = [f"{v}, {str(p).lower()}" for v, p in zip(frame["mq_version"], frame["persistence"])]
    out = pd.DataFrame({"series": series, "cipherspec": frame["cipherspec"].astype(str),
                        "rate_rt_s": frame["rate_rt_s"].astype(float), "cpu_pct": frame["cpu_pct"].astype(float),
                        "clients": frame["clients"].astype(int), "tls_version": frame["tls_version"].astype(str),
                        "table_no": frame["table_no"].astype(int), "dataset": name, "basis": frame["basis"].astype(str)})
    base = out["cipherspec"] == BASELINE
    out.loc[base, "tls_version"] = "none"
    # The baseline is printed in both tables of a series (TLS 1.2 and TLS 1.3): one printed run, kept once.
    return out.drop_duplicates(subset=["series", "cipherspec", "rate_rt_s", "cpu_pct", "clients"]).reset_index(drop=True)


def peaks(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The TLS peaks as contract rows; from the V9.3 table, with the V9.2 and V9.1 tables as further series."""
    names = RELEASES if name == RELEASES[0] else (name,)
    frames = [_rows(n, frame if n == name else loader.load(n)) for n in names]
    out = pd.concat(frames, ignore_index=True)
    out.attrs["setup"] = {"workload": "RR-CC, 2KB messages, MQI client bindings (each report's TLS section)",
                          "runs": "one printed peak per CipherSpec and table: no replicates"}
    return out


def published(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Section 6.3's comparison lines as printed: a rate or a ratio per row."""
    return frame[["comparison", "persistence", "log_device", "scenario", "rate_rt_s", "ratio", "quote"]].reset_index(drop=True)


VIEWS = {"data": peaks, "published": published}
