"""Persistent messages and units of work: throughput and log bytes against messages per commit.

Two models from :mod:`mqperf.models.batching`: the throughput of one task committing every
``b`` messages, X(b) = b/(t_c + b·t_m), and the MQ log bytes per message, L(b) = l_m + l_c/b,
fitted per operation (an MQPUT logs the message, an MQGET only a small record: their points do
not lie on one curve). A point whose messages per commit is known only as a range
(``msgs_per_commit_low``/``_high``) is refitted at the range's ends; the spread is shown as a
reading-sensitivity table and band, not as a confidence interval. The fits and readings are in
:mod:`.fits`, the sentences and about-passages in :mod:`.text`, the shorter-commit what-if in
:mod:`.whatif`, the orchestration in :mod:`.analysis`.
"""

from mqperf.declarations import Choice, DataFile, Internal, Number

CHAPTER = "kafka_persistent_uow"
#: The contract's columns: messages per commit (and the ends of its range, where it is read as one), rate.
B, X = "msgs_per_commit", "rate_msg_s"
LOW, HIGH = "msgs_per_commit_low", "msgs_per_commit_high"
#: A sensitivity table past this many ranged points per series would be a combinatorial list.
MAX_RANGED = 6

# A unit of work beyond a million messages is outside anything MQ's log could hold.
MAX_BATCH = 1_000_000

PARAMETERS = {
    "data": DataFile(help="rate against messages per commit: a CSV with msgs_per_commit, rate_msg_s "
                          "[, msgs_per_commit_low, msgs_per_commit_high, log_bytes_per_msg, operation, series], "
                          "or a book dataset", contract=CHAPTER),
    "log_bytes": DataFile(help='log bytes per message by unit of work; "" takes log_bytes_per_msg from data',
                          contract=f"{CHAPTER}.log_bytes", optional=True),
    "b_put_commit": Number(help="messages per commit read into the points given as a range "
                                "(msgs_per_commit_low to _high); None keeps the data's value",
                           unit="msgs", minimum=1, maximum=MAX_BATCH, optional=True),
    "reference": Choice(help='non-persistent rates to hold the asymptote against: "book", or "" for none',
                        values=("book", "")),
    "reference_rate_msg_s": Number(help="your own non-persistent rate at the same tasks and message size, or none",
                                   unit="msg/s", minimum=0, exclusive_minimum=True, maximum=1e9, optional=True),
    "fraction": Number(help="planning: messages per commit reaching this share of the asymptotic rate",
                       minimum=0.01, maximum=0.999),
    "plan_batch": Number(help="planning: messages per commit to price (rate, log bytes per message)", unit="msgs",
                         minimum=1, maximum=MAX_BATCH),
    "max_batch": Number(help="the largest messages per commit the throughput chart shows", unit="msgs",
                        minimum=1, maximum=MAX_BATCH),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

# On a reader's file the book's non-persistent reference rates describe another system.
READER_DEFAULTS = {"reference": ""}


def analyse(p: dict):
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    from mqperf.chapters.kafka_persistent_uow import analysis

    return analysis.analyse(p)
