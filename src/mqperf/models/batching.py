"""Units of work: throughput and log bytes against messages per commit.

Throughput of one task committing every ``b`` messages:

    X(b) = b / (t_c + b·t_m)          (asymptote X∞ = 1/t_m)

``t_c`` is the time of one commit (for persistent messages mostly the forced log write
it waits for) and ``t_m`` the time per message. A unit of work of ``b`` messages takes
``t_c + b·t_m``; the commit is shared by ``b`` messages. This is the same form as the
latency–bandwidth model (a fixed cost amortised over a batch) and as Michaelis–Menten
kinetics: X reaches the fraction ``f`` of X∞ at ``b = f/(1 − f) · t_c/t_m``.

Log bytes written per message:

    L(b) = l_m + l_c / b

``l_m`` bytes per message and ``l_c`` bytes per commit (the commit record and its
overhead, shared by the batch). Seed 000 quotes MP16: an MQGET of a 1 KB persistent
message with a commit per message logs 492 bytes per message, 10 gets per commit log 178
bytes per message; those two points identify l_m and l_c exactly.

Both fits are least squares; the throughput fit uses weights 1/X² by default (equal
relative errors, as rates at b = 1 and b = 250 differ tenfold), the log-bytes fit is
unweighted (the bytes are counted, not sampled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._nls import WeightedFitResult, check_pairs, nls, resolve_weights

THROUGHPUT_FORMULA = "X(b) = b / (t_c + b*t_m)"
LOG_BYTES_FORMULA = "L(b) = l_m + l_c / b"


def throughput(b, t_c: float, t_m: float):
    """X(b) = b / (t_c + b·t_m): messages per unit time with b messages per commit."""
    b = np.asarray(b, dtype=float)
    return b / (t_c + b * t_m)


def log_bytes(b, l_m: float, l_c: float):
    """L(b) = l_m + l_c/b: log bytes per message with b messages per commit."""
    return l_m + l_c / np.asarray(b, dtype=float)


def batch_for_fraction(fraction: float, t_c: float, t_m: float) -> float:
    """Messages per commit at which X(b) = fraction·X∞: b = f/(1 − f) · t_c/t_m (not rounded)."""
    if not 0 < fraction < 1:
        raise ModelError(f"fraction must be between 0 and 1 (exclusive), not {fraction}")
    if t_m <= 0:  # no saturation: no unit of work reaches a share of an unbounded rate
        return math.inf
    return fraction / (1 - fraction) * t_c / t_m


def _linear_start(b, y, w):
    """Least squares of y on (1, 1/b) with weights w: the exact fit when the model is linear."""
    design = np.column_stack([np.ones_like(b), 1 / b])
    sw = np.sqrt(w)
    return np.linalg.lstsq(design * sw[:, None], y * sw, rcond=None)[0]


@dataclass(frozen=True)
class BatchThroughputResult(WeightedFitResult):
    """A fitted X(b); derived quantities accept what-if overrides of t_c and t_m."""

    @property
    def t_c(self) -> float:
        """t_c: time per commit."""
        return float(self.params["t_c"])

    @property
    def t_m(self) -> float:
        """t_m: time per message."""
        return float(self.params["t_m"])

    def x_max(self, t_m: float | None = None) -> float:
        """X∞ = 1/t_m: throughput with unbounded units of work (inf when t_m is held at 0)."""
        t_m = self.t_m if t_m is None else t_m
        return 1.0 / t_m if t_m > 0 else math.inf

    def batch_for_fraction(self, fraction: float, t_c: float | None = None, t_m: float | None = None) -> float:
        """Messages per commit reaching ``fraction`` of X∞ (round up for a setting)."""
        return batch_for_fraction(fraction, self.t_c if t_c is None else t_c, self.t_m if t_m is None else t_m)

    def derived(self) -> dict:
        if self.t_m <= 0:  # a card holds no infinities: no asymptote, no batch for 90 %
            return {"x_max": math.nan, "batch_for_90pct": math.nan}
        return {"x_max": self.x_max(), "batch_for_90pct": self.batch_for_fraction(0.9)}


@dataclass(frozen=True)
class LogBytesResult(WeightedFitResult):
    """A fitted L(b); derived quantities accept what-if overrides of l_m and l_c."""

    @property
    def l_m(self) -> float:
        """l_m: log bytes per message (the floor as b grows)."""
        return float(self.params["l_m"])

    @property
    def l_c(self) -> float:
        """l_c: log bytes per commit."""
        return float(self.params["l_c"])

    def batch_for_excess(self, excess: float, l_m: float | None = None, l_c: float | None = None) -> float:
        """Messages per commit with L(b) ≤ (1 + excess)·l_m: b = l_c / (excess·l_m)."""
        if excess <= 0:
            raise ModelError(f"excess must be greater than zero, not {excess}")
        return (self.l_c if l_c is None else l_c) / (excess * (self.l_m if l_m is None else l_m))

    def log_rate(self, rate, b, l_m: float | None = None, l_c: float | None = None):
        """Log bytes per unit time at a message rate with b messages per commit."""
        return np.asarray(rate, dtype=float) * log_bytes(b, self.l_m if l_m is None else l_m,
                                                         self.l_c if l_c is None else l_c)

    def derived(self) -> dict:
        return {"l_1": self.l_m + self.l_c}


def fit_throughput(b, x, *, weights="relative", data_name=None, data_hash=None) -> BatchThroughputResult:
    """Fit X(b) = b/(t_c + b·t_m) to throughput measured at several messages per commit.

    Raises
    ------
    ModelError
        Fewer than two distinct batch sizes, non-positive values.
    """
    b, x = check_pairs(b, x, "messages per commit b", "throughput X", k=2, label="the unit-of-work throughput model")
    w, how = resolve_weights(weights, x)
    # 1/X = t_m + t_c/b is linear; weights x⁴·w carry the rate weights over (Var 1/X ≈ Var X / X⁴).
    t_m0, t_c0 = _linear_start(b, 1 / x, w * x**4)
    t_m0 = t_m0 if t_m0 > 0 else 0.5 / x.max()
    t_c0 = t_c0 if t_c0 > 0 else 0.5 * b.min() / x.max()
    res = nls(throughput, b, x, names=("t_c", "t_m"),
              starts=[(t_c0, t_m0), (b.min() / x.min(), 0.5 / x.max())],
              lower=[0, 0], upper=[np.inf, np.inf], weights=w, label="the unit-of-work throughput model", batch=True)
    notes = [how, *_common_notes(res, "two batch sizes")]
    if "t_c" in res.at_bound:
        notes.append("t_c is on its bound 0: batching shows no gain in these data")
    if "t_m" in res.at_bound:
        notes.append("t_m is on its bound 0: no saturation visible, X grows in proportion to b")
    return BatchThroughputResult(
        model="uow_throughput", formula=THROUGHPUT_FORMULA,
        params=pd.Series(res.theta, index=["t_c", "t_m"], dtype=float), cov=res.cov, x=b, y=x,
        fn=throughput, units={"t_c": "time per commit", "t_m": "time per message"},
        at_bound=res.at_bound, active_bounds=res.active_bounds, notes=tuple(notes), data_name=data_name, data_hash=data_hash, weights=w,
    )


def fit_log_bytes(b, log_bytes_per_msg, *, weights="none", data_name=None, data_hash=None) -> LogBytesResult:
    """Fit L(b) = l_m + l_c/b to log bytes per message at several messages per commit.

    The model is linear in (l_m, l_c), so the least-squares solution is exact; bounds
    l_m, l_c ≥ 0 keep it physical and are reported when active.

    Raises
    ------
    ModelError
        Fewer than two distinct batch sizes, non-positive values.
    """
    b, y = check_pairs(b, log_bytes_per_msg, "messages per commit b", "log bytes per message", k=2,
                       label="the log-bytes model")
    w, how = resolve_weights(weights, y)
    l_m0, l_c0 = _linear_start(b, y, w)
    res = nls(log_bytes, b, y, names=("l_m", "l_c"), starts=[(max(l_m0, 1e-9), max(l_c0, 1e-9)), (y.min(), 1.0)],
              lower=[0, 0], upper=[np.inf, np.inf], weights=w, label="the log-bytes model", batch=True)
    notes = [how, *_common_notes(res, "two batch sizes")]
    if "l_c" in res.at_bound:
        notes.append("l_c is on its bound 0: the bytes per message do not fall with larger units of work here")
    if "l_m" in res.at_bound:
        notes.append("l_m is on its bound 0: the data want a negative per-message floor")
    return LogBytesResult(
        model="uow_log_bytes", formula=LOG_BYTES_FORMULA,
        params=pd.Series(res.theta, index=["l_m", "l_c"], dtype=float), cov=res.cov, x=b, y=y,
        fn=log_bytes, units={"l_m": "bytes per message", "l_c": "bytes per commit"},
        at_bound=res.at_bound, active_bounds=res.active_bounds, notes=tuple(notes), data_name=data_name, data_hash=data_hash, weights=w,
    )


def _common_notes(res, what: str) -> list[str]:
    if res.df_resid == 0:
        return [f"exactly identified: {what} for two parameters, so no standard errors or intervals"]
    return []

