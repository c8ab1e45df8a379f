"""Idle and trickle-rate costs of a Kafka connector.

Two questions, two kinds of model: idle connector CPU against tasks.max, a base + per-task line
fitted by ordinary least squares (:func:`mqperf.models.costs.fit`); and the MQGETs of the source
connector's get-with-wait loop (:mod:`mqperf.models.polling`), with nothing fitted (the wait is
configuration, the cost of an empty get is given), checked against measured MQGET counts where
the data have them.
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

ABOUT_MEASURED = """\
Same system as the other Kafka chapters (MQ for z/OS 9.3.3 on a z16 LPAR with 3 general-purpose
CPUs and 2 zIIPs; the connectors in bindings mode in USS). With no messages to move, the article
measured the connectors' own CPU at `tasks.max` 1 and 5 ("approximately 0.6 CPU seconds per hour
when tasks.max=1", "1.9 CPU seconds per hour with tasks.max=5" for the source; 8.2 and 9.9 for the
sink), and notes that version 1.3.2 of the source connector "periodically issues MQGETs on the MQ
queue and these occur every 30 seconds"; the sink connector does not talk to the queue manager at
all when idle (see the {ref}`dataset <data-kafka_idle_costs>`)."""

ABOUT_FIT = """\
With two task counts per connector each line passes through both points: nothing tests that the
cost is linear in between or beyond 5 tasks. The sink's base is far above the source's although
the sink never calls MQ while idle, and the per-task costs are close; what an idle task costs is
not the MQ polling (below), and what the sink's base is spent on the article does not say."""

ABOUT_TRICKLE = """\
The article's inputs (the {ref}`dataset <data-kafka_trickle>`): "an MQGET-with-wait of 30 seconds";
at a slow arrival rate class(3) accounting and class(5) statistics "reporting 3 MQGETs per
successful get"; "The 2 unsuccessful gets ... are low cost in a bindings configuration
(approximately 1-2 CPU microseconds)". The article does not say how slowly its messages arrived."""

ABOUT_READINGS = """\
The article gives the idle source connector's MQ cost as "between 1 and 2 CPU microseconds for the
equivalent period", without saying whether per MQGET or in total. The book reads it as per get,
the reading that agrees with the trickle section's cost of an empty get (the ambiguity is recorded
in the dataset's note)."""

ABOUT_PLAN = """\
The article does not say how much of the idle cost is zIIP-eligible (of the busy connectors'
cost, 93–96 % was). In a client connection each empty get also costs channel initiator adaptor
and dispatcher calls, which the article does not quantify: there the same counts carry a larger
price."""


def analyse(p: dict):
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    from mqperf.chapters import _kafka_idle_trickle_parts as parts
    from mqperf.data import views
    from mqperf.data.views import kafka_idle_trickle as book
    from mqperf.present import prose
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    points = parts.idle_points(views.open(p["data"], CHAPTER))
    fits = parts.fit_idle(points, src)
    r.points, r.fit_results = points, dict(fits.results)
    r.answers = "the idle connectors' CPU a day at plan_tasks, the empty-get overhead at arrival_rate_msg_s"

    # -- idle CPU ----------------------------------------------------------------------------
    r.about("measured", ABOUT_MEASURED)
    r.text("points_note", parts.aggregation_sentence(points))
    r.table("points", parts.points_table(points), digits=4, caption=parts.points_caption(points))
    r.text("fit_text", prose.identification(fits.results), *parts.fit_sentences(fits))
    r.table("fits", parts.fit_table(fits), digits=4, caption="Idle CPU = base + per task × tasks.max")
    r.table("bases", parts.base_ratio_table(fits), digits=3, caption="Bases compared",
            missing="with one fitted series there are no bases to compare")
    r.about("fit_about", ABOUT_FIT)
    tasks_max = max(int(p["max_tasks"]), int(points["tasks"].max()))
    r.chart("chart", parts.idle_chart(points, fits, tasks_max))
    r.text("chart_text", parts.chart_sentence(fits, tasks_max))

    # -- polling -----------------------------------------------------------------------------
    trickle = views.open(p["trickle"], CHAPTER, "trickle") if p["trickle"] else None
    inputs = parts.polling_inputs(trickle, p["wait_s"], p["empty_get_cpu_us"])
    r.about("trickle_about", ABOUT_TRICKLE)
    from mqperf import parameters

    standard = parameters.defaults(CHAPTER)
    defaults = (not src.book_data and trickle is None and float(p["wait_s"]) == float(standard["wait_s"])
                and sorted(map(float, p["empty_get_cpu_us"])) == sorted(map(float, standard["empty_get_cpu_us"])))
    r.text("inputs_text", parts.inputs_sentence(inputs, defaults))
    r.table("inputs", parts.inputs_table(inputs), digits=4, caption="Inputs of the get-with-wait model")
    r.chart("gets_chart", parts.gets_chart(inputs))

    check = parts.trickle_check(inputs)
    r.text("check_text", parts.check_sentence(check) if check is not None else None)
    r.table("check", check, digits=4, caption="The model against the MQGET counts measured at a trickle rate",
            missing="these polling inputs carry no measured MQGET counts at a trickle rate, so there is nothing "
                    "to check the model against")
    stated = book.idle_mq_cpu(src.name) if src.book_data else None
    readings = parts.idle_mq_readings(inputs, stated[0], stated[1]) if stated else None
    r.text("readings_text", parts.readings_sentence(readings, inputs) if readings is not None else None)
    r.table("readings", readings, digits=3, caption="Two readings of the idle MQ cost",
            missing="these data state no idle MQ cost to hold the polling arithmetic against")
    r.about("readings_about", ABOUT_READINGS)
    br = parts.breakdown(fits, inputs)
    r.text("breakdown_text", *parts.breakdown_sentences(br))
    r.table("breakdown", br, digits=3, caption="An idle task's connector CPU beside its MQ polling")

    # -- planning ----------------------------------------------------------------------------
    name, why = parts.choose_series(fits, p["plan_connector"])
    plan = parts.plan_idle(fits, inputs, name, int(p["plan_connectors"]), int(p["plan_tasks"]))
    r.text("plan_text", why, parts.plan_idle_sentence(plan))
    if plan.iloc[0]["extrapolated"]:
        r.extrapolated(f"idle connector CPU at tasks.max {int(p['plan_tasks']):,} (measured "
                       f"{plan.iloc[0]['measured tasks.max']})")
    r.table("plan", plan, digits=4, caption="CPU seconds per day of idle connectors")
    rate = float(p["arrival_rate_msg_s"])
    rates = sorted({0.0, 0.001, 0.01, 0.1, 1.0, 10.0, rate})
    trickle_plan = parts.plan_trickle(inputs, rates, int(p["plan_tasks"]), float(p["processing_time_s"]))
    r.text("trickle_text", parts.plan_trickle_sentence(trickle_plan, rate, int(p["plan_tasks"])))
    r.table("trickle", trickle_plan, digits=4, caption="Empty-get overhead by arrival rate")
    r.about("plan_about", ABOUT_PLAN)

    r.checked("Signed costs", parts.sign_check(fits))
    for card_name, card, result in parts.cards(fits, src):
        r.card(card_name, card, result)
    return r
