"""zEDC archive compression: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import Choice, DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="effect of compression by message size: a CSV with message_size_bytes, "
                          "qm_tcb_increase_pct [, peak_throughput_increase_pct], or a book dataset",
                     contract="zedc_compression"),
    "recovery": DataFile(help="recovery rate and CPU per MB with uncompressed and zEDC-compressed archives",
                         contract="zedc_recovery"),
    "processor": DataFile(help="zEDC processor utilisation measured while one queue manager archived",
                          contract="zedc_processor", files=False),
    "message_size_kb": Number(help="planning: your typical persistent message size", unit="KB", minimum=0,
                              exclusive_minimum=True, maximum=102400),
    "recovery_gb": Number(help="planning: shared-queue data a RECOVER CFSTRUCT reads back from archives "
                               "(GB of 1024 MB)", unit="GB", minimum=0, exclusive_minimum=True, maximum=1e6),
    "cost_unit": Choice(help="the printed 'CPU ms' per MB read as microseconds (\"us\", erratum E039) or as "
                             "printed (\"ms\")", values=("us", "ms")),
    "queue_managers": Integer(help="planning: queue managers whose archives the LPAR's zEDC features compress",
                              unit="queue managers", minimum=1, maximum=1000),
    "archive_rate_share": Number(help="planning: their archive rate as a share of the measured peak", minimum=0,
                                 maximum=1, exclusive_minimum=True),
    "zedc_max_util": Number(help="planning: the busiest you let a zEDC feature run", minimum=0, maximum=1,
                            exclusive_minimum=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    from mqperf.analysis import zedc

    effects = zedc.load_effects(p["data"])
    fits = zedc.fit_effects(effects)
    zedc.fits_table(fits)
    zedc.parameter_table(fits)
    zedc.curves(fits, kb_min=effects["size_kb"].min() / 2, kb_max=effects["size_kb"].max() * 4)
    zedc.residual_table(fits)
    zedc.leave_one_out(effects)
    zedc.cpu_per_message(effects)
    zedc.at_size(fits, p["message_size_kb"])
    rec = zedc.load_recovery(p["recovery"])
    plan = zedc.recovery_plan(rec, p["recovery_gb"] * 1024, cost_unit=p["cost_unit"])
    zedc.recovery_ratio(plan)
    util = zedc.load_processor(p["processor"])
    zedc.zedc_capacity(util, queue_managers=p["queue_managers"], rate_share=p["archive_rate_share"],
                       max_util=p["zedc_max_util"])
    return effects
