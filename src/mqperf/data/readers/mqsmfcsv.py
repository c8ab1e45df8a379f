"""MQSMFCSV output: the CSV files ``mqsmfcsv -i SMF.dat -o DIR`` writes from SMF 115/116.

Conventions from ``reference-data/formats/mqsmfcsv/FORMAT.md`` (ibm-messaging/mq-smf-csv
@3daf4793, run on IBM's sample SMF data): one file per SMF structure, ``SMF-<STRUCT>.csv``
(a prefix such as ``TEST115_`` is kept by some scripts); a header line; every line ends
with a trailing comma; common leading columns ``Date,Time,LPAR,QMgr,QSG,MQ_Version`` and,
for statistics (SMF 115), ``Interval_Start (DATE),Interval_Start (TIME),Interval_Duration``.
Strings are quoted, numeric-looking strings carry an ``=`` prefix; times are
``HH:MM:SS,uuuuuu``; durations are ``(S)``/``(US)`` column pairs (total µs = S·10⁶ + US);
zero STCK times are blank; fields an older record lacks are ``-1`` (not data).

Feeds the statistics chapter from QMST (MQI counts) and QJST (log control intervals); the
other structures are read and kept in ``frame.attrs["structures"]`` for what a chapter asks.
SQL-mode rows (``-f sql``: no header) are recognised and refused in one line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.data.readers._setup import attach, carry, names, seconds, versions
from mqperf.errors import DataError

LEADING = "Date,Time,LPAR,QMgr,"
#: A log control interval is 4 KB (FORMAT.md: log MB/s ≈ IO_CI · 4096 / interval).
CI_BYTES = 4096
_NAME = re.compile(r"SMF-(?P<struct>[A-Z0-9]+)\.csv$", re.I)
#: Structures recognised from their columns when a file was renamed.
SIGNATURES = {"QJST": "WRT_Request_Wait", "QMST": "PersPuts", "QCST": "Chl_Name", "WTAS": "Commit_Count"}


def _structure(path: Path, header: list[str]) -> str:
    m = _NAME.search(path.name)
    if m:
        return m["struct"].upper()
    for struct, column in SIGNATURES.items():
        if column in header:
            return struct
    return "unknown"


def _clean(col: pd.Series) -> pd.Series:
    """Quoted and ``=``-prefixed strings as plain text."""
    return col.str.strip().str.removeprefix("=").str.strip('"').str.strip()


def duration_s(frame: pd.DataFrame, name: str) -> pd.Series:
    """A ``<name>(S)``/``<name>(US)`` pair as seconds (S + US / 10⁶)."""
    s = pd.to_numeric(frame[f"{name}(S)"], errors="coerce")
    us = pd.to_numeric(frame[f"{name}(US)"], errors="coerce")
    return s + us / 1e6


def _when(date: pd.Series, time: pd.Series) -> pd.Series:
    return pd.to_datetime(date.str.cat(time.str.replace(",", ".", regex=False), sep=" "),
                          format="%Y/%m/%d %H:%M:%S.%f", errors="coerce")


def read(paths) -> pd.DataFrame:
    """Every MQSMFCSV file given, one table per structure in ``attrs["structures"]``; the frame
    itself lists the files read (structure, rows, source)."""
    structures: dict[str, list[pd.DataFrame]] = {}
    listing = []
    for path in map(Path, paths):
        try:
            raw = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=False)
        except pd.errors.ParserError as exc:
            m = re.search(r"line (\d+)", str(exc))
            raise DataError(path.name, "a row does not match the header (a truncated or edited file?)",
                            row=int(m[1]) if m else None) from None
        except pd.errors.EmptyDataError:
            raise DataError(path, "file is empty") from None
        raw = raw.loc[:, [c for c in raw.columns if not c.startswith("Unnamed:")]]  # the trailing comma
        raw.columns = [c.strip() for c in raw.columns]
        struct = _structure(path, list(raw.columns))
        for col in ("Date", "Time", "LPAR", "QMgr", "QSG", "MQ_Version", "Interval_Start (DATE)", "Interval_Start (TIME)"):
            if col in raw:
                raw[col] = _clean(raw[col])
        raw["source"] = [f"{path.name}:{i + 2}" for i in range(len(raw))]
        structures.setdefault(struct, []).append(raw)
        listing.append({"structure": struct, "rows": len(raw), "source": f"{path.name}:1"})
    frame = pd.DataFrame(listing)
    frame.attrs["structures"] = {k: pd.concat(v, ignore_index=True) for k, v in structures.items()}
    every = pd.concat([t[[c for c in ("LPAR", "QMgr", "QSG", "MQ_Version", "Interval_Duration") if c in t]]
                       for t in frame.attrs["structures"].values()], ignore_index=True)
    lpars = names(every["LPAR"]) if "LPAR" in every else ""
    groups = names(q for q in every.get("QSG", []) if q.strip(". ")) if "QSG" in every else ""
    attach(frame, MQ_version=versions(every["MQ_Version"]) if "MQ_Version" in every else "",
           platform=f"z/OS (SMF records), LPAR {lpars}" if lpars else "z/OS (SMF records)",
           interval_length=seconds(every["Interval_Duration"]) if "Interval_Duration" in every else "",
           queue_managers=names(every["QMgr"]) if "QMgr" in every else "", queue_sharing_groups=groups,
           tool="MQSMFCSV")
    return with_notes(frame, "MQSMFCSV (S)+(US) column pairs are read as S + US/10^6 seconds")


def _found(frame: pd.DataFrame) -> str:
    return "found MQSMFCSV " + ", ".join(sorted(frame.attrs.get("structures", {}))) + " files"


def _intervals(table: pd.DataFrame) -> pd.DataFrame:
    """Statistics rows with their interval: start from Interval_Start, length from the record's
    time minus the start (Interval_Duration is truncated to whole seconds)."""
    start = _when(table["Interval_Start (DATE)"], table["Interval_Start (TIME)"])
    end = _when(table["Date"], table["Time"])
    length = (end - start).dt.total_seconds()
    fallback = pd.to_numeric(table["Interval_Duration"], errors="coerce")
    length = length.where(length > 0, fallback)
    out = pd.DataFrame({"qmgr": table["QMgr"], "start_ts": start, "interval_s": length, "source": table["source"]})
    return out


def to_statistics(frame: pd.DataFrame) -> pd.DataFrame:
    """QMST (puts, gets, persistent puts) and QJST (log bytes) → qm_statistics rows."""
    tables = frame.attrs.get("structures", {})
    if "QMST" not in tables and "QJST" not in tables:
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)}; the chapter needs SMF 115 statistics: SMF-QMST.csv (MQI counts) "
                        "or SMF-QJST.csv (log)")
    parts, notes, absent = [], [], 0
    if "QMST" in tables:
        q = tables["QMST"]
        mq = _intervals(q)
        num = {c: pd.to_numeric(q[c], errors="coerce") for c in ("Put", "Put1", "Get", "PersPuts") if c in q}
        for c, values in num.items():
            absent += int((values == -1).sum())
            num[c] = values.where(values >= 0)  # -1: a field this record's MQ version does not have
        mq["puts"] = num["Put"] + num["Put1"]
        mq["gets"] = num["Get"]
        if "PersPuts" in num and num["PersPuts"].notna().any():
            mq["persistent_puts"] = num["PersPuts"]
        parts.append(mq)
        notes.append("MQSMFCSV QMST: puts = Put + Put1, gets = Get, persistent_puts = PersPuts (MQ 9.3.4 and later)")
    if "QJST" in tables:
        j = tables["QJST"]
        mj = _intervals(j)
        ci = pd.to_numeric(j["Log_CI"], errors="coerce")
        absent += int((ci == -1).sum())
        mj["log_write_bytes"] = ci.where(ci >= 0) * CI_BYTES
        parts.append(mj)
        notes.append("MQSMFCSV QJST: log_write_bytes = Log_CI × 4096 (control intervals of 4 KB)")
    keys = ["qmgr", "start_ts"]
    out = parts[0]
    for more in parts[1:]:  # QMST and QJST rows of one interval share the queue manager and start
        out = out.merge(more, on=keys, how="outer", suffixes=("", "_other"))
        for col in ("interval_s", "source"):
            out[col] = out[col].fillna(out.pop(f"{col}_other"))
    bad = out["start_ts"].isna() | ~(out["interval_s"] > 0)
    if bad.any():
        notes.append(f"{int(bad.sum())} statistics rows with a blank (zero STCK) start or no interval length are not data")
    if absent:
        notes.append(f"{absent} values of -1 (fields an older record does not have) are not data")
    out = out[~bad].sort_values(["start_ts", "qmgr"]).reset_index(drop=True)
    if out.empty:
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)} with no statistics interval that has a start and a length")
    out.insert(0, "start", out.pop("start_ts").dt.strftime("%Y-%m-%dT%H:%M:%S.%f"))
    notes.append("MQSMFCSV intervals run from Interval_Start to the record's time (Interval_Duration is truncated "
                 "to whole seconds)")
    cols = ["start", "interval_s", "qmgr", "puts", "persistent_puts", "gets", "log_write_bytes", "source"]
    return with_notes(carry(frame, out[[c for c in cols if c in out]]), *frame.attrs.get("notes", []), *notes)


def _sniff(head: str, path: Path) -> bool:
    first = head.split("\n", 1)[0]
    return first.startswith(LEADING) and ("MQ_Version" in first)


def _sniff_sql(head: str, path: Path) -> bool:
    return bool(re.match(r'^"\d{4}-\d{2}-\d{2}","\d{2}:\d{2}:\d{2},\d{6}","[^"]*","[^"]*",', head))


def _refuse_sql(paths) -> pd.DataFrame:
    raise DataError(Path(paths[0]), "MQSMFCSV rows in SQL mode (-f sql: no header line); run mqsmfcsv with "
                                    "the default CSV format (mqsmfcsv -i SMF.dat -o DIR)")


FORMATS = [
    Format(name="mqsmfcsv", tool="MQSMFCSV", title="MQSMFCSV CSVs from SMF 115/116",
           command="mqsmfcsv -i SMF.dat -o DIR   # then give DIR (or its SMF-QMST.csv and SMF-QJST.csv) to --data",
           sniff=_sniff, read=read, feeds={"qm_statistics": to_statistics}),
    # Recognised only to say what it is: no chapter reads it (rows without a header).
    Format(name="mqsmfcsv-sql", tool="MQSMFCSV", title="MQSMFCSV SQL-mode rows (-f sql; run mqsmfcsv without it)",
           command="(use the default CSV format instead)", sniff=_sniff_sql, read=_refuse_sql),
]
