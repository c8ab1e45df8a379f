"""Kafka connector task scaling: how far more tasks raise the rate, and where they stop paying.

``analyse`` (:mod:`.analysis`) loads the rates (and any "no gain" statements and CPU costs),
fits each series with the richest model its equations identify (:mod:`.fits`), and turns every
result into a table, chart or sentence of the report (:mod:`.text`); :mod:`.whatif` draws the
what-if chart and :mod:`.fleet` gives the chapter's columns in ``mqperf fleet``.
"""

from mqperf.declarations import Choice, DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="throughput against tasks.max: a CSV with tasks, rate_msg_s [, series], or a book dataset",
                     contract="kafka_task_scaling"),
    "constraints": DataFile(help='"no gain from a to b" statements that are not points; "" for none',
                            contract="kafka_task_scaling_constraints", files=False, optional=True),
    "costs": DataFile(help='published CPU per message, for the CPU at the target rate; "" to skip',
                      contract="kafka_cpu_costs", files=False, optional=True),
    "model": Choice(help="auto (USL where the data identify it, else Amdahl), usl or amdahl",
                    values=("auto", "usl", "amdahl")),
    "target_rate_msg_s": Number(help="planning question: how many tasks for this rate?", unit="msg/s",
                                minimum=0, exclusive_minimum=True, maximum=1e9),
    # Each value becomes a row of the planning and marginal-gain tables and a bar per series.
    "max_tasks": Integer(help="the tasks.max the planning tables and charts run to at least (further when the data or "
                              "the answers go further; answers are never capped)", unit="tasks",
                         minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "kafka_task_scaling"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8
#: A task that adds less than this share of the rate before it "stops paying".
PAYING_PCT = 5.0
#: An AICc difference below this is no evidence either way (Burnham & Anderson 2002, §2.6).
DECISIVE = 2.0
#: How loosely a "no gain" statement is read for the sensitivity band (±3 %).
LOOSE = 0.03
#: The fleet column :mod:`mqperf.publish.fleet_summary` charts each row's peak against, and its unit.
CURRENT_COLUMN = "current_rate_msg_s"
UNIT = "msg/s"


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters.kafka_task_scaling import analysis

    return analysis.analyse(p)


def fleet_summary(p: dict):
    """A run's Results as ``mqperf fleet`` reads them, without the report's other parts (:func:`.fleet.summary`)."""
    from mqperf.chapters.kafka_task_scaling import fleet

    return fleet.summary(p)


def fleet_columns(p: dict, r) -> dict[str, dict]:
    """The chapter's own columns in a fleet summary (:func:`.fleet.fleet_columns`)."""
    from mqperf.chapters.kafka_task_scaling import fleet

    return fleet.fleet_columns(p, r)
