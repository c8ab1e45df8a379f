"""mqldt ``--csvFile`` output: one row per block size (and per multi-queue-manager section).

mqldt writes a ``Blocksize,...`` header and one result line per block size; with several
queue managers it prints ``Running MQLDT over N Queue Managers`` and a header whose rate
column reads "... by all queue managers". :func:`read_mqldt_csv` returns the columns the
``nativeha_storage`` chapter's mqldt check reads (:data:`COLUMNS`), latency in µs.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.errors import DataError

COLUMNS = ["blocksize_bytes", "queue_managers", "writes", "duration_s", "avg_bytes_s", "avg_latency_us"]


def read_mqldt_csv(path: str | Path) -> pd.DataFrame:
    """mqldt's ``--csvFile`` output (single or multi-QM sections); latency ns → µs.

    ``duration_s`` is not in mqldt's CSV and comes back missing, so writes per second are
    not derived from a reader's file.

    Raises
    ------
    DataError
        The file is missing, has no ``Blocksize,`` header or result rows, lacks the latency or
        average-rate column, or a value is not a number (file, column and line named).
    """
    path = Path(path)
    if not path.exists():
        raise DataError(path, "file not found")
    if not path.is_file():
        raise DataError(path, "not a file")
    try:
        text_lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise DataError(path, "not UTF-8 text: expected the CSV mqldt --csvFile writes") from None
    rows, header, qms = [], None, 1
    for line_no, line in enumerate(text_lines, start=1):
        text = line.strip()
        banner = re.match(r"Running MQLDT over (\d+) Queue Managers", text)
        if banner:
            qms = int(banner[1])
            continue
        if text.startswith("Blocksize,"):
            header = next(csv.reader([text]))
            continue
        if not text:
            continue
        if header is None:
            raise DataError(path, "no mqldt header line (expected 'Blocksize,...' from mqldt --csvFile)", row=line_no)
        values = dict(zip(header, next(csv.reader(io.StringIO(text)))))
        rate_col = next((c for c in header if c.startswith("Avg bytes/sec written to files")), None)
        for need in ("Blocksize", "Avg latency of write (ns)"):
            if need not in values:
                raise DataError(path, "required mqldt column is missing", column=need)
        if rate_col is None:
            raise DataError(path, "required mqldt column is missing", column="Avg bytes/sec written to files")
        try:
            rows.append({"blocksize_bytes": int(values["Blocksize"]), "queue_managers": qms,
                         "writes": float(values.get("Total writes to files", "nan")), "duration_s": np.nan,
                         "avg_bytes_s": float(values[rate_col]), "avg_latency_us": float(values["Avg latency of write (ns)"]) / 1000})
        except ValueError:
            raise DataError(path, "value is not a number", row=line_no) from None
    if not rows:
        raise DataError(path, "no mqldt result rows")
    out = pd.DataFrame(rows, columns=COLUMNS)
    if not (np.isfinite(out["avg_latency_us"]).all() and (out["avg_latency_us"] > 0).all()):
        raise DataError(path, "average latency must be a number greater than zero", column="Avg latency of write (ns)")
    if (out["blocksize_bytes"] <= 0).any():
        raise DataError(path, "block size must be greater than zero", column="Blocksize")
    return out
