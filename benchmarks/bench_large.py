"""A reader's file of a million rows through ``kafka_task_scaling``: time, peak memory, report size.

    .venv/bin/python benchmarks/bench_large.py                 # 1,000,000 rows
    .venv/bin/python benchmarks/bench_large.py --rows 100000   # a quicker look

The file is generated from a realistic model with a fixed seed: three series whose rates
follow the USL, tasks 1 to 8, one row per measurement interval, 3 % multiplicative noise
plus a slow drift within each run. It is written to a temporary folder and then run as a
reader would: ``mqperf run kafka_task_scaling --data big.csv --out DIR``.

Peak memory is the largest total resident set size (RSS) of the whole process tree (the
CLI, the papermill kernel and anything they start), sampled every 20 ms with psutil; it
cannot miss a peak that lasts longer than a sample, and it counts memory shared between
processes more than once, so it overstates rather than understates. The kernel's own
``ru_maxrss`` is not reachable from here once it exits, so the tree sampling is the
figure that counts; ``/usr/bin/time -v`` around the CLI alone would only see the CLI and
(at exit) its largest single child.

Figures depend on the machine; the targets (issue 8): peak memory at most 1 GB (10⁹ bytes)
and a report (the .html and the .ipynb) of at most 2 MB (2·10⁶ bytes) each. The script
prints each figure against its target and exits 1 if one is missed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

ROOT = Path(__file__).resolve().parents[1]
MQPERF = str(Path(sys.executable).with_name("mqperf"))

PEAK_MEMORY_TARGET = 1_000_000_000  # bytes
REPORT_SIZE_TARGET = 2_000_000  # bytes, for each of the .html and the .ipynb

# (series, lambda msg/s per task, sigma, kappa): the shapes of the book's connector curves.
SERIES = [
    ("source nonpersistent", 21000.0, 0.08, 0.004),
    ("sink nonpersistent", 15000.0, 0.12, 0.010),
    ("sink persistent", 6500.0, 0.20, 0.020),
]
TASKS = np.arange(1, 9)


def usl_rate(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def interval_rows(rows: int, *, seed: int = 8) -> pd.DataFrame:
    """``rows`` measurement intervals spread evenly over every (series, tasks) run."""
    rng = np.random.default_rng(seed)
    runs = [(name, n, usl_rate(n, lam, s, k)) for name, lam, s, k in SERIES for n in TASKS]
    per_run = np.full(len(runs), rows // len(runs))
    per_run[: rows % len(runs)] += 1
    names = np.repeat([r[0] for r in runs], per_run)
    tasks = np.repeat([r[1] for r in runs], per_run)
    mean = np.repeat([r[2] for r in runs], per_run)
    # A run drifts by up to ±1 % from start to end, plus independent interval noise.
    position = np.concatenate([np.linspace(-1, 1, k) for k in per_run])
    rate = mean * (1 + 0.01 * position) * rng.lognormal(0.0, 0.03, rows)
    interval = np.concatenate([np.arange(k) for k in per_run])
    return pd.DataFrame({"series": names, "tasks": tasks, "interval": interval, "rate_msg_s": np.round(rate, 1)})


def write_file(path: Path, rows: int) -> None:
    interval_rows(rows).to_csv(path, index=False)


def run_measured(cmd: list[str]) -> tuple[subprocess.CompletedProcess, float, int]:
    """Run ``cmd``; return the process, wall time and the peak RSS of its whole tree (bytes)."""
    peak = 0
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample():
        nonlocal peak
        parent = psutil.Process(proc.pid)
        while not done.is_set():
            total = 0
            try:
                members = [parent, *parent.children(recursive=True)]
            except psutil.NoSuchProcess:
                break
            for member in members:
                try:
                    total += member.memory_info().rss
                except psutil.NoSuchProcess:
                    pass
            peak = max(peak, total)
            done.wait(0.02)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    out, err = proc.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    watcher.join()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), elapsed, peak


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "OVER TARGET"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows in the generated file (default 1,000,000)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mqperf-bench-large-") as tmp:
        data = Path(tmp) / "big.csv"
        start = time.perf_counter()
        write_file(data, args.rows)
        print(f"generated {args.rows:,} rows ({data.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")

        out = Path(tmp) / "report"
        cmd = [MQPERF, "run", "kafka_task_scaling", "--data", str(data), "--out", str(out)]
        proc, elapsed, peak = run_measured(cmd)
        if proc.returncode != 0:
            print(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}", file=sys.stderr)
            return 1

        missed = peak > PEAK_MEMORY_TARGET
        print(f"mqperf run kafka_task_scaling:  {elapsed:7.1f} s")
        # The CLI's own figure: the notebook's execution alone, without checking and loading before it.
        for line in proc.stdout.splitlines():
            if "executed in" in line:
                print(f"  of which the kernel {line.strip()}")
        print(f"peak RSS, whole process tree:   {peak / 1e6:7.0f} MB   (target <= {PEAK_MEMORY_TARGET / 1e6:.0f} MB: "
              f"{verdict(peak, PEAK_MEMORY_TARGET)})")
        for suffix in (".html", ".ipynb"):
            files = sorted(out.glob(f"*{suffix}"))
            if not files:
                print(f"no {suffix} file in the report", file=sys.stderr)
                return 1
            for report in files:
                size = report.stat().st_size
                missed |= size > REPORT_SIZE_TARGET
                print(f"report {report.name:<24s} {size / 1e6:7.2f} MB   (target <= {REPORT_SIZE_TARGET / 1e6:.0f} MB: "
                      f"{verdict(size, REPORT_SIZE_TARGET)})")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
