"""Design matrices for the cost regressions' formulas, and ordinary least squares on them.

The book's cost regressions (:mod:`mqperf.models.costs`) use a small formula language:

    y ~ 1                     the mean
    y ~ x                     a line in a numeric column
    y ~ C(a) + C(b)           categorical main effects
    y ~ C(a) * C(b) * …       main effects and every interaction among them

This module builds their design matrices as statsmodels' formula engine (patsy) does: an
intercept, treatment coding against the first level in sorted order, main effects in the order
written, then interactions by degree with the first factor varying fastest, and columns named
``C(a)[T.level]`` and ``C(a)[T.x]:C(b)[T.y]``. The least squares are statsmodels' OLS
(``method="pinv"``) operation for operation, so the numbers are its numbers
(``tests/models/test_formula.py`` holds both to statsmodels bit for bit). Importing statsmodels
cost each process that ran a cost regression 1.1 s.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError

_CATEGORICAL = re.compile(r"^C\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$")
_NUMERIC = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Design:
    """A parsed formula with the levels its categorical factors took in the fitted data."""

    formula: str
    response: str
    terms: tuple          # each a tuple of factors; a factor is ("C", column) or ("num", column)
    levels: dict          # categorical column -> its levels, the reference first
    names: tuple          # the design's column names, the intercept first

    def matrix(self, data: pd.DataFrame) -> np.ndarray:
        """The design matrix of ``data``'s rows (every level must be one the fit saw)."""
        n = len(data)
        columns = [np.ones(n)]
        for term in self.terms:
            parts = [self._coded(data, factor) for factor in term]
            # The first factor varies fastest, as patsy orders an interaction's columns.
            for combo in itertools.product(*reversed(parts)):
                col = np.ones(n)
                for c in reversed(combo):
                    col = col * c
                columns.append(col)
        # Column-major, as patsy lays it out: a product with it then sums in the same order.
        return np.asfortranarray(np.column_stack(columns))

    def _coded(self, data: pd.DataFrame, factor) -> list[np.ndarray]:
        kind, column = factor
        if column not in data.columns:
            raise ModelError(f"{self.formula!r}: no column {column!r} in the data")
        values = data[column]
        if kind == "num":
            out = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            return [out]
        seen = _python(values)
        known = self.levels[column]
        unknown = sorted({repr(v) for v in seen if v not in known})
        if unknown:
            raise ModelError(f"{self.formula!r}: {column} = {', '.join(unknown)} is not a level the fit saw "
                             f"({', '.join(map(repr, known))})")
        return [np.array([1.0 if v == level else 0.0 for v in seen]) for level in known[1:]]


def parse(formula: str, data: pd.DataFrame) -> Design:
    """The :class:`Design` of ``formula`` on ``data`` (the data give the categorical levels)."""
    if formula.count("~") != 1:
        raise ModelError(f"cannot build the design for {formula!r}: a formula is 'response ~ terms'")
    left, right = (s.strip() for s in formula.split("~"))
    terms: list[tuple] = []
    right = right.strip()
    if right != "1":
        for chunk in right.split("+"):
            factors = []
            for raw in chunk.split("*"):
                raw = raw.strip()
                cat, num = _CATEGORICAL.match(raw), _NUMERIC.match(raw)
                if cat:
                    factors.append(("C", cat.group(1)))
                elif num and raw != "1":
                    factors.append(("num", raw))
                else:
                    raise ModelError(f"cannot build the design for {formula!r}: {raw!r} is not C(column) or a column")
            if len(factors) > 1 and any(kind == "num" for kind, _ in factors):
                raise ModelError(f"cannot build the design for {formula!r}: interactions are between C(column) "
                                 "factors only")
            # a * b * c: every non-empty subset, by degree, each in the order written.
            for degree in range(1, len(factors) + 1):
                for subset in itertools.combinations(factors, degree):
                    if subset not in terms:
                        terms.append(subset)
    terms.sort(key=len)  # main effects first, then interactions by degree (a stable sort)
    levels = {}
    for term in terms:
        for kind, column in term:
            if column not in data.columns:
                raise ModelError(f"cannot build the design for {formula!r}: no column {column!r} in the data")
            if kind == "C" and column not in levels:
                levels[column] = _levels(data[column])
    names = ["Intercept"]
    for term in terms:
        parts = [[f"C({c})[T.{_readable(level)}]" for level in levels[c][1:]] if kind == "C" else [c]
                 for kind, c in term]
        names += [":".join(reversed(combo)) for combo in itertools.product(*reversed(parts))]
    return Design(formula, left, tuple(terms), levels, tuple(names))


def used_columns(design: Design) -> list[str]:
    """The response and every column a term reads."""
    return list(dict.fromkeys([design.response] + [c for term in design.terms for _, c in term]))


@dataclass(frozen=True)
class OLS:
    """Ordinary least squares as statsmodels' ``OLS.fit(method="pinv")`` computes it."""

    params: np.ndarray
    normalized_cov: np.ndarray
    rank: int
    df_resid: int
    scale: float

    @classmethod
    def fit(cls, exog: np.ndarray, endog: np.ndarray) -> OLS:
        pinv, singular = _pinv_extended(exog)
        normalized = np.dot(pinv, np.transpose(pinv))
        rank = int(np.linalg.matrix_rank(np.diag(singular)))
        params = np.dot(pinv, endog)
        df_resid = exog.shape[0] - rank
        wresid = endog - np.dot(exog, params)
        scale = np.dot(wresid, wresid) / df_resid if df_resid > 0 else np.nan
        return cls(params, normalized, rank, df_resid, scale)

    def cov_params(self) -> np.ndarray:
        return self.normalized_cov * self.scale

    def mean_interval(self, exog: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The fitted mean at ``exog`` and its two-sided Student-t interval, as statsmodels'
        ``get_prediction(...).summary_frame(alpha)`` gives ``mean``, ``mean_ci_lower`` and ``mean_ci_upper``."""
        from mqperf.models import pvalues

        mean = np.dot(exog, self.params)
        covb = self.cov_params()
        se = np.sqrt((exog * np.dot(covb, exog.T).T).sum(1))
        q = pvalues.t_ppf(1 - alpha / 2.0, self.df_resid)
        return mean, mean - q * se, mean + q * se


def _pinv_extended(x: np.ndarray, rcond: float = 1e-15):
    """statsmodels.tools.tools.pinv_extended: the pseudo-inverse by SVD, and the singular values."""
    x = np.asarray(x).conjugate()
    u, s, vt = np.linalg.svd(x, False)
    s_orig = np.copy(s)
    cutoff = rcond * np.maximum.reduce(s)
    for i in range(min(u.shape[0], vt.shape[1])):
        s[i] = 1.0 / s[i] if s[i] > cutoff else 0.0
    return np.dot(np.transpose(vt), np.multiply(s[:, np.newaxis], np.transpose(u))), s_orig


def _python(values: pd.Series) -> list:
    """A column's values as Python objects (NumPy scalars compare and print as Python's)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values.tolist()]


def _levels(values: pd.Series) -> list:
    """The levels of a categorical column in patsy's order: a pandas categorical's own order,
    else sorted, numbers before text when a column mixes them."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return _python(pd.Series(values.cat.categories))
    distinct = list(dict.fromkeys(_python(values.dropna())))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=lambda v: (not isinstance(v, (int, float)), type(v).__name__, v))


def _readable(level) -> str:
    """A level as patsy names it in a column: text as it is, anything else by its repr."""
    if isinstance(level, str):
        return level
    if isinstance(level, bytes):
        try:
            return level.decode("utf-8")
        except UnicodeError:
            pass
    return repr(level)
