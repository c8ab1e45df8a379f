"""Your queue manager from its statistics: everything the chapter shows, in the order it shows it.

Orchestration only: the data through :func:`mqperf.data.views.open`, the intervals, busy periods
and tables from :mod:`.fits`, the sentences from :mod:`.text`, the chart from
:func:`mqperf.present.charts.timeline`.
"""

from __future__ import annotations

from pathlib import Path

from mqperf.chapters.qm_statistics import CHAPTER, EXAMPLE
from mqperf.chapters.qm_statistics import fits as f
from mqperf.chapters.qm_statistics import text
from mqperf.data import views
from mqperf.present import charts
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    src = views.describe(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = "busy periods, log bytes per message and the CPU of the connection rate, all within the measured intervals"
    opened = views.open(p["data"], CHAPTER)
    r.setup.update(opened.attrs.get("setup", {}))  # what a tool's files state (SMF, amqsevt, amqsrua)
    stats = f.prepare(opened)
    r.checked("Rates", "each interval's rate is its count over its length (interval_s); a rate over several "
                       "intervals (a busy period, the log, commits, CPU) is their total count over their total length, "
                       "never a mean of their rates")
    r.points = stats
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.what_was_read(stats, synthetic=example))

    # -- rates over time and busy periods ----------------------------------------------------
    found = f.find_busy(stats, min_contrast=p["min_contrast"])
    stats = found.stats
    counted = stats["msg_s"].notna().any()
    rates, bands = f.rates_frame(stats, found.periods) if counted else (None, None)
    r.chart("rates_chart", charts.timeline(rates, time="time", y="rate", colour="line", y_title="messages per second",
                                           title="Message rates per interval: puts + gets (busy periods shaded)",
                                           bands=bands) if counted else None,
            missing="the data has no message counts (puts or gets), so there is no rate to chart")
    r.text("busy_text", text.busy_reading(found))
    r.table("rates", f.rates_table(stats, found), caption="Message rates per queue manager")
    r.table("periods", f.periods_table(found.periods), caption="Busy periods found",
            missing="No busy period was found: " + "; ".join(found.reasons.values()) if found.periods.empty else None)

    # -- the log -------------------------------------------------------------------------------
    published = views.open(p["log_bytes"], "kafka_persistent_uow", "log_bytes")
    log = f.log_table(stats, found, published)
    r.table("log", log, caption="Log writes per queue manager (busy intervals where there are any)",
            missing=text.MISSING_LOG if log.empty else None)
    r.text("log_text", text.log_reading(log, published))
    r.table("log_reference", f.published_log_table(published), caption="Published log bytes per message "
            "(MP16, quoted in the Kafka persistent-messages chapter): the book's figures for 1 KB messages")

    # -- commits ---------------------------------------------------------------------------------
    commits = f.commit_table(stats, found)
    # Three digits: messages per commit is a ratio of counts (its columns name no unit, which would give four).
    r.table("commits", commits, caption="Messages per commit", digits=3,
            missing=None if not commits.empty else "The data has no commit counts (amqsevt MQI statistics and "
                                                   "amqsrua STATMQI have them; SMF statistics do not).")
    r.text("commit_text", text.commit_reading(commits, published))

    # -- connections -------------------------------------------------------------------------------
    costs = views.open(p["connect_costs"], "client_connection_costs")
    conn = f.connection_table(stats, found, costs)
    r.table("connections", conn, caption="CPU for the connection rate, at the published costs per connect",
            missing=None if not conn.empty else "The data has no connection counts (amqsevt MQI statistics and "
                                                "amqsrua STATMQI CONNDISC have them).")
    r.text("connection_text", text.connection_reading(stats, conn))

    # -- CPU ---------------------------------------------------------------------------------------
    cpu = f.cpu_table(stats, found)
    r.table("cpu", cpu, caption="Queue manager CPU per message",
            missing=None if not cpu.empty else "The data has no CPU column (cpu_s), so CPU per message is not shown.")
    return r
