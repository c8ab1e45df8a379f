"""Message size: rate and MB/s against message size, from the latency–bandwidth model t(s) = a + s/B.

``analyse`` (:mod:`.analysis`) loads the rates, fits each series (:mod:`.fits`), and turns every
result into a table, chart or sentence of the report (:mod:`.text`).
"""

from mqperf.declarations import DataFile, Internal, Number

# IBM MQ's largest message is 100 MB (102,400 KB); no size beyond it can be planned.
MAX_MESSAGE_KB = 102400

PARAMETERS = {
    "data": DataFile(help="message rate against size: a CSV with msg_size_kb, rate_msg_s [, series, connector], "
                          "or a book dataset", contract="kafka_message_size"),
    "plan_msg_size_kb": Number(help="planning question: rate and MB/s at this message size", unit="KB",
                               minimum=0, exclusive_minimum=True, maximum=MAX_MESSAGE_KB),
    "max_size_kb": Number(help="the largest message size the charts and the planning table show", unit="KB",
                          minimum=1, maximum=MAX_MESSAGE_KB),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "kafka_message_size"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8
#: The source article's units: 1 KB = 1,024 bytes and 1 MB = 1,024 KB, so MB/s = msg/s × KB / 1,024.
KB = 1024.0
MB = 1024.0 * 1024.0


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters.kafka_message_size import analysis

    return analysis.analyse(p)
