"""How often `mqperf compare` calls a change: over many generated pairs of USL sweeps.

Prints, per scenario, the share of pairs in which some parameter or curve point of the
series was called changed, with a 95 % (Wilson) interval for that share. "no change" is
the false-change rate (the stated level is 5 %); the others are the power to find a known
change. Runs have 12 points (1–12 tasks); "additive" noise is what the fits assume (the same
at every concurrency), "relative" noise grows with the rate.

    .venv/bin/python benchmarks/compare_error_rates.py [--pairs 500]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mqperf.models import compare, usl

N = np.arange(1, 13, dtype=float)
BASE = {"lam": 1000.0, "sigma": 0.05, "kappa": 0.002}
SCENARIOS = [("no change", {}), ("rate -15 %", {"lam": 850.0}), ("rate -5 %", {"lam": 950.0}),
             ("kappa x4", {"kappa": 0.008}), ("sigma x3", {"sigma": 0.15})]


def _x(p):
    return p["lam"] * N / (1 + p["sigma"] * (N - 1) + p["kappa"] * N * (N - 1))


def _fit(rng, p, noise):
    x = _x(p)
    y = x + rng.normal(0, 120, N.size) if noise == "additive" else x * (1 + rng.normal(0, 0.03, N.size))
    return usl.fit(N, y)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"{'noise':9} {'scenario':12} {'called changed':>15}  95 % interval   ({args.pairs} pairs each)")
    start = time.perf_counter()
    for noise in ("additive", "relative"):
        for name, change in SCENARIOS:
            if noise == "relative" and name not in ("no change", "rate -15 %"):
                continue
            hits = sum(bool(compare.parameters(_fit(rng, BASE, noise), _fit(rng, {**BASE, **change}, noise))
                            ["changed"].any()) for _ in range(args.pairs))
            lo, hi = wilson(hits, args.pairs)
            print(f"{noise:9} {name:12} {hits / args.pairs:>14.1%}  {lo:6.1%} – {hi:5.1%}")
    print(f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
