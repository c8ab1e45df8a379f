"""IMS bridge tuning: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="transaction rate against CPUs: a CSV with cpus, rate_tps [, series, cf_busy_pct, "
                          "cf_processors], or a book dataset", contract="ims_bridge"),
    "tuning": DataFile(help='the tuning steps with settings before and after; "" to skip',
                       contract="ims_bridge_tuning", files=False, optional=True),
    "target_tps": Number(help="planning: the transaction rate to plan for", unit="tx/s", minimum=0,
                         exclusive_minimum=True, maximum=1e8),
    "cf_max_util": Number(help="planning: the busiest you let the CF run (the article calls 75 % too high)",
                          minimum=0, maximum=1, exclusive_minimum=True),
    # A z/OS LPAR has at most a few hundred processors.
    "max_cpus": Integer(help="planning: the most CPUs the tables consider", unit="CPUs", minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    import numpy as np

    from mqperf.analysis import ims_bridge

    if p["tuning"]:
        ims_bridge.tuning_table(p["tuning"])
    points = ims_bridge.load_points(p["data"])
    scaling = ims_bridge.scaling_points(points)
    fits = ims_bridge.fit_models(scaling)
    ims_bridge.fits_table(fits)
    ims_bridge.parameter_table(fits)
    ims_bridge.curves(fits, n_max=max(12, int(scaling["cpus"].max() * 1.4)))
    ims_bridge.holdout_largest(scaling)
    ims_bridge.leave_one_out(scaling, "amdahl")
    ims_bridge.leave_one_out(scaling, "bottleneck")
    ims_bridge.cpus_for_rate(fits, p["target_tps"], n_max=p["max_cpus"])
    cf = ims_bridge.load_cf(p["data"])
    if cf is not None:
        ims_bridge.cf_time_per_transaction_us(cf)
        ims_bridge.cf_processors_needed(cf, p["target_tps"], p["cf_max_util"])
        procs = range(cf["processors"], cf["processors"] + 6)
        ims_bridge.cf_headroom(cf, sorted({cf["rate_tps"], p["target_tps"]}), processors=procs,
                               max_utilisation=p["cf_max_util"])
        grid = np.round(np.linspace(cf["rate_tps"] * 0.3, max(p["target_tps"], cf["rate_tps"]) * 1.2, 60), -1)
        ims_bridge.cf_headroom(cf, grid, processors=range(cf["processors"], cf["processors"] + 4),
                               max_utilisation=p["cf_max_util"])
    return points
