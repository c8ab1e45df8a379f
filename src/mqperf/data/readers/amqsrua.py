"""amqsrua (MQ resource-usage sample) output: every publication, any class, into one table.

Grammar from ``reference-data/formats/amqsrua/FORMAT.md`` (IBM's amqsruaa.c formatting,
MQ 9.4.1): a ``Publication received PutDate:YYYYMMDD PutTime:HHMMSSTT Interval:...`` header
(PutTime is the publication's time, so the interval ends there), then one
``<element name> <value>`` line per element. The value's form says its datatype: a plain
integer, ``<count> <rate>/sec`` (a delta), ``<n>%``, ``<n> uSec``, ``<n>KB``/``MB``/``GB``.
Per-object classes (STATQ) prefix each line with the object name in 48 columns. The
``key=value`` lines of cphtestp's ``qmmonitor2`` collector (``log_lat=``, ``log_phy=``, ...)
are read too. Blogs print the element names' `` - `` as an en dash; it is read as the hyphen.

Feeds the NativeHA chapter (DISK/Log publications: :data:`LOG_ELEMENTS`) and the
queue-manager statistics chapter (STATMQI publications: :data:`MQI_ELEMENTS`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.data.readers._setup import attach, carry, seconds
from mqperf.errors import DataError

#: DISK/Log element → nativeha_storage column.
LOG_ELEMENTS = {
    "Log - write latency": "write_latency_us",
    "Log - write size": "write_size_bytes",
    "Log - physical bytes written": "physical_bytes_s",
    "Log - logical bytes written": "logical_bytes_s",
}
#: STATMQI element(s) → qm_statistics column (counts in the interval, summed).
MQI_ELEMENTS = {
    "puts": ["Interval total MQPUT/MQPUT1 count"],
    "persistent_puts": ["Persistent message MQPUT count", "Persistent message MQPUT1 count"],
    "gets": ["Interval total destructive get- count", "Interval total destructive get - count"],
    "commits": ["Commit count"],
    "connects": ["MQCONN/MQCONNX count"],
    "disconnects": ["MQDISC count"],
}
#: qmmonitor2 key → nativeha_storage column.
KEYS = {"log_lat": "write_latency_us", "log_siz": "write_size_bytes", "log_phy": "physical_bytes_s",
        "log_log": "logical_bytes_s"}
#: The columns of the nativeha_storage contract a DISK/Log file fills.
COLUMNS = ["series", "interval_s", "write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s"]

_HEADER = re.compile(r"Publication received PutDate:(?P<date>\d{8}) PutTime:(?P<time>\d{6,8}) Interval:(?P<interval>.+?)\s*$")
_ELEMENT = re.compile(r"^(?P<name>.+?) (?P<value>-?\d+(?:\.\d+)?)(?P<unit>%|KB|MB|GB| uSec)?(?: (?P<rate>-?\d+)/sec)?\s*$")
_INTERVAL = re.compile(r"(?P<n>\d+(?:\.\d+)?) (?P<unit>days?|hours?|minutes?|seconds?)")
_KEYVALUE = re.compile(r"^(?P<key>[a-z][a-z0-9_]*)=(?P<value>-?\d+(?:\.\d+)?)\s*$")
_SCALE = {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


def interval_seconds(text: str) -> float:
    """'1 minutes,4.785 seconds' → 64.785 (amqsrua's [D days,][H hours,][M minutes,]S.mmm seconds)."""
    scale = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
    parts = _INTERVAL.findall(text)
    if not parts:
        raise DataError("amqsrua output", f"interval not understood: {text!r}")
    return float(sum(float(n) * scale[u.rstrip("s")] for n, u in parts))


def _element(line: str):
    """(object, match) for an element line; per-object classes put the name in 48 columns."""
    if len(line) > 49 and line[48] != " " and " " not in line[:48].strip() and line[:48].strip() \
            and line[len(line[:48].rstrip()):48].strip() == "" and len(line[:48].rstrip()) < 48:
        m = _ELEMENT.match(line[48:].strip())
        if m:
            return line[:48].strip(), m
    return None, _ELEMENT.match(line.strip())


def read(paths) -> pd.DataFrame:
    """Every element of every publication: one row each (long form), with its source line."""
    rows, scaled = [], set()
    for path in map(Path, paths):
        pub = None
        keyed = {}
        for no, raw in enumerate(Path(path).read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.replace("\u2013", "-").rstrip()
            head = _HEADER.search(line)
            if head:
                interval = interval_seconds(head["interval"])
                try:
                    end = datetime.strptime(head["date"] + head["time"][:6], "%Y%m%d%H%M%S")
                except ValueError:
                    raise DataError(path.name, f"publication date/time not understood: {head['date']} {head['time']}", row=no) from None
                end += timedelta(milliseconds=10 * int(head["time"][6:8] or 0))
                pub = {"publication": f"{head['date']} {head['time']}", "interval_s": interval,
                       "start": (end - timedelta(seconds=interval)).isoformat(timespec="seconds"), "line": no}
                continue
            kv = _KEYVALUE.match(line.strip())
            if kv and pub is None:
                key = kv["key"]
                if key in keyed:  # a key seen again starts the collector's next sample
                    keyed = {}
                keyed[key] = no
                rows.append({"publication": f"sample at line {min(keyed.values())}", "interval_s": np.nan, "start": None,
                             "object": None, "element": key, "value": float(kv["value"]), "rate_s": np.nan,
                             "unit": "", "source": f"{path.name}:{no}"})
                continue
            if pub is None:
                continue
            obj, m = _element(line)
            if not m:
                continue
            value, unit = float(m["value"]), (m["unit"] or "").strip()
            if unit in _SCALE:
                value *= _SCALE[unit]
                scaled.add(unit)
            rows.append({**{k: v for k, v in pub.items() if k != "line"}, "object": obj, "element": m["name"].strip(),
                         "value": value, "rate_s": float(m["rate"]) if m["rate"] else np.nan,
                         "unit": {"uSec": "us", "%": "%"}.get(unit, "bytes" if unit in _SCALE else ""),
                         "source": f"{path.name}:{no}"})
    if not rows:
        raise DataError(Path(paths[0]), "no 'Publication received' line: expected amqsrua output "
                                        "(e.g. amqsrua -m QM1 -c DISK -t Log)")
    notes = ["amqsrua publications are stamped at their end (PutDate/PutTime, the queue manager's UTC): "
             "start = PutTime − Interval"]
    notes += [f"amqsrua {u} values × {_SCALE[u]} → bytes" for u in sorted(scaled)]
    frame = pd.DataFrame(rows)
    pubs = frame.drop_duplicates("publication")
    timed = pubs[pubs["start"].notna()]
    attach(frame, interval_length=seconds(timed["interval_s"]),
           publications=f"{len(timed):,} from {timed['start'].min()} (UTC)" if len(timed) else "",
           tool="amqsrua" if len(timed) else "cphtestp qmmonitor2 (key=value samples)")
    return with_notes(frame, *notes)


def _found(frame: pd.DataFrame) -> str:
    els = set(frame["element"])
    kinds = [k for k, names in (("DISK/Log", LOG_ELEMENTS), ("STATMQI", sum(MQI_ELEMENTS.values(), [])),
                                ("qmmonitor2 key=value", KEYS)) if els & set(names)]
    what = " and ".join(kinds) or "other classes (" + ", ".join(sorted(els)[:3]) + (", …" if len(els) > 3 else "") + ")"
    return f"found amqsrua {what} publications"


def to_log(frame: pd.DataFrame) -> pd.DataFrame:
    """DISK/Log publications → the nativeha_storage contract, one row per publication."""
    rows = []
    for pub, group in frame.groupby("publication", sort=False):
        by = group.drop_duplicates("element").set_index("element")
        row = {"series": pub, "interval_s": group["interval_s"].iloc[0]}
        for name, col in {**LOG_ELEMENTS, **KEYS}.items():
            if name not in by.index:
                continue
            if col in ("physical_bytes_s", "logical_bytes_s") and name in LOG_ELEMENTS:
                rate = by.loc[name, "rate_s"]
                # A delta whose rate rounds to 0 is printed without it: divide the count by the interval.
                row[col] = rate if rate == rate else by.loc[name, "value"] / row["interval_s"]
            else:
                row[col] = by.loc[name, "value"]
        if any(c in row for c in ("write_latency_us", "write_size_bytes", "physical_bytes_s")):
            row["source"] = group["source"].iloc[0]
            rows.append(row)
    out = pd.DataFrame(rows)
    missing = [c for c in ("write_latency_us", "write_size_bytes", "physical_bytes_s") if c not in out]
    if out.empty or missing:
        need = "Log - write latency, Log - write size, Log - physical bytes written"
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)}; the chapter needs DISK/Log publications with {need}"
                        + (f" (missing: {', '.join(k for k, v in LOG_ELEMENTS.items() if v in missing)})" if not out.empty else ""))
    return with_notes(carry(frame, out[[c for c in COLUMNS if c in out] + ["source"]]), *frame.attrs.get("notes", []))


def to_statistics(frame: pd.DataFrame) -> pd.DataFrame:
    """STATMQI publications → the qm_statistics contract, one row per publication."""
    rows = []
    for pub, group in frame[frame["start"].notna()].groupby("publication", sort=False):
        values = group.groupby("element")["value"].sum()
        row = {"start": group["start"].iloc[0], "interval_s": group["interval_s"].iloc[0]}
        for col, names in MQI_ELEMENTS.items():
            present = [n for n in names if n in values.index]
            if present:
                row[col] = float(values[present].sum())
        if len(row) > 2:
            row["source"] = group["source"].iloc[0]
            rows.append(row)
    if not rows:
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)}; the chapter needs STATMQI publications (amqsrua -m QM1 -c STATMQI -t PUT, "
                        "GET, SYNCPOINT, CONNDISC)")
    return with_notes(carry(frame, pd.DataFrame(rows)), *frame.attrs.get("notes", []))


def parse_amqsrua(text: str) -> pd.DataFrame:
    """Rows (one per DISK/Log publication) from amqsrua text, for callers holding the text."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "amqsrua output"
        path.write_text(text, encoding="utf-8")
        return to_log(read([path]))


def _sniff(head: str, path: Path) -> bool:
    if re.search(r"^Publication received PutDate:\d{8} PutTime:\d+ Interval:", head, re.M):
        return True
    keys = {m.group(1) for m in re.finditer(r"^(log_lat|log_phy|log_siz|log_log)=\d", head, re.M)}
    return len(keys) >= 2


FORMATS = [
    Format(name="amqsrua", tool="amqsrua", title="amqsrua output (DISK/Log, STATMQI, STATQ)",
           command="amqsrua -m QM1 -c DISK -t Log -n 360 > log.txt   # or -c STATMQI -t PUT (GET, SYNCPOINT, CONNDISC)",
           sniff=_sniff, read=read, feeds={"nativeha_storage": to_log, "qm_statistics": to_statistics, "log_disk.amqsrua": to_log}),
]
