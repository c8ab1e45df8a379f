"""TLS channel costs: the renegotiation model solved from cost ratios, and SSLRKEYC planning.

The model (:mod:`mqperf.models.tls`): a message of s bytes on a channel renegotiating every K
bytes costs enc(s) + H·s/K, with enc(s) = e0·(1 + s/s0); a cost ratio against SSLRKEYC(0) is
1 + a·(s/K)/(1 + s/s0), a = H/e0. Ratios carry no absolute CPU: pricing negotiations in CPU
seconds needs a handshake cost from elsewhere, which this chapter shows as an assumption.

Which SSLRKEYC keeps renegotiation within a share of a channel's TLS cost at your message size?
The analysis is :mod:`.analysis`; the fit and the frames behind the tables :mod:`.fits`; the
sentences and passages :mod:`.text`; the what-if chart :mod:`.whatif`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number, NumberList

# MQ limits: messages up to 100 MB; SSLRKEYC up to 999,999,999 bytes (about 954 MB).
MAX_MESSAGE_BYTES = 104857600
MAX_SSLRKEYC_MB = 999_999_999 / 1048576

PARAMETERS = {
    "data": DataFile(help="channel cost ratio with renegotiation: a CSV with message_size_bytes, sslrkeyc_bytes, "
                          "cost_ratio, or a book dataset", contract="tls_channel_costs"),
    "published": DataFile(help="seed 002's size and CipherSpec comparisons; \"\" for none",
                          contract="tls_cost_changes", files=False, optional=True),
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
    "handshake_us": Number(help="your CPU of one key negotiation, for the CPU column only (ratios carry no "
                                "absolute cost); none: no CPU column (no source states it for the ratios' machine)",
                           unit="us", minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "tls_channel_costs"
KB, MB = 1024, 1024 * 1024
#: Sizes the overhead chart and the plan always show (with the measured ones and the reader's).
PLAN_SIZES = (2 * KB, 10 * KB, 100 * KB, MB)


def size_label(size_bytes: float) -> str:
    """1024 → '1KB', 1048576 → '1MB', others in bytes."""
    s = float(size_bytes)
    for unit, div in (("GB", MB * 1024), ("MB", MB), ("KB", KB)):
        if s >= div and (s / div) == round(s / div, 2):
            v = s / div
            return f"{int(v) if v.is_integer() else v:g}{unit}"
    return f"{int(s):,} bytes"


def analyse(p: dict):
    """Load, fit and plan; every sentence, table and chart of the chapter, in order (:mod:`.analysis`)."""
    from mqperf.chapters.tls_channel_costs import analysis

    return analysis.analyse(p)
