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

Concurrency. A job with ``numjobs=N`` runs N clones writing at once. With ``group_reporting``
fio reports them as one job (JSON: one ``jobs[]`` entry per job section; text: ``jobs=N`` in the
result line): its bandwidth is the N writers' together and its latency the mean per write, so
the row is N concurrent writers (``queue_managers`` = N, mqldt's ``--qm``). Without it each clone
is its own entry (one writer each). An asynchronous engine (libaio, io_uring, posixaio) with
``iodepth`` D keeps up to D writes in flight per clone: N·D at once. Both are said in a note, and
what the job states (fio version, block sizes, runtime, numjobs, iodepth, engine, O_DIRECT,
O_SYNC, fdatasync) is ``frame.attrs["setup"]``, which "How this report was made" shows.
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


#: Engines that keep several writes in flight per job (iodepth counts); the others write one at a time.
ASYNC_ENGINES = ("libaio", "io_uring", "posixaio", "windowsaio", "solarisaio")


def _job_row(name, bs, writes, runtime_s, bytes_s, lat_us, sync_us, source, writers: int = 1) -> dict:
    return {"blocksize_bytes": int(bs), "queue_managers": int(writers), "writes": writes, "duration_s": runtime_s,
            "avg_bytes_s": bytes_s, "avg_latency_us": lat_us + (0.0 if np.isnan(sync_us) else sync_us),
            "write_latency_us": lat_us, "sync_latency_us": sync_us, "job": name, "source": source}


def _int(value, default: int = 1) -> int:
    try:
        return max(int(float(str(value).strip())), 1)
    except (TypeError, ValueError):
        return default


def _depth(engine: str | None, iodepth) -> int:
    """Writes in flight per clone: iodepth for an asynchronous engine, else one."""
    return _int(iodepth) if (engine or "").strip() in ASYNC_ENGINES else 1


def _concurrency_notes(frame: pd.DataFrame) -> list[str]:
    many = frame[frame["queue_managers"] > 1]
    if many.empty:
        return []
    counts = sorted(set(int(v) for v in many["queue_managers"]))
    return [f"fio jobs with several writers at once (numjobs, or iodepth on an asynchronous engine, reported together): "
            f"each such row is {', '.join(map(str, counts))} concurrent writers (queue_managers), so its bound is that "
            "many times block size / latency"]


def _setup(version, options: list[dict], sizes, runtimes) -> dict:
    """What the job states, for "How this report was made"."""
    def one(key):
        values = sorted({str(o[key]) for o in options if o.get(key) not in (None, "")})
        return ", ".join(values) if values else None

    setup = {"tool": f"fio {str(version).removeprefix('fio-')}" if version else "fio (version not stated)",
             "block sizes": ", ".join(f"{int(b):,} bytes" for b in sorted(set(sizes))),
             "test duration": ", ".join(sorted({f"{r:g} s" for r in runtimes if r == r})) or None,
             "numjobs": one("numjobs") or "1", "iodepth": one("iodepth"), "ioengine": one("ioengine"),
             "direct (O_DIRECT)": one("direct"), "sync (O_SYNC)": one("sync"), "fdatasync": one("fdatasync"),
             "files": one("nrfiles"), "file size": one("filesize")}
    return {k: v for k, v in setup.items() if v}


def read_json(paths) -> pd.DataFrame:
    rows, options, version = [], [], None
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8-sig", errors="replace")
        start = text.find("{")  # fio may print warnings before the JSON document
        try:
            doc = json.loads(text[start:]) if start >= 0 else None
        except json.JSONDecodeError as exc:
            raise DataError(path.name, f"not complete fio JSON ({exc.msg})", row=text[:start].count("\n") + exc.lineno) from None
        if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
            raise DataError(path, "no 'jobs' list: expected fio --output-format=json output")
        version = version or doc.get("fio version")
        glob = doc.get("global options") or {}
        # A job section with numjobs=N is N entries without group_reporting, one with it.
        entries = {}
        for job in doc["jobs"]:
            entries[(job.get("jobname"), job.get("groupid"))] = entries.get((job.get("jobname"), job.get("groupid")), 0) + 1
        for i, job in enumerate(doc["jobs"], start=1):
            write = job.get("write") or {}
            if not write.get("total_ios"):
                continue  # a job that wrote nothing (a read job, or one that failed) is not a write test
            if job.get("error"):
                raise DataError(path.name, f"fio job {job.get('jobname')!r} ended with error {job['error']}")
            opts = {**glob, **(job.get("job options") or {})}
            bs = opts.get("bs")
            if bs is None:
                raise DataError(path.name, f"job {job.get('jobname')!r} has no bs option", column="bs")
            numjobs = _int(opts.get("numjobs"))
            clones = numjobs if entries[(job.get("jobname"), job.get("groupid"))] == 1 else 1
            writers = clones * _depth(opts.get("ioengine"), opts.get("iodepth"))
            options.append(opts)
            sync = (job.get("sync") or {}).get("lat_ns", {}).get("mean", np.nan)
            rows.append(_job_row(job.get("jobname"), _size(bs), float(write["total_ios"]), write["runtime"] / 1000,
                                 float(write["bw_bytes"]), write["lat_ns"]["mean"] / 1000,
                                 sync / 1000 if sync == sync else np.nan, f"{path.name}:job {i}", writers))
    if not rows:
        raise DataError(Path(paths[0]), "no fio job wrote anything: expected write tests (rw=write)")
    frame = pd.DataFrame(rows)
    frame.attrs["setup"] = _setup(version, options, frame["blocksize_bytes"], frame["duration_s"])
    return with_notes(frame, "fio JSON bw_bytes is bytes/s (fio's bw field is KiB/s and is not used)",
                      "fio JSON latencies are nanoseconds: ÷ 1000 → µs", LATENCY_NOTE, *_concurrency_notes(frame))


_JOB = re.compile(r"^(?P<name>[^\s:]+): \(g=\d+\): rw=\w+, bs=\(R\) [^,]+, \(W\) (?P<bs>[\d.]+[A-Za-z]*)-")
_RESULT = re.compile(r"^(?P<name>[^\s:]+): \(groupid=\d+, jobs=(?P<jobs>\d+)\): err=\s*(?P<err>\d+)")
_ENGINE = re.compile(r"ioengine=(?P<engine>\w+), iodepth=(?P<depth>\d+)")
_VERSION = re.compile(r"^fio-(?P<version>\d[\w.\-]*)\s*$")
_WRITE = re.compile(r"^\s*write: IOPS=[^,]+, BW=(?P<bw>[\d.]+)(?P<unit>[KMG]i?B)/s .*?\((?P<io>[\d.]+[KMG]?i?B)/(?P<ms>\d+)msec\)")
_LAT = re.compile(r"^\s*(?P<what>lat|sync) \((?P<unit>nsec|usec|msec|sec)\):.*?avg=\s*(?P<avg>[\d.]+)")
_ISSUED = re.compile(r"issued rwts: total=\d+,(?P<writes>\d+),")


def read_text(paths) -> pd.DataFrame:
    rows, options, version = [], [], None
    for path in map(Path, paths):
        lines = path.read_text(encoding="utf-8-sig", errors="replace").splitlines()
        sizes, engines, job, found = {}, {}, None, []
        for no, line in enumerate(lines, start=1):
            m = _VERSION.match(line)
            if m:
                version = version or m["version"]
                continue
            m = _JOB.match(line)
            if m:
                sizes[m["name"]] = _size(m["bs"])
                e = _ENGINE.search(line)
                engines[m["name"]] = (e["engine"], e["depth"]) if e else (None, None)
                continue
            m = _RESULT.match(line)
            if m:
                if m["err"] != "0":
                    raise DataError(path.name, f"fio job {m['name']!r} ended with err={m['err']}", row=no)
                # jobs=N: N clones reported together (group_reporting), writing at once.
                job = {"name": m["name"], "line": no, "lat": np.nan, "sync": np.nan, "jobs": int(m["jobs"])}
                found.append(job)
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
        for job in found:
            if "bytes_s" not in job:
                raise DataError(path.name, f"job {job['name']!r} has no 'write: IOPS=..., BW=...' line", row=job["line"])
            if job["name"] not in sizes:
                raise DataError(path.name, f"job {job['name']!r}: its block size line (bs=(R) ..., (W) ...) is missing", row=job["line"])
            if np.isnan(job["lat"]):
                raise DataError(path.name, f"job {job['name']!r} has no 'lat (usec): ... avg=' line", row=job["line"])
            engine, depth = engines.get(job["name"], (None, None))
            options.append({"numjobs": job["jobs"], "ioengine": engine, "iodepth": depth})
            rows.append(_job_row(job["name"], sizes[job["name"]], job.get("writes", np.nan), job["runtime_s"],
                                 job["bytes_s"], job["lat"], job["sync"], f"{path.name}:{job['line']}",
                                 job["jobs"] * _depth(engine, depth)))
        if not found:
            raise DataError(path, "no fio job result (expected 'NAME: (groupid=N, jobs=N): err= 0' sections)")
    frame = pd.DataFrame(rows)
    frame.attrs["setup"] = _setup(version, options, frame["blocksize_bytes"], frame["duration_s"])
    return with_notes(frame, "fio text BW is printed in MiB/s (three figures): × 1048576 → bytes/s",
                      "fio text latencies are converted from the unit printed (nsec, usec, msec) to µs", LATENCY_NOTE,
                      *_concurrency_notes(frame))


def _sniff_json(head: str, path: Path) -> bool:
    return '"fio version"' in head[:4000] and '"jobs"' in head


def _sniff_text(head: str, path: Path) -> bool:
    return bool(re.search(r"^fio-\d+\.\d+", head, re.M)) and bool(re.search(r"\(g(roupid)?=\d+", head))


def _to_mqldt(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[COLUMNS + ["write_latency_us", "sync_latency_us", "job", "source"]].copy()
    out.attrs["setup"] = dict(frame.attrs.get("setup", {}))
    out.attrs["notes"] = []
    return with_notes(out, *frame.attrs.get("notes", []))


FORMATS = [
    Format(name="fio-json", tool="fio", title="fio JSON output (--output-format=json)",
           command="fio --output-format=json mqlog.fio > fio.json", sniff=_sniff_json, read=read_json,
           feeds={"nativeha_storage.mqldt": _to_mqldt, "log_disk": _to_mqldt}),
    Format(name="fio-text", tool="fio", title="fio text output",
           command="fio mqlog.fio > fio.txt", sniff=_sniff_text, read=read_text,
           feeds={"nativeha_storage.mqldt": _to_mqldt, "log_disk": _to_mqldt}),
]
