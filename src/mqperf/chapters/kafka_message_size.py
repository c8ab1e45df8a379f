"""Message size: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Internal, Number

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


def preflight(p: dict):
    """Load, fit and plan as the notebook does."""
    from mqperf.analysis import message_size as ms
    from mqperf.analysis.scaling import dataset_identity

    data_name, data_hash = dataset_identity(p["data"])
    points = ms.load_points(p["data"])
    ms.points_table(points)
    ms.printed_mb_check(points)
    fits = ms.fit_series(points, data_name=data_name, data_hash=data_hash)
    ms.fits_table(fits)
    ms.parameter_table(fits)
    ms.curves(fits, kb_max=p["max_size_kb"])
    ms.byte_curves(fits, kb_max=p["max_size_kb"])
    ms.residual_frame(fits)
    ms.leave_one_out(points)
    ms.plan(fits, sorted({1, 2, 4, 8, 16, 32, p["max_size_kb"], p["plan_msg_size_kb"]}))
    return points
