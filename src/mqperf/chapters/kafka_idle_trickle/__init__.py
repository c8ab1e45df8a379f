"""Idle and trickle-rate costs of a Kafka connector.

Two questions, two kinds of model: idle connector CPU against tasks.max, a base + per-task line
fitted by ordinary least squares (:func:`mqperf.models.costs.fit`); and the MQGETs of the source
connector's get-with-wait loop (:mod:`mqperf.models.polling`), with nothing fitted (the wait is
configuration, the cost of an empty get is given), checked against measured MQGET counts where
the data have them. ``analyse`` is in :mod:`.analysis`, the numbers in :mod:`.fits`, the
sentences in :mod:`.text`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number, NumberList, Text

CHAPTER = "kafka_idle_trickle"

PARAMETERS = {
    "data": DataFile(help="idle CPU against tasks.max: a CSV with tasks, cpu_s_per_hour [, connector], "
                          "or a book dataset", contract=CHAPTER),
    "trickle": DataFile(help='get-with-wait interval and empty-get cost; "" uses wait_s and empty_get_cpu_us',
                        contract="kafka_trickle", files=False, optional=True),
    "wait_s": Number(help='the get-with-wait interval, used when trickle is ""', unit="s",
                     minimum=0, exclusive_minimum=True, maximum=86400),
    "empty_get_cpu_us": NumberList(help='MQ CPU per empty MQGET (low, high), used when trickle is ""', unit="us",
                                   minimum=0, maximum=1e6, min_items=2, max_items=2),
    "plan_connector": Text(help="planning: the fitted connector (series) to price", max_length=200),
    "plan_connectors": Integer(help="planning: how many idle connectors", unit="connectors",
                               minimum=1, maximum=1_000_000),
    "plan_tasks": Integer(help="planning: tasks.max of each", unit="tasks", minimum=1, maximum=256),
    "arrival_rate_msg_s": Number(help="planning: messages per second arriving on the queue of one connector",
                                 unit="msg/s", minimum=0, maximum=1e6),
    "processing_time_s": Number(help="time between a successful get and the next no-wait get", unit="s",
                                minimum=0, maximum=3600),
    # One chart row per task count and series.
    "max_tasks": Integer(help="the largest tasks.max the idle chart shows", unit="tasks", minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

#: The idle line's formula (:mod:`mqperf.models.formula`) and the column it explains.
FORMULA = "cpu_s_per_hour ~ tasks"
CPU = "cpu_s_per_hour"
HOURS_PER_DAY = 24.0


def analyse(p: dict):
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    from mqperf.chapters.kafka_idle_trickle import analysis

    return analysis.analyse(p)
