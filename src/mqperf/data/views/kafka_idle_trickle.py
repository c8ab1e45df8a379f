"""The book's idle and trickle datasets in the shapes the ``kafka_idle_trickle`` chapter reads.

``data``: ``kafka_idle_costs``' connector CPU rows as (connector, tasks, cpu_s_per_hour, basis).
``trickle``: ``kafka_trickle`` as one row of polling inputs (the get wait, the cost of an empty
MQGET and the MQGET counts the article measured at a slow arrival rate).
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader
from mqperf.errors import DataError


def idle_cpu(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[frame["item"] == "connector_cpu"]
    if rows.empty:
        raise DataError(loader.resource_path(name), "no connector_cpu rows")
    return pd.DataFrame({"connector": rows["connector"].astype(str).to_numpy(),
                         "tasks": rows["tasks"].astype(int).to_numpy(),
                         "cpu_s_per_hour": rows["cpu_s_per_hour"].astype(float).to_numpy(),
                         "basis": rows["basis"].astype(str).to_numpy()})


def polling(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """One row: wait_s, empty_get_cpu_us_low/_high, mqgets_per_successful_get, unsuccessful_per_successful_get."""

    def pick(item, column, statistic="value"):
        hit = frame[(frame["item"] == item) & (frame["statistic"] == statistic)]
        return float(hit[column].iloc[0]) if len(hit) else None

    row = {"wait_s": pick("get_wait", "wait_s"),
           "empty_get_cpu_us_low": pick("empty_get_cpu", "cpu_us", "low"),
           "empty_get_cpu_us_high": pick("empty_get_cpu", "cpu_us", "high"),
           "mqgets_per_successful_get": pick("all_mqgets", "mqgets_per_successful_get"),
           "unsuccessful_per_successful_get": pick("unsuccessful_mqgets", "mqgets_per_successful_get")}
    if None in (row["wait_s"], row["empty_get_cpu_us_low"], row["empty_get_cpu_us_high"]):
        raise DataError(loader.resource_path(name), "needs a get_wait row and empty_get_cpu low and high rows")
    return pd.DataFrame([row])


def idle_mq_cpu(name: str) -> tuple[float, float, float] | None:
    """(low, high, poll interval s) of the article's idle MQ cost "for the equivalent period"."""
    frame = loader.load(name)
    mq = frame[frame["item"] == "mq_get_cpu"].set_index("statistic")["cpu_us"]
    interval = frame.loc[frame["item"] == "poll_interval", "interval_s"]
    if not {"low", "high"} <= set(mq.index) or interval.empty:
        return None
    return float(mq["low"]), float(mq["high"]), float(interval.iloc[0])


VIEWS = {"data": idle_cpu, "trickle": polling}
