"""The book's CPU and latch datasets in the shape a reader's files have.

``kafka_cpu_experiment`` is long (one printed RMF figure per row) and has no rates; the rates
of the same runs are in ``kafka_task_scaling``. ``kafka_latch_contention`` mixes absolute
latch times with printed growth percentages, CPU effects, ranks and the run length; only the
absolute times are contract rows (the rest are published statements the chapter quotes on
the book's data).
"""

from __future__ import annotations

import pandas as pd

from mqperf.data import loader

RATES = "kafka_scaling_rates"
#: The rates of the contention workload: sink connector, getters MQGET*100/commit.
SERIES = "persistent_get100_commit"


def _rates() -> pd.DataFrame:
    rates = loader.load(RATES)
    rates = rates[(rates["connector"] == "sink") & (rates["series"] == SERIES)]
    return rates[["tasks", "gp_cpus", "rate_msg_s"]]


def cpu_runs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """One row per run: gp_cpus, busy_pct, sufficient_pct, rate_msg_s, label, basis."""
    wide = (
        frame[frame["metric"].isin(["cpu_busy", "sufficient_cpu"])]
        .pivot_table(index=["tasks", "gp_cpus"], columns="metric", values="pct", aggfunc="first")
        .reset_index()
        .rename(columns={"cpu_busy": "busy_pct", "sufficient_cpu": "sufficient_pct"})
    )
    wide = wide.merge(_rates(), on=["tasks", "gp_cpus"], how="left")
    wide["label"] = [f"{c} CPUs, tasks.max={t}" for c, t in zip(wide["gp_cpus"], wide["tasks"])]
    wide["basis"] = "measured"
    out = wide[["gp_cpus", "busy_pct", "sufficient_pct", "rate_msg_s", "label", "basis"]]
    return out.sort_values("gp_cpus").reset_index(drop=True)


def latch_times(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The absolute latch times: tasks, latch_s, latch, gp_cpus, rate_msg_s, run_s, basis.

    The rate is that of the same workload at the same tasks and CPUs where the article gives
    one (4 tasks, 3 CPUs: 30,592 msg/s); it prints none at 5 tasks. The run length is the
    article's "3 minutes", in seconds.
    """
    lat = frame[(frame["metric"] == "total_latch_time") & frame["latch_s"].notna() & frame["base_tasks"].isna()]
    out = pd.DataFrame({
        "tasks": lat["tasks"].astype(int),
        "latch_s": lat["latch_s"].astype(float),
        "latch": "latch " + lat["latch"].astype(str) + " " + lat["latch_names"].astype(str),
        "gp_cpus": lat["gp_cpus"].astype(int),
        "basis": lat["basis"],
    })
    out = out.merge(_rates(), on=["tasks", "gp_cpus"], how="left")
    run = frame.loc[frame["metric"] == "run_length", "run_min"].dropna()
    out["run_s"] = float(run.iloc[0]) * 60 if len(run) else float("nan")
    return out.reset_index(drop=True)


def published(frame: pd.DataFrame | None = None) -> dict:
    """The article's statements about the latches that are not contract rows.

    ``growth``: each hot latch's printed growth from 4 to 5 tasks, with its rank by total
    latch time; ``cpu_effect``: the printed decreases from 3 to 6 CPUs.
    """
    frame = loader.load("kafka_latch_contention") if frame is None else frame
    rank = frame[frame["metric"] == "latch_time_rank"][["latch", "rank"]]
    inc = frame[(frame["metric"] == "total_latch_time") & (frame["direction"] == "increase")]
    growth = pd.DataFrame({
        "latch": inc["latch"].astype(str), "names": inc["latch_names"].astype(str),
        "tasks_from": inc["base_tasks"].astype(int), "tasks_to": inc["tasks"].astype(int),
        "printed_pct": inc["pct"].astype(float),
    }).merge(rank.astype({"latch": str}), on="latch", how="left").sort_values("rank")
    dec = frame[(frame["direction"] == "decrease") & frame["pct"].notna()]
    effects = []
    for (metric, latch), g in dec.groupby(["metric", "latch"], dropna=False, sort=False):
        stats = dict(zip(g["statistic"], g["pct"]))
        effects.append({"metric": metric, "latch": "" if pd.isna(latch) else str(latch),
                        "low": stats.get("low", stats.get("value")), "high": stats.get("high", stats.get("value"))})
    return {"growth": growth.reset_index(drop=True), "cpu_effect": pd.DataFrame(effects)}


VIEWS = {"data": cpu_runs, "latch_data": latch_times}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('kafka_scaling_rates', 'test_environments')
