"""Exact mean-value analysis (MVA) of a closed request/reply system with several resources.

N clients each send a request, wait for its reply, think for Z seconds and send the next.
A request visits queueing resources (a queue manager's CPU, its log disk, a network link) with
service demand D_k seconds each (visits × service time). Reiser and Lavenberg's exact
recursion (Lazowska et al., *Quantitative System Performance*, 1984, ch. 6), for n = 1 … N:

    R_k(n) = D_k (1 + Q_k(n − 1))      (delay resources: R_k(n) = D_k)
    X(n)   = n / (Z + Σ_k R_k(n))
    Q_k(n) = X(n) R_k(n)

gives throughput, response time and each resource's utilisation X·D_k for every client count.
The bottleneck is the resource with the largest demand: X(N) never exceeds 1 / D_max, nor
N / (D + Z) with D = Σ D_k (the asymptotic bounds, ch. 5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError


@dataclass(frozen=True)
class Result:
    """Per client count: throughput, response time, and per resource residence time and utilisation."""

    table: pd.DataFrame        # clients, throughput, response_s, and <name>_residence_s, <name>_utilisation
    demands: dict              # name -> seconds per request
    think_s: float
    bottleneck: str            # the queueing resource with the largest demand

    def at(self, clients: int) -> pd.Series:
        return self.table.set_index("clients").loc[clients]

    @property
    def max_throughput(self) -> float:
        """1 / D_max: no number of clients gets past it."""
        return 1 / self.demands[self.bottleneck]

    @property
    def total_demand(self) -> float:
        """D = Σ D_k over every resource, delays included: the response time of one client alone."""
        return float(sum(self.demands.values()))

    @property
    def knee(self) -> float:
        """N* = (D + Z) / D_max, where the two asymptotic bounds cross (Lazowska et al. §5.3)."""
        return (self.total_demand + self.think_s) / self.demands[self.bottleneck]

    def bounds(self, clients) -> pd.DataFrame:
        """The asymptotic bounds at ``clients`` (Lazowska et al. §5.3, eqs. 5.1–5.2):

            X(N) ≤ min(N / (D + Z), 1 / D_max)      R(N) ≥ max(D, N·D_max − Z)
        """
        n = np.asarray(clients, dtype=float)
        d, d_max = self.total_demand, self.demands[self.bottleneck]
        return pd.DataFrame({"clients": n, "throughput_bound": np.minimum(n / (d + self.think_s), 1 / d_max),
                             "response_bound_s": np.maximum(d, n * d_max - self.think_s)})


def solve(demands: dict, clients: int, *, think_s: float = 0.0, delay: tuple = ()) -> Result:
    """Exact MVA for 1 … ``clients`` clients.

    Parameters
    ----------
    demands
        Service demand per request of each resource, in seconds (``{"CPU": 0.0004, "log": 0.0012}``).
    clients
        The largest number of clients to solve for.
    think_s
        Time between a reply and the next request.
    delay
        Names of resources that delay without queueing (a network's propagation time).

    Raises
    ------
    ModelError
        No queueing resource, a demand that is not a finite number ≥ 0, or fewer than one client.
    """
    if not isinstance(clients, (int, np.integer)) or clients < 1:
        raise ModelError(f"the number of clients must be a whole number ≥ 1, not {clients!r}")
    if not np.isfinite(think_s) or think_s < 0:
        raise ModelError(f"the think time must be a number ≥ 0, not {think_s!r}")
    for name, d in demands.items():
        if not isinstance(d, (int, float)) or not np.isfinite(d) or d < 0:
            raise ModelError(f"the demand of {name!r} must be a number ≥ 0 seconds, not {d!r}")
    queueing = [k for k in demands if k not in delay]
    if not queueing or max(demands[k] for k in queueing) <= 0:
        raise ModelError("MVA needs at least one queueing resource with a demand greater than 0")
    names = list(demands)
    d = np.array([demands[k] for k in names], dtype=float)
    is_delay = np.array([k in delay for k in names])
    q = np.zeros(len(names))
    rows = []
    for n in range(1, clients + 1):
        r = np.where(is_delay, d, d * (1 + q))
        x = n / (think_s + r.sum())
        q = x * r
        row = {"clients": n, "throughput": x, "response_s": r.sum()}
        for k, rk in zip(names, r):
            row[f"{k}_residence_s"] = rk
            row[f"{k}_utilisation"] = x * demands[k]
        rows.append(row)
    bottleneck = max(queueing, key=lambda k: demands[k])
    return Result(pd.DataFrame(rows), dict(demands), float(think_s), bottleneck)
