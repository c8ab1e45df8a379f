"""Measure the build and the model fits; prints figures, asserts nothing.

    .venv/bin/python benchmarks/bench_build.py            # warm build, fits
    .venv/bin/python benchmarks/bench_build.py --cold     # also a forced re-execution of every chapter

Figures depend on the machine; the book's targets (on 2 cores): a no-change `make book`
under 15 s, a chapter execution under 15 s, a USL fit under 50 ms.
"""

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MQPERF = str(Path(sys.executable).with_name("mqperf"))


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="also time re-executing every chapter (--force)")
    args = parser.parse_args()

    if args.cold:
        print(f"build, every chapter re-executed:  {timed([MQPERF, 'build', '--force']):6.1f} s")
    print(f"build, nothing changed:             {timed([MQPERF, 'build']):6.1f} s")
    print(f"mqperf list:                        {timed([MQPERF, 'list']):6.1f} s")

    from mqperf.models import usl

    n = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32], dtype=float)
    x = usl.throughput(n, 1000, 0.03, 0.001) * (1 + np.random.default_rng(1).normal(0, 0.01, n.size))
    reps = 50
    start = time.perf_counter()
    for _ in range(reps):
        usl.fit(n, x)
    print(f"USL fit, 10 points:                 {(time.perf_counter() - start) / reps * 1000:6.1f} ms")
    big_n = np.repeat(n, 10_000)
    start = time.perf_counter()
    usl.fit(big_n, usl.throughput(big_n, 1000, 0.03, 0.001))
    print(f"USL fit, 100,000 points:            {(time.perf_counter() - start) * 1000:6.1f} ms")
    print(f"peak memory of this process:        {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:6.0f} MiB")


if __name__ == "__main__":
    main()
