"""Write data/examples/request_reply.csv: SYNTHETIC request/reply measurements, not a measurement.

No published source gives an MQ request/reply system's rate and response time by number of
clients, so the request/reply chapter runs on this generated file (the chapter says so on its
page). It comes from a known system solved by exact MVA (:mod:`mqperf.models.mva`): the book's
default demands (the figures the chapter computes from its datasets), two messages per request
(the request and its reply, each put and got once):

* queue manager CPU 12 µs per message (MQPUT1 6–8 µs, midpoint 7, plus MQGET 5 µs);
* log disk 2,580 bytes per message (2,088 put + 492 get, MP16) at 22,321,743 bytes/s (mqldt);
* log force: two forced writes per message (the put's commit and the get's) of 713.826 µs each
  (mqldt's average write latency on the same VM), a delay (concurrent commits share writes);
* network 1,000 µs per message (one round trip at the healthy-nettime threshold), a delay.

The log disk is the bottleneck (231 µs per request: at most 4,326 requests/s); one client waits
5.11 ms per request. Two series: no think time, and 5 ms of think time. Rate and response time each carry ±2 % noise from a
fixed seed, and one row (12 clients, no think time) has its response time halved, as if
measured over another window, so it breaks Little's law and the chapter flags it.
``.venv/bin/python tools/make_request_reply_example.py`` writes the same file on every run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.models import mva

OUT = Path(__file__).resolve().parents[1] / "data" / "examples" / "request_reply.csv"
MESSAGES = 2
#: Seconds per request at each resource (the known truth the chapter's tests recover).
DEMANDS = {"queue manager CPU": 12e-6 * MESSAGES, "log disk": 2580 / 22_321_743 * MESSAGES,
           "log force": 2 * 713.826e-6 * MESSAGES, "network": 1000e-6 * MESSAGES}
DELAY = ("log force", "network")
BOTTLENECK = "log disk"
SERIES = {"no think time": (0.0, [1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64]),
          "think 5 ms": (5.0, [1, 2, 4, 8, 16, 24, 32, 48, 64, 96])}
NOISE = 0.02
#: (series, clients): the row measured over the wrong window (response time halved).
OFF_LITTLE = ("no think time", 12)


def rows(rng: np.random.Generator) -> pd.DataFrame:
    out = []
    for name, (think_ms, clients) in SERIES.items():
        solved = mva.solve(DEMANDS, max(clients), think_s=think_ms / 1e3, delay=DELAY)
        for n in clients:
            at = solved.at(n)
            rate = at["throughput"] * rng.normal(1.0, NOISE)
            response = at["response_s"] * 1e3 * rng.normal(1.0, NOISE)
            if (name, n) == OFF_LITTLE:
                response /= 2
            out.append({"series": name, "clients": n, "rate_msg_s": round(rate, 1),
                        "response_time_ms": round(response, 3), "think_time_ms": think_ms})
    return pd.DataFrame(out)


def main() -> None:
    frame = rows(np.random.default_rng(20261201))
    frame.to_csv(OUT, index=False)
    print(f"wrote {OUT} ({len(frame)} rows)")


if __name__ == "__main__":
    main()
