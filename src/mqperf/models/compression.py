"""CPU per transaction on a compressing channel: linear in the bytes sent and the bytes compression removes.

For one compression technique (COMPMSG: NONE, RLE, ZLIBFAST, ZLIBHIGH), a message of S KB that
compression shrinks by a share p (compressibility: p = 1 − compressed/original) costs

    cost = a + b·S + c·S·p

µs per transaction: a fixed cost per transaction, b per KB of message handled, and c per KB the
compression removes (negative: removing a KB saves CPU, e.g. less data to encrypt and send). The
same form fits the elapsed time per transaction, 10⁶ / rate, of a measured workload (:func:`fit`
with ``y`` in µs per transaction). The model is linear in its parameters, so ordinary least
squares solves it exactly (``numpy.linalg.lstsq``) and the design matrix is the Jacobian of the
covariance :func:`mqperf.models._base.covariance`.

When the rows hold one compressibility only (NONE's baseline, or a technique measured at one
share), c is not identified and the model is ``a + b·S``: :func:`fit` drops it and says so.

Bands (:meth:`CompressionResult.band`): Wald (delta method, exact for a linear model) when the
residuals pass the normality and even-spread checks, else a residual bootstrap of the fitted
values (refits by least squares on resampled residuals, fixed seed), widened where narrower to
the Wald band, as :meth:`FitResult.conf_int` does for the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import pvalues
from mqperf.models._base import FitResult, covariance

#: Fixed seed and refits of the bootstrap bands (the book's outputs are deterministic).
SEED, REFITS = 20230201, 999
UNITS = {"a": "us", "b": "us/KB", "c": "us/KB removed"}


def design(x: np.ndarray, terms: int) -> np.ndarray:
    """Columns 1, S, S·p of ``x`` (rows of (S KB, p share)); the first ``terms`` of them."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    s, p = x[:, 0], x[:, 1]
    return np.column_stack([np.ones_like(s), s, s * p])[:, :terms]


def _full(x, a, b, c):
    return design(x, 3) @ np.array([a, b, c])


def _size_only(x, a, b):
    return design(x, 2) @ np.array([a, b])


@dataclass(frozen=True)
class CompressionResult(FitResult):
    """A fitted cost line: ``a + b·S [+ c·S·p]``."""

    @property
    def has_c(self) -> bool:
        """Whether the bytes-removed term was fitted (the rows hold two or more compressibilities)."""
        return "c" in self.params.index

    @property
    def size_range(self) -> tuple[float, float]:
        return float(self.x[:, 0].min()), float(self.x[:, 0].max())

    @property
    def share_range(self) -> tuple[float, float]:
        return float(self.x[:, 1].min()), float(self.x[:, 1].max())

    def band(self, x, alpha: float = 0.05) -> pd.DataFrame:
        """Mean cost at ``x`` (rows of S KB, p) with its 1 − alpha band (see the module docstring);
        columns ``fit``, ``lower``, ``upper``, and ``method`` ("Wald", "bootstrap" or "none")."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        terms = self.params.size
        xd = design(x, terms)
        fit = xd @ self.params.to_numpy()
        if self.cov is None or self.df_resid <= 0:
            nan = np.full_like(fit, np.nan)
            return pd.DataFrame({"fit": fit, "lower": nan, "upper": nan, "method": "none"})
        se = np.sqrt(np.einsum("ij,jk,ik->i", xd, self.cov.to_numpy(), xd))
        q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
        lower, upper = fit - q * se, fit + q * se
        if not self.residual_checks.passed:
            draws = self._draws() @ xd.T
            lo, hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
            return pd.DataFrame({"fit": fit, "lower": np.fmin(lo, lower), "upper": np.fmax(hi, upper),
                                 "method": "bootstrap"})
        return pd.DataFrame({"fit": fit, "lower": lower, "upper": upper, "method": "Wald"})

    def _draws(self) -> np.ndarray:
        """Parameter vectors of the residual bootstrap (REFITS rows): y* = fitted + e*, refitted."""
        cache = self.__dict__.setdefault("_draws_cache", {})
        if "draws" not in cache:
            xd = design(self.x, self.params.size)
            resid = self.resid * np.sqrt(self.nobs / self.df_resid)
            rng = np.random.default_rng(SEED)
            pinv = np.linalg.pinv(xd)
            e = rng.choice(resid, size=(REFITS, resid.size), replace=True)
            cache["draws"] = self.params.to_numpy() + e @ pinv.T
        return cache["draws"]

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """Wald intervals; when the residual checks fail, the bootstrap's percentiles (linear refits, so no
        solver can fail) widened where narrower to the Wald interval."""
        if self.df_resid <= 0 or self.residual_checks.passed or self.cov is None:
            return super().conf_int(alpha)
        q = pvalues.t_ppf(1 - alpha / 2, self.df_resid)
        lo, hi = np.quantile(self._draws(), [alpha / 2, 1 - alpha / 2], axis=0)
        return pd.DataFrame({"lower": np.fmin(lo, self.params - q * self.bse),
                             "upper": np.fmax(hi, self.params + q * self.bse)}, index=self.params.index)

    @property
    def interval_method(self) -> str:
        if self.df_resid <= 0:
            return "none: no residual degrees of freedom"
        if not self.residual_checks.passed:
            return (f"residual bootstrap, {REFITS} linear refits, percentile 95 %, widened where narrower to the t "
                    "interval (the residuals fail the normality or even-spread check)")
        return "Wald, Student-t on df_resid, 95 %"


def fit(size_kb, share, y, *, what: str = "cpu_us", data_name: str | None = None,
        data_hash: str | None = None) -> CompressionResult:
    """Least squares of ``y = a + b·S + c·S·p`` (S = ``size_kb``, p = ``share`` of the message removed, 0 to 1).

    Raises
    ------
    ModelError
        Values missing, or fewer than two message sizes.
    """
    s = np.asarray(size_kb, dtype=float).ravel()
    p = np.asarray(share, dtype=float).ravel()
    yy = np.asarray(y, dtype=float).ravel()
    if not (s.size == p.size == yy.size) or s.size == 0:
        raise ModelError("sizes, compressibilities and values must be given for every row")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(p)) and np.all(np.isfinite(yy))):
        raise ModelError("a size, compressibility or value is missing or infinite")
    if np.unique(s).size < 2:
        raise ModelError(f"one message size only ({s[0]:g} KB): the cost per KB needs two sizes or more")
    x = np.column_stack([s, p])
    spread = np.unique(s * p).size > 1 and np.linalg.matrix_rank(design(x, 3)) == 3
    terms = 3 if spread else 2
    names = ["a", "b", "c"][:terms]
    xd = design(x, terms)
    beta = np.linalg.lstsq(xd, yy, rcond=None)[0]
    resid = yy - xd @ beta
    df = yy.size - terms
    cov = covariance(xd, resid, df, names) if df > 0 else None
    notes = [] if spread else ["one compressibility per size (or none compressed): the bytes-removed term c is "
                               "not identified and left out"]
    formula = f"{what} = a + b*size_kb" + (" + c*size_kb*share_removed" if spread else "")
    return CompressionResult(model="compression_cost_line", formula=formula,
                             params=pd.Series(beta, index=names), cov=cov, x=x, y=yy,
                             fn=_full if spread else _size_only, units=dict(UNITS), notes=tuple(notes),
                             data_name=data_name, data_hash=data_hash)


def share_from_ratio(ratio) -> np.ndarray:
    """Compressibility (share removed, 0 to 1) from a compression ratio original/compressed: 1 − 1/ratio."""
    r = np.asarray(ratio, dtype=float)
    return 1.0 - 1.0 / r


def difference_band(one: pd.Series, other: pd.Series, df: int, alpha: float = 0.05) -> tuple[float, float, float]:
    """other − one at a point, with a 1 − alpha interval, for two independent fits' bands.

    Each band gives a half-width; the half-widths combine as √(h₁² + h₂²) (independent fits on
    disjoint rows), on the smaller of the two fits' residual degrees of freedom (``df``). Bands of
    the bootstrap are treated as their half-widths the same way: an approximation, said where used.
    """
    d = float(other["fit"] - one["fit"])
    h1 = float(max(one["upper"] - one["fit"], one["fit"] - one["lower"]))
    h2 = float(max(other["upper"] - other["fit"], other["fit"] - other["lower"]))
    if not (np.isfinite(h1) and np.isfinite(h2)) or df <= 0:
        return d, np.nan, np.nan
    h = np.hypot(h1, h2)
    return d, d - h, d + h
