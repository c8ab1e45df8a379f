"""Task scaling's numbers: series labels, one fit per series, its comparison with the bottleneck
reading, and the frames the chapter shows.

Model choice per series follows what the data can identify:

* 3 or more equations (distinct tasks values plus "no gain" statements): the USL;
* 2 equations: Amdahl's law (κ = 0);
* 1: no fit: a single point says nothing about scaling.

Each fitted series then has two readings: its fit and the bottleneck model X = min(λN, X_max).
:func:`rank` compares them by AICc (AIC when AICc needs more points) on the same weights
(:func:`mqperf.models.selection.rank`): a difference of 2 or more accepts the lower; below 2, or
when the points leave no residual degrees of freedom to compare, the data cannot rank them and
both readings answer, side by side. No answer comes from a reading the comparison rejects. A
reading (:class:`mqperf.models.planning.Reading`) answers without a cap; whether an answer leaves
the measured range is :func:`mqperf.models.planning.extrapolated`'s to say.

Frames here carry raw floats with human column names and units; the presentation layer
rounds them. Sentences are made in :mod:`.text`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_task_scaling import DECISIVE, LOOSE, PAYING_PCT
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import planning, selection, usl, weighting
from mqperf.models.fitset import FitSet

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
    """Per fitted series: its fit against the bottleneck model on the same weights (:func:`rank`)."""
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
        out[name] = rank(name, r, neck, how)
    return out


@dataclass(frozen=True)
class Ranking:
    """The readings of one series and which of them answer."""

    series: str
    readings: tuple  # (fit's reading, bottleneck reading or None)
    accepted: tuple  # the readings that answer: one, or both when the data cannot rank them
    criterion: str  # "AICc", "AIC" or "" (none available)
    delta: float  # the criterion's difference (NaN without one)
    weights: weighting.Weighting | None = None
    why: str = ""  # in words, for the sentence and the table
    notes: list = field(default_factory=list)

    @property
    def ranked(self) -> bool:
        return len(self.accepted) == 1 and self.readings[1] is not None


def reading(result) -> planning.Reading:
    """A fit's reading, named as the chapter's tables name it."""
    return planning.Reading(model_name(result), result, units="tasks")


def rank(series: str, fit, neck, weights: weighting.Weighting | None = None) -> Ranking:
    """Which of the series' fit and its bottleneck reading answer (see the module docstring)."""
    from mqperf.present.prose import num

    kind = weights.kind if weights is not None else weighting.NONE
    own = reading(fit)
    if neck is None:
        return Ranking(series, (own, None), (own,), "", math.nan, weights,
                       "the bottleneck model could not be fitted, so the fit is the only reading")
    other = planning.Reading("bottleneck", neck, kind="bottleneck", units="tasks")
    # Each on its own weighted sum of squares, over the measured points: comparable on the same weights.
    stats = {x.model: (weighting.weighted_ssr(x.result, kind), int(np.size(x.result.y)), int(x.result.df_model))
             for x in (own, other)}
    if any(not ssr > 0 or n <= k for ssr, n, k in stats.values()):
        return Ranking(series, (own, other), (own, other), "", math.nan, weights,
                       f"too few points to rank the {own.model} and bottleneck readings (AICc and AIC need "
                       "residual degrees of freedom in both)")
    ranking = selection.rank(stats, threshold=DECISIVE)
    delta = abs(ranking.scores[own.model] - ranking.scores[other.model])
    best = own if ranking.table["model"].iloc[0] == own.model else other
    if not ranking.decided:
        return Ranking(series, (own, other), (own, other), ranking.criterion, delta, weights,
                       f"{ranking.criterion} leans to the {best.model} reading by only {num(delta)}: below about 2, "
                       "the data cannot rank the two")
    return Ranking(series, (own, other), (best,), ranking.criterion, delta, weights,
                   f"{ranking.criterion} prefers the {best.model} reading by {num(delta)}")


def _finite(value: float) -> float:
    return value if math.isfinite(value) else np.nan


def model_name(result) -> str:
    # The chapter's tables and cards say "Amdahl", not prose.model_name's "Amdahl's law": kept as published.
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
    from mqperf.present import prose

    frame["parameter"] = frame["parameter"].map(prose.symbol)
    frame["unit"] = frame["parameter"].map({"λ": "msg/s per task", "σ": "1", "κ": "1"})
    return frame.rename(columns={"std err": "standard error", "lower": "95 % lower", "upper": "95 % upper"})


#: The legend's name for the band of a fit that rests on a "no gain" statement.
SENSITIVITY_BAND = "'no gain' read within ±3 % (sensitivity)"


def curves(fits: FitSet, pts: pd.DataFrame, known: pd.DataFrame, max_tasks: int) -> pd.DataFrame:
    """USL curves on a grid: the sensitivity band where a statement pins a fit, else the 95 %
    confidence band; and the 95 % prediction band wherever the fit has residual degrees of freedom."""
    from mqperf.present.charts import CONF_BAND

    grid = np.round(np.linspace(1, max_tasks, 50), 4)
    drawn = FitSet([f for f in fits if f.ok and f.result.model == "usl"])
    if not len(drawn):
        return pd.DataFrame()
    cols = ["series", "x", "fit", "lower", "upper", "pred_lower", "pred_upper", "band"]
    frame = drawn.curves(grid, y="fit").assign(band=CONF_BAND).reindex(columns=cols)
    for name, r in drawn.results.items():
        band = sensitivity_curves(r, pts[pts["series"] == name], equalities(known, name), grid)
        if band is not None:
            at = frame["series"] == name
            frame.loc[at, "lower"], frame.loc[at, "upper"] = band.min(axis=0), band.max(axis=0)
            frame.loc[at, "band"] = SENSITIVITY_BAND
    return frame


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
        for x in rk.accepted:
            need, _ = x.units_for(target)
            if need is not None:
                rate, at = target, float(need)
            elif x.shape == "peak":
                at, rate = x.best_whole()
            else:
                at, rate = x.top()
            rows.append({"connector": connector, "series": label, "model": x.model,
                         "target reached": need is not None, "rate priced (msg/s)": rate,
                         "at (tasks)": at if math.isfinite(at) else np.nan,
                         "extrapolated": planning.extrapolated(at, low, high) if math.isfinite(at) else True,
                         "CPU per message, low (µs)": lo, "CPU per message, high (µs)": hi,
                         "engines, low": lo * rate / 1e6, "engines, high": hi * rate / 1e6,
                         "components": " + ".join(comp["component"])})
    return pd.DataFrame(rows)


# -- the planning table ------------------------------------------------------------------------------

#: The planning table's columns that hold an answer (numbers, or a reason where there is none).
TARGET, PAYING, TOP_X, TOP_N = "tasks for the target", "last task adding ≥ 5 %", "modelled peak or ceiling (msg/s)", \
    "at (tasks)"


def measured(pts, series: str) -> tuple[float, float]:
    g = pts.loc[pts["series"] == series, "tasks"]
    return float(g.min()), float(g.max())


def answer(x: planning.Reading, target: float, low: float, high: float) -> dict:
    """One reading's answers, with where each lies against the measured counts."""
    need, why = x.units_for(target)
    n_top, x_top = x.top()
    last = x.last_paying(PAYING_PCT)
    out = {"need": need, "why": why, "n_top": n_top, "x_top": x_top, "last": last, "beyond": []}
    if planning.extrapolated(need, low, high):
        out["beyond"].append("tasks for the target")
    if need is None and x.shape in ("peak", "limit") and (not math.isfinite(n_top)
                                                          or planning.extrapolated(n_top, low, high)):
        out["beyond"].append("the modelled peak" if x.shape == "peak" else "the modelled limit")
    # "Task L is the last that adds 5 %" speaks of tasks up to L + 1 (the first that adds less).
    if planning.extrapolated(last + 1, low, high) or planning.extrapolated(last, low, high):
        out["beyond"].append("last task adding ≥ 5 %")
    return out


def plan_table(ranks: dict, pts, target: float) -> pd.DataFrame:
    """One row per series and answering reading: the tasks for the target (or why none), the
    modelled peak or ceiling, the last task adding 5 %, and whether an answer is extrapolated."""
    rows = []
    for name, rk in ranks.items():
        low, high = measured(pts, name)
        for x in rk.accepted:
            a = answer(x, target, low, high)
            rows.append({"series": name, "model": x.model,
                         "chosen by": ("the only reading" if rk.readings[1] is None else
                                       f"{rk.criterion}, by {rk.delta:.3g}" if rk.ranked else
                                       "both answer: the data cannot rank them"),
                         TARGET: a["need"] if a["need"] is not None else f"none: {a['why']}",
                         TOP_X: a["x_top"] if math.isfinite(a["x_top"]) else np.nan,
                         TOP_N: a["n_top"] if math.isfinite(a["n_top"]) else "none: a limit, approached",
                         "largest measured (tasks)": int(high), PAYING: a["last"],
                         "extrapolated": bool(a["beyond"]),
                         "beyond the measured counts": "; ".join(a["beyond"]) or "nothing"})
    return pd.DataFrame(rows)


def span(ranks: dict, pts, max_tasks: int) -> int:
    """The tables' range of tasks: max_tasks, or further when the data or the answers go further."""
    top = int(pts["tasks"].max())
    lasts = [x.last_paying(PAYING_PCT) + 1 for rk in ranks.values() for x in rk.accepted]
    return int(max(max_tasks, top, *lasts))


def gains(ranks: dict, upto: int) -> pd.DataFrame:
    """What each task adds by every reading the planning uses, for N = 2..upto."""
    parts = []
    for name, rk in ranks.items():
        for x in rk.accepted:
            label = name if len(rk.accepted) == 1 else f"{name} ({x.model})"
            n = np.arange(2, upto + 1)
            parts.append(pd.DataFrame({"series": label, "tasks": n, "modelled rate (msg/s)": x.rate(n),
                                       "added by this task (%)": x.gains(upto)}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
