"""Idle and trickle's numbers: the idle line per connector, the get-with-wait arithmetic, the
checks against the article's counts, and the two plans.

Frames come out with the column names the report shows; sentences are made in :mod:`.text`, so
every number they state is a rounding of one a table of the same run shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.chapters.kafka_idle_trickle import CHAPTER, CPU, FORMULA, HOURS_PER_DAY
from mqperf.data import aggregate
from mqperf.errors import ModelError
from mqperf.models import costs, evidence, planning, polling
from mqperf.models.fitset import FitSet
from mqperf.present.cards import card_name


@dataclass(frozen=True)
class PollingInputs:
    """What the get-with-wait model needs, and the MQGET counts to check it against (if any)."""

    wait_s: float
    empty_low: float   # MQ CPU µs per unsuccessful MQGET
    empty_high: float
    gets_per_message: float | None = None
    unsuccessful_per_message: float | None = None
    from_data: bool = False


# -- idle CPU -------------------------------------------------------------------------------------


def idle_points(frame: pd.DataFrame) -> pd.DataFrame:
    """Contract rows as points (series, tasks, cpu_s_per_hour, basis), means per series and tasks."""
    parts = [frame[c].fillna("").astype(str) for c in ("connector", "series") if c in frame]
    series = parts[0].str.cat(parts[1:], sep=" ").str.strip() if parts else pd.Series("", index=frame.index)
    out = pd.DataFrame({
        # Names as the file gives them: the book's identifiers are mapped by its view, a reader's never.
        "series": series.replace("", "your data").to_numpy(),
        "tasks": frame["tasks"].astype(int).to_numpy(),
        CPU: frame[CPU].astype(float).to_numpy(),
        "basis": (frame["basis"].fillna("measured").astype(str).to_numpy() if "basis" in frame else "measured"),
    })
    return aggregate.means(out, ["series", "tasks"], [CPU]).reset_index(drop=True)


def points_table(points: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"series": points["series"], "tasks.max": points["tasks"], "idle CPU (CPU s/h)": points[CPU]})
    if aggregate.COUNT in points:
        out["rows averaged (n)"] = points[aggregate.COUNT].astype(int)
        out["idle CPU sd (CPU s/h)"] = points[aggregate.sd_column(CPU)]
    out["basis"] = points["basis"]
    return out


def fit_idle(points: pd.DataFrame, src) -> FitSet:
    """base + per-task line per series. Raises ModelError when no series has two task counts."""
    def fit(rows):
        if rows["tasks"].nunique() < 2:
            raise ModelError("one tasks.max value: base and per-task cost cannot be separated")
        return costs.fit(rows[["tasks", CPU]].reset_index(drop=True), FORMULA, data_name=src.name, data_hash=src.sha256)

    fits = FitSet.fit(points, "series", fit)
    if not fits.results:
        raise ModelError("no series can be fitted: idle CPU = base + per-task cost needs at least 2 distinct "
                         "tasks values per series")
    return fits


def base(r) -> float:
    return float(r.params["Intercept"])


def per_task(r) -> float:
    return float(r.params["tasks"])


def cpu_at(r, tasks) -> np.ndarray:
    return np.asarray(r.predict(pd.DataFrame({"tasks": np.atleast_1d(tasks)})), dtype=float)


def max_tasks(r) -> int:
    return int(np.max(r.x[:, 1]))


def ci(r, p: str) -> tuple[float, float]:
    if r.df_resid <= 0:
        return math.nan, math.nan
    ci = r.conf_int()
    return float(ci.loc[p, "lower"]), float(ci.loc[p, "upper"])


def fit_table(fits: FitSet) -> pd.DataFrame:
    def columns(r) -> dict:
        (blo, bhi), (tlo, thi) = ci(r, "Intercept"), ci(r, "tasks")
        return {"base (CPU s/h)": base(r), "base, 95 % lower": blo, "base, 95 % upper": bhi,
                "per task (CPU s/h)": per_task(r), "per task, 95 % lower": tlo, "per task, 95 % upper": thi,
                "at 1 task (CPU s/h)": float(cpu_at(r, 1)[0]), "largest tasks.max measured": max_tasks(r),
                "residual df": r.df_resid, "identification": r.identification}

    return fits.table(columns)


def per_task_sign(r) -> str:
    """"positive", "negative" or "cannot tell" (:func:`mqperf.models.evidence.sign`); an exactly
    identified line has no interval, so the sign of its slope is a description, "exact"."""
    if r.df_resid <= 0:
        return "exact"
    return evidence.sign(*ci(r, "tasks"))


def base_known(r) -> bool:
    """The base is a cost the data support: its interval lies above zero (an exact line: its value is > 0)."""
    if r.df_resid <= 0:
        return base(r) > 0
    return evidence.sign(*ci(r, "Intercept")) == "positive"


def base_ratio_table(fits: FitSet) -> pd.DataFrame | None:
    """The ratio the comparison sentence states, so it is shown (two or more bases the data support)."""
    res = {s: r for s, r in fits.results.items() if base_known(r)}
    if len(res) < 2:
        return None
    lo = min(res, key=lambda s: base(res[s]))
    return pd.DataFrame({"series": list(res), "base (CPU s/h)": [base(r) for r in res.values()],
                         f"× {lo}'s base": [base(r) / base(res[lo]) for r in res.values()]})


# -- polling --------------------------------------------------------------------------------------


def polling_inputs(trickle: pd.DataFrame | None, wait_s: float, empty_get_cpu_us) -> PollingInputs:
    """From the trickle input's one row, else from the parameters ``wait_s`` and ``empty_get_cpu_us``."""
    if trickle is not None:
        row = trickle.iloc[0]
        got = [row.get("mqgets_per_successful_get"), row.get("unsuccessful_per_successful_get")]
        got = [None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in got]
        inputs = PollingInputs(float(row["wait_s"]), float(row["empty_get_cpu_us_low"]),
                               float(row["empty_get_cpu_us_high"]), got[0], got[1], from_data=True)
    else:
        arr = np.atleast_1d(np.asarray(empty_get_cpu_us, dtype=float))
        if arr.size not in (1, 2) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ModelError(f"empty_get_cpu_us must be one or two CPU µs values > 0 (low, high), not {empty_get_cpu_us!r}")
        inputs = PollingInputs(float(wait_s), float(arr.min()), float(arr.max()))
    polling.idle_polls_per_hour(inputs.wait_s)  # validates the wait
    return inputs


def inputs_table(inputs: PollingInputs) -> pd.DataFrame:
    where = "trickle data" if inputs.from_data else "parameters"
    rows = [("get-with-wait interval W", inputs.wait_s, "s", where),
            ("idle MQGETs per task and hour (3600/W)", polling.idle_polls_per_hour(inputs.wait_s), "MQGETs", "model"),
            ("MQ CPU per empty MQGET, low", inputs.empty_low, "CPU µs", where),
            ("MQ CPU per empty MQGET, high", inputs.empty_high, "CPU µs", where)]
    if inputs.gets_per_message is not None:
        rows.append(("MQGETs per successful get, slow arrivals", inputs.gets_per_message, "MQGETs", "measured"))
    if inputs.unsuccessful_per_message is not None:
        rows.append(("of which unsuccessful", inputs.unsuccessful_per_message, "MQGETs", "measured"))
    return pd.DataFrame(rows, columns=["quantity", "value", "unit", "from"])


def _interval_for(gets: float, wait: float) -> float:
    return 1.0 / polling.arrival_rate_for_gets_per_message(gets, wait)


def trickle_check(inputs: PollingInputs) -> pd.DataFrame | None:
    """The model against the MQGET counts measured at a trickle rate: the arrival interval that gives them.

    The article gives no arrival rate, so the check is whether the model can produce the counts
    at all, and at which mean interval between messages (and the range that rounds to them).
    """
    g = inputs.gets_per_message
    if g is None or g <= 2:
        return None
    w = inputs.wait_s
    at = _interval_for(g, w)
    lo = _interval_for(g - 0.5, w) if g - 0.5 > 2 else 0.0
    hi = _interval_for(g + 0.5, w)
    lam = 1 / at
    expired = math.exp(-lam * w) / -math.expm1(-lam * w)
    empty = polling.empty_gets_per_message(lam, w)
    return pd.DataFrame([
        {"statement": "MQGETs per successful get", "measured": g, "model": polling.gets_per_message(lam, w),
         "mean s between messages": at, "rounds to measured from (s)": lo, "to (s)": hi},
        {"statement": "unsuccessful MQGETs per successful get", "measured": inputs.unsuccessful_per_message,
         "model": empty, "mean s between messages": at},
        {"statement": "of which expired waits", "model": expired, "mean s between messages": at},
        {"statement": "of which no-wait gets finding the queue empty", "model": empty - expired,
         "mean s between messages": at},
    ])


def idle_mq_readings(inputs: PollingInputs, low: float, high: float, tasks=(1, 5)) -> pd.DataFrame:
    """The two readings of an idle MQ cost stated for "the equivalent period": per get, or per period."""
    rows = []
    for t in tasks:
        polls = polling.idle_polls_per_hour(inputs.wait_s, tasks=t)
        rows.append({"tasks": t, "idle MQGETs per hour": polls,
                     "read per get, low (CPU µs/h)": polls * low, "read per get, high (CPU µs/h)": polls * high,
                     "read per period, low (CPU µs per get)": low / polls,
                     "read per period, high (CPU µs per get)": high / polls})
    return pd.DataFrame(rows)


def polls_mq(series: str) -> bool:
    """A sink connector does not call MQ while idle; every other series is priced with its polling."""
    return not series.lower().startswith("sink")


def breakdown(fits: FitSet, inputs: PollingInputs) -> pd.DataFrame:
    polls = polling.idle_polls_per_hour(inputs.wait_s)
    rows = []
    for name, r in fits.results.items():
        mq = polls_mq(name)
        high = polls * inputs.empty_high * 1e-6 if mq else 0.0
        real = per_task(r) > 0 and per_task_sign(r) in ("positive", "exact")
        rows.append({"series": name, "connector CPU per task (CPU s/h)": per_task(r),
                     "per task established": real,
                     "MQ polls per task and hour": polls if mq else 0.0,
                     "MQ polling CPU, low (CPU s/h)": polls * inputs.empty_low * 1e-6 if mq else 0.0,
                     "MQ polling CPU, high (CPU s/h)": high,
                     "MQ share of the task's cost (%)": high / per_task(r) * 100 if mq and real else math.nan})
    return pd.DataFrame(rows)


# -- planning -------------------------------------------------------------------------------------


def plan_idle(fits: FitSet, inputs: PollingInputs, name: str, connectors: int, tasks: int) -> pd.DataFrame:
    r = fits.results[name]
    connector = float(cpu_at(r, tasks)[0]) * connectors * HOURS_PER_DAY
    gets = polling.idle_polls_per_hour(inputs.wait_s, tasks=int(tasks)) * HOURS_PER_DAY * connectors if polls_mq(name) else 0.0
    lo_t = int(np.min(r.x[:, 1]))
    return pd.DataFrame([
        {"where": "connector", "series": name, "connectors": connectors, "tasks each": tasks, "idle MQGETs per day": math.nan,
         "CPU s per day, low": connector, "CPU s per day, high": connector,
         "measured tasks.max": f"{lo_t:,} to {max_tasks(r):,}",
         "extrapolated": planning.extrapolated(tasks, lo_t, max_tasks(r))},
        {"where": "queue manager", "series": name, "connectors": connectors, "tasks each": tasks, "idle MQGETs per day": gets,
         "CPU s per day, low": gets * inputs.empty_low * 1e-6, "CPU s per day, high": gets * inputs.empty_high * 1e-6,
         "measured tasks.max": "", "extrapolated": False}])


def plan_trickle(inputs: PollingInputs, rates, tasks: int, processing_time_s: float) -> pd.DataFrame:
    rows = []
    for lam in rates:
        all_h = polling.gets_per_hour(lam, inputs.wait_s, processing_time_s, tasks=tasks)
        msgs_h = lam * 3600.0
        empty_h = all_h - msgs_h
        g = polling.gets_per_message(lam / tasks, inputs.wait_s, processing_time_s) if lam > 0 else math.inf
        rows.append({"arrival rate (msg/s)": lam, "messages per hour": msgs_h, "MQGETs per message": g,
                     "empty gets per hour": empty_h,
                     "empty share (%)": empty_h / all_h * 100 if all_h > 0 else math.nan,
                     "empty-get CPU, low (CPU µs/h)": empty_h * inputs.empty_low,
                     "high (CPU µs/h)": empty_h * inputs.empty_high,
                     "per day, low (CPU s)": empty_h * inputs.empty_low * 1e-6 * HOURS_PER_DAY,
                     "high (CPU s)": empty_h * inputs.empty_high * 1e-6 * HOURS_PER_DAY})
    return pd.DataFrame(rows)


def cards(fits: FitSet, src) -> list[tuple[str, dict, object]]:
    out = []
    for name, r in fits.results.items():
        notes = ["ordinary least squares of idle CPU seconds per hour on tasks.max as a number: "
                 "Intercept = CPU s/h of the connector itself, tasks = CPU s/h added per task"]
        if r.exactly_identified:
            notes.append("exactly identified: two task counts for two parameters, so no standard errors or intervals")
        out.append((card_name(CHAPTER, "idle cpu " + name),
                    r.to_card(name=f"{CHAPTER}: idle CPU, {name}", dataset=src.name, notes=notes), r))
    return out


def idle_curves(fits: FitSet, tasks_max: int) -> pd.DataFrame:
    """Each line on tasks 1..tasks_max with its bands (the cost regression predicts from a frame of tasks)."""
    grid = pd.DataFrame({"tasks": np.arange(1, int(tasks_max) + 1)})
    parts = []
    for name, r in fits.results.items():
        band = r.bands(grid).rename(columns={"tasks": "x"})
        band["series"] = name
        parts.append(band[["x", "fit", "lower", "upper", "pred_lower", "pred_upper", "series"]])
    return pd.concat(parts, ignore_index=True)


def interarrival_gets(wait_s: float) -> pd.DataFrame:
    """MQGETs per message against the mean seconds between messages, at 5 s, 120 s and this wait."""
    grid = np.round(np.geomspace(1.0, 3600.0, 60), 4)
    rows = [{"interarrival_s": t, "gets_per_message": polling.gets_per_message(1 / t, w), "wait": f"W = {w:g} s"}
            for w in sorted({5.0, wait_s, 120.0}) for t in grid]
    return pd.DataFrame(rows)
