"""RMF Distributed Data Server XML ("ddsml"): Postprocessor and Monitor III reports, read generically.

Shapes from ``reference-data/formats/rmf/FORMAT.md`` (real DDS responses kept by
zowe/zebra): Postprocessor ``ddsml/postprocessor/{metric, resource, time-data, segment*}``,
each ``segment/part`` with a ``var-list`` (name/value) and ``table``s
(``column-headers/col``, ``row/col``); ``display-start`` is ``MM/DD/YYYY-HH.MM.SS`` and
``report-interval`` ``MM:SS:mmm`` in minutes. Monitor III: ``ddsml/report/{metric, resource,
time-data, caption/var*, row*, column-headers}``. One reader covers every report: each
variable and each table cell becomes a row of one long table. An error response
(``<message id="GPM0739E">`` with a severity of 3 or more) is one line quoting it.

Feeds the latch contention chapter from the Postprocessor CPU Activity report: per interval
and system, the general-purpose CPs online, their MVS busy and the share of samples with no
more ready work units than processors (the in-ready work unit queue distribution).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.data.readers import Format, with_notes
from mqperf.errors import DataError


def _number(text):
    try:
        return float(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return np.nan


def _start(text: str | None) -> str | None:
    if not text:
        return None
    for fmt in ("%m/%d/%Y-%H.%M.%S", "%m/%d/%Y %H:%M:%S"):
        try:
            return datetime.strptime(text.strip(), fmt).isoformat()
        except ValueError:
            continue
    return None


def _interval_s(time_data) -> float:
    text = time_data.findtext("report-interval") if time_data is not None else None
    if text:  # MM:SS:mmm, in minutes
        m = re.fullmatch(r"(\d+):(\d+):(\d+)", text.strip())
        if m:
            return int(m[1]) * 60 + int(m[2]) + int(m[3]) / 1000
    rng = time_data.findtext("data-range") if time_data is not None else None
    return _number(rng)


def _errors(root, path: Path) -> None:
    for msg in root.iter("message"):
        severity = _number(msg.findtext("severity"))
        if severity >= 3 or np.isnan(severity):
            raise DataError(path, f"the RMF Distributed Data Server returned an error instead of a report: "
                                  f"{msg.get('id', '?')} {(msg.findtext('description') or '').strip()}")


def _interval_words(seconds) -> str:
    vals = sorted({round(float(v), 1) for v in seconds if np.isfinite(v)})
    if not vals:
        return "not stated"
    fmt = lambda v: f"{v:,.0f} s" if v >= 10 else f"{v:,.3g} s"  # noqa: E731
    return fmt(vals[0]) if len(vals) == 1 else f"{fmt(vals[0])} to {fmt(vals[-1])} ({len(vals):,} lengths)"


def _listing(values) -> str:
    vals = list(dict.fromkeys(v for v in values if v))
    return ", ".join(vals[:6]) + (f" and {len(vals) - 6:,} more" if len(vals) > 6 else "")


def setup(root_meta: list[dict]) -> dict:
    """What the RMF responses state about the system they measured (for "How this report was made").

    The z/OS release the SMF data came from (else the DDS server's version and platform), the
    systems, the reports, the machine (CPU type and model, CPU Activity only) and the report
    intervals (``report-interval``, read as minutes:seconds:milliseconds). RMF states no MQ
    version: that key is left out, and the report says "not stated".
    """
    out = {}
    platform = _listing(m.get("smf") or " ".join(x for x in (m.get("platform"), m.get("server")) if x)
                        for m in root_meta)
    if platform:
        out["platform"] = platform
    out["interval length"] = _interval_words(m.get("interval_s", np.nan) for m in root_meta)
    for key, label in (("system", "system"), ("report", "RMF report"), ("machine", "machine")):
        text = _listing(m.get(key) for m in root_meta)
        if text:
            out[label] = text
    return out


def read(paths) -> pd.DataFrame:
    """Every variable and table cell of every report in the files: one long table.

    ``attrs["setup"]`` holds what the responses state about the measured system (:func:`setup`).
    """
    rows, meta = [], []
    for path in map(Path, paths):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise DataError(path.name, f"not complete XML ({exc.msg if hasattr(exc, 'msg') else exc})",
                            row=exc.position[0] if getattr(exc, "position", None) else None) from None
        if root.tag != "ddsml":
            raise DataError(path, f"not an RMF DDS response (root element <{root.tag}>, expected <ddsml>)")
        _errors(root, path)
        reports = root.findall("postprocessor") + root.findall("report")
        server = {"server": (root.findtext("server/version") or "").strip(),
                  "platform": (root.findtext("server/platform") or "").strip()}
        for n, rep in enumerate(reports, start=1):
            metric = rep.find("metric")
            base = {"kind": "Monitor III" if rep.tag == "report" else "Postprocessor",
                    "report": metric.get("id") if metric is not None else None,
                    "title": (metric.findtext("description") or "").strip() if metric is not None else "",
                    "system": (rep.findtext("resource/resname") or rep.findtext("resource/reslabel") or "").strip(" ,"),
                    "start": _start(rep.findtext("time-data/display-start")),
                    "interval_s": _interval_s(rep.find("time-data")), "source": f"{path.name}:report {n}"}
            cpu = {v.findtext("name"): (v.findtext("value") or "").strip() for v in rep.iter("var")
                   if v.findtext("name") in ("CPU", "Model")}
            meta.append({**server, "source": base["source"], "smf": (rep.findtext("version/smf-data") or "").strip(),
                         "system": base["system"],
                         "report": base["title"] or base["report"], "interval_s": base["interval_s"],
                         "machine": " model ".join(x for x in (cpu.get("CPU"), cpu.get("Model")) if x)})
            if rep.tag == "report":  # Monitor III
                for var in rep.findall("caption/var"):
                    rows.append({**base, "part": "caption", "row": None, "column": var.findtext("name"),
                                 "value": var.findtext("value")})
                header = [c.text for c in rep.findall("column-headers/col")] or None
                for i, row in enumerate(rep.findall("row"), start=1):
                    for j, col in enumerate(row.findall("col")):
                        name = header[j] if header and j < len(header) else f"col {j + 1}"
                        rows.append({**base, "part": "table", "row": i, "column": name, "value": col.text})
                continue
            for seg in rep.findall("segment"):
                for part in seg.findall("part"):
                    where = part.findtext("name") or seg.findtext("name") or ""
                    for var in part.findall("var-list/var"):
                        rows.append({**base, "part": where, "row": None, "column": var.findtext("name"),
                                     "value": var.findtext("value")})
                    for table in part.findall("table"):
                        header = [c.text for c in table.findall("column-headers/col")]
                        for i, row in enumerate(table.findall("row"), start=1):
                            for j, col in enumerate(row.findall("col")):
                                rows.append({**base, "part": where, "row": i,
                                             "column": header[j] if j < len(header) else f"col {j + 1}",
                                             "value": col.text})
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise DataError(Path(paths[0]), "the RMF response holds no report data")
    frame["number"] = frame["value"].map(_number)
    frame.attrs["setup"] = setup(meta)
    frame.attrs["reports"] = {m["source"]: m for m in meta}
    return with_notes(frame, "RMF report-interval MM:SS:mmm is read as minutes:seconds:milliseconds")


def _found(frame: pd.DataFrame) -> str:
    kinds = sorted({f"{k} {t or r}" for k, r, t in zip(frame["kind"], frame["report"], frame["title"])})
    return "found RMF " + ", ".join(kinds)


def _missing(value) -> bool:
    return value is None or value != value  # None, NaN or NaT


def to_latch(frame: pd.DataFrame) -> pd.DataFrame:
    """CPU Activity intervals → the kafka_latch_cpus contract: gp_cpus, busy_pct, sufficient_pct, label."""
    attrs = frame.attrs
    # One pass over the rows in plain Python: a filtered frame per interval and question (pandas, as
    # this was first written) took 2.8 s for a day's 263 intervals, this about 0.05 s. The rules are
    # those of pandas' groupby (groups in order of first row, missing keys one group, shown as nan)
    # and isin (a missing row number matches a missing one).
    columns = {c: frame[c].tolist() for c in ("source", "system", "start", "part", "row", "column", "value", "number")}
    intervals: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(columns["source"], columns["system"], columns["start"])):
        intervals.setdefault(tuple(math.nan if _missing(k) else k for k in key), []).append(i)
    row = [None if _missing(r) else r for r in columns["row"]]
    part, column, value, number = columns["part"], columns["column"], columns["value"], columns["number"]
    out = []
    for (source, system, start), at in intervals.items():
        dist = [i for i in at if part[i] == "Distribution of In-ready Work Unit Queue"]
        if not dist:
            continue
        le_n = {row[i] for i in dist if column[i] == "Number of Work Units" and value[i] == "<=N"}
        at_n = [number[i] for i in dist if column[i] == "% of Samples" and row[i] in le_n]
        cp = {row[i] for i in at if column[i] == "CPU Type" and value[i] == "CP"}
        total = {row[i] for i in at if column[i] == "CPU Number" and value[i] == "TOTAL/AVERAGE"}
        gp = sum(1 for i in at if column[i] == "Time% Online" and row[i] in cp - total
                 and not _missing(number[i]) and number[i] > 0)
        busy = [number[i] for i in at if column[i] == "Time% MVS Busy" and row[i] in total and row[i] in cp]
        if not at_n or not busy or gp == 0:
            continue
        out.append({"gp_cpus": gp, "busy_pct": float(busy[0]), "sufficient_pct": float(at_n[0]),
                    "label": f"{system} {start}", "source": source})
    if not out:
        raise DataError(frame["source"].iloc[0].split(":")[0],
                        f"{_found(frame)}; the chapter needs the Postprocessor CPU Activity report "
                        "(rmfpp.xml?reports=CPU) with its in-ready work unit queue distribution")
    shaped = pd.DataFrame(out)
    # The setup of the reports the chapter reads (CPU Activity), not of every report in the files.
    reports = attrs.get("reports", {})
    used = [reports[src] for src in dict.fromkeys(shaped["source"]) if src in reports]
    shaped.attrs["setup"] = setup(used) if used else dict(attrs.get("setup", {}))
    return with_notes(shaped, *attrs.get("notes", []),
                      "RMF: gp_cpus = CPs online in the interval, busy_pct = the CPs' TOTAL/AVERAGE MVS busy, "
                      "sufficient_pct = the in-ready queue distribution's <=N share of samples")


def _sniff(head: str, path: Path) -> bool:
    return bool(re.search(r"<ddsml[\s>]", head[:3000]))


FORMATS = [
    Format(name="rmf-dds-xml", tool="RMF", title="RMF Distributed Data Server XML (Postprocessor or Monitor III)",
           command="curl 'http://DDSHOST:8803/gpm/rmfpp.xml?reports=CPU&date=20261101,20261107' > cpu.xml",
           sniff=_sniff, read=read, feeds={"kafka_latch_cpus": to_latch}),
]
