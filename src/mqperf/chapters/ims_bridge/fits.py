"""The IMS bridge chapter's fits, its choice among them, and its planning arithmetic.

* :func:`points` averages a file's rows to one point per series, basis and CPU count.
* :func:`fit_all` fits what the points can identify, per series: Amdahl's law and the
  bottleneck model (two parameters) from two distinct CPU counts, the USL (three) from three,
  all through :mod:`mqperf.models` (a :class:`~mqperf.models.fitset.FitSet` per model).
* :func:`holdout_largest` and :func:`leave_one_out` predict points a fit did not use.
* :func:`rank` chooses among the fits (:func:`mqperf.models.selection.rank`) and
  :func:`cpus_for_rate` plans from them (:mod:`mqperf.models.planning`).
* :func:`cf_headroom` turns the coupling facility's busy share at the peak into CF time per
  transaction and asks M/M/c (:mod:`mqperf.models.cpu_share`) what a higher rate would do.

Frames keep unrounded values; the analysis names the columns for people.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.chapters.ims_bridge import MODELS, PLAN_LIMIT, SET_APART
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import bottleneck, cpu_share, planning, selection, usl
from mqperf.models.fitset import FitSet
from mqperf.present.prose import model_name, num


def points(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per series, basis and CPU count (rows averaged, with ``n`` and ``rate_tps_sd``)."""
    frame = frame.copy()
    if "series" not in frame:
        frame["series"] = "your data"
    frame["series"] = frame["series"].astype(str)
    if "basis" not in frame:
        frame["basis"] = "measured"
    if "cpu_config" not in frame:
        frame["cpu_config"] = frame["cpus"].map(lambda c: f"{int(c)} CPUs")
    out = aggregate.means(frame, ["series", "basis", "cpus"], ["rate_tps"])
    return out.reset_index(drop=True)


def _fitter(model: str, src=None):
    name, sha = (src.name, src.sha256) if src is not None else (None, None)

    def fit(rows: pd.DataFrame):
        n, x = rows["cpus"].to_numpy(dtype=float), rows["rate_tps"].to_numpy(dtype=float)
        distinct = np.unique(n).size
        need = 3 if model == "usl" else 2
        if distinct < need:
            raise ModelError(f"{model_name(model)} needs at least {need} distinct CPU counts; this series has {distinct}")
        if model == "amdahl":
            return usl.fit(n, x, amdahl_only=True, data_name=name, data_hash=sha)
        if model == "bottleneck":
            return bottleneck.fit(n, x, data_name=name, data_hash=sha)
        return usl.fit(n, x, data_name=name, data_hash=sha)
    return fit


def fit_all(pts: pd.DataFrame, src=None) -> dict[str, FitSet]:
    """Model → FitSet by series; a series with too few CPU counts keeps the reason."""
    return {model: FitSet.fit(pts, "series", _fitter(model, src)) for model in MODELS}


def results(fits: dict[str, FitSet]) -> dict[tuple[str, str], object]:
    """(series, model) → FitResult for every fit that worked, series first."""
    out = {}
    for model, fs in fits.items():
        for series, r in fs.results.items():
            out[(series, model)] = r
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0], MODELS.index(kv[0][1]))))


def limit(model: str, r) -> float:
    """The rate the model approaches or peaks at: X_max, λ/σ or the USL peak."""
    return r.x_max if model == "bottleneck" else r.peak_x()


def fits_table(fits: dict[str, FitSet]) -> pd.DataFrame:
    """One row per fitted (series, model): parameters, limit, residual df, t quantile, RMSE, identification."""
    from mqperf.models import pvalues

    rows = []
    for (series, model), r in results(fits).items():
        row = {"series": series, "model": model_name(model), "key": model, "formula": r.formula, "points": r.nobs,
               "lam": r.lam, "sigma": r.params.get("sigma", np.nan), "kappa": r.params.get("kappa", np.nan),
               "x_max": r.params.get("x_max", np.nan), "limit": limit(model, r),
               "at_cpus": r.knee() if model == "bottleneck" else r.peak_n(),
               "df_resid": r.df_resid, "t95": pvalues.t_ppf(0.975, r.df_resid) if r.df_resid > 0 else np.nan,
               "rmse": r.rmse, "identification": r.identification}
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fits: dict[str, FitSet]) -> pd.DataFrame:
    parts = []
    for model, fs in fits.items():
        if fs.results:
            parts.append(fs.parameters().assign(model=model_name(model)))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    return out[["series", "model", *[c for c in out.columns if c not in ("series", "model")]]]


def unfitted(fits: dict[str, FitSet]) -> dict[str, str]:
    """Series no model could fit, with the first model's reason."""
    fitted = {s for (s, _m) in results(fits)}
    return {s: why for s, why in fits["amdahl"].failures.items() if s not in fitted}


def curves(fits: dict[str, FitSet], n_max: float, points: int = 61) -> pd.DataFrame:
    """Every fit on a grid of ``points`` CPU counts from 1 to ``n_max``, with its bands where it has
    them (:meth:`FitSet.curves`), one series per fit ("<series>: <model>"), series first."""
    grid = np.linspace(1, n_max, points)
    parts = [fs.curves(grid, y="fit").assign(model=model) for model, fs in fits.items() if fs.results]
    out = pd.concat(parts, ignore_index=True)
    out = out.assign(order=out["model"].map(MODELS.index)).sort_values(["series", "order"], kind="stable")
    out["series"] = out["series"] + ": " + out["model"].map(model_name)
    return out.drop(columns=["model", "order"]).reset_index(drop=True)


def holdout_largest(pts: pd.DataFrame) -> pd.DataFrame:
    """Per series: fit on every CPU count but the largest, predict the largest (an extrapolation)."""
    rows = []
    for series, g in pts.groupby("series", sort=False):
        top = g["cpus"].max()
        rest, held = g[g["cpus"] < top], g[g["cpus"] == top]
        if rest["cpus"].nunique() < 2:
            continue
        for model in MODELS:
            try:
                r = _fitter(model)(rest)
            except ModelError:
                continue
            for h in held.itertuples():
                pred = float(r.predict([h.cpus])[0])
                rows.append({"series": series, "model": model_name(model),
                             "fitted_on": ", ".join(f"{int(c)}" for c in sorted(rest["cpus"].unique())),
                             "cpus": int(h.cpus), "measured": h.rate_tps, "predicted": pred,
                             "error_pct": (pred - h.rate_tps) / h.rate_tps * 100})
    return pd.DataFrame(rows)


def leave_one_out(pts: pd.DataFrame, fits: dict[str, FitSet]) -> pd.DataFrame:
    """Each point held out in turn, predicted by Amdahl's law and the bottleneck model fitted to the others."""
    parts = []
    for model in ("amdahl", "bottleneck"):
        fitted = set(fits[model].results)
        sub = pts[pts["series"].isin(fitted)]
        if sub.empty:
            continue
        table = fits[model].leave_one_out(sub, "series", "cpus", "rate_tps", _fitter(model))
        parts.append(table.assign(model=model_name(model)))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    out = out[out["predicted"].notna()]
    return out[["series", "model", "cpus", "measured", "predicted", "error %"]].reset_index(drop=True)


def cpus_for_rate(fits: dict[str, FitSet], target: float, n_max: int, ranking: pd.DataFrame | None = None,
                  top: dict | None = None) -> pd.DataFrame:
    """CPUs each fit says reach ``target`` (NaN: never, up to :data:`PLAN_LIMIT`; ``within``: at most
    ``n_max``, the most the plan allows), with what the
    ranking says of the fit (``verdict``, ``accepted``) and whether the answer leaves the
    measured CPUs (``top``: the largest measured per series)."""
    rows = []
    for (series, model), r in results(fits).items():
        # The answer follows the model (up to PLAN_LIMIT CPUs), not max_cpus: a count past max_cpus
        # is given and said to be more than the plan allows, never left out.
        need = r.n_for_rate(target) if model == "bottleneck" else planning.first_reaching(r.predict, target,
                                                                                          limit=PLAN_LIMIT)
        row = {"series": series, "model": model_name(model), "cpus": need if need is not None else np.nan,
               "limit": limit(model, r), "reachable": need is not None,
               "within": need is not None and need <= n_max}
        if ranking is not None and len(ranking):
            hit = ranking[(ranking["series"] == series) & (ranking["key"] == model)].iloc[0]
            row.update(verdict=hit["verdict"], accepted=bool(hit["accepted"]))
        if top is not None:
            row["extrapolated"] = bool(need is not None and need > top[series])
        rows.append(row)
    return pd.DataFrame(rows)


# -- the coupling facility -----------------------------------------------------------------------

def cf_point(pts: pd.DataFrame) -> dict | None:
    """The CF busy share at the highest rate that has one: {'busy_pct', 'processors', 'rate_tps', 'series'}."""
    if "cf_busy_pct" not in pts or "cf_processors" not in pts:
        return None
    rows = pts.dropna(subset=["cf_busy_pct", "cf_processors"])
    if rows.empty:
        return None
    row = rows.sort_values("rate_tps", kind="stable").iloc[-1]
    return {"busy_pct": float(row["cf_busy_pct"]), "processors": int(row["cf_processors"]),
            "rate_tps": float(row["rate_tps"]), "series": str(row["series"]), "cpus": int(row["cpus"])}


def cf_time_per_transaction_us(cf: dict) -> float:
    """CF processor time per transaction: busy share × processors / rate (µs)."""
    return cpu_share.time_per_unit_us(cf["busy_pct"], cf["processors"], cf["rate_tps"])


def cf_processors_needed(cf: dict, rate_tps: float, max_utilisation: float) -> int:
    """Fewest CF processors keeping utilisation at or below ``max_utilisation`` at ``rate_tps``."""
    return cpu_share.processors_needed(rate_tps, cf_time_per_transaction_us(cf), max_utilisation)


def cf_headroom(cf: dict, rates_tps, *, processors, max_utilisation: float) -> pd.DataFrame:
    """CF utilisation, Erlang C and mean queueing in service times at each rate and CF size
    (:func:`mqperf.models.cpu_share.headroom`).

    Assumes CF time per transaction stays what it was at the measured point (one point: the
    CF work per transaction cannot be checked against a second measurement).
    """
    return cpu_share.headroom(cf_time_per_transaction_us(cf), rates_tps, processors=processors,
                              max_utilisation=max_utilisation).rename(columns={"rate": "rate_tps",
                                                                               "processors": "cf_processors"})


# -- which fit the data accept -------------------------------------------------------------------

def _kappa_may_be_zero(fit) -> bool:
    """κ held at 0, or its 95 % interval reaching 0: the USL's own data keep Amdahl's law (κ = 0)."""
    if "kappa" in fit.active_bounds or fit.df_resid <= 0:
        return True
    lo = float(fit.conf_int().loc["kappa", "lower"])
    return not lo > 0


def rank(fits: dict[str, FitSet], pts: pd.DataFrame) -> pd.DataFrame:
    """Per series, the fits ranked by AICc and tested for lack of fit against any replicates.

    AICc over the series' points (:func:`mqperf.models.selection.gaussian_aicc`; the parameters
    the fit estimates, one held on a bound not counted, plus the noise: K) needs n > K + 1 and some
    scatter; the fits that have one are ranked by :func:`mqperf.models.selection.rank` with the
    threshold :data:`SET_APART`. ``accepted``: the fits the ranking keeps, and every fit the points
    cannot rank (the data do not set it apart), less any whose lack of fit the replicates' scatter
    rejects (F-test); when that leaves none, all of them. Amdahl's law (the USL at κ = 0) is kept
    beside an accepted USL whose κ interval reaches 0. ``verdict`` says which, in words for the table.
    """
    from mqperf.models.differences import lack_of_fit

    rows = []
    sd = aggregate.sd_column("rate_tps")
    for (series, model), r in results(fits).items():
        g = pts[pts["series"] == series]
        n, k = r.nobs, r.df_model
        aicc = selection.gaussian_aicc(r.ssr, n, k) if r.ssr > 0 else math.nan
        count = g[aggregate.COUNT].to_numpy(float) if aggregate.COUNT in g else np.ones(len(g))
        spread = g[sd].fillna(0.0).to_numpy(float) if sd in g else np.zeros(len(g))
        predicted = r.predict(g["cpus"].to_numpy(float))
        misses = lack_of_fit(float(np.sum(count * (g["rate_tps"].to_numpy(float) - predicted) ** 2)),
                             len(g) - r.df_model, float(np.sum((count - 1) * spread**2)), int(np.sum(count - 1)),
                             what=model_name(model))
        rows.append({"series": series, "model": model_name(model), "key": model, "points": n, "K": k + 1,
                     "ssr": r.ssr, "aicc": aicc, "needs": k + 3, "misses": bool(misses.holds),
                     "fit_test": misses.test})
    table = pd.DataFrame(rows)
    if table.empty:
        return table.assign(delta=[], accepted=[], verdict=[])
    fitted = results(fits)
    parts = []
    for series, g in table.groupby("series", sort=False):
        g = g.copy()
        ranked = g["aicc"].notna()
        g["delta"] = g["aicc"] - (g.loc[ranked, "aicc"].min() if ranked.any() else math.nan)
        kept = set(g["key"])
        if ranked.sum() >= 2:
            ranking = selection.rank({row.key: (row.ssr, row.points, row.K - 1) for row in g[ranked].itertuples()},
                                     threshold=SET_APART)
            kept = set(g.loc[~ranked, "key"]) | set(ranking.accepted)
        g["accepted"] = g["key"].isin(kept) & ~g["misses"]
        # Amdahl's law is the USL at κ = 0: while the USL's own interval keeps κ = 0, the data
        # cannot tell whether the rate peaks, and Amdahl's answer stands beside the USL's.
        usl_fit = fitted.get((series, "usl"))
        amdahl = g["key"] == "amdahl"
        if usl_fit is not None and g.loc[g["key"] == "usl", "accepted"].any() and amdahl.any() \
                and not g.loc[amdahl, "misses"].any() and _kappa_may_be_zero(usl_fit):
            g.loc[amdahl, "accepted"] = True
        if not g["accepted"].any():
            g["accepted"] = True
        g["verdict"] = [
            ("preferred" if ranked.sum() >= 2 and g["accepted"].sum() == 1 else "not set apart") if ok else
            ("rejected: misses the replicates" if miss else f"rejected: ΔAICc {num(d)}")
            for ok, miss, d in zip(g["accepted"], g["misses"], g["delta"])]
        parts.append(g.drop(columns="ssr"))
    return pd.concat(parts, ignore_index=True)
