"""Persistent messages and units of work: throughput and log bytes against messages per commit.

Two models from :mod:`mqperf.models.batching`: the throughput of one task committing every
``b`` messages, X(b) = b/(t_c + b·t_m), and the MQ log bytes per message, L(b) = l_m + l_c/b,
fitted per operation (an MQPUT logs the message, an MQGET only a small record: their points do
not lie on one curve). A point whose messages per commit is known only as a range
(``msgs_per_commit_low``/``_high``) is refitted at the range's ends; the spread is shown as a
reading-sensitivity table and band, not as a confidence interval.
"""

from mqperf.declarations import Choice, DataFile, Internal, Number

CHAPTER = "kafka_persistent_uow"

# A unit of work beyond a million messages is outside anything MQ's log could hold.
MAX_BATCH = 1_000_000

PARAMETERS = {
    "data": DataFile(help="rate against messages per commit: a CSV with msgs_per_commit, rate_msg_s "
                          "[, msgs_per_commit_low, msgs_per_commit_high, log_bytes_per_msg, operation, series], "
                          "or a book dataset", contract=CHAPTER),
    "log_bytes": DataFile(help='log bytes per message by unit of work; "" takes log_bytes_per_msg from data',
                          contract=f"{CHAPTER}.log_bytes", optional=True),
    "b_put_commit": Number(help="messages per commit read into the points given as a range "
                                "(msgs_per_commit_low to _high); None keeps the data's value",
                           unit="msgs", minimum=1, maximum=MAX_BATCH, optional=True),
    "reference": Choice(help='non-persistent rates to hold the asymptote against: "book", or "" for none',
                        values=("book", "")),
    "reference_rate_msg_s": Number(help="your own non-persistent rate at the same tasks and message size, or none",
                                   unit="msg/s", minimum=0, exclusive_minimum=True, maximum=1e9, optional=True),
    "fraction": Number(help="planning: messages per commit reaching this share of the asymptotic rate",
                       minimum=0.01, maximum=0.999),
    "plan_batch": Number(help="planning: messages per commit to price (rate, log bytes per message)", unit="msgs",
                         minimum=1, maximum=MAX_BATCH),
    "max_batch": Number(help="the largest messages per commit the throughput chart shows", unit="msgs",
                        minimum=1, maximum=MAX_BATCH),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

# On a reader's file the book's non-persistent reference rates describe another system.
READER_DEFAULTS = {"reference": ""}


def analyse(p: dict):
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    from mqperf.chapters import _kafka_persistent_uow_about as about
    from mqperf.chapters import _kafka_persistent_uow_log as logs
    from mqperf.chapters import _kafka_persistent_uow_parts as parts
    from mqperf.data import views
    from mqperf.present import prose
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = ("messages per commit for the fraction of the asymptote, and the rate and log bandwidth at the "
                 "planned unit of work, per series")
    points = parts.throughput_points(views.open(p["data"], CHAPTER), p.get("b_put_commit"))
    r.points = points
    fits = parts.fit_throughput(points, src)
    r.fit_results = dict(fits.results)

    # -- what was measured -------------------------------------------------------------------
    r.about("measured", about.ABOUT_MEASURED)
    r.text("points_note", parts.aggregation_sentence(points))
    r.table("points", parts.points_table(points), digits=5,
            caption=parts.rows_caption("The points fitted: one per series and messages per commit", points))

    # -- X(b) --------------------------------------------------------------------------------
    r.text("fit_text", prose.identification(fits.results), *parts.fit_sentences(fits, p["fraction"]))
    r.table("fits", parts.fit_table(fits, p["fraction"]), digits=4, caption="X(b) = b/(t_c + b·t_m) per series")
    r.table("parameters", parts.parameter_table(fits), digits=4,
            caption="Parameters with standard errors and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no standard errors or intervals to show")
    r.about("attribution", about.ABOUT_ATTRIBUTION)

    refs = parts.references(p["reference"], p.get("reference_rate_msg_s"))
    sens = parts.sensitivity(points, refs, p["fraction"])
    r.text("sensitivity_text", *parts.sensitivity_sentences(sens, p["fraction"]))
    r.table("sensitivity", parts.sensitivity_table(sens, p["fraction"]), digits=4,
            caption="Refits with each ranged point read at its ends",
            missing="no point in these data gives its messages per commit as a range "
                    "(msgs_per_commit_low to msgs_per_commit_high), so there is no reading to vary")
    r.about("reading", about.ABOUT_READING)
    b_max = max(float(p["max_batch"]), float(points["msgs_per_commit"].max()))
    r.chart("chart", parts.throughput_chart(points, fits, sens, b_max))

    # -- L(b) --------------------------------------------------------------------------------
    log_src = views.describe(p["log_bytes"]) if p["log_bytes"] else src
    data = views.open(p["data"], CHAPTER)
    log = logs.log_points(views.open(p["log_bytes"], CHAPTER, "log_bytes") if p["log_bytes"] else None, data)
    log_fits = logs.fit_log(log, log_src)
    r.fit_results.update({f"log bytes, {k}": v for k, v in log_fits.results.items()} if log_fits else {})
    r.about("log_sources", about.ABOUT_LOG)
    no_log = ("these data have no log_bytes_per_msg column and no log_bytes file was given, "
              "so there is no log-bytes fit")
    if log is None:  # one sentence for the whole section, nothing for its other parts
        r.missing("log_fits", no_log)
        for key in ("log_note", "log_text", "mixed_text", "mixed", "log_chart"):
            r.text(key)
    else:
        r.text("log_note", parts.aggregation_sentence(log))
        r.text("log_text", prose.identification(log_fits.results) if log_fits.results else None,
               *logs.log_sentences(log_fits))
        r.table("log_fits", logs.log_table(log_fits), digits=4, caption=parts.rows_caption("L(b) = l_m + l_c/b per operation", log))
        mixed = logs.mixed_fit(log)
        r.text("mixed_text", logs.mixed_sentence(mixed) if mixed is not None else None)
        r.table("mixed", None if mixed is None else mixed[1], digits=4,
                caption="One curve through every operation's points (do not use)",
                missing="the log bytes hold one operation or one unit-of-work size, so nothing is mixed")
        r.chart("log_chart", logs.log_chart(log, log_fits),
                missing="no operation has two unit-of-work sizes, so there is no log-bytes curve to draw")

    # -- checks ------------------------------------------------------------------------------
    checks = parts.validation(points, fits, refs, sens)
    r.text("checks_text", *parts.check_sentences(checks))
    r.table("checks", checks, digits=5, caption="Predictions the fits did not use",
            missing="no series has three or more unit-of-work sizes to leave one out, and no non-persistent "
                    "reference rate was given (reference_rate_msg_s), so nothing checks the fits")
    r.about("checks_about", about.ABOUT_CHECKS)

    whatif, why = parts.log_io_what_if(src, points, fits, p["plan_batch"])
    r.about("whatif_about", about.ABOUT_WHATIF)
    r.text("whatif_text", parts.what_if_sentence(whatif, p["plan_batch"]) if whatif is not None else None)
    r.table("whatif", whatif, digits=4, caption="A shorter commit (faster log I/O) fitted to a throughput gain",
            missing=why)

    # -- planning ----------------------------------------------------------------------------
    plan = parts.plan_batch(fits, p["fraction"], p["plan_batch"])
    for row in plan[plan["beyond measured"]].to_dict("records"):
        r.extrapolated(f"{prose.quoted(row['series'], markdown=False)}: {prose.num(row['messages per commit'])} "
                       f"messages per commit ({row['why']}), past the largest measured unit of work")
    r.text("plan_text", *parts.plan_sentences(plan, p["fraction"], p["plan_batch"]))
    r.table("plan", plan, digits=5, caption="Messages per commit and the rate they give")
    pairs = logs.pairing(log, data, fits, separate=bool(p["log_bytes"]))
    plan_log = logs.plan_log(log_fits, fits, p["plan_batch"], pairs) if log_fits else None
    r.text("plan_log_text", logs.plan_log_sentence(plan_log, p["plan_batch"]) if plan_log is not None else None)
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
    r.table("plan_log", plan_log, digits=4, caption="Log bytes per message and log bandwidth",
            missing="without log bytes (see the log-bytes section) there is nothing to price" if log is None else
            "no operation's log bytes could be fitted, so there is nothing to price")
    r.about("plan_about", about.ABOUT_PLAN)

    for name, card, result in parts.cards(fits, log_fits, src, log_src):
        r.card(name, card, result)
    return r
