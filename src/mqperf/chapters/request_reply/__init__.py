"""Request/reply capacity: clients, throughput and response time.

``analyse`` checks every row of a closed-loop measurement against Little's law, fits the USL
to the rate against clients and reads the response time it implies
(:mod:`.fits`); fits a one-queue MVA to the rates, which gives the reader's own
bottleneck demand and ceiling where the data identify them, and ranks the three models of the
rate by AICc (:mod:`mqperf.models.closed_loop`), planning with the winner; and sets an exact
mean-value analysis from per-message demand figures beside the measurements. Its sentences are
in :mod:`.text`, the orchestration in :mod:`.analysis`. The figures default to the book's (CPU
of the MQ verbs, log bytes per message, a log disk's bandwidth and forced-write latency, a
network round trip), and every sentence about what they imply says whose figures they are.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

CHAPTER = "request_reply"
#: The reader's example (synthetic, made by tools/make_request_reply_example.py); the book runs on the V9.3
#: xLinux report's request/reply charts (``xlinux93_rate_chart`` through :mod:`mqperf.data.views.request_reply`).
EXAMPLE = "request_reply.csv"
BOOK = "xlinux93_rate_chart"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8
#: The columns of the contract: clients, rate, response time and think time.
N, X, R, Z = "clients", "rate_msg_s", "response_time_ms", "think_time_ms"
#: The curves the charts draw, in their legend's order.
USL_CURVE, FITTED, FIGURES_CURVE, BOUND_CURVE = ("USL fit to the measurements", "MVA fitted to the measurements",
                                                 "MVA from the figures", "the figures' asymptotic bound")
#: The resources of a request in the MVA from the figures; the last two delay without queueing.
CPU, LOG, FORCE, NET = "queue manager CPU", "log disk", "log force", "network"
DELAYS = (FORCE, NET)
#: Forced log writes a persistent message waits for: its put's commit and its get's.
FORCES_PER_MSG = 2

#: A reader's run plans at the example's scale; the book's defaults are for the V9.3 server's rates.
READER_DEFAULTS = {"target_rate_msg_s": 3000.0, "max_response_ms": 10.0, "max_clients": 100}

PARAMETERS = {
    "data": DataFile(help="closed-loop measurements: a CSV with clients, rate_msg_s, response_time_ms "
                          "[, think_time_ms, series]", contract=CHAPTER),
    "cpu_costs": DataFile(help="published CPU of MQPUT1 and MQGET (Kafka connector article), for the default CPU "
                               "per message", contract="kafka_cpu_costs", files=False),
    "log_bytes": DataFile(help="published log bytes of a 1 KB persistent put and get (MP16), for the default log "
                               "bytes per message", contract="kafka_log_bytes", files=False),
    "log_disk": DataFile(help="published mqldt run (NativeHA chapter), for the default log bandwidth",
                         contract="nativeha_mqldt", files=False),
    "network": DataFile(help="the Q Replication notes' healthy nettime, for the default network round trip",
                        contract="qrep_settings", files=False),
    "cpu_us_per_msg": Number(help="queue manager CPU per message put and got; none: from cpu_costs", unit="µs",
                             minimum=0, maximum=1e6, optional=True),
    "log_bytes_per_msg": Number(help="log bytes per message put and got (0: non-persistent); none: from log_bytes",
                                unit="bytes", minimum=0, maximum=1e9, optional=True),
    "log_mb_s": Number(help="log disk bandwidth; none: from log_disk", unit="MB/s", minimum=0,
                       exclusive_minimum=True, maximum=1e6, optional=True),
    "log_latency_us": Number(help="latency of one forced log write (a persistent message waits for two: its put's "
                                  "and its get's commit); none: from log_disk; 0 leaves it out", unit="µs", minimum=0,
                             maximum=1e7, optional=True),
    "network_rtt_us": Number(help="network round trip per message; none: from network", unit="µs", minimum=0,
                             maximum=1e7, optional=True),
    "messages_per_request": Integer(help="messages per request, each put and got once (2: the request and its "
                                         "reply)", unit="messages", minimum=1, maximum=100),
    "tolerance": Number(help="Little's law: rows whose X·(R + Z) / N is further from 1 than this are flagged",
                        minimum=0.001, maximum=1),
    "target_rate_msg_s": Number(help="planning question: how many clients for this rate?", unit="requests/s",
                                minimum=0, exclusive_minimum=True, maximum=1e9),
    "max_response_ms": Number(help="planning question: how many clients keep the response time within this?",
                              unit="ms", minimum=0, exclusive_minimum=True, maximum=1e6),
    "max_clients": Integer(help="the largest number of clients the curves and planning consider", unit="clients",
                           minimum=1, maximum=1000),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}




def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters.request_reply import analysis

    return analysis.analyse(p)
