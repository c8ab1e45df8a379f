"""The log disk: from mqldt or fio output to the persistent message rate and commit latency it carries.

What persistent message rate and commit latency can this disk carry for my message size and
commit pattern? :func:`analyse` reads a block-size sweep of synchronous writes (mqldt's text or
``--csvFile`` output, fio's JSON or text from IBM's MQ-logging job, or a CSV in the contract's
shape), fits each disk's time per write as a fixed latency plus block size over bandwidth
(:mod:`mqperf.models.latency_bandwidth`), checks the fit on block sizes it did not use and, where
amqsrua DISK/Log figures are given, on MQ's own log writes, and answers the planning question with
group commit (:mod:`mqperf.models.log_disk`). The choices are in :mod:`.fits`, the sentences in
:mod:`.text`, the orchestration in :mod:`.analysis`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

CHAPTER = "log_disk"

PARAMETERS = {
    "data": DataFile(help="log disk write tests: mqldt output (text or --csvFile CSV), fio output (JSON or text, "
                          "IBM's MQ-logging job), or a CSV with blocksize_bytes, avg_latency_us, avg_bytes_s "
                          "[, queue_managers, writes, duration_s, series]; or a book dataset",
                     contract=CHAPTER),
    "amqsrua": DataFile(help='MQ\'s own log writes to check the disk model against: amqsrua -c DISK -t Log output '
                             '(or its CSV shape), a book dataset, or "" for none',
                        contract="nativeha_storage", optional=True),
    "sample": DataFile(help='one printed mqldt run at one block size, set against the fitted sweeps: what one '
                            'block size can and cannot tell; "" for none', contract="mqio_mqldt_sample", files=False,
                       optional=True),
    "published": DataFile(help="the V9.3 report's persistent RR-BB peak rates by log device, set beside the answer",
                          contract="xlinux93_rr_bb_peak", files=False),
    "message_size_bytes": Number(help="planning: the persistent message size", unit="bytes", minimum=1,
                                 maximum=1e9),
    "log_bytes_per_message": Number(help="planning: log bytes each message adds (amqsrua Log - logical bytes written "
                                         "over the messages put); none: the message size, the least the log can "
                                         "carry, so the rates are upper bounds", unit="bytes", minimum=1,
                                    maximum=1e10, optional=True),
    "messages_per_commit": Integer(help="planning: persistent messages in each unit of work", unit="messages",
                                   minimum=1, maximum=100000),
    "committers": Integer(help="planning: applications committing at once; group commit writes their units of "
                               "work together", unit="applications", minimum=1, maximum=100000),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

#: MB as the tools and the book's tables print it: 10**6 bytes.
MB = 1e6


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.log_disk import analysis

    return analysis.analyse(p)
