"""fio output for log-disk write tests in MQ's pattern: JSON and the normal text report.

From ``reference-data/formats/fio/FORMAT.md`` (IBM's job pattern, ibm-messaging/mqperf
``samp/fio/fio-jobfile`` @d6a6936c; Debian fio 3.33): one job per block size, sequential
writes with O_DIRECT, O_SYNC and an fdatasync after every write. Per job, the same table
mqldt prints, so both feed the NativeHA chapter's ``mqldt`` input:

* JSON (``--output-format=json``): ``jobs[].job options.bs``, ``write.bw_bytes`` (bytes/s;
  fio's ``bw`` is KiB/s and is not used), ``write.total_ios``, ``write.runtime`` (ms),
  ``write.lat_ns`` and ``sync.lat_ns`` (ns).
* text: the job line ``name: (g=N): rw=write, bs=(R) …, (W) 4096B-4096B``, then per job
  ``write: IOPS=…, BW=22.9MiB/s (24.0MB/s)(91.5MiB/4001msec)``, ``lat (usec): … avg=…``,
  ``sync (usec): … avg=…`` and ``issued rwts: total=0,23414,0,0``.

A write's latency is the write's plus its fdatasync's (the job syncs after every write), as
mqldt times one synchronous write; the note says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.data.readers.mqldt import COLUMNS
from mqperf.errors import DataError

LATENCY_NOTE = "fio latency per write = write lat mean + fdatasync lat mean (the job syncs after every write)"
_UNITS = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1024 ** 2, "mib": 1024 ** 2, "g": 1024 ** 3, "gib": 1024 ** 3,
          "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3}
_TIME_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3, "sec": 1e6}


def _size(text: str) -> float:
    """``4K``, ``16.0KiB``, ``4096B`` → bytes (fio's K in a job option is 1024)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]*)\s*", str(text))
    unit = (m[2].lower() if m else None)
    if unit not in _UNITS:
        raise DataError("fio output", f"block size not understood: {text!r}", column="bs")
    return float(m[1]) * _UNITS[unit]


def _job_row(name, bs, writes, runtime_s, bytes_s, lat_us, sync_us, source) -> dict:
    return {"blocksize_bytes": int(bs), "queue_managers": 1, "writes": writes, "duration_s": runtime_s,
            "avg_bytes_s": bytes_s, "avg_latency_us": lat_us + (0.0 if np.isnan(sync_us) else sync_us),
            "write_latency_us": lat_us, "sync_latency_us": sync_us, "job": name, "source": source}


def read_json(paths) -> pd.DataFrame:
    rows = []
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8-sig", errors="replace")
        start = text.find("{")  # fio may print warnings before the JSON document
        try:
            doc = json.loads(text[start:]) if start >= 0 else None
        except json.JSONDecodeError as exc:
            raise DataError(path.name, f"not complete fio JSON ({exc.msg})", row=text[:start].count("\n") + exc.lineno) from None
        if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
            raise DataError(path, "no 'jobs' list: expected fio --output-format=json output")
        for i, job in enumerate(doc["jobs"], start=1):
            write = job.get("write") or {}
            if not write.get("total_ios"):
                continue  # a job that wrote nothing (a read job, or one that failed) is not a write test
            if job.get("error"):
                raise DataError(path.name, f"fio job {job.get('jobname')!r} ended with error {job['error']}")
            bs = (job.get("job options") or {}).get("bs") or (doc.get("global options") or {}).get("bs")
            if bs is None:
                raise DataError(path.name, f"job {job.get('jobname')!r} has no bs option", column="bs")
            sync = (job.get("sync") or {}).get("lat_ns", {}).get("mean", np.nan)
            rows.append(_job_row(job.get("jobname"), _size(bs), float(write["total_ios"]), write["runtime"] / 1000,
                                 float(write["bw_bytes"]), write["lat_ns"]["mean"] / 1000,
                                 sync / 1000 if sync == sync else np.nan, f"{path.name}:job {i}"))
    if not rows:
        raise DataError(Path(paths[0]), "no fio job wrote anything: expected write tests (rw=write)")
    return with_notes(pd.DataFrame(rows), "fio JSON bw_bytes is bytes/s (fio's bw field is KiB/s and is not used)",
                      "fio JSON latencies are nanoseconds: ÷ 1000 → µs", LATENCY_NOTE)


_JOB = re.compile(r"^(?P<name>[^\s:]+): \(g=\d+\): rw=\w+, bs=\(R\) [^,]+, \(W\) (?P<bs>[\d.]+[A-Za-z]*)-")
_RESULT = re.compile(r"^(?P<name>[^\s:]+): \(groupid=\d+, jobs=\d+\): err=\s*(?P<err>\d+)")
_WRITE = re.compile(r"^\s*write: IOPS=[^,]+, BW=(?P<bw>[\d.]+)(?P<unit>[KMG]i?B)/s .*?\((?P<io>[\d.]+[KMG]?i?B)/(?P<ms>\d+)msec\)")
_LAT = re.compile(r"^\s*(?P<what>lat|sync) \((?P<unit>nsec|usec|msec|sec)\):.*?avg=\s*(?P<avg>[\d.]+)")
_ISSUED = re.compile(r"issued rwts: total=\d+,(?P<writes>\d+),")


def read_text(paths) -> pd.DataFrame:
    rows = []
    for path in map(Path, paths):
        lines = path.read_text(encoding="utf-8-sig", errors="replace").splitlines()
        sizes, job = {}, None
        for no, line in enumerate(lines, start=1):
            m = _JOB.match(line)
            if m:
                sizes[m["name"]] = _size(m["bs"])
                continue
            m = _RESULT.match(line)
            if m:
                if m["err"] != "0":
                    raise DataError(path.name, f"fio job {m['name']!r} ended with err={m['err']}", row=no)
                job = {"name": m["name"], "line": no, "lat": np.nan, "sync": np.nan}
                rows.append(job)
                continue
            if job is None:
                continue
            m = _WRITE.match(line)
            if m:
                job["bytes_s"] = float(m["bw"]) * _UNITS[m["unit"].lower()]
                job["runtime_s"] = int(m["ms"]) / 1000
                continue
            m = _LAT.match(line)
            if m:
                job["lat" if m["what"] == "lat" else "sync"] = float(m["avg"]) * _TIME_US[m["unit"]]
                continue
            m = _ISSUED.search(line)
            if m:
                job["writes"] = float(m["writes"])
        out = []
        for job in rows:
            if "bytes_s" not in job:
                raise DataError(path.name, f"job {job['name']!r} has no 'write: IOPS=..., BW=...' line", row=job["line"])
            if job["name"] not in sizes:
                raise DataError(path.name, f"job {job['name']!r}: its block size line (bs=(R) ..., (W) ...) is missing", row=job["line"])
            if np.isnan(job["lat"]):
                raise DataError(path.name, f"job {job['name']!r} has no 'lat (usec): ... avg=' line", row=job["line"])
            out.append(_job_row(job["name"], sizes[job["name"]], job.get("writes", np.nan), job["runtime_s"],
                                job["bytes_s"], job["lat"], job["sync"], f"{path.name}:{job['line']}"))
        rows = out
        if not rows:
            raise DataError(path, "no fio job result (expected 'NAME: (groupid=N, jobs=N): err= 0' sections)")
    return with_notes(pd.DataFrame(rows), "fio text BW is printed in MiB/s (three figures): × 1048576 → bytes/s",
                      "fio text latencies are converted from the unit printed (nsec, usec, msec) to µs", LATENCY_NOTE)


def _sniff_json(head: str, path: Path) -> bool:
    return '"fio version"' in head[:4000] and '"jobs"' in head


def _sniff_text(head: str, path: Path) -> bool:
    return bool(re.search(r"^fio-\d+\.\d+", head, re.M)) and bool(re.search(r"\(g(roupid)?=\d+", head))


def _to_mqldt(frame: pd.DataFrame) -> pd.DataFrame:
    return with_notes(frame[COLUMNS + ["write_latency_us", "sync_latency_us", "job", "source"]].copy(),
                      *frame.attrs.get("notes", []))


FORMATS = [
    Format(name="fio-json", tool="fio", title="fio JSON output (--output-format=json)",
           command="fio --output-format=json mqlog.fio > fio.json", sniff=_sniff_json, read=read_json,
           feeds={"nativeha_storage.mqldt": _to_mqldt}),
    Format(name="fio-text", tool="fio", title="fio text output",
           command="fio mqlog.fio > fio.txt", sniff=_sniff_text, read=read_text,
           feeds={"nativeha_storage.mqldt": _to_mqldt}),
]
