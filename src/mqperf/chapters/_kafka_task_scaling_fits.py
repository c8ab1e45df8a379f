"""Task scaling's numbers: series labels, one fit per series, and the frames the chapter shows.

Model choice per series follows what the data can identify:

* 3 or more equations (distinct tasks values plus "no gain" statements): the USL;
* 2 equations: Amdahl's law (κ = 0);
* 1: no fit: a single point says nothing about scaling.

Frames here carry raw floats with human column names and units; the presentation layer
rounds them. Sentences are made in :mod:`mqperf.chapters.kafka_task_scaling`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.chapters import _kafka_task_scaling_plan as plan
from mqperf.models import usl, weighting
from mqperf.models.fitset import FitSet

#: A task that adds less than this share of the rate before it "stops paying".
PAYING_PCT = plan.PAYING_PCT
#: How loosely a "no gain" statement is read for the sensitivity band (±3 %).
LOOSE = 0.03

RATE = "rate (msg/s)"


# -- loading ----------------------------------------------------------------------------------

def label_series(frame: pd.DataFrame, base_cpus: int | None) -> pd.DataFrame:
    """A readable ``series`` label: connector, workload, and CPU count when not the usual one."""
    out = frame.copy()
    if "series" in out:
        series = out["series"].fillna("your data").astype(str)
    else:
        series = pd.Series("your data", index=out.index)
    if "connector" in out:
        prefix = out["connector"].fillna("").astype(str)
        series = (prefix + " " + series).str.strip()
    if "gp_cpus" in out and base_cpus is not None:
        other = out["gp_cpus"].notna() & (out["gp_cpus"] != base_cpus)
        cpus = out["gp_cpus"].astype("Int64").astype(str)
        series = series.where(~other, series + " (" + cpus + " CPUs)")
    out["series"] = series
    out["basis"] = out["basis"].fillna("measured").astype(str) if "basis" in out else "measured"
    return out


def base_cpus(frame: pd.DataFrame) -> int | None:
    """The CPU count most rows were measured with (rows with another count form their own series)."""
    if "gp_cpus" not in frame or frame["gp_cpus"].dropna().empty:
        return None
    return int(frame["gp_cpus"].dropna().mode().iloc[0])


def points(frame: pd.DataFrame) -> pd.DataFrame:
    """One point per series and tasks value (means where the file has several rows)."""
    keys = [c for c in ("connector", "series", "gp_cpus", "basis", "tasks") if c in frame]
    # Average before labelling: string work on a million rows costs more than the means.
    frame = aggregate.means(frame, keys, ["rate_msg_s"])
    return label_series(frame, base_cpus(frame))


def statements(frame: pd.DataFrame | None, pts: pd.DataFrame, cpus: int | None) -> pd.DataFrame:
    """Statements that concern a series of ``pts``; empty when none."""
    cols = ["series", "tasks_from", "tasks_to", "relation", "quote"]
    if frame is None or frame.empty:
        return pd.DataFrame(columns=cols)
    frame = label_series(frame, cpus)
    return frame.loc[frame["series"].isin(set(pts["series"])), cols].reset_index(drop=True)


def equalities(known: pd.DataFrame, series: str) -> list[usl.Equal]:
    rows = known[(known["series"] == series) & (known["relation"] == "no_gain")]
    return [usl.Equal(int(r.tasks_from), int(r.tasks_to), str(r.quote)) for r in rows.itertuples()]


# -- fitting ----------------------------------------------------------------------------------

def fitter(known: pd.DataFrame, model: str = "auto", *, choices: dict | None = None, data_name=None,
           data_hash=None):
    """A function fitting one series' rows with the richest model its equations identify.

    The fit is unweighted unless equal relative errors describe its residuals better than equal
    absolute ones (:func:`mqperf.models.weighting.choose`); then it is weighted 1/y². The choice
    per series goes into ``choices`` (series -> :class:`~mqperf.models.weighting.Weighting`).
    """
    if model not in ("auto", "usl", "amdahl"):
        raise ModelError(f"model must be auto, usl or amdahl (got {model!r})")

    def fit(rows: pd.DataFrame):
        name = str(rows["series"].iloc[0])
        cons = equalities(known, name)
        distinct = rows["tasks"].nunique()
        chosen = model
        if model == "auto":
            chosen = "usl" if distinct + len(cons) >= 3 else "amdahl" if distinct >= 2 else "none"
        if chosen == "none":
            raise ModelError("one tasks value: a single point says nothing about scaling")
        args = dict(constraints=cons if chosen == "usl" else (), amdahl_only=chosen == "amdahl",
                    data_name=data_name, data_hash=data_hash)
        result = usl.fit(rows["tasks"], rows["rate_msg_s"], **args)
        relative = None
        if result.df_resid >= 3 and len(rows) >= 5:  # else the spread cannot be judged (weighting.choose)
            try:
                relative = weighting.fit_usl(rows["tasks"], rows["rate_msg_s"], weights=weighting.RELATIVE,
                                             plain=result, **args)
            except ModelError:
                relative = None
        how = weighting.choose(result, relative)
        if how.kind == weighting.RELATIVE:
            result = relative
        if choices is not None:
            choices[name] = how
        return result

    return fit


def fit_all(pts: pd.DataFrame, known: pd.DataFrame, model: str, *, choices: dict | None = None,
            **identity) -> FitSet:
    fits = FitSet.fit(pts, "series", fitter(known, model, choices=choices, **identity))
    if not fits.results:
        reasons = "; ".join(f"{s}: {why}" for s, why in list(fits.failures.items())[:3])
        raise ModelError("no series has enough points to fit: scaling needs at least 2 distinct tasks values "
                         f"per series (3 for the USL) ({reasons})")
    return fits


def rankings(fits: FitSet, pts: pd.DataFrame, known: pd.DataFrame, choices: dict) -> dict:
    """Per fitted series: its fit against the bottleneck model on the same weights (:func:`plan.rank`)."""
    out = {}
    for name, r in fits.results.items():
        g = pts[pts["series"] == name]
        how = choices.get(name)
        kind = how.kind if how is not None else weighting.NONE
        try:
            neck = weighting.fit_bottleneck(g["tasks"].to_numpy(float), g["rate_msg_s"].to_numpy(float),
                                            weights=kind, constraints=equalities(known, name))
        except ModelError:
            neck = None
        out[name] = plan.rank(name, r, neck, how)
    return out


def _finite(value: float) -> float:
    return value if math.isfinite(value) else np.nan


def model_name(result) -> str:
    return "USL" if result.model == "usl" else "Amdahl"


def fits_table(fits: FitSet, choices: dict | None = None) -> pd.DataFrame:
    """One row per series: model, weights (and the test that chose them), parameters, peak and what
    the fit can claim."""
    delta = {id(r): choices[s].delta for s, r in fits.results.items() if choices and s in choices}

    def columns(r) -> dict:
        return {"model": model_name(r), "weights": "1/y²" if isinstance(r, weighting.RelativeUSLResult) else "none",
                "−2 log L, absolute minus relative errors": delta.get(id(r), np.nan),
                "statements used": r.n_constraints, "λ (msg/s per task)": r.lam,
                "σ": r.sigma, "κ": r.kappa, "peak at (tasks)": _finite(r.peak_n()),
                "peak or limit (msg/s)": _finite(r.peak_x()), "residual df": r.df_resid,
                "identification": r.identification}

    table = fits.table(columns)
    return table.assign(model=table["model"].fillna("none"))


def parameter_table(fits: FitSet) -> pd.DataFrame:
    frame = fits.parameters()
    frame["parameter"] = frame["parameter"].map({"lam": "λ", "sigma": "σ", "kappa": "κ"})
    frame["unit"] = frame["parameter"].map({"λ": "msg/s per task", "σ": "1", "κ": "1"})
    return frame.rename(columns={"std err": "standard error", "lower": "95 % lower", "upper": "95 % upper"})


#: The legend's name for the band of a fit that rests on a "no gain" statement.
SENSITIVITY_BAND = "'no gain' read within ±3 % (sensitivity)"


def curves(fits: FitSet, pts: pd.DataFrame, known: pd.DataFrame, max_tasks: int) -> pd.DataFrame:
    """USL curves on a grid: the sensitivity band where a statement pins a fit, else the 95 %
    confidence band; and the 95 % prediction band wherever the fit has residual degrees of freedom."""
    from mqperf.present.charts import CONF_BAND

    grid = np.round(np.linspace(1, max_tasks, 50), 4)
    parts = []
    for name, r in fits.results.items():
        if r.model != "usl":
            continue
        frame = pd.DataFrame({"series": name, "x": grid, "fit": r.predict(grid), "lower": np.nan, "upper": np.nan,
                              "pred_lower": np.nan, "pred_upper": np.nan, "band": CONF_BAND})
        if r.df_resid > 0 and r.cov is not None:
            b = r.bands(grid)
            for col in ("lower", "upper", "pred_lower", "pred_upper"):
                frame[col] = b[col].to_numpy()
        band = sensitivity_curves(r, pts[pts["series"] == name], equalities(known, name), grid)
        if band is not None:
            frame["lower"], frame["upper"], frame["band"] = band.min(axis=0), band.max(axis=0), SENSITIVITY_BAND
        parts.append(frame)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _loose_fits(rows: pd.DataFrame, cons: list[usl.Equal]):
    for ratio in (1 - LOOSE, 1 + LOOSE):
        varied = [usl.Equal(c.a, c.b, c.label, ratio) for c in cons]
        try:
            yield usl.fit(rows["tasks"], rows["rate_msg_s"], constraints=varied)
        except ModelError:
            continue


def sensitivity_curves(result, rows, cons, grid) -> np.ndarray | None:
    """Curves with each statement read as X(b) = (1 ± 3 %)·X(a), stacked with the literal fit."""
    if not cons or result.model != "usl":
        return None
    return np.vstack([result.predict(grid), *[r.predict(grid) for r in _loose_fits(rows, cons)]])


def sensitivity_table(fits: FitSet, pts: pd.DataFrame, known: pd.DataFrame) -> pd.DataFrame:
    """Per series resting on a statement: the modelled peak read literally and read within ±3 %."""
    rows = []
    for name, r in fits.results.items():
        cons = equalities(known, name)
        if not cons or r.model != "usl":
            continue
        peaks = [r.peak_x()] + [f.peak_x() for f in _loose_fits(pts[pts["series"] == name], cons)]
        peaks = [p for p in peaks if math.isfinite(p)]
        if not peaks:
            continue
        rows.append({"series": name, "statement": "; ".join(c.label for c in cons),
                     "peak read literally (msg/s)": _finite(r.peak_x()),
                     "lowest peak (msg/s)": min(peaks), "highest peak (msg/s)": max(peaks)})
    return pd.DataFrame(rows)


def bottleneck_table(ranks: dict) -> pd.DataFrame:
    """Per fitted series: X = min(λN, X_max) beside the series' own fit, ranked where the points allow."""
    rows = []
    for name, rk in ranks.items():
        neck = rk.readings[1]
        if neck is None:
            continue
        b = neck.result
        used = " and ".join(x.model for x in rk.accepted)
        rows.append({"series": name, "ceiling X_max (msg/s)": b.x_max, "knee (tasks)": b.knee(),
                     "plateau seen": "x_max" not in b.at_bound, "residual df": b.df_resid,
                     "preferred by": (f"{rk.criterion}: {rk.accepted[0].model}" if rk.ranked else "cannot tell"),
                     "criterion difference": rk.delta, "planning uses": used})
    return pd.DataFrame(rows)


def leave_one_out(fits: FitSet, pts: pd.DataFrame, known: pd.DataFrame) -> pd.DataFrame:
    """Refit each series with 3+ tasks values without each point (richest model the rest allows)."""
    keep = [s for s in fits.results if pts.loc[pts["series"] == s, "tasks"].nunique() >= 3]
    sub = pts[pts["series"].isin(keep)]
    if sub.empty:
        return pd.DataFrame()
    frame = fits.leave_one_out(sub, "series", "tasks", "rate_msg_s", fitter(known))
    return frame.rename(columns={"measured": f"measured {RATE}", "predicted": f"predicted {RATE}",
                                 "note": "why no prediction"})


def cpu_variants(fits: FitSet, pts: pd.DataFrame) -> pd.DataFrame:
    """Each series measured at another CPU count, predicted by its twin's fit at the usual count."""
    rows = []
    for name, r in fits.results.items():
        other = pts[pts["series"].str.startswith(name + " (") & pts["series"].str.endswith(" CPUs)")]
        for p in other.itertuples():
            pred = float(r.predict(np.array([float(p.tasks)]))[0])
            rows.append({"fitted on": name, "predicting": p.series, "tasks": int(p.tasks),
                         f"measured {RATE}": p.rate_msg_s, f"predicted {RATE}": pred,
                         "error %": (pred - p.rate_msg_s) / p.rate_msg_s * 100})
    return pd.DataFrame(rows)


def cpu_at_rate(costs: pd.DataFrame, ranks: dict, pts: pd.DataFrame, target: float) -> pd.DataFrame:
    """General-purpose CPU per connector at the target rate, by each reading the planning accepts;
    a reading that cannot reach the target is priced at the most it reaches (its peak, ceiling or limit).

    Engines = CPU µs per message × messages per second / 10⁶, with the low and high ends of
    the costs as printed.
    """
    rows = []
    for (connector, series), comp in costs.groupby(["connector", "series"], sort=False):
        label = f"{connector} {series}".strip()
        rk = ranks.get(label)
        if rk is None:
            continue
        g = pts[pts["series"] == label]["tasks"]
        low, high = float(g.min()), float(g.max())
        lo, hi = float(comp["cpu_us_low"].sum()), float(comp["cpu_us_high"].sum())
        for reading in rk.accepted:
            need, _ = reading.tasks_for(target)
            if need is not None:
                rate, at = target, float(need)
            elif reading.shape == "peak":
                at, rate = reading.best_whole()
            else:
                at, rate = reading.top()
            rows.append({"connector": connector, "series": label, "model": reading.model,
                         "target reached": need is not None, "rate priced (msg/s)": rate,
                         "at (tasks)": at if math.isfinite(at) else np.nan,
                         "extrapolated": bool(plan.beyond(at, low, high)) if math.isfinite(at) else True,
                         "CPU per message, low (µs)": lo, "CPU per message, high (µs)": hi,
                         "engines, low": lo * rate / 1e6, "engines, high": hi * rate / 1e6,
                         "components": " + ".join(comp["component"])})
    return pd.DataFrame(rows)


# -- charts -----------------------------------------------------------------------------------

def curves_chart(pts: pd.DataFrame, curve: pd.DataFrame, rejected: int = 0):
    """The USL curves; ``rejected``: how many of the drawn series' comparisons prefer the bottleneck."""
    from mqperf.present import charts

    shown = pts[pts["series"].isin(set(curve["series"]))]
    title = "Measured rates and USL fits"
    if rejected:
        title += (f"; for {rejected:,} of these series AICc prefers the bottleneck reading, which the planning "
                  "uses (see below)")
    return charts.measured_vs_fitted(shown, curve, x="tasks", y="rate_msg_s", x_title="connector tasks (tasks.max)",
                                     y_title="rate (msg/s)", title=title)


def gains_chart(frame: pd.DataFrame, span: int, max_tasks: int, top: int):
    from mqperf.present import charts

    frame = frame.rename(columns={"added by this task (%)": "gain_pct"})
    why = ("" if span == max_tasks else
           f" (to {span:,}: past max_tasks, {max_tasks:,}, where the data or the last task adding 5 % go further)")
    return charts.bars(frame, x="tasks", y="gain_pct", colour="series", x_title="the task added (tasks.max)",
                       y_title="throughput added by that task (%)",
                       title=f"What one more task adds, by the readings the planning uses{why}; measured up to "
                             f"{top:,} tasks")
