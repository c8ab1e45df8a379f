"""A million RACF profiles through the chapter's resolution: time per step.

    .venv/bin/python benchmarks/bench_racf.py                   # 1,000,000 profiles
    .venv/bin/python benchmarks/bench_racf.py --profiles 100000 # a quicker look

The profiles are what a large installation's ``SEARCH`` output could hold: a fifth generic
MQADMIN profiles (``QMA.ADMnnnnnn.**``, none of them a switch), the rest generic MQQUEUE
profiles (``QMA.APPnnnnnn.**``, ``QSG1.APPnnnnnn.*``), plus the switch and ``SYSTEM`` queue
profiles the resolution is about. The script times the steps the chapter runs on a reader's
file (reading the pairs, the switch state, the checks with their warnings, and the profile
each queue is checked against) and prints each in seconds with the total. ``--module`` picks
the implementation, so the figure before and after a change can be printed side by side.

``--chapter`` also runs the whole chapter (``racf_profiles.analyse``) on the profiles written
as a reader's CSV, as ``mqperf run`` would before rendering.

Figures (this machine, 2 cores shared with other work, 1,000,000 profiles, two queues):

* before (issue 9; ``mqperf.racf``: every lookup a scan over every profile, a difflib
  SequenceMatcher per MQADMIN name): read 1.51 s, switches 9.97 s, warnings 29.00 s,
  queues 10.16 s; total 50.6 s.
* after (``mqperf.models.racf``: profiles filed by their literal leading qualifiers, near
  misses pre-filtered by the length bound difflib applies itself; same answers, see
  tests/models/test_racf.py): read 2.01 s, switches 0.48 s, warnings 0.29 s, queues 2.62 s;
  total 5.4 s.
"""

from __future__ import annotations

import argparse
import importlib
import time


def profiles(n: int) -> list[tuple[str, str]]:
    admin = n // 5
    pairs = [("MQADMIN", "QSG1.NO.QMGR.CHECKS"), ("MQADMIN", "QMA.YES.QMGR.CHECKS"),
             ("MQADMIN", "QMA.NO.QMGR.CHECK"),  # a slip one letter from a switch (erratum E036)
             ("MQQUEUE", "QMA.SYSTEM.**"), ("MQQUEUE", "QSG1.SYSTEM.**")]
    pairs += [("MQADMIN", f"QMA.ADM{i:06d}.**") for i in range(admin)]
    pairs += [("MQQUEUE", f"QMA.APP{i:06d}.**" if i % 2 else f"QSG1.APP{i:06d}.*") for i in range(n - admin)]
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=1_000_000)
    parser.add_argument("--module", default="mqperf.models.racf")
    parser.add_argument("--chapter", action="store_true", help="also time the whole chapter on a CSV")
    args = parser.parse_args()
    racf = importlib.import_module(args.module)
    pairs = profiles(args.profiles)
    queues = ["SYSTEM.ADMIN.COMMAND.QUEUE", "APP000123.IN"]
    times = {}
    t = time.perf_counter()
    prof = racf.Profiles.from_pairs(pairs)
    times["read"] = time.perf_counter() - t
    t = time.perf_counter()
    state = racf.switch_state(prof, "QMA", "QSG1")
    checks = racf.resolve(state)
    times["switches"] = time.perf_counter() - t
    t = time.perf_counter()
    warned = racf.warnings(prof, "QMA", "QSG1")
    times["warnings"] = time.perf_counter() - t
    t = time.perf_counter()
    used = [racf.queue_profile(q, checks, prof, "QMA", "QSG1") for q in queues]
    times["queues"] = time.perf_counter() - t
    print(f"{args.module}: {args.profiles:,} profiles; " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items())
          + f"; total {sum(times.values()):.2f} s")
    print(f"  checks {checks.levels}; {len(warned)} warnings; profiles used {used}")
    if args.chapter:
        chapter(pairs, queues)


def chapter(pairs, queues) -> None:
    import tempfile
    from pathlib import Path

    import pandas as pd

    from mqperf import parameters
    from mqperf.chapters import racf_profiles

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "profiles.csv"
        pd.DataFrame(pairs, columns=["class", "profile"]).to_csv(path, index=False)
        values = {**parameters.effective("racf_profiles", str(path), {}).values, "ssid": "QMA", "qsg": "QSG1",
                  "queues": ", ".join(queues)}
        t = time.perf_counter()
        racf_profiles.analyse(values)
        print(f"racf_profiles chapter on {len(pairs):,} profiles: {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
