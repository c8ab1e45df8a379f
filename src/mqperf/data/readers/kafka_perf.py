"""kafka-producer-perf-test and kafka-consumer-perf-test output: one run per summary.

Grammar from ``reference-data/formats/kafka/FORMAT.md`` (Apache Kafka's ProducerPerformance
and ConsumerPerformance): the producer prints a window line every 5 s and one final summary,
``N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P ms 50th,
… 99.9th.``; only the summary is a run's result (window lines are progress). The consumer
prints a ``start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg,
nMsg.sec, …`` header and one row per run (``--show-detailed-stats``: one row per reporting
interval, which is progress too). Java formats numbers in the JVM's locale, so a decimal comma
(``1,081198 records/sec``) is read as a decimal point. MB is 2^20 bytes.

A run's message size is the ``--record-size`` the output states (an echoed command, or a
``record-size: N`` label before the runs), else derived from the tool's own figures:
MB/sec × 2^20 ÷ records/sec (the note gives the precision the printed MB/sec allows).
Feeds the message-size chapter; perf-test output does not say how many producers ran, so it
does not feed the task-scaling chapter.

``attrs["setup"]`` records what the files state about the runs: the tools, the Kafka client
version (``app-info:version`` of ``--print-metrics``), each run's length (consumer: end.time −
start.time; producer: records ÷ records/sec, its summary covering the whole run) and the
producer settings an echoed command line gives (``acks``, ``batch.size``, ``linger.ms``,
``compression.type``, ``--throughput``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.errors import DataError

MB = 1024 * 1024
_NUM = r"[\d]+(?:[.,]\d+)?"
_SUMMARY = re.compile(rf"^(?P<n>\d+)(?P<steady> steady state)? records sent, (?P<rate>{_NUM}) records/sec "
                      rf"\((?P<mb>{_NUM}) MB/sec\), (?P<avg>{_NUM}) ms avg latency, (?P<max>{_NUM}) ms max latency, "
                      r"(?P<p50>\d+) ms 50th, (?P<p95>\d+) ms 95th, (?P<p99>\d+) ms 99th, (?P<p999>\d+) ms 99\.9th\.?\s*$")
_SIZE = re.compile(r"(?:--record-size[ =]|record-size:\s*)(?P<size>\d+)")
_CONSUMER_HEAD = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec"
_VERSION = re.compile(r"^app-info:version:\{[^}]*\}\s*:\s*(?P<version>\S+)")
_SETTING = re.compile(r"(?<![\w.])(?P<key>acks|batch\.size|linger\.ms|compression\.type)=(?P<value>[\w.-]+)")
_THROUGHPUT = re.compile(r"--throughput[ =](?P<value>-?\d+)")


def _f(text: str) -> float:
    return float(text.replace(",", "."))


def _producer_rows(paths, derived: list, stated: dict) -> list:
    rows = []
    for path in map(Path, paths):
        size = None
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
            _state(line, stated)
            m = _SIZE.search(line)
            if m and not _SUMMARY.match(line):
                size = int(m["size"])
                continue
            m = _SUMMARY.match(line)
            if not m:
                continue
            rate, mb = _f(m["rate"]), _f(m["mb"])
            if size is None:
                if rate <= 0 or mb <= 0:
                    raise DataError(path.name, "the message size is not stated and cannot be derived "
                                               "(records/sec or MB/sec is 0)", row=no)
                est = mb * MB / rate
                derived.append(0.005 / mb)  # half the last printed digit of MB/sec, relative
            rows.append({"run": f"{path.stem} line {no}", "records": int(m["n"]), "rate_msg_s": rate,
                         "mb_s": mb, "msg_bytes": float(size) if size is not None else est,
                         "size_stated": size is not None, "avg_latency_ms": _f(m["avg"]),
                         "max_latency_ms": _f(m["max"]), "p99_ms": float(m["p99"]),
                         "steady_state": bool(m["steady"]), "series": path.stem, "source": f"{path.name}:{no}"})
    return rows


def _state(line: str, stated: dict) -> None:
    """What a line states about the setup: the client version, or settings an echoed command gives."""
    m = _VERSION.match(line)
    if m:
        stated.setdefault("versions", []).append(m["version"])
        return
    if "perf-test" in line or "--producer-props" in line:
        for m in _SETTING.finditer(line):
            stated.setdefault("settings", {}).setdefault(m["key"], set()).add(m["value"])
        m = _THROUGHPUT.search(line)
        if m:
            stated.setdefault("settings", {}).setdefault("--throughput", set()).add(m["value"])


def _seconds(text: str):
    """A consumer time stamp (yyyy-MM-dd HH:mm:ss:SSS) in seconds, or None."""
    from datetime import datetime

    try:
        return datetime.strptime(text.strip(), "%Y-%m-%d %H:%M:%S:%f").timestamp()
    except ValueError:
        return None


def _span(values) -> str:
    vals = sorted(v for v in values if v is not None and v > 0)
    if not vals:
        return ""
    fmt = lambda v: f"{v:,.3g} s" if v < 100 else f"{v:,.0f} s"  # noqa: E731
    return fmt(vals[0]) if fmt(vals[0]) == fmt(vals[-1]) else f"{fmt(vals[0])} to {fmt(vals[-1])}"


def setup(producer: list, consumer: list, stated: dict) -> dict:
    """What the files state about the runs, for "How this report was made"."""
    out = {}
    tools = [t for t, rows in (("kafka-producer-perf-test", producer), ("kafka-consumer-perf-test", consumer)) if rows]
    out["tool"] = " and ".join(f"{t} ({len(r):,} run{'s' * (len(r) != 1)})" for t, r in
                               zip(tools, [r for r in (producer, consumer) if r]))
    if stated.get("versions"):
        out["Kafka client version"] = ", ".join(dict.fromkeys(stated["versions"]))
    parts = []
    if producer:
        span = _span(r["records"] / r["rate_msg_s"] if r["rate_msg_s"] > 0 else None for r in producer)
        parts.append(f"producer summaries cover whole runs of {span} (records ÷ records/sec; the 5-second window "
                     "lines are progress)" if span else "producer summaries cover whole runs")
    if consumer:
        span = _span(r.get("run_s") for r in consumer)
        parts.append(f"consumer runs of {span} (end.time − start.time)" if span else "consumer summaries cover "
                                                                                      "whole runs")
    out["interval length"] = "; ".join(parts)
    if stated.get("settings"):
        out["producer settings"] = ", ".join(f"{k} {'/'.join(sorted(v))}" for k, v in stated["settings"].items())
    return out


def _consumer_rows(paths) -> list:
    rows = []
    for path in map(Path, paths):
        header = None
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
            if line.startswith(("start.time,", "time,")):
                header = [h.strip() for h in line.split(", ")]
                continue
            if header is None or not re.match(r"^\d{4}-\d{2}-\d{2} ", line):
                continue
            cells = [c.strip() for c in line.split(", ")]
            if len(cells) != len(header):
                raise DataError(path.name, f"the row has {len(cells)} values but the header names {len(header)}", row=no)
            values = dict(zip(header, cells))
            if header[0] == "time" or not re.match(r"^\d{4}-\d{2}-\d{2} ", values.get("end.time", "")):
                continue  # --show-detailed-stats rows (a thread id, not an end time) are progress, not a run
            mb, n = _f(values["data.consumed.in.MB"]), _f(values["data.consumed.in.nMsg"])
            if n <= 0:
                continue
            start, end = _seconds(values["start.time"]), _seconds(values["end.time"])
            rows.append({"run": f"{path.stem} line {no}", "records": int(n), "rate_msg_s": _f(values["nMsg.sec"]),
                         "mb_s": _f(values["MB.sec"]), "msg_bytes": mb * MB / n, "size_stated": False,
                         "run_s": end - start if start is not None and end is not None else None,
                         "series": f"{path.stem} (consumer)", "source": f"{path.name}:{no}"})
    return rows


def read(paths) -> pd.DataFrame:
    """Every producer summary line and consumer summary row in the files: one row per run."""
    derived: list = []
    stated: dict = {}
    producer, consumer = _producer_rows(paths, derived, stated), _consumer_rows(paths)
    if not producer and not consumer:
        raise DataError(Path(paths[0]), "no perf-test result: no producer summary line ('N records sent, ... ms 99.9th.') "
                                        "and no consumer summary row ('start.time, end.time, ...'); window lines and "
                                        "--show-detailed-stats rows are progress, not runs")
    notes = ["Kafka perf-test MB is 2^20 bytes; only summary lines are runs (window and detailed-stats lines are progress)"]
    if derived:
        notes.append(f"{len(derived)} producer runs state no --record-size: message size = MB/sec × 2^20 ÷ records/sec, "
                     f"within ±{100 * max(derived):.2g} % from the printed MB/sec")
    if consumer:
        notes.append("Kafka consumer message size = data.consumed.in.MB × 2^20 ÷ data.consumed.in.nMsg (key and value)")
    frame = pd.DataFrame(producer + consumer)
    frame.attrs["setup"] = setup(producer, consumer, stated)
    return with_notes(frame, *notes)


def to_message_size(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"series": frame["series"], "msg_size_kb": frame["msg_bytes"] / 1024,
                        "rate_msg_s": frame["rate_msg_s"], "approx_mb_s": frame["mb_s"],
                        "source": frame["source"]})
    out.attrs["setup"] = dict(frame.attrs.get("setup", {}))
    return with_notes(out, *frame.attrs.get("notes", []), "msg_size_kb = bytes / 1024; approx_mb_s is the MB/sec the tool printed (MB = 1024 KB)")


def _sniff(head: str, path: Path) -> bool:
    return bool(re.search(r"^\d+( steady state)? records sent, [\d.,]+ records/sec \([\d.,]+ MB/sec\)", head, re.M)) \
        or bool(re.search(r"^(start\.time, end\.time|time, threadId), data\.consumed\.in\.MB", head, re.M))


FORMATS = [
    Format(name="kafka-perf-test", tool="Kafka perf-test",
           title="kafka-producer-perf-test / kafka-consumer-perf-test output",
           command="kafka-producer-perf-test.sh --topic T --num-records 1000000 --record-size 1024 "
                   "--throughput -1 --producer-props bootstrap.servers=HOST:9092 > run-1k.txt",
           sniff=_sniff, read=read, feeds={"kafka_message_size": to_message_size}),
]
