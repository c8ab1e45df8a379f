"""TLS channel costs: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number, NumberList

# MQ limits: messages up to 100 MB; SSLRKEYC up to 999,999,999 bytes (about 954 MB).
MAX_MESSAGE_BYTES = 104857600
MAX_SSLRKEYC_MB = 999_999_999 / 1048576

PARAMETERS = {
    "data": DataFile(help="channel cost ratio with renegotiation: a CSV with message_size_bytes, sslrkeyc_bytes, "
                          "cost_ratio, or a book dataset", contract="tls_channel_costs"),
    "published": DataFile(help="seed 002's size and CipherSpec comparisons; \"\" for none",
                          contract="tls_channel_costs", files=False, optional=True),
    "connect_costs": DataFile(help="seed 003's TLS increment per client connect; \"\" for none",
                              contract="client_conn_costs", files=False, optional=True),
    "message_size_bytes": Integer(help="planning: the message size on the channel", unit="bytes",
                                  minimum=1, maximum=MAX_MESSAGE_BYTES),
    "target_overhead_pct": Number(help="planning question: renegotiation at most this % of the TLS cost per message",
                                  unit="%", minimum=0, maximum=100, exclusive_minimum=True),
    "channel_mb_s": Number(help="planning: the channel's data rate", unit="MB/s", minimum=0,
                           exclusive_minimum=True, maximum=1e5),
    "sslrkeyc_candidates_mb": NumberList(help="planning: SSLRKEYC values to compare", unit="MB", minimum=0,
                                         exclusive_minimum=True, maximum=round(MAX_SSLRKEYC_MB, 2), max_items=20),
    "handshake_us": Number(help="CPU of one key negotiation; none takes seed 003's connect-time TLS increment",
                           unit="us", minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    from mqperf.analysis import tls_costs as tc
    from mqperf.models import tls

    tc.size_increase(p["published"])
    runs = tc.load_renegotiation(p["data"])
    tc.renegotiation_table(runs)
    result = tc.fit_from_frame(runs)
    tc.parameter_table(result)
    result.derived()
    if result.size_model:
        readings = {"as printed": {}}
        for r in runs[runs["qualifier"] == "nearly"].itertuples():
            readings[str(r.cost_ratio)] = {r.message_size_bytes: r.cost_ratio - 0.5}
        tc.sensitivity(runs, readings, size=p["message_size_bytes"], target_pct=p["target_overhead_pct"])
    tc.validation(runs)
    increments = tc.connect_increment(p["connect_costs"])
    tc.connect_holdout(increments)
    sizes = tc.answerable_sizes(result, [2 * tls.KB, 10 * tls.KB, 100 * tls.KB, tls.MB, p["message_size_bytes"]])
    tc.overhead_curves(result, sizes, k_min=tls.MB / 4, k_max=4e9)
    tc.cipher_table(p["published"])
    plan = tc.sslrkeyc_plan(result, sizes, p["target_overhead_pct"])
    if len(sizes) > 1 and result.size_model:
        float(result.overhead(sizes[-1], plan["min_sslrkeyc_bytes"].iloc[0]))
    hs = p["handshake_us"] if p["handshake_us"] else tc.handshake_us_from(increments)
    tc.channel_plan(result, size=p["message_size_bytes"], channel_mb_s=p["channel_mb_s"],
                    candidates_mb=p["sslrkeyc_candidates_mb"], handshake_us=hs)
    return runs
