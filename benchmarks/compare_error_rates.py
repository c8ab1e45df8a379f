"""How often `mqperf compare` calls a change: over many generated pairs and series of USL sweeps.

Pairs: per scenario, the share of pairs in which some parameter or curve point of the
series was called changed, with a 95 % (Wilson) interval for that share. "no change" is
the false-change rate (the stated level is 5 %); the others are the power to find a known
change. Runs have 12 points (1–12 tasks); "additive" noise is what the fits assume (the same
at every concurrency), "relative" noise grows with the rate.

Change points: sets of six runs of 8-point sweeps (1–8 tasks: five residual degrees of
freedom per USL fit), either unchanged or with every rate 15 % lower from the fourth run,
taken through `mqperf compare`'s own change-point step (:func:`mqperf.publish.compare.compare`).
Printed: the share of series with any change point (unchanged: the false-alarm rate, target
at most 10 %) and the share found at the fourth run and nowhere else (target at least 80 %),
each with its interval; beside them the rule before issue 21 (each run's standard errors
taken as known, each parameter tested at α on its own).

    .venv/bin/python benchmarks/compare_error_rates.py [--pairs 500] [--series 200] [--skip-pairs]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mqperf.models import changepoint, compare, usl

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
    return max(0.0, centre - half), min(1.0, centre + half)


def _series(rng, noise_sd: float, shift: float) -> list:
    """Six runs of one series: 8-point sweeps, every rate × (1 − shift) from the fourth run on."""
    n = np.arange(1, 9, dtype=float)
    fits = []
    for i in range(6):
        lam = BASE["lam"] * (1 - shift if i >= 3 else 1.0)
        x = usl.throughput(n, lam, BASE["sigma"], BASE["kappa"])
        y = x + rng.normal(0, noise_sd, n.size)
        while np.any(y <= 0):  # a rate is positive: draw that run again
            y = x + rng.normal(0, noise_sd, n.size)
        fits.append(usl.fit(n, y))
    return fits


def _through_compare(fits: list) -> set:
    """The runs (positions) where `mqperf compare`'s change-point step finds a change in the series."""
    from mqperf.present.results import Results
    from mqperf.publish.compare import Run, compare as run_compare

    runs = []
    for i, f in enumerate(fits):
        res = Results(book_data=False)
        res.card("usl", {"name": "bench: A"}, f)
        runs.append(Run(f"R{i}", [], "bench", res))
    out = run_compare("bench", runs)
    return {int(r[1:]) for r in out.changes["run"]}


def _as_before(fits: list) -> set:
    """The rule before issue 21: every parameter and the curve at N = 8 tested at α on its own, the
    runs' standard errors taken as known."""
    found = set()
    tests = [([float(f.params[p]) for f in fits], [np.nan if p in f.active_bounds else float(f.bse[p]) for f in fits])
             for p in usl.NAMES]
    curve = [compare.curve_value(f, 8.0) for f in fits]
    tests.append(([c["estimate"] for c in curve], [c["std_err"] for c in curve]))
    for y, s in tests:
        if np.all(np.isfinite(s)) and np.all(np.asarray(s) > 0):
            found |= {c.index for c in changepoint.detect(y, s)}
    return found


def changepoints(series: int) -> None:
    rng = np.random.default_rng(2121)
    print(f"\nchange points: six runs of 8-point sweeps, {series} series each")
    print(f"{'noise sd':>8} {'scenario':10} {'rule':9} {'any change':>11}  95 % interval   {'at run 4 only':>13}  95 % interval")
    for noise_sd in (120.0, 240.0):
        for name, shift in (("no change", 0.0), ("rate -15 %", 0.15)):
            hits = {"now": [0, 0], "before": [0, 0]}
            for _ in range(series):
                fits = _series(rng, noise_sd, shift)
                for rule, found in (("now", _through_compare(fits)), ("before", _as_before(fits))):
                    hits[rule][0] += bool(found)
                    hits[rule][1] += found == {3}
            for rule, (any_, exact) in hits.items():
                lo, hi = wilson(any_, series)
                lo2, hi2 = wilson(exact, series)
                print(f"{noise_sd:>8g} {name:10} {rule:9} {any_ / series:>10.1%}  {lo:6.1%} – {hi:5.1%}   "
                      f"{exact / series:>12.1%}  {lo2:6.1%} – {hi2:5.1%}")


def main() -> None:
    import warnings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--series", type=int, default=200)
    parser.add_argument("--skip-pairs", action="store_true", help="only the change points")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if not args.skip_pairs:
        pairs(args.pairs)
    changepoints(args.series)
    print(f"{time.perf_counter() - start:.1f} s")


def pairs(count: int) -> None:
    rng = np.random.default_rng(2026)
    print(f"{'noise':9} {'scenario':12} {'called changed':>15}  95 % interval   ({count} pairs each)")
    for noise in ("additive", "relative"):
        for name, change in SCENARIOS:
            if noise == "relative" and name not in ("no change", "rate -15 %"):
                continue
            hits = sum(bool(compare.parameters(_fit(rng, BASE, noise), _fit(rng, {**BASE, **change}, noise))
                            ["changed"].any()) for _ in range(count))
            lo, hi = wilson(hits, count)
            print(f"{noise:9} {name:12} {hits / count:>14.1%}  {lo:6.1%} – {hi:5.1%}")


if __name__ == "__main__":
    main()
