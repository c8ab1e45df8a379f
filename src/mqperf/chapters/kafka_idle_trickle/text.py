"""Idle and trickle's sentences and its about-passages (the latter shown on the book's data only).

Each sentence states a number a table of the same run shows, rounded; a cost or a direction is
said only as far as its interval supports it (:func:`mqperf.models.evidence.sign`).
"""

from __future__ import annotations

import math

import pandas as pd

from mqperf.chapters.kafka_idle_trickle.fits import (PollingInputs, base, base_known, ci, max_tasks, per_task,
                                                      per_task_sign, polls_mq)
from mqperf.data import aggregate
from mqperf.models import polling
from mqperf.models.fitset import FitSet
from mqperf.present import prose


def points_caption(points: pd.DataFrame) -> str:
    caption = "Idle CPU: one point per series and tasks.max"
    if aggregate.COUNT in points:
        caption += f" ({int(points[aggregate.COUNT].sum()):,} file rows averaged into {len(points):,} points)"
    return caption


def fit_sentences(fits: FitSet) -> list[str]:
    """Base and per-task cost per series, each said only as far as its interval supports it."""
    unit = "CPU s/h"

    def line(group, r) -> str:
        name = prose.quoted(group)
        if r.df_resid <= 0:
            sign = "adds" if per_task(r) >= 0 else "removes"
            return (f"The line through the points of {name} puts its base at {prose.num(base(r), unit=unit)} and each "
                    f"task {sign} {prose.num(abs(per_task(r)), unit=unit)}: a description of two points, with no "
                    "interval to test either.")
        (blo, bhi), (tlo, thi) = ci(r, "Intercept"), ci(r, "tasks")
        if base_known(r):
            first = (f"An idle {name} costs {prose.num(base(r), unit=unit)} before any task "
                     f"({prose.interval(blo, bhi, unit)})")
        else:
            first = (f"The data cannot tell whether an idle {name} costs anything before its first task: the line's "
                     f"base, {prose.num(base(r), unit=unit)}, has a {prose.interval(blo, bhi, unit)}, which includes "
                     "zero")
        second = prose.direction(per_task(r), tlo, thi, subject="each task", up="adds", down="removes", unit=unit)
        return f"{first}; {second}."

    out = prose.per_fit(fits, line)
    res = fits.results
    known = {s: r for s, r in res.items() if base_known(r)}
    if len(known) >= 2:
        hi = max(known, key=lambda s: base(known[s]))
        lo = min(known, key=lambda s: base(known[s]))
        if hi != lo:
            out.append(f"The largest base, {prose.quoted(hi)}'s, is {prose.num(base(known[hi]) / base(known[lo]))} "
                       f"times the smallest, {prose.quoted(lo)}'s.")
    if any(base(r) < 0 and not base_known(r) and r.df_resid <= 0 for r in res.values()):
        out.append("A negative base is not a cost: the line through these points does not describe the connector "
                   "before its first task.")
    return out


def sign_check(fits: FitSet) -> str:
    """For "How this report was made": which per-task costs the sentences give a direction."""
    signs = [per_task_sign(r) for r in fits.results.values()]
    told = sum(s in ("positive", "negative") for s in signs)
    untold = signs.count("cannot tell")
    exact = signs.count("exact")
    parts = [f"{prose.count(told, 'per-task cost')} stated as adding or removing CPU (95 % interval on one side "
             "of zero)"]
    if untold:
        parts.append(f"{prose.count(untold, 'per-task cost')} whose interval includes zero: the data cannot tell")
    if exact:
        parts.append(f"{prose.count(exact, 'line')} through two points: a description, with no interval")
    return "; ".join(parts)


def chart_sentence(fits: FitSet, tasks_max: int) -> str | None:
    measured = max(max_tasks(r) for r in fits.results.values())
    if tasks_max <= measured:
        return None
    return (f"Past {prose.num(measured)} tasks (the largest measured) the lines up to {prose.num(tasks_max)} are "
            "extrapolations: nothing tests that the cost stays linear there.")


def inputs_sentence(inputs: PollingInputs, defaults: bool = False) -> str:
    """The polling inputs in one sentence; ``defaults``: they are the parameters' defaults on a reader's
    run, the article's numbers rather than measurements of the reader's system, and the sentence says so."""
    cost = (prose.num(inputs.empty_low, unit="CPU µs") if inputs.empty_low == inputs.empty_high
            else f"{prose.num(inputs.empty_low)} to {prose.num(inputs.empty_high, unit='CPU µs')}")
    whose = (" These are the defaults of the parameters wait_s and empty_get_cpu_us, the source article's wait and "
             "its cost of an empty get in bindings mode, not measurements of your system." if defaults else "")
    return (f"With a wait of {prose.num(inputs.wait_s, unit='s')}, an idle task issues "
            f"{prose.num(polling.idle_polls_per_hour(inputs.wait_s))} MQGETs an hour, each costing {cost} on the queue "
            f"manager.{whose}")


def check_sentence(check: pd.DataFrame) -> str:
    first, second = check.iloc[0], check.iloc[1]
    text = (f"The model gives exactly {prose.num(first['measured'])} MQGETs per message when a message arrives every "
            f"{prose.num(first['mean s between messages'], unit='s')} on average, and rounds to it for mean intervals "
            f"from {prose.num(first['rounds to measured from (s)'])} to {prose.num(first['to (s)'], unit='s')}")
    if second["measured"] is not None and not pd.isna(second["measured"]):
        same = math.isclose(second["model"], second["measured"], abs_tol=0.05)
        text += (f"; there, {prose.num(second['model'])} of them are unsuccessful, "
                 + ("as measured" if same else f"against {prose.num(second['measured'])} measured"))
    return text + "."


def readings_sentence(table: pd.DataFrame, inputs: PollingInputs) -> str:
    one = table.iloc[0]
    per_get = one["read per period, low (CPU µs per get)"]
    return (f"Read per get, the idle cost matches the {prose.num(inputs.empty_low)} to "
            f"{prose.num(inputs.empty_high, unit='CPU µs')} of an empty get; read as the whole period's, each of the "
            f"{prose.num(one['idle MQGETs per hour'])} idle gets an hour of one task would cost "
            f"{prose.num(per_get)} to {prose.num(one['read per period, high (CPU µs per get)'], unit='CPU µs')}, "
            f"{prose.num(inputs.empty_low / per_get)} times less than an empty get.")


def breakdown_sentences(table: pd.DataFrame) -> list[str]:
    out = []
    for row in table.to_dict("records"):
        name = prose.quoted(row["series"])
        if not polls_mq(row["series"]):
            out.append(f"{name} is taken not to poll MQ while idle (its name starts with “sink”).")
            continue
        share = row["MQ share of the task's cost (%)"]
        tail = (f", {prose.pct(share)} of the {prose.num(row['connector CPU per task (CPU s/h)'], unit='CPU s/h')} "
                "the task costs in the connector" if not math.isnan(share) else
                "; the data do not establish that a task costs anything in the connector, so there is no share "
                "to give")
        out.append(f"An idle task of {name} costs {prose.num(row['MQ polling CPU, low (CPU s/h)'])} to "
                   f"{prose.num(row['MQ polling CPU, high (CPU s/h)'], unit='CPU s/h')} on the queue manager{tail}.")
    return out


def choose_series(fits: FitSet, wanted: str) -> tuple[str, str | None]:
    """The fitted series to price, and a sentence when it is not the one asked for."""
    names = list(fits.results)
    for name in names:
        if name == wanted:
            return name, None
    for name in names:
        if name.startswith(wanted):
            return name, None
    return names[0], (f"These data have no fitted series {prose.quoted(wanted)} (parameter plan_connector), so the "
                      f"plan prices {prose.quoted(names[0])}, the first fitted series.")


def plan_idle_sentence(plan: pd.DataFrame) -> str:
    conn, mq = plan.iloc[0], plan.iloc[1]
    n, t = int(conn["connectors"]), int(conn["tasks each"])
    past = (f" (extrapolated: the measured tasks.max run from {conn['measured tasks.max']})"
            if conn["extrapolated"] else "")
    who = f"{n:,} idle {prose.quoted(conn['series'])} connector{'s' if n != 1 else ''} with {prose.count(t, 'task')} each"
    qm = (f"and {prose.num(mq['CPU s per day, low'])} to {prose.num(mq['CPU s per day, high'])} on the queue manager "
          f"({prose.num(mq['idle MQGETs per day'])} idle MQGETs)" if mq["idle MQGETs per day"] > 0
          else "and nothing on the queue manager")
    verb = "use" if n != 1 else "uses"
    if conn["CPU s per day, low"] <= 0:
        return (f"For {who} the line gives no positive connector CPU ({prose.num(conn['CPU s per day, low'])} CPU "
                f"seconds a day){past}: it does not describe the connector there. On the queue manager they use "
                + (f"{prose.num(mq['CPU s per day, low'])} to {prose.num(mq['CPU s per day, high'])} CPU seconds a day."
                   if mq["idle MQGETs per day"] > 0 else "nothing."))
    return f"{who} {verb} {prose.num(conn['CPU s per day, low'])} CPU seconds a day in the connector{past} {qm}."


def plan_trickle_sentence(table: pd.DataFrame, rate: float, tasks: int) -> str:
    row = table[table["arrival rate (msg/s)"] == rate].iloc[0]
    who = f"with {prose.count(tasks, 'task')}"
    cpu = f"{prose.num(row['empty-get CPU, low (CPU µs/h)'])} to {prose.num(row['high (CPU µs/h)'], unit='CPU µs')}"
    if rate == 0:
        return (f"With no messages, {who}, the connector issues {prose.num(row['empty gets per hour'])} empty gets an "
                f"hour, {cpu}.")
    return (f"At {prose.num(rate, unit='msg/s')} ({prose.num(row['messages per hour'])} messages an hour) {who}, each "
            f"message costs {prose.num(row['MQGETs per message'])} MQGETs and {prose.pct(row['empty share (%)'])} of "
            f"the gets find nothing: {prose.num(row['empty gets per hour'])} empty gets an hour, {cpu}.")


# -- about the published measurements (shown on the book's own data only) -------------------------

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
