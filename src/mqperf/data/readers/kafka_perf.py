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


def _f(text: str) -> float:
    return float(text.replace(",", "."))


def _producer_rows(paths, derived: list) -> list:
    rows = []
    for path in map(Path, paths):
        size = None
        for no, raw in enumerate(path.read_text(encoding="utf-8-sig", errors="replace").splitlines(), start=1):
            line = raw.strip()
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
            rows.append({"run": f"{path.stem} line {no}", "records": int(n), "rate_msg_s": _f(values["nMsg.sec"]),
                         "mb_s": _f(values["MB.sec"]), "msg_bytes": mb * MB / n, "size_stated": False,
                         "series": f"{path.stem} (consumer)", "source": f"{path.name}:{no}"})
    return rows


def read(paths) -> pd.DataFrame:
    """Every producer summary line and consumer summary row in the files: one row per run."""
    derived: list = []
    producer, consumer = _producer_rows(paths, derived), _consumer_rows(paths)
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
    return with_notes(pd.DataFrame(producer + consumer), *notes)


def to_message_size(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"series": frame["series"], "msg_size_kb": frame["msg_bytes"] / 1024,
                        "rate_msg_s": frame["rate_msg_s"], "approx_mb_s": frame["mb_s"],
                        "source": frame["source"]})
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
