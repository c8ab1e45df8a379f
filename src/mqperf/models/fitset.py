"""A set of fits, one per group of rows: the one shape for "a fit that may have failed".

Chapters fit one model per series (per connector, latch, configuration...). Some series
cannot be fitted (too few distinct points, a solver that fails); those keep the reason, in
words, instead of a result. :class:`FitSet` holds both, in the data's order, and builds the
frames chapters show from them: one row per fit, the parameters with their intervals, curves
on a grid, leave-one-out predictions and model cards. No I/O, no drawing, no rounding: the
presentation layer does those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models._base import FitResult


@dataclass(frozen=True)
class Fit:
    """One group's fit: ``result`` when it worked, else ``reason`` says why not."""

    group: str
    nobs: int
    result: FitResult | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.result is not None


class FitSet(Sequence):
    """Fits by group, failures included, in order."""

    def __init__(self, fits: Sequence[Fit]):
        self._fits = list(fits)

    # -- building --------------------------------------------------------------------------
    @classmethod
    def fit(cls, frame: pd.DataFrame, by: str | None, fitter: Callable[[pd.DataFrame], FitResult]) -> FitSet:
        """Fit ``fitter`` to each group of ``frame`` (``by`` None: one group named "all").

        A :class:`~mqperf.errors.ModelError` from ``fitter`` becomes that group's reason, as does
        a linear-algebra failure of the solver on the group's values (a property of the data,
        e.g. values spanning many orders of magnitude); any other exception propagates (it is a
        bug, not a property of the data).
        """
        groups = [("all", frame)] if by is None else [(str(k), g) for k, g in frame.groupby(by, sort=False)]
        fits = []
        for name, rows in groups:
            try:
                fits.append(Fit(name, len(rows), result=fitter(rows)))
            except ModelError as exc:
                fits.append(Fit(name, len(rows), reason=str(exc)))
            except (np.linalg.LinAlgError, FloatingPointError, OverflowError) as exc:
                fits.append(Fit(name, len(rows), reason=f"the solver could not fit these values ({exc})"))
        return cls(fits)

    # -- sequence --------------------------------------------------------------------------
    def __getitem__(self, i):
        if isinstance(i, str):
            for f in self._fits:
                if f.group == i:
                    return f
            raise KeyError(i)
        return self._fits[i]

    def __len__(self) -> int:
        return len(self._fits)

    def __iter__(self) -> Iterator[Fit]:
        return iter(self._fits)

    @property
    def results(self) -> dict[str, FitResult]:
        """The fitted groups' results, by group."""
        return {f.group: f.result for f in self._fits if f.ok}

    @property
    def failures(self) -> dict[str, str]:
        return {f.group: f.reason for f in self._fits if not f.ok}

    @property
    def any_intervals(self) -> bool:
        """True when at least one fit has residual degrees of freedom (and so intervals)."""
        return any(r.df_resid > 0 for r in self.results.values())

    # -- frames ----------------------------------------------------------------------------
    def summary(self, derived: Callable[[FitResult], dict] | None = None, group: str = "series") -> pd.DataFrame:
        """One row per group: model, points, parameters, fit statistics, identification."""
        rows = []
        for f in self._fits:
            row = {group: f.group, "points": f.nobs}
            if f.ok:
                r = f.result
                row.update({"model": r.model, **{p: float(v) for p, v in r.params.items()}})
                if derived:
                    row.update(derived(r))
                row.update({"residual df": r.df_resid, "RMSE": r.rmse if r.df_resid > 0 else np.nan,
                            "identification": r.identification})
            else:
                row.update({"model": "none", "identification": f.reason})
            rows.append(row)
        return pd.DataFrame(rows)

    def table(self, columns: Callable[[FitResult], dict], *, group: str = "series", count: str = "points") -> pd.DataFrame:
        """One row per group: ``columns(result)`` for a fit, the reason in ``identification`` for a failure.

        Columns come in the order of a fitted row (a failed group leaves them empty), so a
        chapter's fits table has the same shape whichever group comes first.
        """
        rows = []
        for f in self._fits:
            row = {group: f.group, count: f.nobs}
            row.update(columns(f.result) if f.ok else {"identification": f.reason})
            rows.append(row)
        if not rows:
            return pd.DataFrame(columns=[group, count, "identification"])
        return pd.DataFrame(rows).reindex(columns=list(max(rows, key=len)))

    def parameters(self, group: str = "series", alpha: float = 0.05) -> pd.DataFrame:
        """One row per group and parameter: estimate, standard error and interval (NaN where none)."""
        rows = []
        for name, r in self.results.items():
            ci = r.conf_int(alpha)
            for p in r.params.index:
                rows.append({group: name, "parameter": p, "unit": r.units.get(p, ""),
                             "estimate": float(r.params[p]), "std err": float(r.bse[p]),
                             "lower": float(ci.loc[p, "lower"]), "upper": float(ci.loc[p, "upper"]),
                             "held at bound": p in r.active_bounds})
        return pd.DataFrame(rows, columns=[group, "parameter", "unit", "estimate", "std err", "lower", "upper",
                                           "held at bound"])

    def curves(self, grid: Callable[[FitResult], np.ndarray] | np.ndarray, *, band: bool = True,
               x: str = "x", y: str = "y", group: str = "series") -> pd.DataFrame:
        """Each fit evaluated on a grid, with its 95 % bands where the fit has them.

        ``lower``/``upper`` are the confidence band (the curve's range), ``pred_lower``/
        ``pred_upper`` the prediction band (a new measurement's range; see
        :meth:`~mqperf.models._base.FitResult.pred_band`).
        """
        frames = []
        for name, r in self.results.items():
            xs = np.asarray(grid(r) if callable(grid) else grid, dtype=float)
            frame = pd.DataFrame({group: name, x: xs, y: r.predict(xs)})
            if band and r.df_resid > 0 and r.cov is not None:
                b = r.bands(xs)
                for col in ("lower", "upper", "pred_lower", "pred_upper"):
                    frame[col] = b[col].to_numpy()
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=[group, x, y])
        return pd.concat(frames, ignore_index=True)

    def leave_one_out(self, frame: pd.DataFrame, by: str | None, x: str, y: str,
                      fitter: Callable[[pd.DataFrame], FitResult], group: str = "series") -> pd.DataFrame:
        """Refit each group without each of its rows in turn and predict the row left out.

        Rows whose refit fails (too few points left) are kept with the reason, so the table
        says which points could not be checked.
        """
        groups = [("all", frame)] if by is None else [(str(k), g) for k, g in frame.groupby(by, sort=False)]
        rows = []
        for name, g in groups:
            for i in range(len(g)):
                held, rest = g.iloc[i], g.drop(g.index[i])
                row = {group: name, x: held[x], "measured": float(held[y])}
                try:
                    pred = float(fitter(rest).predict(np.array([float(held[x])]))[0])
                    row.update({"predicted": pred, "error %": 100.0 * (pred - row["measured"]) / row["measured"],
                                "note": ""})
                except ModelError as exc:
                    row.update({"predicted": np.nan, "error %": np.nan, "note": str(exc)})
                rows.append(row)
        return pd.DataFrame(rows, columns=[group, x, "measured", "predicted", "error %", "note"])
