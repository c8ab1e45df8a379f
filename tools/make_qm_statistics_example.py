"""Write data/examples/qm_statistics.csv: a SYNTHETIC queue manager day, not a measurement.

The statistics chapter needs interval statistics over time, and no published source gives
any, so the book runs it on this generated day (the chapter says so on its page). Two queue
managers, 15-minute intervals over 24 hours: a quiet night, a morning and an afternoon busy
period (QM2 with a lighter load), 60 % persistent puts, every message got once, about five
messages per commit, log bytes about 2,022 per persistent message (MP16's figures for a 1 KB
message put and got at five operations per commit: l_m + l_c/b for the put and the get, with
l_c = 348.9, l_m = 143.1 for a get and 2,088 − 348.9 for a put), connections that rise with
the load, and CPU of 40 µs per message on top of a base. Counts carry ±5 % noise from a fixed seed, so the file is the same
on every run: ``.venv/bin/python tools/make_qm_statistics_example.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "data" / "examples" / "qm_statistics.csv"
INTERVAL_S = 900
#: (start hour, end hour, messages per second) of the busy periods; the rest of the day is quiet.
BUSY = {"QM1": [(9, 12, 800.0), (14, 17, 1200.0)], "QM2": [(8.5, 11, 300.0), (13.5, 16, 450.0)]}
QUIET = {"QM1": 40.0, "QM2": 25.0}
#: Operations (puts + gets) per commit, and MP16's log bytes per persistent message at that many.
PER_COMMIT = 5
L_C = (492 - 178) / 0.9
LOG_PER_MESSAGE = (2088 - L_C) + (492 - L_C) + 2 * L_C / PER_COMMIT


def day(qmgr: str, rng: np.random.Generator) -> pd.DataFrame:
    starts = pd.date_range("2026-11-16 00:00:00", periods=24 * 3600 // INTERVAL_S, freq=f"{INTERVAL_S}s")
    hours = starts.hour + starts.minute / 60
    rate = np.full(len(starts), QUIET[qmgr])
    for lo, hi, busy in BUSY[qmgr]:
        rate[(hours >= lo) & (hours < hi)] = busy
    noise = lambda: rng.normal(1.0, 0.05, len(starts))  # noqa: E731
    puts = np.round(rate / 2 * INTERVAL_S * noise())
    persistent = np.round(puts * 0.6 * noise().clip(0.9, 1.1)).clip(0, puts)
    gets = np.round(puts * noise().clip(0.95, 1.05))
    commits = np.round((puts + gets) / PER_COMMIT * noise())
    log_bytes = np.round(persistent * LOG_PER_MESSAGE * noise())
    connects = np.round((1 + rate / 100) * INTERVAL_S * noise())
    cpu_s = np.round((puts + gets) * 40e-6 * noise() + 0.02 * INTERVAL_S, 3)
    return pd.DataFrame({"start": starts.strftime("%Y-%m-%dT%H:%M:%S"), "interval_s": INTERVAL_S, "qmgr": qmgr,
                         "puts": puts.astype(int), "persistent_puts": persistent.astype(int), "gets": gets.astype(int),
                         "commits": commits.astype(int), "log_write_bytes": log_bytes.astype(int),
                         "connects": connects.astype(int), "disconnects": connects.astype(int), "cpu_s": cpu_s})


def main() -> None:
    rng = np.random.default_rng(20261116)
    frame = pd.concat([day(q, rng) for q in BUSY], ignore_index=True)
    frame.to_csv(OUT, index=False)
    print(f"wrote {OUT} ({len(frame)} rows)")


if __name__ == "__main__":
    main()
