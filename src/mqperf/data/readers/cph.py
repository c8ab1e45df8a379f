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

Units are carried, not renamed: cphtestp's rate is round trips per second (a request and its
reply), cph's is iterations per second of its test class (round trips for ``Requester``,
messages for ``Sender``/``Putter``), and its output does not say which. The task-scaling
chapter's rows keep the unit in the series name (``persistent 2048 bytes, round trips/s``) as
well as in a conversion note, so every table, chart and sentence says it. cphtestp also feeds
the request/reply chapter, whose rate is requests answered per second: the same unit. It has no
response time; a requester keeps one request outstanding and does not pause, so the response
time is threads / rate (Little's law, no think time), said in a note: the chapter's Little's-law
check then holds by construction for these rows.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.data.readers._setup import attach, carry, seconds
from mqperf.errors import DataError

_RATE = re.compile(r"^(?:id=(?P<id>\d+),)?(?:.*\)\s*)?rate=(?P<rate>-?\d+(?:\.\d+)?),threads=(?P<threads>\d+)\s*$")
_TOTAL = re.compile(r"^(?:id=(?P<id>\d+),)?totalIterations=(?P<n>\d+),totalSeconds=(?P<s>\d+(?:\.\d+)?),"
                    r"avgRate=(?P<avg>\d+(?:\.\d+)?)\s*$")
CPHTESTP_HEADER = "# Persistence, Msg Size, Threads, Rate (RT/s)"
#: The unit of each format's rate, as series names and notes carry it.
RT_UNIT, ITERATIONS_UNIT = "round trips/s", "cph iterations/s"


def read_raw(paths) -> pd.DataFrame:
    rows, from_intervals, lengths = [], 0, []
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
            lengths += [sec for _, sec, _ in totals.values()]
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
    notes = ["cph: a run's rate is its avgRate (summed over processes); tasks = threads (summed over processes)",
             f"cph rates are iterations per second of the test class (-tc): round trips for Requester, messages for "
             f"Sender or Putter; the output does not say which, so the series names say '{ITERATIONS_UNIT}'"]
    if from_intervals:
        notes.append(f"{from_intervals} cph runs have no totalIterations line: rate = mean of the interval rates after "
                     "the first (ramp-up) interval")
    frame = pd.DataFrame(rows).assign(rate_unit=ITERATIONS_UNIT)
    attach(frame, tool="cph", run_length=seconds(lengths))
    return with_notes(frame, *notes)


def read_cphtestp(paths) -> pd.DataFrame:
    rows, ciphers, dates = [], [], []
    for path in map(Path, paths):
        header = None
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
            if line.lower().startswith("# tls cipher:"):
                ciphers.append(line.split(":", 1)[1].strip())
                continue
            if re.match(r"^#\s*\w{3} \w{3} +\d+ [\d:]+ \w+ \d{4}\s*$", line):
                dates.append(line.lstrip("#").strip())
                continue
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
                         "rate_msg_s": rate, "rate_unit": RT_UNIT, "message_bytes": size,
                         "qm_cpu_pct": float(values["QM CPU"]) if values.get("QM CPU") else np.nan,
                         "source": f"{path.name}:{no}"})
    if not rows:
        raise DataError(Path(paths[0]), f"no cphtestp result row after the '{CPHTESTP_HEADER}, ...' header")
    frame = pd.DataFrame(rows)
    attach(frame, tool="cphtestp (results.csv)", TLS_cipher=", ".join(dict.fromkeys(ciphers)),
           run_started=", ".join(dict.fromkeys(dates)))
    return with_notes(frame, f"cphtestp Rate is round trips per second (a request and its reply), not messages: "
                             f"series = persistence and message size, with '{RT_UNIT}'")


def _scaling(frame: pd.DataFrame) -> pd.DataFrame:
    """Threads against rate, the rate's unit kept in the series name (the chapter's column says msg/s)."""
    out = frame[["series", "tasks", "rate_msg_s", "source"]].copy()
    out["series"] = out["series"].astype(str) + ", " + frame["rate_unit"].astype(str)
    return with_notes(carry(frame, out), "the task-scaling chapter's rate_msg_s holds these rates as they are, in the "
                                         "unit the series name gives")


def _request_reply(frame: pd.DataFrame) -> pd.DataFrame:
    """cphtestp rows as closed-loop measurements: clients = threads, requests/s = round trips/s."""
    out = pd.DataFrame({"series": frame["series"], "clients": frame["tasks"], "rate_msg_s": frame["rate_msg_s"],
                        "response_time_ms": 1e3 * frame["tasks"] / frame["rate_msg_s"], "think_time_ms": 0.0,
                        "source": frame["source"]})
    return with_notes(carry(frame, out), *frame.attrs.get("notes", []),
                      "cphtestp gives no response time: response_time_ms = 1000 × threads / rate (Little's law: each "
                      "requester keeps one request outstanding and does not pause), so the Little's-law check holds "
                      "by construction for these rows")


def _sniff_raw(head: str, path: Path) -> bool:
    lines = [line.strip() for line in head.splitlines()[:2000] if line.strip()]
    hits = sum(bool(_RATE.match(line) or _TOTAL.match(line)) for line in lines)
    return hits >= 1 and hits >= len(lines) // 4


def _sniff_cphtestp(head: str, path: Path) -> bool:
    return bool(re.search(r"^" + re.escape(CPHTESTP_HEADER), head, re.M))


FORMATS = [
    Format(name="cphtestp-results", tool="cphtestp", title="cphtestp / jmstestp results.csv",
           command="docker run ... cphtestp   # the container writes results.csv", sniff=_sniff_cphtestp, read=read_cphtestp,
           feeds={"kafka_task_scaling": _scaling, "request_reply": _request_reply}),
    Format(name="cph-raw", tool="cph", title="cph output (rate=…,threads=… lines)",
           command="cph -vo 3 -nt 8 -ss 10 -rl 300 -tc Requester ... > cph-8threads.txt   # one file per thread count",
           sniff=_sniff_raw, read=read_raw, feeds={"kafka_task_scaling": _scaling}),
]
