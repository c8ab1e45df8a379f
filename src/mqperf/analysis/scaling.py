"""Throughput against concurrency: one USL (or Amdahl) fit per series, honestly labelled.

Model choice per series follows what the data can identify:

* 3 or more equations (distinct concurrency levels plus "no gain" constraints): USL;
* 2 equations: Amdahl's law (κ = 0), exactly identified;
* 1: no fit: a single point says nothing about scaling.

``model="usl"`` insists on the USL and raises :class:`~mqperf.errors.ModelError` where a
series cannot support it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import ModelError
from mqperf.models import bottleneck, usl
from mqperf.models._base import round_sig
from mqperf.models.validation import holdout
from mqperf.data import identity as dataset_identity  # noqa: F401 (the chapter calls it from here)

DEFAULT_CPUS = 3


@dataclass(frozen=True)
class SeriesFit:
    series: str
    model: str  # "usl", "amdahl" or "none"
    result: usl.USLResult | None
    reason: str
    n_points: int
    n_constraints: int


def load_points(source: str, *, cpus: int | None = None) -> pd.DataFrame:
    """Points (series, tasks, rate_msg_s, basis) from a book dataset name or a reader's CSV.

    A file with several rows per series and tasks value (one per measurement interval) is
    averaged to one point per value, with ``n`` and ``rate_msg_s_sd`` kept
    (:func:`mqperf.data.aggregate.means`). The fits go through these means unweighted: the USL
    describes the rate of a configuration, each tasks value is one experiment, and its
    intervals are successive samples of one run rather than independent repeats. So a
    series' degrees of freedom are its distinct tasks values (plus constraints), exactly as
    for a file that lists one rate per value.
    """
    frame = mqdata.load(source, contract="kafka_task_scaling") if mqdata.is_path(source) else mqdata.load(source)
    # Average before labelling: string work on a million rows costs more than the means.
    keys = [c for c in ("connector", "series", "gp_cpus", "basis", "tasks") if c in frame]
    frame = aggregate.means(frame, keys, ["rate_msg_s"])
    return label_series(frame, cpus=cpus)


def aggregation_note(points: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many points; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(points, per="series and tasks value", value="rate_msg_s"))


def label_series(frame: pd.DataFrame, *, cpus: int | None = None) -> pd.DataFrame:
    """Add a readable ``series`` label: connector, workload, and CPU count when it varies."""
    out = frame.copy()
    series = out["series"].astype(str) if "series" in out else pd.Series("your data", index=out.index)
    if "connector" in out:
        series = out["connector"].astype(str) + " " + series
    if "gp_cpus" in out:
        base = cpus if cpus is not None else int(out["gp_cpus"].mode().iloc[0])
        other = out["gp_cpus"] != base
        series = series.where(~other, series + " (" + out["gp_cpus"].astype(str) + " CPUs)")
    out["series"] = series.str.replace("_", " ", regex=False)
    if "basis" not in out:
        out["basis"] = "measured"
    out["basis"] = out["basis"].fillna("measured").astype(str)
    return out


def points_table(points: pd.DataFrame) -> pd.DataFrame:
    """The columns a reader recognises, those present in this file."""
    cols = ("series", "tasks", "gp_cpus", "rate_msg_s", aggregate.COUNT, aggregate.sd_column("rate_msg_s"), "basis")
    return points[[c for c in cols if c in points]]


def load_constraints(source: str | None, points: pd.DataFrame) -> pd.DataFrame:
    """'No gain from a to b' statements matching the labelled series; empty when none."""
    cols = ["series", "tasks_from", "tasks_to", "relation", "quote"]
    if not source:
        return pd.DataFrame(columns=cols)
    frame = mqdata.load(source)
    frame = label_series(frame, cpus=None)
    frame = frame[frame["series"].isin(set(points["series"]))]
    return frame[cols].reset_index(drop=True)


def fit_series(points: pd.DataFrame, constraints: pd.DataFrame | None = None, *, model: str = "auto",
               data_name: str | None = None, data_hash: str | None = None) -> list[SeriesFit]:
    """Fit every series; see the module docstring for the model choice."""
    if model not in ("auto", "usl", "amdahl"):
        raise ModelError(f"model must be auto, usl or amdahl (got {model!r})")
    fits = []
    for name, group in points.groupby("series", sort=False):
        cons = _equalities(constraints, name)
        distinct = group["tasks"].nunique()
        equations = distinct + len(cons)
        chosen = model
        if model == "auto":
            chosen = "usl" if equations >= 3 else "amdahl" if distinct >= 2 else "none"
        if chosen == "none":
            fits.append(SeriesFit(name, "none", None, "one concurrency level: nothing to fit", len(group), len(cons)))
            continue
        result = usl.fit(group["tasks"], group["rate_msg_s"], constraints=cons if chosen == "usl" else (),
                         amdahl_only=chosen == "amdahl", data_name=data_name, data_hash=data_hash)
        fits.append(SeriesFit(name, chosen, result, _verdict(result), len(group), len(cons) if chosen == "usl" else 0))
    if not any(f.result for f in fits):
        raise ModelError(
            "no series has enough points to fit: scaling needs at least 2 distinct tasks values per series "
            "(3 for the USL)"
        )
    return fits


def _equalities(constraints: pd.DataFrame | None, series: str) -> list[usl.Equal]:
    if constraints is None or constraints.empty:
        return []
    rows = constraints[(constraints["series"] == series) & (constraints["relation"] == "no_gain")]
    return [usl.Equal(int(r.tasks_from), int(r.tasks_to), r.quote) for r in rows.itertuples()]


def _verdict(result: usl.USLResult) -> str:
    if "sigma" in result.at_bound and result.sigma >= 1 - 1e-6:
        return "bottleneck: the fit needs sigma > 1; USL does not describe it"
    return result.identification


def fits_table(fits: list[SeriesFit]) -> pd.DataFrame:
    """One row per series: the model, its parameters, peak, and what the fit can claim."""
    rows = []
    for f in fits:
        r = f.result
        row = {"series": f.series, "model": f.model, "points": f.n_points, "constraints": f.n_constraints}
        if r is not None:
            row.update(
                lam_msg_s=round_sig(r.lam, 5),
                sigma=round_sig(r.sigma, 4),
                kappa=round_sig(r.kappa, 4),
                peak_tasks=round_sig(r.peak_n(), 3),
                peak_msg_s=round_sig(r.peak_x(), 5),
                df_resid=r.df_resid,
            )
        row["status"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)


def parameter_table(fits: list[SeriesFit]) -> pd.DataFrame:
    """Estimates with standard errors and 95 % intervals, for fits that have them."""
    parts = []
    for f in fits:
        if f.result is None:
            continue
        s = f.result.summary().reset_index()
        s.insert(0, "series", f.series)
        parts.append(s)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def bottleneck_comparison(points: pd.DataFrame, constraints: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per series with 2+ levels: the bottleneck reading X = min(λN, X_max) beside the USL.

    Where both fits have residual degrees of freedom the table carries AICc and which model
    it prefers (:func:`mqperf.models.bottleneck.compare_with_usl`); otherwise it says so.
    """
    rows = []
    for name, group in points.groupby("series", sort=False):
        if group["tasks"].nunique() < 2:
            continue
        cons = _equalities(constraints, name)
        n, x = group["tasks"].to_numpy(float), group["rate_msg_s"].to_numpy(float)
        b = bottleneck.fit(n, x, constraints=cons)
        row = {"series": name, "bottleneck_msg_s": round_sig(b.x_max, 5), "knee_tasks": round_sig(b.knee(), 3),
               "bottleneck_df_resid": b.df_resid}
        try:
            table = bottleneck.compare_with_usl(n, x, constraints=cons)
            row["criterion"] = table["criterion"].iloc[0]
            row["preferred"] = ", ".join(table.index[table["preferred"]]) or "cannot tell"
        except ModelError as exc:
            row["criterion"], row["preferred"] = "none", f"cannot tell ({exc})"
        rows.append(row)
    return pd.DataFrame(rows)


def curves(fits: list[SeriesFit], *, x_max: float) -> pd.DataFrame:
    """Fitted curves with 95 % bands (NaN band where exactly identified), one per series."""
    grid = np.round(np.linspace(1, x_max, 50), 4)
    parts = []
    for f in fits:
        if f.result is not None:
            band = f.result.conf_band(grid)
            band["series"] = f.series
            parts.append(band)
    # No fitted series (e.g. only Amdahl fits were asked for): an empty frame, not a pandas error.
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["x", "fit", "lower", "upper", "series"])


def sensitivity_band(points: pd.DataFrame, constraints: pd.DataFrame | None, *, x_max: float,
                     loose: float = 0.03) -> pd.DataFrame:
    """Envelope of USL curves when each "no gain" statement is read as within ±``loose``.

    An exactly identified fit has no statistical interval. What still moves it is how the
    words are read: "no additional benefit" may hide a gain (or loss) of a few percent.
    Each constrained series is refitted with X(b) = (1 ± loose)·X(a) and the band is the
    range of the curves. It is a reading-sensitivity band, not a confidence interval.
    """
    grid = np.round(np.linspace(1, x_max, 50), 4)
    parts = []
    for name, group in points.groupby("series", sort=False):
        cons = _equalities(constraints, name)
        if not cons or group["tasks"].nunique() + len(cons) < 3:
            continue
        curves_ = []
        for ratio in (1 - loose, 1.0, 1 + loose):
            varied = [usl.Equal(c.a, c.b, c.label, ratio) for c in cons]
            curves_.append(usl.fit(group["tasks"], group["rate_msg_s"], constraints=varied).predict(grid))
        stack = np.vstack(curves_)
        parts.append(pd.DataFrame({"x": grid, "fit": stack[1], "lower": stack.min(axis=0), "upper": stack.max(axis=0), "series": name}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["x", "fit", "lower", "upper", "series"])


def residual_frame(fits: list[SeriesFit]) -> pd.DataFrame:
    """Relative residuals per measured point, in percent of the fitted value."""
    rows = []
    for f in fits:
        if f.result is None:
            continue
        fitted = f.result.fittedvalues
        for n, y, fy in zip(f.result.x, f.result.y, fitted):
            rows.append({"series": f.series, "tasks": n, "resid_pct": (y - fy) / fy * 100})
    return pd.DataFrame(rows)


def leave_one_out(points: pd.DataFrame, constraints: pd.DataFrame | None = None) -> pd.DataFrame:
    """For series with 3+ levels: refit without each point (richest model the rest allows), predict it."""
    rows = []
    for name, group in points.groupby("series", sort=False):
        if group["tasks"].nunique() < 3:
            continue
        for idx in group.index:
            rest, held = group.drop(index=idx), group.loc[idx]
            try:
                fit = fit_series(rest, constraints)[0]
                pred = float(fit.result.predict([held["tasks"]])[0])
                used = fit.model
            except ModelError as exc:
                pred, used = np.nan, f"none ({exc})"
            rows.append({
                "series": name, "tasks": int(held["tasks"]), "measured_msg_s": held["rate_msg_s"],
                "predicted_msg_s": round_sig(pred, 5), "error_pct": round_sig((pred - held["rate_msg_s"]) / held["rate_msg_s"] * 100, 3),
                "model_without_point": used,
            })
    return pd.DataFrame(rows)


def cross_check(fits: list[SeriesFit], points: pd.DataFrame, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """Predict the points of series B with the fit of series A (e.g. peak vs sustainable)."""
    by_name = {f.series: f for f in fits}
    rows = []
    for fitted_series, other in pairs:
        f = by_name.get(fitted_series)
        pts = points[points["series"] == other]
        if f is None or f.result is None or pts.empty:
            continue
        table = holdout(f.result, pts["tasks"], pts["rate_msg_s"])
        for r in table.itertuples():
            rows.append({"fitted_on": fitted_series, "predicting": other, "tasks": int(r.x), "measured_msg_s": r.measured,
                         "predicted_msg_s": round_sig(r.predicted, 5), "error_pct": round_sig(r.error_pct, 3)})
    return pd.DataFrame(rows)


def plan(fits: list[SeriesFit], target_rate: float, *, max_tasks: int = 8) -> pd.DataFrame:
    """Per fitted series: tasks needed for ``target_rate``, the peak, and where a task stops paying."""
    rows = []
    for f in fits:
        if f.result is None:
            continue
        r = f.result
        n = np.arange(1, max_tasks + 1)
        gains = r.marginal_gain(n[1:]) / r.predict(n[:-1]) * 100
        small = np.nonzero(gains < 5)[0]
        need = r.n_for_rate(target_rate, n_max=max_tasks)
        rows.append({
            "series": f.series,
            "model": f.model,
            "tasks_for_target": need if need is not None else f"not reachable with <= {max_tasks}",
            "peak_tasks": round_sig(r.peak_n(), 3),
            "peak_msg_s": round_sig(r.peak_x(), 5),
            "last_task_adding_5pct": int(n[1:][small[0]] - 1) if small.size else f"> {max_tasks}",
        })
    return pd.DataFrame(rows)


def marginal_table(result: usl.USLResult, *, max_tasks: int = 8) -> pd.DataFrame:
    """Modelled rate by tasks and what each extra task adds."""
    n = np.arange(1, max_tasks + 1)
    x = result.predict(n)
    gain = np.concatenate([[np.nan], np.diff(x)])
    return pd.DataFrame({
        "tasks": n,
        "modelled_msg_s": [round_sig(v, 5) for v in x],
        "gain_msg_s": [round_sig(v, 4) for v in gain],
        "gain_pct": [round_sig(v, 3) for v in np.concatenate([[np.nan], np.diff(x) / x[:-1] * 100])],
        "efficiency": [round_sig(v, 3) for v in result.efficiency(n)],
    })


def cpu_at_rate(costs: str, rates: dict[str, float]) -> pd.DataFrame:
    """General-purpose CPU a connector and its MQ verb use at a rate, from the printed costs.

    Uses the *measured* rows of ``costs`` (e.g. ``kafka_cpu_costs``): the connector's
    general-purpose share (after zIIP offload) plus the MQGET or MQPUT1 cost, low and high
    ends as printed. Engines = CPU µs per message × messages per second / 10⁶.
    """
    if not costs:
        return pd.DataFrame()
    frame = mqdata.load(costs)
    frame = frame[frame["basis"] == "measured"]
    verbs = {"source": "mq_get", "sink": "mq_put1"}
    rows = []
    for connector, rate in rates.items():
        sub = frame[frame["connector"] == connector]

        def ends(item):
            v = sub[sub["cost_item"] == item]["cpu_us"].dropna()
            return float(v.min()), float(v.max())

        gp_lo, gp_hi = ends("general_purpose")
        mq_lo, mq_hi = ends(verbs[connector])
        rows.append({
            "connector": connector, "rate_msg_s": rate,
            "gp_cpu_us_per_msg": f"{round_sig(gp_lo + mq_lo, 3)} to {round_sig(gp_hi + mq_hi, 3)}",
            "gp_engines_low": round_sig((gp_lo + mq_lo) * rate / 1e6, 3),
            "gp_engines_high": round_sig((gp_hi + mq_hi) * rate / 1e6, 3),
        })
    return pd.DataFrame(rows)




def usl_fits(fits: list[SeriesFit]) -> list[SeriesFit]:
    """The series fitted with the USL: the ones the curve and marginal-gain charts draw."""
    return [f for f in fits if f.result is not None and f.model == "usl"]


def curves_chart(points: pd.DataFrame, known: pd.DataFrame | None, fits: list[SeriesFit], *, max_tasks: int):
    """Measured points with the USL curves, and the ±3 % "no gain" band where one applies.

    A sentence instead of an empty chart when no series has a USL fit (two task counts give
    Amdahl's law only, which has no turning point to draw).
    """
    from mqperf.present import charts

    fitted = usl_fits(fits)
    if not fitted:
        return aggregate.Note("No series has three or more distinct task counts (or \"no gain\" statements), "
                              "so there is no USL curve to draw.")
    curve = curves(fitted, x_max=max_tasks)
    band = sensitivity_band(points, known, x_max=max_tasks)
    merged = curve.merge(band[["x", "series", "lower", "upper"]], on=["x", "series"], how="left",
                         suffixes=("_ci", ""))
    # The sensitivity band where a "no gain" statement pins the fit, else the confidence band.
    merged["lower"] = merged["lower"].fillna(merged["lower_ci"])
    merged["upper"] = merged["upper"].fillna(merged["upper_ci"])
    shown = points[points["series"].isin([f.series for f in fitted])]
    return charts.measured_vs_fitted(
        shown, merged, x="tasks", y="rate_msg_s", x_title="connector tasks (tasks.max)",
        y_title="messages per second", title="Measured rates and USL fits",
    )


def gains_chart(fits: list[SeriesFit], *, max_tasks: int):
    """What each added task contributes by the USL fits; a sentence when there is none."""
    from mqperf.present import charts

    fitted = usl_fits(fits)
    if not fitted:
        return aggregate.Note("Without a USL fit there is no marginal gain per task to show.")
    gains = pd.concat(
        [marginal_table(f.result, max_tasks=max_tasks).assign(series=f.series) for f in fitted],
        ignore_index=True,
    ).dropna(subset=["gain_pct"])
    return charts.bars(gains, x="tasks", y="gain_pct", colour="series", x_title="the task added (tasks.max)",
                       y_title="throughput added by that task (%)", title="What one more task adds, by the USL fits")
