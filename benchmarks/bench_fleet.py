"""`mqperf fleet` against sequential `mqperf run` calls; prints figures, asserts nothing.

    .venv/bin/python benchmarks/bench_fleet.py                 # 200 datasets, 2 workers, 5 runs
    .venv/bin/python benchmarks/bench_fleet.py -n 50 --runs 3

Generates N 8-point kafka_task_scaling sweeps from the USL (known parameters, 1 % noise), runs
them through `mqperf fleet` on a local Dask cluster of 2 worker processes, then, in the
same run, times `mqperf run` on a sample of them one after the other. Figures: datasets per
second and wall time per dataset of the fleet (cluster start-up included), the same per
dataset of sequential runs, the time 200 sequential runs would take at that rate, and the
ratio; and a rerun of the fleet with nothing changed (every row reused from the cache).
Issue 10's figure is the ratio; absolute times depend on the machine and its load.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
MQPERF = str(Path(sys.executable).with_name("mqperf"))
TASKS = (1, 2, 3, 4, 6, 8, 12, 16)  # 8-point sweeps, as issue 22 measures


#: Issue 22: datasets per second of `mqperf fleet` on 2 workers (8-point task-scaling sweeps).
TARGET_RATE = 25


def generate(folder: Path, n: int) -> Path:
    rng = np.random.default_rng(20261123)
    (folder / "data").mkdir(parents=True)
    rows = []
    for i in range(n):
        lam, sigma, kappa = rng.uniform(3000, 30000), rng.uniform(0.02, 0.12), rng.uniform(0.0005, 0.008)
        n_ = np.asarray(TASKS, dtype=float)
        rate = lam * n_ / (1 + sigma * (n_ - 1) + kappa * n_ * (n_ - 1)) * (1 + rng.normal(0, 0.01, len(TASKS)))
        pd.DataFrame({"series": "main", "tasks": TASKS, "rate_msg_s": rate.round(1)}).to_csv(
            folder / "data" / f"qm{i:04d}.csv", index=False)
        rows.append({"id": f"qm{i:04d}", "data": f"data/qm{i:04d}.csv"})
    manifest = folder / "manifest.csv"
    pd.DataFrame(rows).to_csv(manifest, index=False)
    return manifest


def timed(cmd, cwd) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return seconds, proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=200, help="datasets in the fleet (default 200)")
    parser.add_argument("-j", type=int, default=2, help="Dask worker processes (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="sequential `mqperf run` calls timed (default 5)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        tmp = Path(tmp)
        manifest = generate(tmp / "in", args.n)
        cmd = [MQPERF, "fleet", str(manifest), "--chapter", "kafka_task_scaling", "--out", str(tmp / "out"),
                                 "-j", str(args.j), "--quiet"]
        fleet_s, out = timed(cmd, tmp)
        last = out.strip().splitlines()[-1]
        again_s, _ = timed(cmd, tmp)
        runs = []
        for i in range(args.runs):
            data = tmp / "in" / "data" / f"qm{i:04d}.csv"
            runs.append(timed([MQPERF, "run", "kafka_task_scaling", "--data", str(data), "--out",
                               str(tmp / f"run{i}"), "--quiet"], tmp)[0])

    per_fleet = fleet_s / args.n
    per_run = statistics.median(runs)
    print(f"mqperf fleet, {args.n} datasets on {args.j} workers: {fleet_s:7.1f} s wall "
          f"({args.n / fleet_s:.2f} datasets/s, {per_fleet:.3f} s per dataset, cluster start-up included)")
    print(f"  issue 22's target: at least {TARGET_RATE} datasets/s on 2 workers for 8-point sweeps: "
          f"{'met' if args.n / fleet_s >= TARGET_RATE else 'NOT met'}")
    print(f"  its own line: {last}")
    print(f"mqperf fleet again, nothing changed (all reused): {again_s:7.1f} s wall")
    print(f"mqperf run, {args.runs} sequential calls: median {per_run:.1f} s per dataset "
          f"(min {min(runs):.1f}, max {max(runs):.1f}); {args.n} of them would take about {per_run * args.n:.0f} s")
    print(f"ratio, sequential `mqperf run` per dataset / fleet per dataset: {per_run / per_fleet:.1f}x "
          f"(fleet wall = {per_fleet / per_run:.3f}x of sequential runs)")


if __name__ == "__main__":
    main()
