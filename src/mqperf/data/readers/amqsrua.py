"""amqsrua ``-c DISK -t Log`` text output: one row per publication.

amqsrua prints a ``Publication received PutDate:... PutTime:... Interval:...`` header, then
one line per element (``Log - write latency 280 uSec``, ``Log - physical bytes written
598876160 59871780/sec``). :func:`parse_amqsrua` keeps the four DISK/Log elements the
``nativeha_storage`` contract reads; :func:`amqsrua_to_csv` writes them as that contract's CSV.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mqperf.errors import DataError

#: amqsrua element names and the columns they fill (DISK/Log class).
ELEMENTS = {
    "Log - write latency": "write_latency_us",
    "Log - write size": "write_size_bytes",
    "Log - physical bytes written": "physical_bytes_s",
    "Log - logical bytes written": "logical_bytes_s",
}
#: The columns of the CSV :func:`amqsrua_to_csv` writes (the nativeha_storage contract).
COLUMNS = ["series", "interval_s", "write_latency_us", "write_size_bytes", "physical_bytes_s", "logical_bytes_s"]

_HEADER = re.compile(r"Publication received PutDate:(?P<date>\d+) PutTime:(?P<time>\d+) Interval:(?P<interval>.+?)\s*$")
_ELEMENT = re.compile(r"^(?P<name>.+?) (?P<value>-?\d+(?:\.\d+)?)(?P<unit>%|KB|MB|GB| uSec)?(?: (?P<rate>-?\d+)/sec)?\s*$")
_INTERVAL = re.compile(r"(?P<n>\d+(?:\.\d+)?) (?P<unit>days?|hours?|minutes?|seconds?)")


def interval_seconds(text: str) -> float:
    """'1 minutes,4.785 seconds' → 64.785 (amqsrua's [D days,][H hours,][M minutes,]S.mmm seconds)."""
    scale = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
    parts = _INTERVAL.findall(text)
    if not parts:
        raise DataError("amqsrua output", f"interval not understood: {text!r}")
    return float(sum(float(n) * scale[u.rstrip("s")] for n, u in parts))


def parse_amqsrua(text: str) -> pd.DataFrame:
    """Rows (one per publication) from amqsrua ``-c DISK -t Log`` output.

    Lines that are not DISK/Log elements are skipped; an en dash in element names (as blogs
    print them) is read as the hyphen amqsrua prints. A byte count without a /sec rate is
    divided by the publication's interval.

    Raises
    ------
    DataError
        No publication header, or a required element (latency, size, physical bytes) missing.
    """
    rows, current = [], None
    for raw in text.splitlines():
        line = raw.replace("\u2013", "-").strip()
        head = _HEADER.search(line)
        if head:
            current = {"put_date": head["date"], "put_time": head["time"], "interval_s": interval_seconds(head["interval"])}
            rows.append(current)
            continue
        m = _ELEMENT.match(line)
        if current is None or not m or m["name"] not in ELEMENTS:
            continue
        col = ELEMENTS[m["name"]]
        if col in ("physical_bytes_s", "logical_bytes_s"):
            count = float(m["value"])
            current[col] = float(m["rate"]) if m["rate"] else count / current["interval_s"]
        else:
            current[col] = float(m["value"])
    if not rows:
        raise DataError("amqsrua output", "no 'Publication received' line: expected amqsrua -c DISK -t Log output")
    out = pd.DataFrame(rows)
    missing = [c for c in ("write_latency_us", "write_size_bytes", "physical_bytes_s") if c not in out]
    if missing:
        raise DataError("amqsrua output", "DISK/Log element missing", column=missing[0])
    out.insert(0, "series", [f"{r.put_date} {r.put_time}" for r in out.itertuples()])
    return out


def amqsrua_to_csv(text_path: str | Path, csv_path: str | Path) -> Path:
    """Convert a saved amqsrua DISK/Log output file into the nativeha_storage chapter's CSV."""
    frame = parse_amqsrua(Path(text_path).read_text(encoding="utf-8", errors="replace"))
    frame.reindex(columns=COLUMNS).to_csv(csv_path, index=False)
    return Path(csv_path)
