"""Idle and trickle-rate costs of a Kafka connector.

Two questions, two kinds of model:

* **Idle connector CPU against tasks.max**: a straight line, base + per-task cost, fitted by
  ordinary least squares (:func:`mqperf.models.costs.fit` with ``tasks`` as a number). The
  article gives two task counts per connector, so each line is exactly identified.
* **MQGETs of the source connector's get-with-wait loop** (:mod:`mqperf.models.polling`):
  MQGET calls per message under Poisson arrivals, idle polls per hour, and what the empty
  gets cost. Nothing is fitted: the wait interval is configuration and the cost per
  empty get is the article's; the model is checked against the article's "3 MQGETs per
  successful get".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mqperf.data import aggregate
from mqperf import data as mqdata
from mqperf.errors import ModelError
from mqperf.models import costs, polling
from mqperf.models._base import round_sig
from mqperf.data import is_path as _is_path
from mqperf.present.cards import card_name  # noqa: F401 (the chapter calls it from here)

CONTRACT = "kafka_idle_trickle"
FORMULA = "cpu_s_per_hour ~ tasks"
SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0


@dataclass(frozen=True)
class IdleFit:
    series: str
    result: costs.CostResult | None
    n_points: int
    reason: str

    @property
    def base(self) -> float:
        """CPU s/h of an idle connector before any task (the intercept)."""
        return float(self.result.params["Intercept"])

    @property
    def per_task(self) -> float:
        """CPU s/h each task adds while idle (the slope)."""
        return float(self.result.params["tasks"])

    def cpu_s_per_hour(self, tasks) -> np.ndarray:
        return np.asarray(self.result.predict(pd.DataFrame({"tasks": np.atleast_1d(tasks)})), dtype=float)


@dataclass(frozen=True)
class PollingInputs:
    """What the get-with-wait model needs, and what the article says to check it against."""

    wait_s: float
    empty_get_cpu_us: tuple[float, float]  # (low, high), MQ CPU per unsuccessful MQGET
    measured_gets_per_message: float | None = None
    measured_unsuccessful_per_message: float | None = None
    idle_mq_cpu_us: tuple[float, float] | None = None  # the article's "1-2 CPU µs for the equivalent period"
    source: str = "parameters"


# -- idle CPU -----------------------------------------------------------------------------------

def load_idle(source: str) -> pd.DataFrame:
    """Rows (series, tasks, cpu_s_per_hour, basis): the book's idle connector CPU or a reader's CSV.

    Several rows per series and tasks value (one per measurement interval) are averaged to
    one point with ``n`` and ``cpu_s_per_hour_sd`` (:func:`mqperf.data.aggregate.means`). The
    line is fitted through the means unweighted: each tasks value is one experiment, so
    the degrees of freedom (and whether the line is exactly identified) come from the
    distinct tasks values, not the rows.
    """
    if _is_path(source):
        frame = mqdata.load(source, contract=CONTRACT)
        if "connector" in frame and "series" in frame:
            series = frame["connector"].astype(str) + " " + frame["series"].astype(str)
        elif "connector" in frame:
            series = frame["connector"].astype(str)
        elif "series" in frame:
            series = frame["series"].astype(str)
        else:
            series = pd.Series("your data", index=frame.index)
        basis = frame["basis"].fillna("measured").astype(str) if "basis" in frame else "measured"
    else:
        frame = mqdata.load(source)
        frame = frame[frame["item"] == "connector_cpu"]
        series, basis = frame["connector"].astype(str), frame["basis"].astype(str)
    out = pd.DataFrame({
        "series": series.str.replace("_", " ", regex=False).to_numpy(),
        "tasks": frame["tasks"].astype(int).to_numpy(),
        "cpu_s_per_hour": frame["cpu_s_per_hour"].astype(float).to_numpy(),
        "basis": np.asarray(basis if isinstance(basis, str) else basis.to_numpy(), dtype=object),
    })
    return aggregate.means(out, ["series", "basis", "tasks"], ["cpu_s_per_hour"])


def aggregation_note(points: pd.DataFrame) -> aggregate.AggregationNote:
    """The sentence saying how many rows were averaged into how many points; nothing if none were."""
    return aggregate.AggregationNote(aggregate.note(points, per="series and tasks value", value="cpu_s_per_hour"))


def fit_idle(points: pd.DataFrame, *, data_name: str | None = None, data_hash: str | None = None) -> list[IdleFit]:
    """One line base + per-task per series with two or more distinct tasks.max values.

    Raises
    ------
    ModelError
        When no series has two distinct task counts.
    """
    fits = []
    for name, group in points.groupby("series", sort=False):
        distinct = group["tasks"].nunique()
        if distinct < 2:
            fits.append(IdleFit(name, None, len(group), "one tasks.max value: base and per-task cost cannot be separated"))
            continue
        result = costs.fit(group[["tasks", "cpu_s_per_hour"]].reset_index(drop=True), FORMULA,
                           data_name=data_name, data_hash=data_hash)
        reason = "exactly identified: no intervals" if result.exactly_identified else "fitted with intervals"
        fits.append(IdleFit(name, result, len(group), reason))
    if not any(f.result is not None for f in fits):
        raise ModelError("no series can be fitted: idle CPU = base + per-task cost needs at least 2 distinct tasks values per series")
    return fits


def idle_table(fits: list[IdleFit]) -> pd.DataFrame:
    """Per series: base and per-task CPU s/h with 95 % intervals where identified."""
    rows = []
    for f in fits:
        row = {"series": f.series, "points": f.n_points}
        if f.result is not None:
            ci = f.result.conf_int()
            row.update(
                base_cpu_s_h=round_sig(f.base, 4),
                per_task_cpu_s_h=round_sig(f.per_task, 4),
                per_task_ci95_lower=round_sig(ci.loc["tasks", "lower"], 4),
                per_task_ci95_upper=round_sig(ci.loc["tasks", "upper"], 4),
                at_1_task_cpu_s_h=round_sig(float(f.cpu_s_per_hour(1)[0]), 4),
                df_resid=f.result.df_resid,
            )
        row["status"] = f.reason
        rows.append(row)
    return pd.DataFrame(rows)


def idle_curves(fits: list[IdleFit], *, max_tasks: int) -> pd.DataFrame:
    """Modelled idle CPU s/h at tasks.max = 1..max_tasks, with a 95 % band where identified."""
    grid = pd.DataFrame({"tasks": np.arange(1, int(max_tasks) + 1)})
    parts = []
    for f in fits:
        if f.result is None:
            continue
        band = f.result.conf_band(grid).rename(columns={"tasks": "x"})
        band["series"] = f.series
        parts.append(band[["x", "fit", "lower", "upper", "series"]])
    return pd.concat(parts, ignore_index=True)


def card(fit: IdleFit, *, name: str, dataset: str | None) -> dict:
    """The model card, with notes that describe this use (a numeric regressor, not factors)."""
    notes = ["ordinary least squares (statsmodels) of idle CPU seconds per hour on tasks.max as a number: "
             "Intercept = CPU s/h of the connector itself, tasks = CPU s/h added per task"]
    if fit.result.exactly_identified:
        notes.append("exactly identified: two task counts for two parameters, so no standard errors or intervals")
    return fit.result.to_card(name=name, dataset=dataset, notes=notes)


# -- polling ------------------------------------------------------------------------------------

def polling_inputs(trickle: str, idle: str | None = None, *, wait_s: float = 30.0,
                   empty_get_cpu_us=(1.0, 2.0)) -> PollingInputs:
    """The get-with-wait interval and empty-get cost: from the book's datasets, or the parameters.

    ``trickle`` is ``kafka_trickle`` (the 30 s wait, the 3 MQGETs per successful get and the
    1-2 µs per empty get) or ``""`` to use ``wait_s`` and ``empty_get_cpu_us``; ``idle``
    (``kafka_idle_costs``) adds the article's idle MQ cost to check.
    """
    if not trickle:
        low, high = _pair(empty_get_cpu_us)
        polling.idle_polls_per_hour(wait_s)  # validates wait_s
        return PollingInputs(float(wait_s), (low, high), source="parameters")
    frame = mqdata.load(trickle)

    def pick(item, column, statistic="value"):
        rows = frame[(frame["item"] == item) & (frame["statistic"] == statistic)]
        return float(rows[column].iloc[0]) if len(rows) else None

    wait = pick("get_wait", "wait_s")
    low, high = pick("empty_get_cpu", "cpu_us", "low"), pick("empty_get_cpu", "cpu_us", "high")
    if wait is None or low is None or high is None:
        raise ModelError(f"{trickle}: needs a get_wait row and empty_get_cpu low/high rows")
    idle_cpu = None
    if idle and not _is_path(idle):
        idle_frame = mqdata.load(idle)
        mq = idle_frame[idle_frame["item"] == "mq_get_cpu"].set_index("statistic")["cpu_us"]
        if {"low", "high"} <= set(mq.index):
            idle_cpu = (float(mq["low"]), float(mq["high"]))
        interval = idle_frame[idle_frame["item"] == "poll_interval"]["interval_s"]
        if len(interval) and float(interval.iloc[0]) != wait:
            raise ModelError(f"the idle poll interval ({float(interval.iloc[0]):g} s) and the get wait ({wait:g} s) differ")
    return PollingInputs(wait, (low, high), pick("all_mqgets", "mqgets_per_successful_get"),
                         pick("unsuccessful_mqgets", "mqgets_per_successful_get"), idle_cpu, source=trickle)


def _pair(values) -> tuple[float, float]:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.size not in (1, 2) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ModelError(f"empty_get_cpu_us must be one or two CPU µs values > 0 (low, high), not {values!r}")
    return float(arr.min()), float(arr.max())


def inputs_table(inputs: PollingInputs) -> pd.DataFrame:
    rows = [("get-with-wait interval W", inputs.wait_s, "s"),
            ("MQ CPU per empty MQGET, low", inputs.empty_get_cpu_us[0], "CPU µs"),
            ("MQ CPU per empty MQGET, high", inputs.empty_get_cpu_us[1], "CPU µs")]
    if inputs.measured_gets_per_message is not None:
        rows.append(("MQGETs per successful get, slow arrivals (measured)", inputs.measured_gets_per_message, "MQGETs"))
    if inputs.measured_unsuccessful_per_message is not None:
        rows.append(("of which unsuccessful (measured)", inputs.measured_unsuccessful_per_message, "MQGETs"))
    if inputs.idle_mq_cpu_us is not None:
        rows.append(("idle MQ get cost 'for the equivalent period', low", inputs.idle_mq_cpu_us[0], "CPU µs"))
        rows.append(("idle MQ get cost 'for the equivalent period', high", inputs.idle_mq_cpu_us[1], "CPU µs"))
    return pd.DataFrame(rows, columns=["quantity", "value", "unit"])


def gets_curve(waits, *, interarrival_max_s: float = 3600.0, n: int = 60) -> pd.DataFrame:
    """MQGET calls per message against the mean time between messages, one curve per wait."""
    grid = np.round(np.geomspace(1.0, float(interarrival_max_s), n), 4)
    rows = []
    for w in waits:
        for t in grid:
            rows.append({"interarrival_s": t, "gets_per_message": polling.gets_per_message(1 / t, w),
                         "wait": f"W = {w:g} s"})
    return pd.DataFrame(rows)


def interarrival_for_gets(target: float, wait_s: float) -> float:
    """Mean seconds between messages at which G = target (τ = 0)."""
    return 1.0 / polling.arrival_rate_for_gets_per_message(target, wait_s)


def trickle_check(inputs: PollingInputs) -> pd.DataFrame:
    """The model against the article's MQGET counts at a trickle rate.

    The article gives no arrival rate, so the check is whether the model can produce the
    printed counts, and at which arrival rates: the mean interval between messages giving
    exactly the count, and the range that rounds to it.
    """
    if inputs.measured_gets_per_message is None:
        return pd.DataFrame(columns=["statement", "measured", "model", "when"])
    g = inputs.measured_gets_per_message
    w = inputs.wait_s
    at = interarrival_for_gets(g, w)
    lo, hi = interarrival_for_gets(g - 0.5, w), interarrival_for_gets(g + 0.5, w)
    lam = 1 / at
    expired = math.exp(-lam * w) / -math.expm1(-lam * w)
    rows = [
        {"statement": "MQGETs per successful get", "measured": g,
         "model": round_sig(polling.gets_per_message(lam, w), 4),
         "when": f"a message every {at:.1f} s on average (rounds to {g:g} for {hi:.0f}-{lo:.0f} s)"},
        {"statement": "unsuccessful MQGETs per successful get", "measured": inputs.measured_unsuccessful_per_message,
         "model": round_sig(polling.empty_gets_per_message(lam, w), 4), "when": f"the same {at:.1f} s"},
        {"statement": "  of which expired waits", "measured": np.nan, "model": round_sig(expired, 4),
         "when": "e^(-λW) / (1 - e^(-λW))"},
        {"statement": "  of which no-wait gets finding the queue empty", "measured": np.nan,
         "model": round_sig(polling.empty_gets_per_message(lam, w) - expired, 4), "when": "1 - λτ per message (τ = 0)"},
        {"statement": "fewest MQGETs per message at any rate (τ = 0)", "measured": np.nan, "model": 2.0,
         "when": "high rates: each success is followed by one empty no-wait get"},
    ]
    return pd.DataFrame(rows)


def idle_mq_readings(inputs: PollingInputs, tasks=(1, 5)) -> pd.DataFrame:
    """Two readings of the article's idle MQ cost "1-2 CPU µs for the equivalent period".

    Idle, a source task issues 3600/W gets an hour. If the 1-2 µs is per MQGET (as the
    article gives for an empty get in the trickle section), the hour costs 3600/W times
    that; if it is the whole period's cost, each get would cost a hundredth of that.
    """
    if inputs.idle_mq_cpu_us is None:
        return pd.DataFrame()
    low, high = inputs.idle_mq_cpu_us
    rows = []
    for t in tasks:
        polls = polling.idle_polls_per_hour(inputs.wait_s, tasks=t)
        rows.append({"tasks": t, "idle_gets_per_hour": polls,
                     "per_get_reading_cpu_us_h_low": round_sig(polls * low, 4),
                     "per_get_reading_cpu_us_h_high": round_sig(polls * high, 4),
                     "per_period_reading_cpu_us_per_get_low": round_sig(low / polls, 3),
                     "per_period_reading_cpu_us_per_get_high": round_sig(high / polls, 3)})
    return pd.DataFrame(rows)


def idle_breakdown(fits: list[IdleFit], inputs: PollingInputs) -> pd.DataFrame:
    """Per-task idle connector CPU beside the MQ cost of that task's idle polling (source only)."""
    rows = []
    polls = polling.idle_polls_per_hour(inputs.wait_s)
    for f in fits:
        if f.result is None:
            continue
        polls_mq = not f.series.startswith("sink")
        low = polls * inputs.empty_get_cpu_us[0] * 1e-6 if polls_mq else 0.0
        high = polls * inputs.empty_get_cpu_us[1] * 1e-6 if polls_mq else 0.0
        rows.append({"series": f.series, "per_task_connector_cpu_s_h": round_sig(f.per_task, 4),
                     "mq_polls_per_task_h": polls if polls_mq else 0.0,
                     "mq_polling_cpu_s_h_low": round_sig(low, 3), "mq_polling_cpu_s_h_high": round_sig(high, 3),
                     "mq_share_of_per_task_pct": round_sig(high / f.per_task * 100, 3) if polls_mq and f.per_task > 0 else 0.0})
    return pd.DataFrame(rows)


# -- planning -----------------------------------------------------------------------------------

def _find(fits: list[IdleFit], series: str) -> IdleFit:
    fitted = [f for f in fits if f.result is not None]
    for f in fitted:
        if f.series == series:
            return f
    for f in fitted:
        if f.series.startswith(series):
            return f
    if len(fitted) == 1:  # one series (e.g. a file without a connector column): nothing to choose
        return fitted[0]
    raise ModelError(f"no fitted series named {series!r} (fitted: {', '.join(f.series for f in fitted)}); "
                     "choose one with -p plan_connector")


def plan_idle(fits: list[IdleFit], inputs: PollingInputs, *, series: str, connectors: int, tasks: int) -> pd.DataFrame:
    """CPU seconds per day of ``connectors`` idle connectors with ``tasks`` tasks each.

    Connector CPU from the fitted line; MQ CPU from the idle polls (3600/W per task per
    hour) times the empty-get cost, for connectors that poll MQ (not sinks).
    """
    for name, v in (("connectors", connectors), ("tasks", tasks)):
        if isinstance(v, bool) or not float(v).is_integer() or v < 1:
            raise ModelError(f"{name} must be a whole number ≥ 1, not {v!r}")
    f = _find(fits, series)
    per_connector = float(f.cpu_s_per_hour(tasks)[0])
    polls_mq = not f.series.startswith("sink")
    polls_day = polling.idle_polls_per_hour(inputs.wait_s, tasks=int(tasks)) * HOURS_PER_DAY * connectors if polls_mq else 0.0
    rows = [{"what": "connector CPU", "series": f.series, "connectors": connectors, "tasks_each": tasks,
             "cpu_s_per_day_low": round_sig(per_connector * connectors * HOURS_PER_DAY, 4),
             "cpu_s_per_day_high": round_sig(per_connector * connectors * HOURS_PER_DAY, 4),
             "beyond_measured": bool(tasks > f.result.x[:, 1].max() or tasks < f.result.x[:, 1].min())},
            {"what": f"MQ CPU of {polls_day:,.0f} idle MQGETs", "series": f.series, "connectors": connectors, "tasks_each": tasks,
             "cpu_s_per_day_low": round_sig(polls_day * inputs.empty_get_cpu_us[0] * 1e-6, 3),
             "cpu_s_per_day_high": round_sig(polls_day * inputs.empty_get_cpu_us[1] * 1e-6, 3),
             "beyond_measured": False}]
    return pd.DataFrame(rows)


def plan_trickle(inputs: PollingInputs, arrival_rates, *, tasks: int = 1, processing_time_s: float = 0.0) -> pd.DataFrame:
    """Empty-get overhead at given arrival rates (messages per second on the queue).

    Per rate: MQGETs per message, empty gets per message and per hour, the share of gets
    that find nothing, and their MQ CPU per hour and per day (low-high).
    """
    rows = []
    for lam in np.atleast_1d(np.asarray(arrival_rates, dtype=float)):
        if not np.isfinite(lam) or lam < 0:
            raise ModelError(f"arrival rates must be ≥ 0, not {lam!r}")
        all_h = polling.gets_per_hour(lam, inputs.wait_s, processing_time_s, tasks=tasks)
        msgs_h = lam * SECONDS_PER_HOUR
        empty_h = all_h - msgs_h
        g = polling.gets_per_message(lam / tasks, inputs.wait_s, processing_time_s) if lam > 0 else math.inf
        rows.append({
            "arrival_rate_msg_s": lam, "messages_per_hour": round_sig(msgs_h, 4),
            "mqgets_per_message": round_sig(g, 4), "empty_gets_per_message": round_sig(g - 1, 4),
            "empty_gets_per_hour": round_sig(empty_h, 4),
            "empty_share_pct": round_sig(empty_h / all_h * 100, 3) if all_h > 0 else np.nan,
            "empty_cpu_us_per_hour_low": round_sig(empty_h * inputs.empty_get_cpu_us[0], 4),
            "empty_cpu_us_per_hour_high": round_sig(empty_h * inputs.empty_get_cpu_us[1], 4),
            "empty_cpu_s_per_day_low": round_sig(empty_h * inputs.empty_get_cpu_us[0] * 1e-6 * HOURS_PER_DAY, 3),
            "empty_cpu_s_per_day_high": round_sig(empty_h * inputs.empty_get_cpu_us[1] * 1e-6 * HOURS_PER_DAY, 3),
        })
    return pd.DataFrame(rows)


