"""Your queue manager from its statistics: rates over time, busy periods, log bytes, commits, connections.

:func:`analyse` reads interval statistics (MQSMFCSV output of SMF 115, amqsevt MQI
statistics, amqsrua STATMQI, or a CSV in the contract's shape), finds each queue manager's
busy periods (:mod:`mqperf.models.intervals`), and sets what the data shows beside the book's
published figures: log bytes per persistent message against MP16's figures quoted in the
Kafka persistent-messages chapter, and the connection rate priced with the client connection
costs measured in that chapter. The arithmetic is in :mod:`mqperf.chapters._qm_statistics_parts`.
"""

from mqperf.declarations import DataFile, Internal, Number

CHAPTER = "qm_statistics"
#: The example the book runs on: synthetic, made by tools/make_qm_statistics_example.py.
EXAMPLE = "qm_statistics.csv"

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
    from pathlib import Path

    from mqperf.chapters import _qm_statistics_parts as parts
    from mqperf.data import views
    from mqperf.present.results import Results

    src = views.describe(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = "busy periods, log bytes per message and the CPU of the connection rate, all within the measured intervals"
    opened = views.open(p["data"], CHAPTER)
    r.setup.update(opened.attrs.get("setup", {}))  # what a tool's files state (SMF, amqsevt, amqsrua)
    stats = parts.prepare(opened)
    r.checked("Rates", "each interval's rate is its count over its length (interval_s); a rate over several "
                       "intervals (a busy period, the log, commits, CPU) is their total count over their total length, "
                       "never a mean of their rates")
    r.points = stats
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", parts.what_was_read(stats, synthetic=example))

    # -- rates over time and busy periods ----------------------------------------------------
    found = parts.find_busy(stats, min_contrast=p["min_contrast"])
    stats = found.stats
    counted = stats["msg_s"].notna().any()
    r.chart("rates_chart", parts.rates_chart(stats, found.periods) if counted else None,
            missing="the data has no message counts (puts or gets), so there is no rate to chart")
    r.text("busy_text", parts.busy_reading(found))
    r.table("rates", parts.rates_table(stats, found), caption="Message rates per queue manager", digits=4)
    r.table("periods", parts.periods_table(found.periods), caption="Busy periods found",
            missing="No busy period was found: " + "; ".join(found.reasons.values()) if found.periods.empty else None)

    # -- the log -------------------------------------------------------------------------------
    published = views.open(p["log_bytes"], "kafka_persistent_uow", "log_bytes")
    log = parts.log_table(stats, found, published)
    r.table("log", log, caption="Log writes per queue manager (busy intervals where there are any)", digits=4,
            missing=parts.MISSING_LOG if log.empty else None)
    r.text("log_text", parts.log_reading(log, published))
    r.table("log_reference", parts.published_log_table(published), caption="Published log bytes per message "
            "(MP16, quoted in the Kafka persistent-messages chapter): the book's figures for 1 KB messages", digits=4)

    # -- commits ---------------------------------------------------------------------------------
    commits = parts.commit_table(stats, found)
    r.table("commits", commits, caption="Messages per commit", digits=3,
            missing=None if not commits.empty else "The data has no commit counts (amqsevt MQI statistics and "
                                                   "amqsrua STATMQI have them; SMF statistics do not).")
    r.text("commit_text", parts.commit_reading(commits, published))

    # -- connections -------------------------------------------------------------------------------
    costs = views.open(p["connect_costs"], "client_connection_costs")
    conn = parts.connection_table(stats, found, costs)
    r.table("connections", conn, caption="CPU for the connection rate, at the published costs per connect", digits=4,
            missing=None if not conn.empty else "The data has no connection counts (amqsevt MQI statistics and "
                                                "amqsrua STATMQI CONNDISC have them).")
    r.text("connection_text", parts.connection_reading(stats, conn))

    # -- CPU ---------------------------------------------------------------------------------------
    cpu = parts.cpu_table(stats, found)
    r.table("cpu", cpu, caption="Queue manager CPU per message", digits=4,
            missing=None if not cpu.empty else "The data has no CPU column (cpu_s), so CPU per message is not shown.")
    return r
