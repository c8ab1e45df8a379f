"""Make data/examples/zos_z16.csv: a synthetic reader's file for the z/OS on z16 chapter.

Two machines, "z15" and "z16", one workload, LPARs of 2 to 24 CPUs: rates from the Universal
Scalability Law with known parameters and CPU per transaction growing linearly with the CPUs,
each with 1 % noise from a fixed seed. Not a measurement: the chapter says so when it runs on it.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from mqperf.models import usl

#: Machine -> (lambda msg/s per CPU, sigma, kappa, CPU µs per transaction at 1 CPU, µs added per CPU).
MACHINES = {"z15": (130_000.0, 0.04, 0.0008, 14.0, 0.6), "z16": (138_000.0, 0.05, 0.0011, 13.0, 0.6)}
CPUS = [2, 4, 6, 8, 12, 16, 20, 24]
SEED = 16


def make() -> pd.DataFrame:
    rng = np.random.default_rng(SEED)
    rows = []
    for machine, (lam, sigma, kappa, cost1, slope) in MACHINES.items():
        n = np.array(CPUS, dtype=float)
        rate = usl.throughput(n, lam, sigma, kappa) * (1 + 0.01 * rng.standard_normal(n.size))
        cost = (cost1 + slope * (n - 1)) * (1 + 0.01 * rng.standard_normal(n.size))
        for c, x, u in zip(CPUS, rate, cost):
            rows.append({"workload": "request/reply 2KB", "machine": machine, "cpus": c,
                         "rate_msg_s": round(float(x)), "cpu_us_per_tx": round(float(u), 2)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[1] / "data" / "examples" / "zos_z16.csv"
    make().to_csv(out, index=False)
    print(out)
