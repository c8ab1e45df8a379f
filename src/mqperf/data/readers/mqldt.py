"""mqldt (IBM MQ log disk tester) output: the stdout report and the ``--csvFile`` CSV.

Grammar and units from ``reference-data/formats/mqldt/FORMAT.md`` (ibm-messaging/mqldt
@86775176 and mqldt-c @8086f337):

* text report: an ``Options`` block (``--duration``, ``--qm``), then per block size an
  ``Executing test for write blocksize N bytes`` line (older: ``N (128k)``) and
  ``label : value`` lines. Values are printed with ``%'15li``, so under a locale with
  thousands separators (en_US ``29,455``, de_DE ``29.455``) they carry grouping characters;
  every value is a whole number, so every non-digit is dropped. ``(#N)`` after a latency is
  the ordinal of that write, not data.
* CSV: a ``Blocksize,...`` header and one row per block size, plain integers; in multi-QM
  append mode each run adds a ``Running MQLDT over N Queue Managers`` banner and a header
  whose rate column reads "... by all queue managers". Historic headers (2017) lack the
  interval suffix or ``Total writes to files``.

Latencies are nanoseconds (→ µs, a note). Both feed the NativeHA chapter's ``mqldt`` input
(:data:`COLUMNS`). ``queue_managers`` is how many writers ran at once (``--qm``; a multi-QM
row's bandwidth is all of them together, its latency the mean of their averages), so the
chapter's bound is that many times block size / latency. What the files state (the options
block: block sizes, duration, files and their size, queue managers; mqldt prints no version) is
``frame.attrs["setup"]``, which "How this report was made" shows.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.errors import DataError

COLUMNS = ["blocksize_bytes", "queue_managers", "writes", "duration_s", "avg_bytes_s", "avg_latency_us"]
NS_NOTE = "mqldt latencies are nanoseconds: ÷ 1000 → µs"

_SECTION = re.compile(r"Executing test for write blocksize (\d+)")
_LINE = re.compile(r"^(?P<label>[A-Za-z][^:]*?)\s*:\s*(?P<value>\d[\d,.' \u00a0\u202f]*?)(?:\s+\(#[^)]*\))?\s*$")
_OPTION = re.compile(r"\(--(?P<opt>\w+)\)\s*:\s*(?P<value>.*?)\s*$")
_BANNER = re.compile(r"Running MQLDT over (\d+) Queue Managers")
_SIMULATION = re.compile(r"Running simulation of (\d+) Queue Managers")


def _whole(text: str, path: Path, line: int, label: str) -> float:
    digits = re.sub(r"\D", "", text)
    if not digits:
        raise DataError(path.name, "value is not a number", column=label, row=line)
    return float(digits)


def _text(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8-sig").replace("\b", "").splitlines()
    except UnicodeDecodeError:
        raise DataError(path, "not UTF-8 text: expected mqldt's output") from None


def _row(values: dict, block: int, qms: int, duration: float, source: str, path: Path, line: int) -> dict:
    rate = next((v for k, v in values.items() if k.startswith("Avg bytes/sec written to files")), None)
    for need, have in (("Avg latency of write (ns)", values.get("Avg latency of write (ns)")),
                       ("Avg bytes/sec written to files", rate)):
        if have is None:
            raise DataError(path.name, "required mqldt value is missing", column=need, row=line)
    row = {"blocksize_bytes": block, "queue_managers": qms, "writes": values.get("Total writes to files", np.nan),
           "duration_s": duration, "avg_bytes_s": rate, "avg_latency_us": values["Avg latency of write (ns)"] / 1000,
           "max_latency_us": values.get("Max latency of write (ns)", np.nan) / 1000,
           "min_latency_us": values.get("Min latency of write (ns)", np.nan) / 1000, "source": source}
    if not row["avg_latency_us"] > 0:
        raise DataError(path.name, "average latency must be greater than zero", column="Avg latency of write (ns)", row=line)
    if block <= 0:
        raise DataError(path.name, "block size must be greater than zero", column="Blocksize", row=line)
    return row


def _sizes(bsize: str) -> list[int]:
    """``--bsize`` as typed (``5K,9K,128K``) → bytes, in order (mqldt's K is 1024)."""
    out = []
    for part in bsize.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*([KkMm]?)\s*", part)
        if m:
            out.append(int(m[1]) * {"": 1, "k": 1024, "m": 1024 * 1024}[m[2].lower()])
    return out


#: Options of the text report's "Options" block the setup names, and their words.
_SETUP_OPTIONS = {"duration": "test duration (--duration, s)",
                  "numFiles": "files (--numFiles)", "fileSize": "file size (--fileSize, bytes)",
                  "qm": "queue managers (--qm)", "delay": "delay between writes (--delay, µs)",
                  "alignment": "record alignment (--alignment)", "backgroundThreads": "background threads"}


def _setup(frame: pd.DataFrame, options: list[dict]) -> dict:
    setup = {"tool": "mqldt (its output states no version)",
             "block sizes": ", ".join(f"{int(b):,} bytes" for b in sorted(set(frame["blocksize_bytes"])))}
    for key, words in _SETUP_OPTIONS.items():
        values = [o[key] for o in options if o.get(key)]
        if values:
            setup[words] = ", ".join(dict.fromkeys(str(v) for v in values))
    qms = sorted(set(int(q) for q in frame["queue_managers"]))
    if qms != [1]:
        setup["queue managers"] = ", ".join(map(str, qms))
    return setup


def _qm_note(frame: pd.DataFrame) -> list[str]:
    if (frame["queue_managers"] > 1).any():
        return ["mqldt multi-QM rows (--qm N) are N writers at once: bytes/s is all of them together, latency the "
                "mean of their averages (queue_managers)"]
    return []


def read_text(paths) -> pd.DataFrame:
    """mqldt's stdout report(s): one row per block size (multi-QM: one combined row per run).

    A block size is taken from its ``Executing test for write blocksize`` line when the
    capture has stderr too, else from the ``--bsize`` list in order (stdout alone).
    """
    rows, runs = [], []
    for path in map(Path, paths):
        run = {"options": {}, "qms": 1, "index": 0}
        runs.append(run)
        section = {"block": None, "line": 0, "values": {}}
        pending = None
        before = len(rows)

        def close():
            if section["block"] is not None and section["values"]:
                duration = run["options"].get("duration")
                rows.append(_row(section["values"], section["block"], run["qms"],
                                 float(duration) if duration else np.nan,
                                 f"{path.name}:{section['line']}", path, section["line"]))
            section.update(block=None, values={})

        for no, line in enumerate(_text(path), start=1):
            text = line.strip()
            if text.startswith("Options (specified"):
                close()
                run = {"options": {}, "qms": 1, "index": 0}
                runs.append(run)
                continue
            opt = _OPTION.search(text)
            if opt and section["block"] is None and not text.startswith(("Total", "Max", "Min", "Avg", "IOPS")):
                run["options"][opt["opt"]] = opt["value"]
                if opt["opt"] == "qm":
                    run["qms"] = int(re.sub(r"\D", "", opt["value"]) or 1)
                continue
            sim = _SIMULATION.search(text)
            if sim:
                run["qms"] = int(sim[1])
            sec = _SECTION.search(text)
            if sec:
                close()
                pending = int(sec[1])
            m = _LINE.match(text)
            if not m:
                continue
            label = m["label"].strip()
            if label == "Total writes to files":
                close()
                sizes = _sizes(run["options"].get("bsize", ""))
                block = pending if pending is not None else (sizes[run["index"]] if run["index"] < len(sizes) else None)
                if block is None:
                    raise DataError(path.name, "block size unknown: no 'Executing test for write blocksize' line and "
                                               "no --bsize option for this result", row=no)
                section.update(block=block, line=no, values={})
                run["index"] += 1
                pending = None
            if section["block"] is not None:
                section["values"][label] = _whole(m["value"], path, no, label)
        close()
        if len(rows) == before:
            raise DataError(path, "no mqldt result (expected 'Total writes to files' and the figures after it)")
    frame = pd.DataFrame(rows)
    frame.attrs["setup"] = _setup(frame, [r["options"] for r in runs])
    return with_notes(frame, NS_NOTE, *_qm_note(frame))


def read_csv(paths) -> pd.DataFrame:
    """mqldt ``--csvFile`` output(s), single or multi-QM sections, current or historic headers."""
    rows = []
    for path in map(Path, paths):
        header, qms, found = None, 1, False
        for no, line in enumerate(_text(path), start=1):
            text = line.strip()
            banner = _BANNER.match(text)
            if banner:
                qms = int(banner[1])
                continue
            if text.startswith("Blocksize,"):
                header = next(csv.reader([text]))
                continue
            if not text:
                continue
            if header is None:
                raise DataError(path.name, "no mqldt header line (expected 'Blocksize,...' from mqldt --csvFile)", row=no)
            cells = next(csv.reader(io.StringIO(text)))
            if len(cells) != len(header):
                raise DataError(path.name, f"the row has {len(cells)} values but the header names {len(header)} columns", row=no)
            values = {h: _whole(c, path, no, h) for h, c in zip(header, cells)}
            block = int(values.pop("Blocksize"))
            rows.append(_row(values, block, qms, np.nan, f"{path.name}:{no}", path, no))
            found = True
        if not found:
            raise DataError(path, "no mqldt result rows")
    frame = pd.DataFrame(rows)
    frame.attrs["setup"] = _setup(frame, [])
    frame.attrs["setup"]["test duration"] = "not stated (mqldt's CSV has none)"
    return with_notes(frame, NS_NOTE, "mqldt's CSV has no test duration, so writes per second are not derived from it",
                      *_qm_note(frame))


def read_mqldt_csv(path: str | Path) -> pd.DataFrame:
    """One ``--csvFile`` output in the NativeHA chapter's ``mqldt`` shape (:data:`COLUMNS`)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found" if not path.exists() else "not a file")
    return read_csv([path])[COLUMNS]


def _sniff_text(head: str, path: Path) -> bool:
    clean = head.replace("\b", "")
    return bool(re.search(r"^Executing test for write blocksize \d+", clean, re.M)
                or re.search(r"^Options \(specified or defaulted to\)\s*$", clean, re.M))


def _sniff_csv(head: str, path: Path) -> bool:
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    return (first.startswith("Blocksize,") and "latency of write (ns)" in first) or bool(_BANNER.match(first))


def _to_mqldt(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


FORMATS = [
    Format(name="mqldt-text", tool="mqldt", title="mqldt text report",
           command="mqldt --dir=/var/mqm/log/QM1 --bsize=4K,16K,64K,128K --duration=60 > mqldt.txt",
           sniff=_sniff_text, read=read_text, feeds={"nativeha_storage.mqldt": _to_mqldt, "log_disk": _to_mqldt}),
    Format(name="mqldt-csv", tool="mqldt", title="mqldt --csvFile CSV",
           command="mqldt --dir=/var/mqm/log/QM1 --bsize=4K,16K,64K,128K --duration=60 --csvFile=mqldt.csv",
           sniff=_sniff_csv, read=read_csv, feeds={"nativeha_storage.mqldt": _to_mqldt, "log_disk": _to_mqldt}),
]
