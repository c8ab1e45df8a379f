"""Did a change move a fitted model? Two fits of the same model, their parameters' differences.

Two runs (before and after a new MQ release, another machine, a tuning change) are fitted
independently, so the difference of a parameter θ has variance ``se_before² + se_after²``
(the delta method for a difference of independent estimates; no bootstrap: every fit in
the book already carries its Wald covariance, and a bootstrap of 5–10 points per run says
little more). The interval uses a Student-t quantile on the Welch–Satterthwaite degrees of
freedom

    df = (s_b² + s_a²)² / (s_b⁴ / df_b + s_a⁴ / df_a)

and is *simultaneous* over the parameters of a series (Bonferroni: each at level
1 − α/k for k parameters), so "some parameter of this series changed" is wrong at most
α of the time when nothing changed. A parameter is ``changed`` when its difference's
interval excludes 0. The ratio after/before and its interval (delta method on the log
scale, same quantile) are given for positive parameters, for sentences such as "κ rose
2.1×".

A parameter that a fit holds on its bound has no standard error, and a fit with no residual
degrees of freedom has none at all: such a parameter gets no interval, and the comparison
says the data cannot tell rather than inventing one (treating a bound-held value as exact
called a change in about twice α of generated pairs with none).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.errors import ModelError
from mqperf.models import pvalues
from mqperf.models._base import FitResult

#: Columns of :func:`parameters`, in order (the first nine are ``comparison.csv``'s contract).
COLUMNS = ["series", "parameter", "before", "after", "difference", "lower", "upper", "changed", "unit",
           "ratio", "ratio_lower", "ratio_upper", "df", "level_each", "note"]

METHOD = ("delta method for the difference of two independent fits (Wald standard errors), Student-t on "
          "Welch–Satterthwaite degrees of freedom, simultaneous over a series' parameters (Bonferroni)")


def _se(result: FitResult, name: str) -> float:
    """The parameter's standard error; NaN where the fit has no interval or a bound holds it."""
    if result.df_resid <= 0 or name in result.active_bounds:
        return math.nan
    return float(result.bse[name])


def welch_df(se_a: float, df_a: int, se_b: float, df_b: int) -> float:
    """Welch–Satterthwaite degrees of freedom of a difference; a zero-variance side adds nothing."""
    num = (se_a**2 + se_b**2) ** 2
    den = (se_a**4 / df_a if se_a > 0 else 0.0) + (se_b**4 / df_b if se_b > 0 else 0.0)
    return num / den if den > 0 else math.inf


def parameters(before: FitResult, after: FitResult, *, series: str = "all", alpha: float = 0.05) -> pd.DataFrame:
    """One row per parameter of the two fits: estimates, difference, its interval, ``changed``.

    Parameters
    ----------
    before, after
        Fits of the same model (same parameter names) to the two runs.
    alpha
        1 − the simultaneous confidence level over the series' parameters.

    Raises
    ------
    ModelError
        The two fits are of different models or parameters (e.g. USL on one run, Amdahl on the
        other): their parameters mean different things and are not compared.
    """
    if before.model != after.model or list(before.params.index) != list(after.params.index):
        raise ModelError(f"{series}: the runs were fitted with different models ({before.model} with "
                         f"{', '.join(before.params.index)}; {after.model} with {', '.join(after.params.index)}), "
                         "so their parameters are not comparable")
    names = list(before.params.index)
    values = {p: (float(before.params[p]), float(after.params[p]), _se(before, p), _se(after, p)) for p in names}
    for x, (a, b, sa, sb) in _curve_points(before, after).items():
        values[x] = (a, b, sa, sb)
    k = max(1, sum(1 for *_, sa, sb in values.values() if np.isfinite(sa) and np.isfinite(sb) and sa + sb > 0))
    level_each = 1 - alpha / k
    rows = []
    for p, (a, b, sa, sb) in values.items():
        row = {"series": series, "parameter": p, "unit": before.units.get(p, ""), "before": a, "after": b,
               "difference": b - a, "lower": math.nan, "upper": math.nan, "changed": False,
               "ratio": b / a if a > 0 and b >= 0 else math.nan, "ratio_lower": math.nan, "ratio_upper": math.nan,
               "df": math.nan, "level_each": level_each, "note": ""}
        if not (np.isfinite(sa) and np.isfinite(sb)):
            row["note"] = _why_no_interval(p, before, after)
        else:
            df = welch_df(sa, before.df_resid, sb, after.df_resid)
            q = _quantile(1 - (1 - level_each) / 2, df)
            se = math.hypot(sa, sb)
            row.update(df=df, lower=b - a - q * se, upper=b - a + q * se)
            row["changed"] = bool(row["lower"] > 0 or row["upper"] < 0)
            if a > 0 and b > 0:
                se_log = math.hypot(sa / a, sb / b)
                with np.errstate(over="ignore"):
                    row.update(ratio_lower=float(b / a * np.exp(-q * se_log)), ratio_upper=float(b / a * np.exp(q * se_log)))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def axes(result: FitResult) -> tuple[str, str]:
    """The model's input and output as its formula names them: ``X(N) = …`` gives ("N", "X(N)")."""
    left = str(result.formula).split("=", 1)[0].strip()
    inner = left[left.find("(") + 1:left.rfind(")")].strip() if "(" in left and ")" in left else ""
    return inner or "x", left or "y"


def _curve_points(before: FitResult, after: FitResult) -> dict:
    """Both curves at the ends of the range both runs measured: (before, after, se before, se after) by label.

    The parameters of a nonlinear model trade off against each other (σ against κ in the USL),
    so a whole curve can move while no single parameter's interval excludes zero; the curve's
    own value where both runs have points is what a planner reads, and is tested with them.
    """
    if np.ndim(before.x) != 1 or np.ndim(after.x) != 1 or before.x.size == 0 or after.x.size == 0:
        return {}
    lo, hi = max(before.x.min(), after.x.min()), min(before.x.max(), after.x.max())
    if not lo < hi:
        return {}
    out = {}
    for x in (lo, hi):
        a, b = curve_value(before, x), curve_value(after, x)
        out[a["parameter"]] = (a["estimate"], b["estimate"], a["std_err"], b["std_err"])
    return out


def curve_value(result: FitResult, x: float, alpha: float = 0.05) -> dict:
    """The fitted curve at ``x`` as a parameter-like row: name, estimate, standard error, interval."""
    band = result.conf_band(np.array([float(x)]), alpha)
    xname, yname = axes(result)
    fit, upper = float(band["fit"].iloc[0]), float(band["upper"].iloc[0])
    se = (upper - fit) / pvalues.t_ppf(1 - alpha / 2, result.df_resid) if result.df_resid > 0 else math.nan
    return {"parameter": f"{yname} at {xname} = {x:g}", "estimate": fit, "std_err": se,
            "lower": float(band["lower"].iloc[0]), "upper": upper}


def _why_no_interval(name: str, before: FitResult, after: FitResult) -> str:
    for label, r in (("before", before), ("after", after)):
        if r.df_resid <= 0 or r.cov is None:
            return f"no interval: the {label} fit has no residual degrees of freedom"
    held = [label for label, r in (("before", before), ("after", after)) if name in r.active_bounds]
    if name not in before.params.index:
        return "no interval: a fit gives its curve no band here"
    if held:
        # A bound-held parameter has no standard error; treating it as exact would call
        # "the data press it to the bound in one run" a change far more often than α.
        return f"no interval: the {' and '.join(held)} fit holds it on its bound"
    return "no interval: the fit gives this parameter no standard error"


def _quantile(q: float, df: float) -> float:
    if math.isinf(df):
        from scipy.special import ndtri

        return float(ndtri(q))
    return pvalues.t_ppf(q, df)


def derived(before: FitResult, after: FitResult) -> pd.DataFrame:
    """The model's derived quantities (a USL fit's peak, say) in both runs: point estimates only."""
    b, a = before.derived(), after.derived()
    keys = [k for k in b if k in a]
    return pd.DataFrame({"quantity": keys, "before": [float(b[k]) for k in keys], "after": [float(a[k]) for k in keys]})
