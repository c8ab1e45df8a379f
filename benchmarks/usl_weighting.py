"""USL band coverage with and without weights chosen from the residuals (issue 21, §2.7).

Simulates task-scaling data from a known USL curve under two kinds of noise, additive (the same
spread in msg/s at every N) and proportional (the same spread in %), fits each dataset

- *before*: unweighted, as the chapter did (``usl.fit``);
- *after*: by the chapter's rule (``weighting.choose``: relative weights 1/y² when equal relative
  errors describe the residuals better than equal absolute ones, by 2 or more in −2 log L),
- *spread check*: relative weights when the even-spread check alone (Spearman's ρ of |residual|
  against the fitted value, positive at the 5 % level) says the spread grows (the rule first
  tried, kept for comparison),

and counts how often the 95 % confidence band contains the true curve and the 95 % prediction
band a new measurement, at a low, a middle and the highest measured N. A band that is right
covers about 95 %.

    .venv/bin/python benchmarks/usl_weighting.py [--reps 400] [--noise 0.03]

Prints one table (coverage in %, and how often the rule chose relative weights).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from mqperf.models import usl, weighting

TASKS = np.array([1, 2, 3, 4, 6, 8, 10, 12, 14, 16], dtype=float)
TRUTH = {"lam": 10000.0, "sigma": 0.02, "kappa": 0.0005}
AT = {"low (N = 2)": 2.0, "middle (N = 8)": 8.0, "high (N = 16)": 16.0}


def simulate(kind: str, noise: float, rng) -> tuple[np.ndarray, np.ndarray]:
    x = usl.throughput(TASKS, **TRUTH)
    scale = x if kind == "proportional" else np.full_like(x, float(x.mean()))
    return x + noise * scale * rng.standard_normal(x.size), scale


def spread(result) -> tuple[float, float]:
    """Spearman's ρ and p of |residual| against the fitted values (the even-spread check)."""
    from scipy import stats

    rho, p = stats.spearmanr(np.abs(result.resid), result.fittedvalues)
    return float(rho), float(p)


def covered(result, at: np.ndarray, truth: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    band = result.bands(at)
    conf = (band["lower"].to_numpy() <= truth) & (truth <= band["upper"].to_numpy())
    pred = (band["pred_lower"].to_numpy() <= new) & (new <= band["pred_upper"].to_numpy())
    return conf, pred


def run(reps: int, noise: float, seed: int = 21) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    at = np.array(list(AT.values()))
    truth = usl.throughput(at, **TRUTH)
    rows = []
    for kind in ("additive", "proportional"):
        fits = ("before", "after", "spread check")
        tallies = {m: {"conf": np.zeros(at.size), "pred": np.zeros(at.size), "n": 0} for m in fits}
        relative = {m: 0 for m in fits}
        for _ in range(reps):
            y, _ = simulate(kind, noise, rng)
            new_scale = truth if kind == "proportional" else np.full_like(truth, float(
                usl.throughput(TASKS, **TRUTH).mean()))
            new = truth + noise * new_scale * rng.standard_normal(at.size)
            try:
                plain = usl.fit(TASKS, y)
            except Exception:
                continue
            rel = weighting.fit_usl(TASKS, y, weights=weighting.RELATIVE)
            how = weighting.choose(plain, rel)
            chosen = rel if how.kind == weighting.RELATIVE else plain
            rho, p = spread(plain)
            spread_chosen = rel if (p < 0.05 and rho > 0) else plain
            relative["after"] += how.kind == weighting.RELATIVE
            relative["spread check"] += spread_chosen is rel
            for name, res in (("before", plain), ("after", chosen), ("spread check", spread_chosen)):
                if res.df_resid <= 0 or res.cov is None:
                    continue
                conf, pred = covered(res, at, truth, new)
                tallies[name]["conf"] += conf
                tallies[name]["pred"] += pred
                tallies[name]["n"] += 1
        for name, t in tallies.items():
            row = {"noise": kind, "fit": name, "datasets": t["n"],
                   "relative weights chosen (%)": 100 * relative[name] / reps}
            for label, c, p in zip(AT, t["conf"], t["pred"]):
                row[f"confidence band, {label} (%)"] = 100 * c / max(t["n"], 1)
                row[f"prediction band, {label} (%)"] = 100 * p / max(t["n"], 1)
            rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--noise", type=float, default=0.03, help="noise sd: share of the rate (proportional) or of "
                                                             "the mean rate (additive)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    table = run(args.reps, args.noise)
    pd.set_option("display.width", 250)
    print(f"USL {TRUTH}, tasks {TASKS.astype(int).tolist()}, noise sd {args.noise:g}, {args.reps} datasets per noise "
          f"kind ({time.perf_counter() - t0:.0f} s)")
    print(table.round(1).T.to_string(header=False))


if __name__ == "__main__":
    main()
