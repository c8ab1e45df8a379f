"""Idle and trickle's report: fit the idle lines, work the polling arithmetic, check it, and plan."""

from __future__ import annotations

from mqperf import parameters
from mqperf.chapters.kafka_idle_trickle import CHAPTER, CPU, fits as k, text as t
from mqperf.data import aggregate, views
from mqperf.data.views import kafka_idle_trickle as book
from mqperf.present import charts, prose
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Load, fit, check and plan; every sentence, table and chart of the chapter, in order."""
    src = views.describe(p["data"])
    r = Results(book_data=src.book_data, source=src.name)
    points = k.idle_points(views.open(p["data"], CHAPTER))
    fits = k.fit_idle(points, src)
    r.points, r.fit_results = points, dict(fits.results)
    r.answers = "the idle connectors' CPU a day at plan_tasks, the empty-get overhead at arrival_rate_msg_s"

    # -- idle CPU ----------------------------------------------------------------------------
    r.about("measured", t.ABOUT_MEASURED)
    r.text("points_note", aggregate.note(points, per="series and tasks value", value=CPU))
    r.table("points", k.points_table(points), caption=t.points_caption(points))
    r.text("fit_text", prose.identification(fits.results), *t.fit_sentences(fits))
    r.table("fits", k.fit_table(fits), caption="Idle CPU = base + per task × tasks.max")
    # Three digits: the ratio as the comparison sentence states it.
    r.table("bases", k.base_ratio_table(fits), digits=3, caption="Bases compared",
            missing="with one fitted series there are no bases to compare")
    r.about("fit_about", t.ABOUT_FIT)
    tasks_max = max(int(p["max_tasks"]), int(points["tasks"].max()))
    r.chart("chart", _idle_chart(points, k.idle_curves(fits, tasks_max)))
    r.text("chart_text", t.chart_sentence(fits, tasks_max))

    # -- polling -----------------------------------------------------------------------------
    trickle = views.open(p["trickle"], CHAPTER, "trickle") if p["trickle"] else None
    inputs = k.polling_inputs(trickle, p["wait_s"], p["empty_get_cpu_us"])
    r.about("trickle_about", t.ABOUT_TRICKLE)
    standard = parameters.defaults(CHAPTER)
    defaults = (not src.book_data and trickle is None and float(p["wait_s"]) == float(standard["wait_s"])
                and sorted(map(float, p["empty_get_cpu_us"])) == sorted(map(float, standard["empty_get_cpu_us"])))
    r.text("inputs_text", t.inputs_sentence(inputs, defaults))
    r.table("inputs", k.inputs_table(inputs), caption="Inputs of the get-with-wait model")
    r.chart("gets_chart", _gets_chart(k.interarrival_gets(inputs.wait_s)))

    check = k.trickle_check(inputs)
    r.text("check_text", t.check_sentence(check) if check is not None else None)
    r.table("check", check, caption="The model against the MQGET counts measured at a trickle rate",
            missing="these polling inputs carry no measured MQGET counts at a trickle rate, so there is nothing "
                    "to check the model against")
    stated = book.idle_mq_cpu(src.name) if src.book_data else None
    readings = k.idle_mq_readings(inputs, stated[0], stated[1]) if stated else None
    r.text("readings_text", t.readings_sentence(readings, inputs) if readings is not None else None)
    # Three digits: the article states the idle MQ cost as "1 to 2 CPU microseconds"; its readings claim no more.
    r.table("readings", readings, digits=3, caption="Two readings of the idle MQ cost",
            missing="these data state no idle MQ cost to hold the polling arithmetic against")
    r.about("readings_about", t.ABOUT_READINGS)
    br = k.breakdown(fits, inputs)
    r.text("breakdown_text", *t.breakdown_sentences(br))
    # Three digits for the CPU too: it is set against the polling cost, which rests on the 1–2 µs above.
    r.table("breakdown", br, digits=3, caption="An idle task's connector CPU beside its MQ polling")

    # -- planning ----------------------------------------------------------------------------
    name, why = t.choose_series(fits, p["plan_connector"])
    plan = k.plan_idle(fits, inputs, name, int(p["plan_connectors"]), int(p["plan_tasks"]))
    r.text("plan_text", why, t.plan_idle_sentence(plan))
    if plan.iloc[0]["extrapolated"]:
        r.extrapolated(f"idle connector CPU at tasks.max {int(p['plan_tasks']):,} (measured "
                       f"{plan.iloc[0]['measured tasks.max']})")
    r.table("plan", plan, caption="CPU seconds per day of idle connectors")
    rate = float(p["arrival_rate_msg_s"])
    rates = sorted({0.0, 0.001, 0.01, 0.1, 1.0, 10.0, rate})
    trickle_plan = k.plan_trickle(inputs, rates, int(p["plan_tasks"]), float(p["processing_time_s"]))
    r.text("trickle_text", t.plan_trickle_sentence(trickle_plan, rate, int(p["plan_tasks"])))
    # Four digits for the empty share (%) too, as for the counts beside it.
    r.table("trickle", trickle_plan, digits=4, caption="Empty-get overhead by arrival rate")
    r.about("plan_about", t.ABOUT_PLAN)

    r.checked("Signed costs", t.sign_check(fits))
    for card_name, card, result in k.cards(fits, src):
        r.card(card_name, card, result)
    return r


def _idle_chart(points, curve):
    measured = points[["series", "tasks", CPU, "basis"]]
    return charts.measured_vs_fitted(measured, curve, x="tasks", y=CPU, x_title="connector tasks (tasks.max)",
                                     y_title="idle CPU (CPU s/h)", title="Idle connector CPU: base + per-task line")


def _gets_chart(frame):
    return charts.lines(frame, x="interarrival_s", y="gets_per_message", colour="wait",
                        x_title="mean seconds between messages (log scale)", y_title="MQGET calls per message",
                        title="MQGETs per message for a get-with-wait consumer", log_x=True, points=False)
