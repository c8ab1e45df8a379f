"""Idle and trickle-rate costs: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Integer, Internal, Number, NumberList, Text

PARAMETERS = {
    "data": DataFile(help="idle CPU against tasks.max: a CSV with tasks, cpu_s_per_hour [, connector], "
                          "or a book dataset", contract="kafka_idle_trickle"),
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


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    from mqperf.analysis import idle
    from mqperf.analysis.scaling import dataset_identity

    data_name, data_hash = dataset_identity(p["data"])
    points = idle.load_idle(p["data"])
    fits = idle.fit_idle(points, data_name=data_name, data_hash=data_hash)
    idle.idle_table(fits)
    idle.idle_curves(fits, max_tasks=p["max_tasks"])
    inputs = idle.polling_inputs(p["trickle"], p["data"], wait_s=p["wait_s"], empty_get_cpu_us=p["empty_get_cpu_us"])
    idle.inputs_table(inputs)
    idle.gets_curve(sorted({5, inputs.wait_s, 120}))
    idle.trickle_check(inputs)
    if inputs.idle_mq_cpu_us:
        idle.idle_mq_readings(inputs)
    idle.idle_breakdown(fits, inputs)
    idle.plan_idle(fits, inputs, series=p["plan_connector"], connectors=p["plan_connectors"], tasks=p["plan_tasks"])
    rates = sorted({0.0, 0.001, 0.01, 0.1, 1.0, 10.0, float(p["arrival_rate_msg_s"])})
    idle.plan_trickle(inputs, rates, tasks=p["plan_tasks"], processing_time_s=p["processing_time_s"])
    return points
