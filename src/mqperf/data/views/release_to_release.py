"""The xLinux V9.1, V9.2 and V9.3 reports' peak tables as one table of releases and workloads.

The ``release_to_release`` chapter reads one row per release, workload and run: ``release``,
``workload``, ``rate_rt_s``, ``cpu_pct`` (and ``machine``, ``basis``). On the book's data its
``data`` names one of the reports' peak tables; the view reads the same tables of all three
reports (:data:`READS`), keeps the workloads printed by at least two of them and names each one
``<workload> <size> <persistence>`` (the TLS rows ``RR-CC TLS 1.2 <CipherSpec> 2KB non-persistent``). Every value
is the printed peak (round trips/s, the server's CPU % and the client count at it), with one
exception said in ``basis``: the V9.3 report prints its JMS table as a picture, whose digits were
read off the image (xlinux93_rr_cc_jms_peak_chart, basis ``chart``). ``machine`` is the MQ
server's model and CPUs as each report's appendix prints them (the ``Server1`` rows of its
test_config table), so the chapter can tell a like-for-like step from one on new hardware.
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

RELEASES = {"V9.1": "xlinux91", "V9.2": "xlinux92", "V9.3": "xlinux93"}
PEAKS = ("rr_cb_peak", "rr_dq_bb_peak", "rr_bb_peak")
JMS = {"V9.1": "xlinux91_rr_cc_jms_peak", "V9.2": "xlinux92_rr_cc_jms_peak", "V9.3": "xlinux93_rr_cc_jms_peak_chart"}
READS = tuple(f"{p}_{t}" for p in RELEASES.values() for t in PEAKS + ("tls_peak", "test_config")) + tuple(JMS.values())
COLUMNS = ["release", "workload", "rate_rt_s", "cpu_pct", "clients", "machine", "basis"]


def _size(b: int) -> str:
    return f"{b // 1048576}MB" if b >= 1048576 else f"{b // 1024}KB"


def _machine(prefix: str) -> str:
    cfg = loader.load(f"{prefix}_test_config")
    server = cfg[cfg["component"].str.contains("Server1", regex=False)]
    model = server.loc[server["attribute"] == "model", "value"].iloc[0]
    cpu = server.loc[server["attribute"] == "cpu", "value"].iloc[0]
    cores = server.loc[server["attribute"] == "cores_per_cpu", "value"].iloc[0].rstrip(".")
    return f"{model}, {cores}, {cpu}"


def _rows(release: str, frame: pd.DataFrame, tls: bool = False) -> pd.DataFrame:
    persistence = frame["persistence"].str.lower()
    size = frame["size_bytes"].astype(int).map(_size)
    if tls:
        name = "RR-CC " + frame["tls_version"] + " " + frame["cipherspec"] + " " + size + " " + persistence
        name = name.where(frame["cipherspec"] != "No TLS", "RR-CC no TLS " + size + " " + persistence)
    else:
        api = frame["api"].where(frame["api"] != "MQI", "")
        name = frame["workload"] + (" " + api).where(api != "", "") + " " + size + " " + persistence
        # V9.3 prints persistent RR-BB on SSD, SAN and NFS; V9.1 and V9.2 only on the server's own disk.
        keep = frame["log_device"] == "local"
        frame, name = frame[keep], name[keep]
    out = pd.DataFrame({"release": release, "workload": name.to_numpy(),
                        "rate_rt_s": frame["rate_rt_s"].astype(float).to_numpy(),
                        "cpu_pct": frame["cpu_pct"].astype(float).to_numpy(),
                        "clients": frame["clients"].astype(int).to_numpy(),
                        "basis": frame["basis"].to_numpy()})
    # The TLS tables print the No TLS row in both the TLS 1.2 and the TLS 1.3 table: one run, kept once.
    return out.drop_duplicates(subset=["workload"], keep="first")


def peaks(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Every workload printed in two or more of the three reports, one row per release (oldest first)."""
    parts = []
    for release, prefix in RELEASES.items():
        machine = _machine(prefix)
        tables = [_rows(release, loader.load(f"{prefix}_{t}")) for t in PEAKS]
        tables += [_rows(release, loader.load(JMS[release])), _rows(release, loader.load(f"{prefix}_tls_peak"), tls=True)]
        parts.append(pd.concat(tables, ignore_index=True).assign(machine=machine))
    out = pd.concat(parts, ignore_index=True)
    seen = out.groupby("workload")["release"].transform("nunique")
    return out[seen >= 2].reset_index(drop=True)[COLUMNS]


VIEWS = {"data": peaks}
