"""NativeHA storage latency: the recovery log's serial-writer bound, replication, the timeout.

Does the recovery log's write latency, not the load, set a Native HA queue manager's rate, and
how busy may the log run before records miss the ACE nodes' timeout? :func:`analyse` reads the
log figures (amqsrua DISK/Log), checks the serial bound on mqldt, counts replicas, follows a
record through its forced writes to the timeout and answers the planning question
(:mod:`.analysis`); the arithmetic is in :mod:`.fits` on :mod:`mqperf.models.storage`, the
sentences and passages in :mod:`.text`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

CHAPTER = "nativeha_storage"

PARAMETERS = {
    "data": DataFile(help="recovery log figures: a CSV with write_latency_us, write_size_bytes, physical_bytes_s "
                          "[, logical_bytes_s, interval_s, series] (amqsrua -c DISK -t Log), or a book dataset",
                     contract="nativeha_storage"),
    "mqldt": DataFile(help='log disk tests: mqldt output (text or --csvFile CSV) or fio output (JSON or text), '
                           'a book dataset, or "" for none', contract="nativeha_storage.mqldt", optional=True),
    "records": DataFile(help='records sent and received in the article\'s tests; "" for none',
                        contract="nativeha_records", files=False, optional=True),
    "comparison": DataFile(help='the article\'s printed amqsrua-versus-mqldt comparison; "" to skip',
                           contract="nativeha_tool_comparison", files=False, optional=True),
    "target_log_bytes_s": Number(help="planning: physical log bytes per second the workload must write; none: the "
                                      "highest physical rate in your figures", unit="bytes/s", minimum=0,
                                 exclusive_minimum=True, maximum=1e11, optional=True),
    "write_size_bytes": Number(help="planning: average log write size at that rate (amqsrua Log - write size); none: "
                                    "the write size of the series the target comes from", unit="bytes", minimum=0,
                               exclusive_minimum=True, maximum=1e9, optional=True),
    "your_latency_ms": Number(help="planning: a write latency of your storage to evaluate beside the measured ones",
                              unit="ms", minimum=0, exclusive_minimum=True, maximum=60000, optional=True),
    "max_log_utilisation": Number(help="planning: the busiest you let the log writer run (1 % to 99 %)",
                                  minimum=0.01, maximum=0.99),
    "forced_writes_per_record": Integer(help="forced log writes on one record's path (the book assumes 8 for the "
                                             "article's chain: 4 MQ hops, a put and a get commit each)",
                                        unit="writes", minimum=1, maximum=10000),
    "timeout_s": Number(help="request timeout of the ACE TCP nodes", unit="s", minimum=0, exclusive_minimum=True,
                        maximum=86400),
    "cards_dir": Internal(help="where model cards would go (this chapter fits no model)"),
}

#: On a reader's run the planning target is the reader's own (the highest physical rate in the figures
#: unless given), never the book's 403,939 bytes/s; "your latency" is shown only when given.
READER_DEFAULTS = {"target_log_bytes_s": None, "write_size_bytes": None, "your_latency_ms": None}

#: Below this share of records finishing in time, the timeout table says where the log's queueing pushes it.
SHARE = 0.9
#: A log busier than this writes almost back to back; one less busy than LIGHT is lightly used.
BUSY, LIGHT = 70.0, 10.0


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.nativeha_storage import analysis

    return analysis.analyse(p)
