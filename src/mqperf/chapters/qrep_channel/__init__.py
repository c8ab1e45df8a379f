"""Q Replication channel tuning: what one sender channel carries at a round trip, window and
batch setting, which bound holds it there, and the window or batch a target rate needs.

The model is :mod:`mqperf.models.channel` (bandwidth–delay bound, batches that wait a round
trip plus a commit for their confirmation); a reader's measured rates are checked against it
and, with three or more batch sizes on one channel, fitted with the units-of-work model of
:mod:`mqperf.models.batching`. Sizes in bytes (KB = 1024 bytes, as BATCHLIM counts them),
rates in MB/s of 10⁶ bytes (as networks count them), times in ms.

The chapter's parts: :mod:`.fits` (scenarios, bounds, the plan and the batch fits), :mod:`.text`
(its sentences and the passages about the article) and :mod:`.analysis` (``analyse``).
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="channels to plan: a CSV with rtt_ms [, tcp_window_bytes, message_bytes, batch_size, "
                          "batchlim_kb, link_mb_s, commit_ms, measured_mb_s, series], amqsevt channel statistics, "
                          "or a book dataset",
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

CHAPTER = "qrep_channel"
MB, KB = 1e6, 1024
#: MQ's own limits on BATCHSZ (messages) and BATCHLIM (KB).
MAX_BATCHSZ, MAX_BATCHLIM_KB = 9999, 999999
#: The columns that identify a scenario (a channel and its settings).
KEYS = ["series", "rtt_ms", "tcp_window_bytes", "message_bytes", "batch_size", "batchlim_kb", "link_mb_s", "commit_ms"]
MEASURED = "measured_mb_s"
#: Below this share of each batch's time spent sending, the confirmations limit the channel more
#: than the bandwidth does.
SENDING_MAJORITY = 0.5
#: More scenarios than this are summarised by their limits rather than one bullet each.
BULLETS = 6


def analyse(p: dict):
    """Load the channels, evaluate the bounds, check and fit any measured rates, and plan (:mod:`.analysis`)."""
    from mqperf.chapters.qrep_channel import analysis

    return analysis.analyse(p)
