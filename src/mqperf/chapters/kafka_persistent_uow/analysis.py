"""Persistent messages and units of work: everything the chapter shows, in the order it shows it.

Orchestration only: the data through :func:`mqperf.data.views.open`, the fits, readings, checks
and plans from :mod:`.fits`, the what-if from :mod:`.whatif`, the sentences and about-passages
from :mod:`.text`, the charts from :func:`mqperf.present.charts.measured_vs_fitted`.
"""

from __future__ import annotations

import pandas as pd

from mqperf.chapters.kafka_persistent_uow import CHAPTER, B, X
from mqperf.chapters.kafka_persistent_uow import fits as f
from mqperf.chapters.kafka_persistent_uow import text, whatif
from mqperf.data import views
from mqperf.present import charts, prose
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = ("messages per commit for the fraction of the asymptote, and the rate and log bandwidth at the "
                 "planned unit of work, per series")
    points = f.throughput_points(views.open(p["data"], CHAPTER), p.get("b_put_commit"))
    r.points = points
    fits = f.fit_throughput(points, src)
    r.fit_results = dict(fits.results)

    # -- what was measured -------------------------------------------------------------------
    r.about("measured", text.ABOUT_MEASURED)
    r.text("points_note", text.aggregation_sentence(points))
    # Five digits: a rate such as 27,396 msg/s is printed whole by the source (its unit alone gives four).
    r.table("points", f.points_table(points), digits=5,
            caption=text.rows_caption("The points fitted: one per series and messages per commit", points))

    # -- X(b) --------------------------------------------------------------------------------
    r.text("fit_text", prose.identification(fits.results), *text.fit_sentences(fits, p["fraction"]))
    r.table("fits", f.fit_table(fits, p["fraction"]), caption="X(b) = b/(t_c + b·t_m) per series")
    r.table("parameters", f.parameter_table(fits),
            caption="Parameters with standard errors and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no standard errors or intervals to show")
    r.about("attribution", text.ABOUT_ATTRIBUTION)

    refs = f.references(p["reference"], p.get("reference_rate_msg_s"))
    sens = f.sensitivity(points, refs, p["fraction"])
    r.text("sensitivity_text", *text.sensitivity_sentences(sens, p["fraction"]))
    # Four digits: its "X∞ vs ... (%)" columns would get three from their unit, the other columns four.
    r.table("sensitivity", f.sensitivity_table(sens, p["fraction"]), digits=4,
            caption="Refits with each ranged point read at its ends",
            missing="no point in these data gives its messages per commit as a range "
                    "(msgs_per_commit_low to msgs_per_commit_high), so there is no reading to vary")
    r.about("reading", text.ABOUT_READING)
    b_max = max(float(p["max_batch"]), float(points["msgs_per_commit"].max()))
    measured = pd.DataFrame({"series": points["series"], "b": points[B], "rate_msg_s": points[X], "basis": points["basis"]})
    r.chart("chart", charts.measured_vs_fitted(
        measured, f.throughput_curves(fits, sens, b_max), x="b", y="rate_msg_s",
        x_title="messages per commit (unit of work)", y_title="rate (msg/s)",
        title="Rate by unit of work, X(b) = b/(t_c + b·t_m); band: readings of ranged points or 95 %"))

    # -- L(b) --------------------------------------------------------------------------------
    log_src = views.describe(p["log_bytes"]) if p["log_bytes"] else src
    data = views.open(p["data"], CHAPTER)
    log = f.log_points(views.open(p["log_bytes"], CHAPTER, "log_bytes") if p["log_bytes"] else None, data)
    log_fits = f.fit_log(log, log_src)
    r.fit_results.update({f"log bytes, {k}": v for k, v in log_fits.results.items()} if log_fits else {})
    r.about("log_sources", text.ABOUT_LOG)
    no_log = ("these data have no log_bytes_per_msg column and no log_bytes file was given, "
              "so there is no log-bytes fit")
    if log is None:  # one sentence for the whole section, nothing for its other parts
        r.missing("log_fits", no_log)
        for key in ("log_note", "log_text", "mixed_text", "mixed", "log_chart"):
            r.text(key)
    else:
        r.text("log_note", text.aggregation_sentence(log))
        r.text("log_text", prose.identification(log_fits.results) if log_fits.results else None,
               *text.log_sentences(log_fits))
        r.table("log_fits", f.log_table(log_fits), caption=text.rows_caption("L(b) = l_m + l_c/b per operation", log))
        mixed = f.mixed_fit(log)
        r.text("mixed_text", text.mixed_sentence(mixed) if mixed is not None else None)
        # Four digits: "error (%)" would get three from its unit, the byte columns four.
        r.table("mixed", None if mixed is None else mixed[1], digits=4,
                caption="One curve through every operation's points (do not use)",
                missing="the log bytes hold one operation or one unit-of-work size, so nothing is mixed")
        drawn = f.log_curves(log, log_fits)
        r.chart("log_chart", None if drawn is None else charts.measured_vs_fitted(
            *drawn, x="b", y="log_bytes_per_msg", x_title="messages per commit", y_title="log bytes per message",
            title="MQ log bytes per message, L(b) = l_m + l_c/b"),
                missing="no operation has two unit-of-work sizes, so there is no log-bytes curve to draw")

    # -- checks ------------------------------------------------------------------------------
    checks = f.validation(points, fits, refs, sens)
    r.text("checks_text", *text.check_sentences(checks))
    # Five digits: 28,670 against 28,776 msg/s differ in the fourth digit; the errors keep five (2.3923 %).
    r.table("checks", checks, digits=5, caption="Predictions the fits did not use",
            missing="no series has three or more unit-of-work sizes to leave one out, and no non-persistent "
                    "reference rate was given (reference_rate_msg_s), so nothing checks the fits")
    r.about("checks_about", text.ABOUT_CHECKS)

    shorter, why = whatif.log_io_what_if(src, points, fits, p["plan_batch"])
    r.about("whatif_about", text.ABOUT_WHATIF)
    r.text("whatif_text", whatif.what_if_sentence(shorter, p["plan_batch"]) if shorter is not None else None)
    # Four digits: its gains are in (%), whose unit alone gives three; they keep four (a cut of 28.16 %).
    r.table("whatif", shorter, digits=4, caption="A shorter commit (faster log I/O) fitted to a throughput gain",
            missing=why)

    # -- planning ----------------------------------------------------------------------------
    plan = f.plan_batch(fits, p["fraction"], p["plan_batch"])
    for row in plan[plan["beyond measured"]].to_dict("records"):
        r.extrapolated(f"{prose.quoted(row['series'], markdown=False)}: {prose.num(row['messages per commit'])} "
                       f"messages per commit ({row['why']}), past the largest measured unit of work")
    r.text("plan_text", *text.plan_sentences(plan, p["fraction"], p["plan_batch"]))
    # Five digits: the planned rates as the points table shows them (27,396 msg/s), and % of X∞ (90.033).
    r.table("plan", plan, digits=5, caption="Messages per commit and the rate they give")
    pairs = f.pairing(log, data, fits, separate=bool(p["log_bytes"]))
    plan_log = f.plan_log(log_fits, fits, p["plan_batch"], pairs) if log_fits else None
    r.text("plan_log_text", text.plan_log_sentence(plan_log, p["plan_batch"]) if plan_log is not None else None)
    if plan_log is not None:
        priced = plan_log[plan_log["messages per commit"] == float(p["plan_batch"])]
        for row in priced[priced["beyond measured"] | priced["rate beyond measured"].fillna(False)].to_dict("records"):
            r.extrapolated(f"{prose.quoted(row['operation'], markdown=False)}: log bytes and bandwidth at "
                           f"{prose.num(p['plan_batch'])} messages per commit, past the measured units of work")
        r.checked("Log bandwidth", "; ".join(
            f"{prose.quoted(row['operation'], markdown=False)} at the rate of "
            + (f"{prose.quoted(row['rate of series'], markdown=False)} ({row['which series']})"
               if row["rate of series"] != "none" else "no series (none is stated for it)")
            for row in priced.to_dict("records")))
    r.table("plan_log", plan_log, caption="Log bytes per message and log bandwidth",
            missing="without log bytes (see the log-bytes section) there is nothing to price" if log is None else
            "no operation's log bytes could be fitted, so there is nothing to price")
    r.about("plan_about", text.ABOUT_PLAN)

    for name, card, result in f.cards(fits, log_fits, src, log_src):
        r.card(name, card, result)
    return r
