"""Q Replication channel tuning: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="channels to plan: a CSV with rtt_ms, tcp_window_bytes, message_bytes [, batch_size, "
                          "batchlim_kb, link_mb_s, commit_ms, measured_mb_s, series], or a book dataset",
                     contract="qrep_channel"),
    "settings": DataFile(help="the article's recommended settings", contract="qrep_settings", files=False),
    "rtt_ms": Number(help="planning: round trip between capture and apply systems (the article flags NETTIME "
                          "above 1 ms)", unit="ms", minimum=0, exclusive_minimum=True, maximum=10000),
    "tcp_buffer_bytes": Integer(help="planning: TCPSENDBFRSIZE / TCPRCVBUFRSIZE, the most one connection has in "
                                     "flight", unit="bytes", minimum=1, maximum=2**31 - 1),
    "message_kb": Number(help="planning: QREP message size (the article: 10 KB to 1 MB)", unit="KB", minimum=0,
                         exclusive_minimum=True, maximum=102400),
    # MQ's own limits: BATCHSZ 1-9999, BATCHLIM 0-999999 KB.
    "batch_size": Integer(help="channel BATCHSZ (the article: 200)", unit="messages", minimum=1, maximum=9999),
    "batchlim_kb": Number(help="channel BATCHLIM (the article: at least 5000, the default, up to 100000)",
                          unit="KB", minimum=0, maximum=999999),
    "link_gbit_s": Number(help="planning: network link speed (not in the article)", unit="Gbit/s", minimum=0,
                          exclusive_minimum=True, maximum=10000),
    "commit_ms": Number(help="planning: per-batch time beyond the round trip, e.g. log forces at both ends",
                        unit="ms", minimum=0, maximum=60000),
    "target_mb_s": Number(help="planning: the rate capture must sustain (MB of 10^6 bytes per second)",
                          unit="MB/s", minimum=0, exclusive_minimum=True, maximum=1e6),
    "ping_small_ms": Number(help="optional: average round trip of `ping ... length 256`", unit="ms", minimum=0,
                            exclusive_minimum=True, maximum=10000, optional=True),
    "ping_large_ms": Number(help="optional: average round trip of `ping ... length 4096`", unit="ms", minimum=0,
                            exclusive_minimum=True, maximum=10000, optional=True),
    "cards_dir": Internal(help="where model cards go (only a reader's measured batches are fitted)"),
}


def preflight(p: dict):
    """Load, evaluate, fit and plan as the notebook does."""
    from mqperf.analysis import qrep

    link_mb_s = p["link_gbit_s"] * 1e9 / 8 / qrep.MB
    defaults = {"rtt_ms": p["rtt_ms"], "tcp_window_bytes": p["tcp_buffer_bytes"],
                "message_bytes": p["message_kb"] * qrep.KB, "batch_size": p["batch_size"],
                "batchlim_kb": p["batchlim_kb"], "link_mb_s": link_mb_s, "commit_ms": p["commit_ms"]}
    st = qrep.load_settings(p["settings"])
    qrep.settings_table(st)
    qrep.planning_answer(rtt_ms=p["rtt_ms"], window_bytes=p["tcp_buffer_bytes"], link_mb_s=link_mb_s,
                         target_mb_s=p["target_mb_s"])
    scenarios = qrep.load_scenarios(p["data"], defaults=defaults)
    qrep.evaluate(scenarios)
    qrep.batch_curve(rtt_ms=p["rtt_ms"], window_bytes=p["tcp_buffer_bytes"], link_mb_s=link_mb_s,
                     commit_ms=p["commit_ms"], batchlim_kb=p["batchlim_kb"],
                     message_sizes={"10 KB": 10 * qrep.KB, "yours": p["message_kb"] * qrep.KB, "1 MB": qrep.KB * qrep.KB},
                     batch_sizes=[1, 2, 5, 10, 20, 50, 100, 200, 500])
    qrep.measured_check(scenarios)
    batch_fits = qrep.fit_batches(scenarios)
    if batch_fits:
        qrep.batch_fit_table(batch_fits)
        qrep.batch_loo(scenarios, batch_fits)
    qrep.link_from_pings(qrep.recommended(st)["ping_bytes"], p["ping_small_ms"], p["ping_large_ms"])
    return scenarios
