"""A commit's cost in replication round trips: rate against the network delay between HA nodes.

    R(d) = a + k·d,        per-client rate x(d) = 1000 / R(d),        throughput X(d) = N·x(d)

A closed loop of N clients with no think time (each has one request outstanding) completes
X = N / R requests per second (Little's law). An HA queue manager (RDQM's DRBD, Native HA, a
multi-instance queue manager on network storage) cannot finish a persistent request until its
log writes reach the other node(s): each request waits ``k`` network round trips of ``d`` ms
on top of a time ``a`` ms spent elsewhere (the API calls, the log disk, queueing for CPU).
``k`` is the number of round trips a request waits for, the quantity a planner needs: at a
round-trip time d the rate is N·1000/(a + k·d), and the delay that halves the rate is
``d½ = a / k``.

``d`` is either the delay added between the nodes (a netem test: ``a`` then includes the
test network's own round trips) or the whole round-trip time (``a`` then excludes them).
Without a client count the fit is on the rate itself, 1000/(a' + b·d), and ``b = k/N``:
the round trips a request waits for cannot be told from the concurrency (:attr:`per_client`
is False and :attr:`k` is NaN).

Fit: weighted least squares on the per-client rates, weights 1/x² (equal relative errors:
rates fall by an order of magnitude between 0 and 5 ms), through the one solver
(:func:`mqperf.models._nls.nls`); the start is the straight line R = a + k·d through the
response times N/X. Units: d and a in ms, rates per second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._nls import WeightedFitResult, nls, resolve_weights

FORMULA = "rate(d) = N · 1000 / (a + k·d)"
NAMES = ("a", "k")


def per_client_rate(d, a: float, k: float):
    """x(d) = 1000 / (a + k·d): requests per second of one client, d and a in ms."""
    return 1000.0 / (a + k * np.asarray(d, dtype=float))


def response_ms(d, a: float, k: float):
    """R(d) = a + k·d in ms."""
    return a + k * np.asarray(d, dtype=float)


@dataclass(frozen=True)
class ReplicationResult(WeightedFitResult):
    """A fitted round-trip model; ``clients`` is the N the rates were measured at (1 without counts)."""

    clients: float = 1.0
    per_client: bool = True

    @property
    def a(self) -> float:
        """a: ms per request not spent on the delay d."""
        return float(self.params["a"])

    @property
    def slope(self) -> float:
        """The fitted slope: k with client counts, k/N without."""
        return float(self.params["k"])

    @property
    def k(self) -> float:
        """k: round trips of d a request waits for (NaN without client counts)."""
        return self.slope if self.per_client else math.nan

    def k_interval(self, alpha: float = 0.05) -> tuple[float, float]:
        """k's interval (NaN without residual degrees of freedom or without client counts)."""
        if not self.per_client or self.df_resid <= 0 or self.cov is None:
            return math.nan, math.nan
        ci = self.conf_int(alpha).loc["k"]
        return float(ci["lower"]), float(ci["upper"])

    def halving_delay(self) -> float:
        """d½ = a / k: the delay at which the rate is half the rate at d = 0 (inf when k is 0)."""
        return self.a / self.slope if self.slope > 0 else math.inf

    def rate(self, d, clients: float | None = None):
        """Throughput at delay ``d`` with ``clients`` (default: the measured N)."""
        n = self.clients if clients is None else float(clients)
        return n * self.predict(d)

    def rate_band(self, d, clients: float | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Throughput at ``d`` with the curve's confidence band (NaN without residual df)."""
        n = self.clients if clients is None else float(clients)
        band = self.conf_band(np.atleast_1d(np.asarray(d, dtype=float)), alpha)
        return pd.DataFrame({"d": band["x"], "rate": n * band["fit"], "lower": n * band["lower"],
                             "upper": n * band["upper"]})

    def delay_for(self, target: float, clients: float | None = None) -> float:
        """The largest delay d at which the throughput still reaches ``target``: (1000·N/target − a)/k.

        NaN when even d = 0 falls short; inf when the slope is 0.
        """
        n = self.clients if clients is None else float(clients)
        room = 1000.0 * n / float(target) - self.a
        if room < 0:
            return math.nan
        return room / self.slope if self.slope > 0 else math.inf

    def derived(self) -> dict:
        return {"d_half_ms": self.halving_delay(), "clients": self.clients}


def fit(delay_ms, rate, clients=None, *, weights="relative", data_name: str | None = None,
        data_hash: str | None = None) -> ReplicationResult:
    """Fit rate(d) = N·1000/(a + k·d) to rates measured at several delays.

    Parameters
    ----------
    delay_ms
        Added (or whole) round-trip delay between the nodes, ms (≥ 0).
    rate
        Measured throughput (requests, round trips or messages per second; > 0).
    clients
        Concurrent clients at each point (None: unknown, the slope is k/N). Points may have
        different N: the fit is on the per-client rate rate/N.

    Returns
    -------
    ReplicationResult
        Wald intervals on n − 2 df; none with two delays (exactly identified).

    Raises
    ------
    ModelError
        Fewer than two distinct delays, a negative delay or non-positive rate, or rates that
        grow with the delay (then no round trip is waited for and k is not identified).
    """
    d = np.asarray(delay_ms, dtype=float).ravel()
    x = np.asarray(rate, dtype=float).ravel()
    if d.size != x.size:
        raise ModelError(f"delay has {d.size} values but rate has {x.size}")
    if d.size == 0 or not (np.all(np.isfinite(d)) and np.all(np.isfinite(x))):
        raise ModelError("the round-trip model: a delay or rate is missing or infinite")
    if np.any(d < 0):
        raise ModelError(f"the round-trip model: delays must be 0 or more (found {d.min():g})")
    if np.any(x <= 0):
        raise ModelError(f"the round-trip model: rates must be greater than zero (found {x.min():g})")
    if np.unique(d).size < 2:
        raise ModelError("the round-trip model has 2 parameters: it needs at least 2 distinct delays; "
                         f"got {np.unique(d).size}")
    per_client = clients is not None
    n = np.ones_like(x) if clients is None else np.asarray(clients, dtype=float).ravel()
    if n.size != x.size or not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise ModelError("the round-trip model: clients must be one positive count per rate")
    y = x / n
    w, how = resolve_weights(weights, y)
    # Straight line through the response times R = 1000/y, weighted as the rate fit linearised.
    resp = 1000.0 / y
    design = np.column_stack([np.ones_like(d), d])
    sw = np.sqrt(w) * y**2 / 1000.0
    a0, k0 = np.linalg.lstsq(design * sw[:, None], sw * resp, rcond=None)[0]
    if k0 <= 0:
        raise ModelError("the round-trip model: the rates do not fall as the delay grows, so no round trip "
                         "waited for is identified")
    r_min = float(resp.min())
    starts = [(max(a0, 1e-3 * r_min), k0), (0.5 * r_min, k0), (r_min, 0.5 * k0)]
    res = nls(per_client_rate, d, y, names=NAMES, starts=starts, lower=[0, 0], upper=[np.inf, np.inf],
              weights=w, label="the round-trip model", batch=True)
    notes = [how]
    notes.append("k is the number of round trips of d a request waits for" if per_client else
                 "no client counts: the slope is k/N, and k cannot be told from the concurrency")
    if res.df_resid == 0:
        notes.append("exactly identified: two delays for two parameters, so no standard errors or intervals")
    if "a" in res.at_bound:
        notes.append("a is on its bound 0: the whole response time is round trips")
    n_fit = float(np.median(n))
    return ReplicationResult(
        model="replication_round_trips",
        formula=FORMULA if per_client else "rate(d) = 1000 / (a + b·d), b = k/N",
        params=pd.Series(res.theta, index=list(NAMES), dtype=float),
        cov=res.cov,
        x=d,
        y=y,
        fn=per_client_rate,
        units={"a": "ms per request", "k": "round trips per request" if per_client else "ms per ms (k/N)"},
        at_bound=res.at_bound,
        active_bounds=res.active_bounds,
        notes=tuple(notes),
        data_name=data_name,
        data_hash=data_hash,
        weights=w,
        clients=n_fit,
        per_client=per_client,
    )
