"""Kafka connector task scaling: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import Choice, DataFile, Integer, Internal, Number

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
    "max_tasks": Integer(help="the largest tasks.max the planning tables consider", unit="tasks",
                         minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit and plan as the notebook does, so bad data fails before a kernel starts."""
    from mqperf.analysis import scaling

    data_name, data_hash = scaling.dataset_identity(p["data"])
    points = scaling.load_points(p["data"])
    known = scaling.load_constraints(p["constraints"], points)
    fits = scaling.fit_series(points, known, model=p["model"], data_name=data_name, data_hash=data_hash)
    scaling.fits_table(fits)
    scaling.parameter_table(fits)
    scaling.curves_chart(points, known, fits, max_tasks=p["max_tasks"])
    scaling.gains_chart(fits, max_tasks=p["max_tasks"])
    scaling.bottleneck_comparison(points, known)
    scaling.leave_one_out(points, known)
    scaling.plan(fits, p["target_rate_msg_s"], max_tasks=p["max_tasks"])
    scaling.cpu_at_rate(p["costs"], {"source": p["target_rate_msg_s"], "sink": p["target_rate_msg_s"]})
    return points
