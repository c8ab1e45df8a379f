"""Latency–bandwidth model of message rate against message size.

    t(s) = a + s / B,        rate r(s) = 1 / t(s),        bytes per second = s·r(s) = B·s / (s + s½)

Each message costs a fixed time ``a`` (API calls, commit, network round trip, the
connector's own work) plus ``s/B`` for its bytes, where ``B`` is the asymptotic bandwidth
that very large messages approach. The half-size ``s½ = a·B`` is the message size at which
half of the time is spent per byte, and at which the byte rate reaches half of B. This is
Hockney's (r∞, n½) model of communication (R. W. Hockney, *Parallel Computing* 20 (1994)
389–398), with our ``B = r∞`` and ``s½ = n½``.

Units follow the input: sizes in bytes and rates in messages per second give ``a`` in
seconds and ``B`` in bytes per second.

Fit: weighted least squares on the *rates*, weights 1/r² by default, i.e. every measured
rate is assumed to carry the same relative error. Rates across message sizes differ by an
order of magnitude (28,776/s at 1 KB against 3,750/s at 32 KB in seed 000); an unweighted fit
would follow the small-message rate and ignore the large ones that carry the bandwidth.
The starting point is the straight line t = a + s/B through the times 1/r.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._nls import WeightedFitResult, check_pairs, nls, resolve_weights

FORMULA = "rate(s) = 1 / (a + s/B)"
NAMES = ("a", "B")


def message_rate(size, a: float, B: float):
    """r(s) = 1 / (a + s/B): messages per unit time."""
    return 1.0 / (a + np.asarray(size, dtype=float) / B)


def message_rate_gradient(size, a: float, B: float) -> np.ndarray:
    """∂r/∂(a, B) of :func:`message_rate`: −r² and r²·s/B²."""
    s = np.asarray(size, dtype=float)
    r2 = message_rate(s, a, B) ** 2
    return np.column_stack([-r2, r2 * s / B**2])


def byte_rate(size, a: float, B: float):
    """s·r(s) = B·s / (s + aB): bytes per unit time, approaching B for large s."""
    size = np.asarray(size, dtype=float)
    return size * message_rate(size, a, B)


def half_size(a: float, B: float) -> float:
    """s½ = a·B: the size at which fixed and per-byte time are equal (byte rate = B/2)."""
    return a * B


def size_for_fraction(fraction: float, a: float, B: float) -> float:
    """Message size whose byte rate is ``fraction`` of B: s = f·s½ / (1 − f)."""
    if not 0 < fraction < 1:
        raise ModelError(f"fraction must be between 0 and 1 (exclusive), not {fraction}")
    return fraction * half_size(a, B) / (1 - fraction)


@dataclass(frozen=True)
class LatencyBandwidthResult(WeightedFitResult):
    """A fitted latency–bandwidth model; derived quantities accept what-if overrides."""

    @property
    def a(self) -> float:
        """a: fixed time per message."""
        return float(self.params["a"])

    @property
    def bandwidth(self) -> float:
        """B: asymptotic bandwidth (size units per time unit)."""
        return float(self.params["B"])

    def s_half(self, a: float | None = None, B: float | None = None) -> float:
        """s½ = a·B, the half-performance message size."""
        return half_size(self.a if a is None else a, self.bandwidth if B is None else B)

    def time_per_message(self, size, a: float | None = None, B: float | None = None):
        """t(s) = a + s/B."""
        a = self.a if a is None else a
        B = self.bandwidth if B is None else B
        return a + np.asarray(size, dtype=float) / B

    def byte_rate(self, size, a: float | None = None, B: float | None = None):
        """Bytes per unit time at message size ``size``."""
        return byte_rate(size, self.a if a is None else a, self.bandwidth if B is None else B)

    def size_for_fraction(self, fraction: float, a: float | None = None, B: float | None = None) -> float:
        """Message size reaching ``fraction`` of the asymptotic bandwidth."""
        return size_for_fraction(fraction, self.a if a is None else a, self.bandwidth if B is None else B)

    def derived(self) -> dict:
        return {"s_half": self.s_half()}


def fit(size, rate, *, weights="relative", data_name: str | None = None, data_hash: str | None = None) -> LatencyBandwidthResult:
    """Fit rate(s) = 1/(a + s/B) to message rates measured at several message sizes.

    Parameters
    ----------
    size, rate
        Message sizes and measured message rates (both > 0).
    weights
        ``"relative"`` (default: wᵢ = 1/rᵢ², equal relative errors), ``"none"``, or an
        array proportional to 1/Var(rateᵢ).

    Returns
    -------
    LatencyBandwidthResult
        Intervals are Wald intervals (Student-t on n − 2 df); none with two sizes.

    Raises
    ------
    ModelError
        Fewer than two distinct sizes, non-positive values, or rates that do not fall with
        size (then no finite bandwidth is identified).
    """
    size, rate = check_pairs(size, rate, "message size", "message rate", k=2, label="the latency-bandwidth model")
    w, how = resolve_weights(weights, rate)
    # Straight line through the times; weights w·r⁴ on t make it the linearised version of
    # the rate fit (Var t ≈ Var r / r⁴).
    design = np.column_stack([np.ones_like(size), size])
    sw = np.sqrt(w) * rate**2
    a0, c0 = np.linalg.lstsq(design * sw[:, None], sw / rate, rcond=None)[0]
    if c0 <= 0:
        raise ModelError(
            "the latency-bandwidth model: the time per message does not grow with size "
            "(the rates do not fall), so no finite bandwidth is identified"
        )
    t_min = float(np.min(1 / rate))
    starts = [(max(a0, 1e-3 * t_min), 1 / c0), (0.5 * t_min, 1 / c0), (1e-3 * t_min, 2 / c0)]
    res = nls(message_rate, size, rate, names=NAMES, starts=starts, lower=[0, 0], upper=[np.inf, np.inf],
              weights=w, label="the latency-bandwidth model", gradient=message_rate_gradient, batch=True)
    notes = [how]
    if res.df_resid == 0:
        notes.append("exactly identified: two sizes for two parameters, so no standard errors or intervals")
    if "a" in res.at_bound:
        notes.append("a is on its bound 0: no fixed per-message time detectable (the rate falls as 1/size)")
    if res.theta[1] * res.theta[0] > 10 * size.max():
        notes.append("s_half lies far beyond the largest size measured: B is an extrapolation")
    return LatencyBandwidthResult(
        model="latency_bandwidth",
        formula=FORMULA,
        params=pd.Series(res.theta, index=list(NAMES), dtype=float),
        cov=res.cov,
        x=size,
        y=rate,
        fn=message_rate,
        units={"a": "time per message (1 / rate unit)", "B": "size units per time unit"},
        at_bound=res.at_bound,
        active_bounds=res.active_bounds,
        notes=tuple(notes),
        data_name=data_name,
        data_hash=data_hash,
        weights=w,
    )
