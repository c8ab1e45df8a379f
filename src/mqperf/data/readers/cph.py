"""IBM MQ-CPH raw output and cphtestp / jmstestp ``results.csv``: threads against rate.

From ``reference-data/formats/cph/FORMAT.md``: cph prints, every ``-ss`` seconds,
``rate=%.2f,threads=%u`` (``id=N,`` first with ``-id``; per-thread counts in parentheses,
tab-separated, before ``rate=`` with ``-sp``), and at the end
``totalIterations=%u,totalSeconds=%.2f,avgRate=%.2f``. No public raw sample exists, so the
tests write lines in these printf formats. One file is one run at one thread count; several
files are a sweep. A run's rate is its ``avgRate`` (summed over processes when several
``id=`` processes wrote into one file, as IBM's runcph_agg.py adds them); without a total
line, the mean of the interval rates after the first (ramp-up) interval, and the note says so.

cphtestp writes ``results.csv``: ``# CSV Results`` comments, the header comment
``# Persistence, Msg Size, Threads, Rate (RT/s), Client CPU, IO Read (MB/s), IO Write (MB/s),
Net Recv (Gb/s), Net Send (Gb/s), QM CPU`` and one row per message size and requester count;
per persistence and size, threads → rate (round trips per second) is a scalability curve.
Both feed the task-scaling chapter.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.errors import DataError

_RATE = re.compile(r"^(?:id=(?P<id>\d+),)?(?:.*\)\s*)?rate=(?P<rate>-?\d+(?:\.\d+)?),threads=(?P<threads>\d+)\s*$")
_TOTAL = re.compile(r"^(?:id=(?P<id>\d+),)?totalIterations=(?P<n>\d+),totalSeconds=(?P<s>\d+(?:\.\d+)?),"
                    r"avgRate=(?P<avg>\d+(?:\.\d+)?)\s*$")
CPHTESTP_HEADER = "# Persistence, Msg Size, Threads, Rate (RT/s)"


def read_raw(paths) -> pd.DataFrame:
    rows, from_intervals = [], 0
    for path in map(Path, paths):
        intervals, totals = {}, {}
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
            m = _RATE.match(line)
            if m:
                intervals.setdefault(m["id"] or "0", []).append((float(m["rate"]), int(m["threads"]), no))
                continue
            m = _TOTAL.match(line)
            if m:
                totals[m["id"] or str(len(totals))] = (float(m["avg"]), float(m["s"]), no)
        if not intervals and not totals:
            raise DataError(path, "no cph result line (rate=...,threads=... or totalIterations=...,avgRate=...)")
        threads = sum(max(t for _, t, _ in v) for v in intervals.values()) if intervals else np.nan
        if totals:
            rate = sum(a for a, _, _ in totals.values())
            line_no = min(n for _, _, n in totals.values())
        else:
            from_intervals += 1
            rate = sum(np.mean([r for r, _, _ in v[1:]] if len(v) > 1 else [v[0][0]]) for v in intervals.values())
            line_no = min(v[0][2] for v in intervals.values())
        if not threads == threads:
            raise DataError(path.name, "the thread count is unknown: the file has no 'rate=...,threads=...' line", row=line_no)
        rows.append({"series": path.parent.name if len(paths) > 1 and path.parent.name else path.stem,
                     "tasks": int(threads), "rate_msg_s": rate, "processes": max(len(intervals), len(totals)),
                     "source": f"{path.name}:{line_no}"})
    notes = ["cph: a run's rate is its avgRate (summed over processes); tasks = threads (summed over processes)"]
    if from_intervals:
        notes.append(f"{from_intervals} cph runs have no totalIterations line: rate = mean of the interval rates after "
                     "the first (ramp-up) interval")
    return with_notes(pd.DataFrame(rows), *notes)


def read_cphtestp(paths) -> pd.DataFrame:
    rows = []
    for path in map(Path, paths):
        header = None
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
            if line.startswith(CPHTESTP_HEADER):
                header = [h.strip() for h in line.lstrip("#").split(",")]
                continue
            if header is None or not line or line.startswith(("#", "---")):
                continue
            cells = [c.strip() for c in line.split(",")]
            if len(cells) != len(header):
                if re.match(r"^\d", line):
                    raise DataError(path.name, f"the row has {len(cells)} values but the header names {len(header)}", row=no)
                continue
            values = dict(zip(header, cells))
            try:
                persistent, size = int(values["Persistence"]), int(values["Msg Size"])
                threads, rate = int(values["Threads"]), float(values["Rate (RT/s)"])
            except ValueError:
                raise DataError(path.name, "a value is not a number", row=no) from None
            rows.append({"series": f"{'persistent' if persistent else 'non-persistent'} {size} bytes", "tasks": threads,
                         "rate_msg_s": rate, "message_bytes": size,
                         "qm_cpu_pct": float(values["QM CPU"]) if values.get("QM CPU") else np.nan,
                         "source": f"{path.name}:{no}"})
    if not rows:
        raise DataError(Path(paths[0]), f"no cphtestp result row after the '{CPHTESTP_HEADER}, ...' header")
    return with_notes(pd.DataFrame(rows), "cphtestp Rate is round trips per second (request and reply): the chapter's "
                                          "rate_msg_s here counts round trips; series = persistence and message size")


def _scaling(frame: pd.DataFrame) -> pd.DataFrame:
    return with_notes(frame[["series", "tasks", "rate_msg_s", "source"]].copy(), *frame.attrs.get("notes", []))


def _sniff_raw(head: str, path: Path) -> bool:
    lines = [line.strip() for line in head.splitlines()[:2000] if line.strip()]
    hits = sum(bool(_RATE.match(line) or _TOTAL.match(line)) for line in lines)
    return hits >= 1 and hits >= len(lines) // 4


def _sniff_cphtestp(head: str, path: Path) -> bool:
    return bool(re.search(r"^" + re.escape(CPHTESTP_HEADER), head, re.M))


FORMATS = [
    Format(name="cphtestp-results", tool="cphtestp", title="cphtestp / jmstestp results.csv",
           command="docker run ... cphtestp   # the container writes results.csv", sniff=_sniff_cphtestp, read=read_cphtestp,
           feeds={"kafka_task_scaling": _scaling}),
    Format(name="cph-raw", tool="cph", title="cph output (rate=…,threads=… lines)",
           command="cph -vo 3 -nt 8 -ss 10 -rl 300 -tc Requester ... > cph-8threads.txt   # one file per thread count",
           sniff=_sniff_raw, read=read_raw, feeds={"kafka_task_scaling": _scaling}),
]
