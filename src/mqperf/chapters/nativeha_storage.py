"""NativeHA storage latency: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="recovery log figures: a CSV with write_latency_us, write_size_bytes, physical_bytes_s "
                          "[, logical_bytes_s, interval_s, series] (amqsrua -c DISK -t Log), or a book dataset",
                     contract="nativeha_storage"),
    "mqldt": DataFile(help='mqldt results: a CSV written by mqldt --csvFile, a book dataset, or "" for none',
                      contract="mqldt --csvFile output", optional=True),
    "records": DataFile(help='records sent and received in the article\'s tests; "" for none',
                        contract="nativeha_records", files=False, optional=True),
    "comparison": DataFile(help='the article\'s printed amqsrua-versus-mqldt comparison; "" to skip',
                           contract="nativeha_tool_comparison", files=False, optional=True),
    "target_log_bytes_s": Number(help="planning: physical log bytes per second the workload must write",
                                 unit="bytes/s", minimum=0, exclusive_minimum=True, maximum=1e11),
    "write_size_bytes": Number(help="planning: average log write size at that rate (amqsrua Log - write size)",
                               unit="bytes", minimum=0, exclusive_minimum=True, maximum=1e9),
    "your_latency_ms": Number(help="planning: a write latency of your storage to evaluate beside the measured ones",
                              unit="ms", minimum=0, exclusive_minimum=True, maximum=60000, optional=True),
    "max_log_utilisation": Number(help="planning: the busiest you let the log writer run", minimum=0, maximum=1,
                                  exclusive_minimum=True, exclusive_maximum=True),
    "forced_writes_per_record": Integer(help="forced log writes on one record's path (assumed: 4 MQ hops, a put "
                                             "and a get commit each)", unit="writes", minimum=1, maximum=10000),
    "timeout_s": Number(help="request timeout of the ACE TCP nodes", unit="s", minimum=0, exclusive_minimum=True,
                        maximum=86400),
    "cards_dir": Internal(help="where model cards would go (this chapter fits no model)"),
}


def preflight(p: dict):
    """Load and plan as the notebook does."""
    from mqperf.analysis import log_storage

    stats = log_storage.load_log_stats(p["data"])
    log_storage.log_table(stats)
    mqldt_runs = log_storage.load_mqldt(p["mqldt"])
    log_storage.mqldt_check(mqldt_runs)
    log_storage.replication_table(physical_bytes_s=float(stats["physical_bytes_s"].iloc[0]))
    if p["comparison"]:
        log_storage.tool_comparison(p["comparison"])
    latencies = log_storage.candidate_latencies(stats, mqldt_runs, p["your_latency_ms"])
    log_storage.timeout_curve(latencies, forced_writes=p["forced_writes_per_record"], timeout_s=p["timeout_s"])
    log_storage.records_check(stats, p["records"], forced_writes=p["forced_writes_per_record"],
                              timeout_s=p["timeout_s"])
    log_storage.max_latency_ms(p["target_log_bytes_s"], p["write_size_bytes"], p["max_log_utilisation"])
    log_storage.latency_plan(p["target_log_bytes_s"], p["write_size_bytes"], latencies,
                             forced_writes=p["forced_writes_per_record"], timeout_s=p["timeout_s"],
                             max_utilisation=p["max_log_utilisation"])
    return stats
