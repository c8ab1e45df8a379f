"""Persistent messages and units of work: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import Choice, DataFile, Internal, Number

# A unit of work beyond a million messages is outside anything MQ's log could hold.
MAX_BATCH = 1_000_000

PARAMETERS = {
    "data": DataFile(help="rate against messages per commit: a CSV with msgs_per_commit, rate_msg_s "
                          "[, log_bytes_per_msg, operation, series], or a book dataset", contract="kafka_persistent_uow"),
    "log_bytes": DataFile(help='log bytes per message by unit of work; "" takes log_bytes_per_msg from data',
                          contract="msgs_per_commit, log_bytes_per_msg [, operation]", optional=True),
    "b_put_commit": Number(help='book data only: the value read into the article\'s "2-3 messages per commit"',
                           unit="msgs", minimum=1, maximum=MAX_BATCH),
    "reference": Choice(help='non-persistent rates to hold the asymptote against: "book", or "" for none',
                        values=("book", "")),
    "reference_rate_msg_s": Number(help="your own non-persistent rate at the same tasks and message size, or none",
                                   unit="msg/s", minimum=0, exclusive_minimum=True, maximum=1e9, optional=True),
    "fraction": Number(help="planning: messages per commit reaching this share of the asymptotic rate",
                       minimum=0, maximum=1, exclusive_minimum=True, exclusive_maximum=True),
    "plan_batch": Number(help="planning: messages per commit to price (rate, log bytes per message)", unit="msgs",
                         minimum=1, maximum=MAX_BATCH),
    "max_batch": Number(help="the largest messages per commit the throughput chart shows", unit="msgs",
                        minimum=1, maximum=MAX_BATCH),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def preflight(p: dict):
    """Load, fit, validate and plan as the notebook does."""
    from mqperf.analysis import uow

    uow.context_table(p["data"])
    points = uow.load_throughput(p["data"], b_put_commit=p["b_put_commit"])
    fits = uow.fit_throughput(points)
    uow.throughput_table(fits)
    uow.sensitivity(points)
    uow.curves(points, fits, b_max=p["max_batch"])
    log = uow.load_log_bytes(p["log_bytes"], p["data"])
    log_fits = uow.fit_log_bytes(log)
    if len(log):
        uow.log_table(log_fits)
    uow.mixed_fit(log)
    if any(f.result is not None for f in log_fits):
        uow.log_points(log, log_fits)
        uow.log_curves(log_fits)
    refs = uow.reference_rates(p["reference"], rate_msg_s=p["reference_rate_msg_s"])
    uow.validate(points, fits, refs)
    gains = uow.load_gains(p["data"])
    if len(gains) and fits[0].result is not None:
        small_b = float(points["msgs_per_commit"].min())
        uow.commit_time_what_if(fits[0], b=small_b, gains_pct=gains["pct"], b_other=[10, p["plan_batch"]])
    uow.plan_batch(fits, fraction=p["fraction"], batches=[p["plan_batch"]])
    at = uow.rate_at(fits, p["plan_batch"])
    if any(f.result is not None for f in log_fits):
        uow.plan_log(log_fits, sorted({1, 10, p["plan_batch"]}), rate_msg_s=round(at[1]) if at else None)
    return points
