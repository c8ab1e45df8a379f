"""amqsevt JSON statistics (``amqsevt -o json`` and ``-o json_compact``): MQI, Queue, Channel.

Shape from ``reference-data/formats/amqsevt/FORMAT.md`` (real events from the
DataDog/integrations-core test sandbox): one JSON object per PCF statistics message, one
after another (pretty-printed, or one per line with ``json_compact``), not a JSON array.
``eventType.name`` is ``Statistics MQI``, ``Statistics Queue`` or ``Statistics Channel``;
``eventData.startDate/startTime`` and ``endDate/endTime`` (times with dots, ``21.13.46``)
bound the interval. Two-element arrays are [non-persistent, persistent]; every field is
optional. ``avgQueueTime`` is microseconds; ``"-1"`` (no gets) and huge sentinels (an idle
queue) mean "not measured" and are dropped with a note. Channel ``netTime*`` are the
network round trip in microseconds.

Feeds the statistics chapter (MQI events) and the Q Replication channel chapter (Channel
events: the measured round trip, message size, batch size and rate of each channel).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.data.readers._setup import attach, carry, command_level, names, seconds
from mqperf.errors import DataError

KINDS = {"Statistics MQI": "MQI", "Statistics Queue": "Queue", "Statistics Channel": "Channel"}
#: Above this, an avgQueueTime (µs) is the "not measured" sentinel, not a time: a year.
SENTINEL_US = 365 * 86400 * 1e6


def _time(date: str, time: str, path: Path, line: int) -> datetime:
    try:
        return datetime.strptime(f"{date} {time.replace('.', ':')}", "%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError):
        raise DataError(path.name, f"interval time not understood: {date} {time}", row=line) from None


def _events(path: Path):
    """(line, event) for each JSON object in the file, however they are laid out."""
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    decoder, pos = json.JSONDecoder(), 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            return
        line = text.count("\n", 0, pos) + 1
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise DataError(path.name, f"not complete amqsevt JSON ({exc.msg})", row=text.count("\n", 0, exc.pos) + 1) from None
        yield line, obj


def _sum(value) -> float:
    if isinstance(value, list):
        return float(sum(v for v in value if isinstance(v, (int, float))))
    return float(value) if isinstance(value, (int, float)) else np.nan


def read(paths) -> pd.DataFrame:
    """One row per statistics event and object (the MQI event is one object: the queue manager)."""
    rows, dropped, skipped = [], 0, 0
    for path in map(Path, paths):
        for line, event in _events(path):
            kind = KINDS.get(((event.get("eventType") or {}).get("name") if isinstance(event, dict) else None) or "")
            data = event.get("eventData") if isinstance(event, dict) else None
            if kind is None or not isinstance(data, dict):
                skipped += 1  # another event (configuration, accounting): not statistics
                continue
            start = _time(data.get("startDate"), data.get("startTime"), path, line)
            end = _time(data.get("endDate"), data.get("endTime"), path, line)
            base = {"kind": kind, "qmgr": data.get("queueMgrName"), "start": start.isoformat(),
                    "interval_s": (end - start).total_seconds(), "source": f"{path.name}:{line}"}
            if kind == "MQI":
                rows.append({**base, "object": data.get("queueMgrName"), "fields": data,
                             "command_level": data.get("commandLevel")})
                continue
            key, name = ("queueStatisticsData", "queueName") if kind == "Queue" else ("chlStatisticsData", "channelName")
            for item in data.get(key) or []:
                fields = dict(item)
                if "avgQueueTime" in fields:
                    times = fields["avgQueueTime"] if isinstance(fields["avgQueueTime"], list) else [fields["avgQueueTime"]]
                    clean = []
                    for t in times:
                        try:
                            value = float(t)
                        except (TypeError, ValueError):
                            value = -1.0
                        ok = 0 <= value < SENTINEL_US
                        dropped += not ok
                        clean.append(value if ok else np.nan)
                    fields["avgQueueTime"] = clean
                rows.append({**base, "object": item.get(name), "fields": fields, "command_level": data.get("commandLevel")})
    if not rows:
        raise DataError(Path(paths[0]), "no amqsevt statistics event (Statistics MQI, Queue or Channel): expected "
                                        "amqsevt -m QM -q SYSTEM.ADMIN.STATISTICS.QUEUE -o json output")
    notes = ["amqsevt intervals are end − start (startDate/startTime to endDate/endTime)"]
    if dropped:
        notes.append(f"{dropped} avgQueueTime values of -1 or a sentinel above a year (not measured) are not data")
    if skipped:
        notes.append(f"{skipped} events that are not statistics were skipped")
    frame = pd.DataFrame(rows)
    levels = frame["command_level"].dropna().unique() if "command_level" in frame else []
    attach(frame, MQ_version=", ".join(command_level(v) for v in levels),
           interval_length=seconds(frame.drop_duplicates(["qmgr", "start", "kind"])["interval_s"]),
           queue_managers=names(frame["qmgr"]), tool="amqsevt -o json (statistics events)")
    return with_notes(frame, *notes)


def _found(frame: pd.DataFrame) -> str:
    parts = [f"{kind} statistics ({n} {'event' if kind == 'MQI' else 'object'}{'s' if n != 1 else ''})"
             for kind, n in frame["kind"].value_counts().sort_index().items()]
    return "found amqsevt " + " and ".join(parts)


def to_statistics(frame: pd.DataFrame) -> pd.DataFrame:
    """MQI statistics events → the qm_statistics contract, one row per event."""
    mqi = frame[frame["kind"] == "MQI"]
    if mqi.empty:
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)}; the chapter needs MQI statistics (puts, gets, commits: ALTER QMGR STATMQI(ON))")
    rows = []
    for r in mqi.itertuples():
        f = r.fields
        persistent = [v[1] for v in (f.get("puts"), f.get("put1s")) if isinstance(v, list) and len(v) > 1]
        rows.append({"start": r.start, "interval_s": r.interval_s, "qmgr": r.qmgr,
                     "puts": _sum(f.get("puts")) + _sum(f.get("put1s", 0)),
                     "persistent_puts": float(sum(persistent)) if persistent else np.nan,
                     "gets": _sum(f.get("gets")), "commits": _sum(f.get("commits")),
                     "connects": _sum(f.get("conns")), "disconnects": _sum(f.get("discs")), "source": r.source})
    out = pd.DataFrame(rows)
    if (out["interval_s"] <= 0).any():
        bad = out[out["interval_s"] <= 0].iloc[0]
        raise DataError(bad["source"], "the statistics interval ends before it starts", column="interval_s")
    return with_notes(carry(frame, out.dropna(axis=1, how="all")), *frame.attrs.get("notes", []),
                      "amqsevt puts = puts + put1s, [non-persistent, persistent] summed; disconnects = all discs types")


def to_channels(frame: pd.DataFrame) -> pd.DataFrame:
    """Channel statistics → the qrep_channel contract: one row per channel and interval."""
    chl = frame[frame["kind"] == "Channel"]
    if chl.empty:
        raise DataError(frame["source"].iloc[0].rsplit(":", 1)[0],
                        f"{_found(frame)}; the chapter needs Channel statistics (ALTER QMGR STATCHL(MEDIUM))")
    rows, idle = [], 0
    for r in chl.itertuples():
        f = r.fields
        net = f.get("netTimeAvg")
        if not isinstance(net, (int, float)) or net <= 0:
            continue  # a channel that measured no round trip gives nothing this chapter reads
        msgs, size = _sum(f.get("msgs")), _sum(f.get("bytes"))
        row = {"series": f"{r.object} ({r.qmgr})" if r.qmgr else str(r.object), "rtt_ms": net / 1000, "source": r.source}
        if msgs > 0 and r.interval_s > 0:
            row.update(message_bytes=size / msgs, measured_mb_s=size / r.interval_s / 1e6)
            if isinstance(f.get("avgBatchSize"), (int, float)) and f["avgBatchSize"] > 0:
                row["batch_size"] = max(1, int(round(f["avgBatchSize"])))
        else:
            idle += 1
        rows.append(row)
    if not rows:
        raise DataError(chl["source"].iloc[0].rsplit(":", 1)[0],
                        "found amqsevt Channel statistics with no measured network time (netTimeAvg); "
                        "the chapter needs each channel's round trip")
    out = pd.DataFrame(rows)
    notes = ["amqsevt netTimeAvg is µs: ÷ 1000 → rtt_ms; message_bytes = bytes / msgs; "
             "measured_mb_s = bytes / interval / 10^6"]
    if idle:
        notes.append(f"{idle} channel intervals moved no messages: their round trip is data, their message size, "
                     "batch size and rate are not")
    return with_notes(carry(frame, out), *frame.attrs.get("notes", []), *notes)


def _sniff(head: str, path: Path) -> bool:
    return bool(re.search(r'"eventType"\s*:', head)) and bool(re.search(r'"name"\s*:\s*"Statistics (MQI|Queue|Channel)"', head)) \
        or bool(re.search(r'"eventType"\s*:', head) and '"eventData"' in head and '"startTime"' in head)


FORMATS = [
    Format(name="amqsevt-json", tool="amqsevt", title="amqsevt statistics JSON (-o json)",
           command="amqsevt -m QM1 -q SYSTEM.ADMIN.STATISTICS.QUEUE -o json > stats.json",
           sniff=_sniff, read=read, feeds={"qm_statistics": to_statistics, "qrep_channel": to_channels}),
]
