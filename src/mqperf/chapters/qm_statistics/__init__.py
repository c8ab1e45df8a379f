"""Your queue manager from its statistics: rates over time, busy periods, log bytes, commits, connections.

:func:`analyse` reads interval statistics (MQSMFCSV output of SMF 115, amqsevt MQI
statistics, amqsrua STATMQI, or a CSV in the contract's shape), finds each queue manager's
busy periods (:mod:`mqperf.models.intervals`), and sets what the data shows beside the book's
published figures: log bytes per persistent message against MP16's figures quoted in the
Kafka persistent-messages chapter, and the connection rate priced with the client connection
costs measured in that chapter. The arithmetic and tables are in :mod:`.fits`, the sentences in
:mod:`.text`, the orchestration in :mod:`.analysis`.
"""

from mqperf.declarations import DataFile, Internal, Number

CHAPTER = "qm_statistics"
#: The example the book runs on: synthetic, made by tools/make_qm_statistics_example.py.
EXAMPLE = "qm_statistics.csv"
#: The counts an interval may carry (the contract's optional columns).
COUNTS = ["puts", "persistent_puts", "gets", "commits", "log_write_bytes", "connects", "disconnects", "cpu_s"]
#: The queue manager label of a file that names none.
ALL = "(one queue manager)"
#: The rate busy periods are found from, as the chart's lines, the tables and the sentences name it.
TOTAL = "puts + gets/s"
RATE = "puts + gets/s"
SAID = "messages put and got per second"
#: Queue managers up to which the chart draws puts and gets apart beside their sum.
APART = 4

PARAMETERS = {
    "data": DataFile(help="interval statistics: an MQSMFCSV output folder (SMF 115 QMST/QJST), amqsevt -o json "
                          "statistics, amqsrua STATMQI output, or a CSV with start, interval_s [, qmgr, puts, "
                          "persistent_puts, gets, commits, log_write_bytes, connects, disconnects, cpu_s]",
                     contract=CHAPTER),
    "log_bytes": DataFile(help="published log bytes per message (MP16, quoted in the Kafka persistent-messages "
                               "chapter) to compare with", contract="kafka_log_bytes", files=False),
    "connect_costs": DataFile(help="published CPU per client connect and disconnect (client connection costs "
                                   "chapter) to price the connection rate with", contract="client_conn_costs",
                              files=False),
    "min_contrast": Number(help="busy periods: the busy intervals' median rate must be at least this multiple of "
                                "the quiet intervals'", minimum=1, exclusive_minimum=True, maximum=1000),
    "cards_dir": Internal(help="where model cards would go (this chapter fits no model)"),
}


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.qm_statistics import analysis

    return analysis.analyse(p)
