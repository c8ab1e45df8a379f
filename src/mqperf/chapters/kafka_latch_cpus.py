"""Latch contention and more CPUs: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="share of time with sufficient CPUs: a CSV with gp_cpus, busy_pct, sufficient_pct "
                          "[, rate_msg_s, label], or a book dataset", contract="kafka_latch_cpus"),
    "latch_data": DataFile(help='latch wait times: a CSV with tasks, latch_s [, latch]; "" for none',
                           contract="kafka_latch_cpus.latch_data", optional=True),
    "run_s": Number(help="seconds the latch times cover; none takes it from the data", unit="s",
                    minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    # 100 % is only reached with infinitely many CPUs.
    "target_sufficient_pct": Number(help="planning question: CPUs for this % of time with sufficient CPUs",
                                    unit="%", minimum=0, maximum=100, exclusive_minimum=True,
                                    exclusive_maximum=True),
    "target_rate_msg_s": Number(help="planning: the rate to carry at the CPU per message of the run with most "
                                     "CPUs; 0 to skip", unit="msg/s", minimum=0, maximum=1e9),
    "plan_busy_cpus": Number(help="planning: or CPUs' worth of work to carry directly (busy % x CPUs / 100); "
                                  "none to skip", unit="CPUs", minimum=0, maximum=1024, optional=True),
    # Erlang C is evaluated for every CPU count up to this, per planned load and chart series.
    "max_cpus": Integer(help="the largest CPU count the charts and the planning table consider", unit="CPUs",
                        minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    import pandas as pd

    from mqperf.analysis import latches

    lat = latches.load_latches(p["latch_data"])
    run_length_s = p["run_s"] or lat.run_s
    growth = latches.growth_table(lat)
    if not growth.empty:
        latches.growth_chart_frame(growth)
    latches.coherency_check(growth)
    latches.fit_power_laws(lat)
    latches.power_law_loo(lat)
    latches.waiters(lat, run_length_s)
    runs = latches.load_cpu_runs(p["data"])
    latches.runs_table(runs)
    latches.mmc_comparison(runs)
    loads = {f"{r.label}": r.busy_cpus for r in runs.itertuples()}
    latches.share_curves(loads, max_cpus=p["max_cpus"])
    latches.cross_calibration(runs)
    latches.more_cpus_table(runs)
    largest = runs.iloc[-1]
    demands = dict(loads)
    if p["target_rate_msg_s"] and pd.notna(largest["cpu_us_per_msg"]):
        demands["target"] = p["target_rate_msg_s"] * largest["cpu_us_per_msg"] / 1e6
    if p["plan_busy_cpus"]:
        demands["busy"] = float(p["plan_busy_cpus"])
    factors = {"M/M/c": 1.0}
    for r in runs.itertuples():
        try:
            factors[r.label] = latches.calibrate_load_factor(r.gp_cpus, r.busy_cpus, r.sufficient_pct)
        except Exception:  # the notebook prints these and carries on (a share of 0 or 100 %)
            continue
    latches.plan(p["target_sufficient_pct"], demands, factors, max_cpus=p["max_cpus"])
    k_last = list(factors.values())[-1]
    latches.share_curves(demands, max_cpus=p["max_cpus"], load_factor=k_last)
    return runs
