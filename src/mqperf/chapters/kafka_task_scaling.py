"""Kafka connector task scaling: how far more tasks raise the rate, and where they stop paying.

``analyse`` loads the rates (and any "no gain" statements and CPU costs), fits each series
with the richest model its equations identify (:mod:`._kafka_task_scaling_fits`), and turns
every result into a table, chart or sentence of the report.
"""

from mqperf.declarations import Choice, DataFile, Integer, Internal, Number

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
    "max_tasks": Integer(help="the tasks.max the planning tables and charts run to at least (further when the data or "
                              "the answers go further; answers are never capped)", unit="tasks",
                         minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "kafka_task_scaling"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters import _kafka_task_scaling_fits as k
    from mqperf.chapters import _kafka_task_scaling_plan as plan
    from mqperf.data import aggregate, views
    from mqperf.present import overhead, prose, text
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    raw = views.open(p["data"], CHAPTER)
    pts = k.points(raw)
    known = k.statements(views.open(p["constraints"], CHAPTER, "constraints") if p.get("constraints") else None,
                         pts, k.base_cpus(raw))
    choices: dict = {}
    fits = k.fit_all(pts, known, p["model"], choices=choices, data_name=src.name, data_hash=src.sha256)
    target, max_tasks = float(p["target_rate_msg_s"]), int(p["max_tasks"])
    ranks = k.rankings(fits, pts, known, choices)
    span = plan.span(ranks, pts, max_tasks)
    r = Results(book_data=src.book_data, source=src.name)
    r.points, r.fit_results = pts, dict(fits.results)
    r.answers = ("tasks for the target, the last task adding at least 5 %, the modelled peak or ceiling, "
                 "the CPU at the target rate")

    # -- what was measured -------------------------------------------------------------------
    r.about("about_measured", ABOUT_MEASURED)
    note = aggregate.note(pts, per="series and tasks value", value="rate_msg_s")
    r.text("aggregation", note)
    rows = f": means of {int(pts[aggregate.COUNT].sum()):,} rows" if aggregate.aggregated(pts) else ""
    r.table("points", _points_table(pts), caption=f"Rates by tasks.max{rows}", digits=5)
    shown = known.assign(relation=known["relation"].map({"no_gain": "no gain", "decrease": "decrease"}))
    r.table("statements", shown.rename(columns={"tasks_from": "from (tasks)", "tasks_to": "to (tasks)"}),
            caption="Statements that are not points",
            missing="no statements that are not points were given, so every series rests on its points alone")
    r.about("about_statements", ABOUT_STATEMENTS)

    # -- fits ----------------------------------------------------------------------------------
    r.table("fits", k.fits_table(fits, choices), caption="One fit per series", digits=4)
    r.text("identification", prose.identification(fits.results), _unfitted(fits, prose), _weights_text(choices, prose))
    r.table("parameters", k.parameter_table(fits) if fits.any_intervals else None, digits=4,
            caption="Estimates, standard errors and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no standard errors or intervals; "
                    "the estimates are in the table above")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, "tasks"].max())))
        for name, res in list(fits.results.items())[:NAMED]), _more(len(fits.results), "fitted series"))
    _about(r, "about_readings", _about_readings(fits, prose) if src.book_data else "")

    curve = k.curves(fits, pts, known, max(max_tasks, int(pts["tasks"].max())))
    drawn = set(curve["series"]) if len(curve) else set()
    rejected = sum(1 for s in drawn if all(x.model == "bottleneck" for x in ranks[s].accepted))
    r.chart("curves", k.curves_chart(pts, curve, rejected) if len(curve) else None,
            missing="no series has three or more equations (distinct tasks values plus 'no gain' statements), "
                    "so there is no USL curve to draw")
    band = k.sensitivity_table(fits, pts, known)
    r.table("sensitivity", band, caption="The modelled peak with each 'no gain' statement read within ±3 %",
            digits=4, missing="your file has no 'no gain' statements, so there is no sensitivity band"
            if known.empty else "no USL fit rests on a 'no gain' statement, so there is no sensitivity band")
    r.text("sensitivity_text", _sensitivity_text(band, prose))
    from mqperf.chapters import _kafka_task_scaling_whatif as whatif

    # The what-if chart spans the data (and max_tasks): its controls move the curve, not the planning range.
    whatif.add(r, fits, curve, known, target, max(max_tasks, int(pts["tasks"].max())), ranks)
    usl_fits = {s: res for s, res in fits.results.items() if res.model == "usl"}
    overhead.show(r, usl_fits, {s: float(pts.loc[pts["series"] == s, "tasks"].max()) for s in usl_fits},
                  n_max=span, x_title="connector tasks (tasks.max)", limit=NAMED,
                  missing="no series has a USL fit (it needs three or more equations), so there is no coherency "
                          "part to set against contention; Amdahl's law assumes none")

    # -- other readings and checks -------------------------------------------------------------
    neck = k.bottleneck_table(ranks)
    r.table("bottleneck", neck, caption="Bottleneck model X = min(λN, X_max) per series", digits=4,
            missing="no series could be fitted with the bottleneck model")
    r.text("bottleneck_text", _bottleneck_text(ranks, pts, prose, r))
    r.about("about_bottleneck", ABOUT_BOTTLENECK)

    loo = k.leave_one_out(fits, pts, known)
    r.table("loo", loo, caption="Leave one out: each point predicted by a fit without it", digits=4,
            missing="no series has three or more distinct tasks values, so no point can be left out and still "
                    "leave a fit to predict it")
    r.text("loo_text", _loo_text(loo, prose))
    cross = k.cpu_variants(fits, pts)
    r.table("cross", cross, caption="Predicting the same workload at another CPU count", digits=4,
            missing="your data has no series measured at another CPU count (gp_cpus) than a fitted series of the "
                    "same workload, so no fit can be checked against another configuration")
    r.text("cross_text", _cross_text(cross, prose))
    _about(r, "about_cross", _about_cross(fits, pts, prose) if src.book_data else "")

    # -- planning --------------------------------------------------------------------------------
    answers = plan.table(ranks, pts, target)
    r.table("plan", answers, caption=f"Tasks for {prose.num(target, 12)} msg/s, from the readings the comparison "
            "accepts (no cap: each answer follows its model)", digits=4)
    r.text("plan_text", _plan_text(ranks, pts, target, prose, r))
    gains = plan.gains(ranks, span)
    r.chart("gains", k.gains_chart(gains, span, max_tasks, int(pts["tasks"].max())) if len(gains) else None,
            missing="no series has a fit to read the marginal gain per task from")
    costs = views.open(p["costs"], CHAPTER, "costs") if p.get("costs") else None
    cpu = k.cpu_at_rate(costs, ranks, pts, target) if costs is not None else None
    r.table("cpu", cpu, digits=3,
            caption=f"General-purpose CPU at {prose.num(target, 12)} msg/s, or at the most a reading reaches",
            missing="no CPU costs were given (costs is empty), so the target rate is not priced in CPU"
            if costs is None else "no fitted series matches the series the CPU costs were measured on")
    r.text("cpu_text", _cpu_text(cpu, target, prose, r))
    r.about("about_cpu", ABOUT_CPU)
    r.checked("Planning model", _planning_check(ranks, prose))
    r.checked("Planning range", f"answers follow each model without a cap; the tables and charts run to {span:,} tasks "
                                f"(the largest of max_tasks, {max_tasks:,}, the largest measured count, "
                                f"{int(pts['tasks'].max()):,}, and the task after the last that adds 5 %)")
    r.checked("Weights", "; ".join(f"{text.visible(s)}: {w.words}" for s, w in list(choices.items())[:NAMED])
              + (f"; and {len(choices) - NAMED:,} more series" if len(choices) > NAMED else ""))

    for name, card, result in fits.cards(CHAPTER, src.name):
        r.card(name, card, result)
    return r


def _about(r, key: str, text: str) -> None:
    """An about-passage, or nothing when the published series it speaks of are absent."""
    if text:
        r.about(key, text)
    else:
        r.text(key)


# -- sentences -------------------------------------------------------------------------------

def _points_table(pts):
    from mqperf.data import aggregate

    cols = {"series": "series", "tasks": "tasks", "gp_cpus": "CPUs", "rate_msg_s": "rate (msg/s)",
            aggregate.COUNT: "rows (n)", aggregate.sd_column("rate_msg_s"): "sd (msg/s)", "basis": "basis"}
    return pts[[c for c in cols if c in pts]].rename(columns=cols)


def _more(total: int, what: str) -> str:
    return f"The tables give the other {total - NAMED:,} {what}." if total > NAMED else ""


def _unfitted(fits, prose) -> str:
    names = list(fits.failures)
    if not names:
        return ""
    shown = prose.listing(prose.quoted(s) for s in names[:NAMED])
    rest = f" (and {len(names) - NAMED:,} more)" if len(names) > NAMED else ""
    verb = "has" if len(names) == 1 else "have"
    return (f"{shown}{rest} {verb} a single tasks value: a configuration, not a scaling curve, so "
            f"{'it is' if len(names) == 1 else 'they are'} not fitted.")


def _sensitivity_text(band, prose) -> str:
    return prose.bullets(
        f"Read within ±3 %, the statement behind {prose.quoted(b.series)} moves its modelled peak between "
        f"{prose.num(b[3])} and {prose.num(b[4])} msg/s (read literally: {prose.num(b[2])} msg/s). "
        "This is a reading-sensitivity band, not a confidence interval."
        for b in band.itertuples(index=False))


def _bottleneck_text(ranks, pts, prose, r) -> str:
    out = []
    named = [rk for rk in ranks.values() if rk.readings[1] is not None]
    for rk in named[:NAMED]:
        own, neck = rk.readings
        b = neck.result
        low, high = (float(v) for v in _measured(pts, rk.series))
        ceiling = (f"a ceiling of {prose.num(b.x_max)} msg/s with its knee at N = {prose.num(b.knee())}"
                   if "x_max" not in b.at_bound else
                   f"no plateau in the points, so its ceiling ({prose.num(b.x_max)} msg/s) is only a lower bound")
        if own.shape == "peak":
            n_top, x_top = own.top()
            where = " (extrapolated: beyond the largest measured count)" if n_top > high else ""
            if where:
                r.extrapolated(f"{text_visible(rk.series)}: the modelled peak by its {own.model} fit")
            peak = f"a modelled peak of {prose.num(x_top)} msg/s at {prose.num(n_top)} tasks{where}"
        elif own.shape == "limit":
            peak = (f"no peak, only a limit of {prose.num(own.top()[1])} msg/s that more tasks approach (extrapolated: "
                    "reached only as tasks grow without bound)")
            r.extrapolated(f"{text_visible(rk.series)}: the modelled limit by its {own.model} fit")
        else:
            peak = "no peak and no limit"
        uses = (f"so the planning below uses the {rk.accepted[0].model} reading" if rk.ranked else
                "so the planning below gives both readings' answers")
        out.append(f"{prose.quoted(rk.series)}: the bottleneck reading gives {ceiling}; its {own.model} fit gives "
                   f"{peak}; {rk.why}, {uses}.")
    return prose.bullets(out) + ("\n\n" + _more(len(named), "series") if len(named) > NAMED else "")


def _measured(pts, series):
    g = pts.loc[pts["series"] == series, "tasks"]
    return g.min(), g.max()


def _model_name(res) -> str:
    return "USL" if res.model == "usl" else "Amdahl"


def _loo_text(loo, prose) -> str:
    if loo is None or loo.empty:
        return ""
    done = loo.dropna(subset=["error %"])
    failed = len(loo) - len(done)
    tail = (f" {prose.count(failed, 'point')} could not be predicted: too few equations were left to fit."
            if failed else "")
    if done.empty:
        return "No left-out point could be predicted: too few equations were left to fit in every case."
    worst = done.loc[done["error %"].abs().idxmax()]
    return (f"Leaving each point out in turn and fitting what the others allow, the worst prediction is for "
            f"{prose.quoted(worst['series'])} at {prose.num(worst['tasks'])} tasks: "
            f"{prose.num(worst['predicted rate (msg/s)'])} msg/s predicted against {prose.num(worst['measured rate (msg/s)'])} measured "
            f"({prose.pct(worst['error %'])}).{tail}")


def _cross_text(cross, prose) -> str:
    if cross is None or cross.empty:
        return ""
    lines = [f"The fit of {prose.quoted(c[0])} predicts {prose.quoted(c[1])} at {prose.num(c[2])} tasks as "
             f"{prose.num(c[4])} msg/s against {prose.num(c[3])} measured ({prose.pct(c[5])})."
             for c in list(cross.itertuples(index=False))[:NAMED]]
    return prose.bullets(lines) + "\n\nA USL fit describes one system and workload; it does not carry over."


def _target_clause(row: dict, target: float, prose) -> str:
    """"reaches T msg/s with N tasks" or "does not reach T msg/s ...", labelled when extrapolated."""
    need, t = row["tasks for the target"], prose.num(target, 12)
    beyond = row["beyond the measured counts"]
    high = prose.num(row["largest measured (tasks)"])
    if not isinstance(need, str):
        s = f"reaches {t} msg/s with {prose.count(int(need), 'task')}"
        if "tasks for the target" in beyond:
            s += f" (extrapolated: outside the measured counts, which end at {high})"
        return s
    why = need.split(": ", 1)[1]
    x_top, n_top = row["modelled peak or ceiling (msg/s)"], row["at (tasks)"]
    if why.startswith("above the modelled peak"):
        s = (f"does not reach {t} msg/s at any task count: the target is above its modelled peak, "
             f"{prose.num(x_top)} msg/s at {prose.num(n_top)} tasks")
    elif why.startswith("above the ceiling"):
        s = f"does not reach {t} msg/s at any task count: the target is above its ceiling, {prose.num(x_top)} msg/s"
    elif why.startswith("at or above the modelled limit"):
        s = (f"does not reach {t} msg/s at any task count: the target is at or above its modelled limit λ/σ, "
             f"{prose.num(x_top)} msg/s, which more tasks approach but never reach")
    else:
        s = f"does not reach {t} msg/s as far as these points tell: the target is {why}"
    if "the modelled peak" in beyond or "the modelled limit" in beyond:
        s += f" (extrapolated: the measured counts end at {high})"
    return s


def _paying_clause(row: dict, prose) -> str:
    s = f"the last task that adds at least 5 % is task {prose.num(row['last task adding ≥ 5 %'])}"
    if "last task adding ≥ 5 %" in row["beyond the measured counts"]:
        s += " (extrapolated)"
    return s


def _plan_text(ranks, pts, target, prose, r) -> str:
    from mqperf.chapters import _kafka_task_scaling_plan as plan

    frame = plan.table(ranks, pts, target)
    out = []
    for name, rk in list(ranks.items())[:NAMED]:
        rows = frame[frame["series"] == name].to_dict("records")
        q = prose.quoted(name)
        for row in rows:
            for what in row["beyond the measured counts"].split("; "):
                if what != "nothing":
                    r.extrapolated(f"{text_visible(name)}: {what} by its {row['model']} fit")
        if len(rows) == 1:
            row = rows[0]
            head = (f"{q}, by its {row['model']} fit ({rk.why})" if rk.readings[1] is not None
                    else f"{q}, by its {row['model']} fit (the only reading)")
            out.append(f"{head}, {_target_clause(row, target, prose)}; {_paying_clause(row, prose)}.")
        else:
            said = [(_target_clause(row, target, prose), _paying_clause(row, prose)) for row in rows]
            parts = [f"{q}: {rk.why}, so both readings answer."]
            if said[0] == said[1]:
                parts.append(f"By its {rows[0]['model']} and {rows[1]['model']} fits alike, {q} {said[0][0]}; "
                             f"{said[0][1]}.")
            else:
                parts += [f"By its {row['model']} fit, {q} {t}; {g}." for row, (t, g) in zip(rows, said)]
            out.append(" ".join(parts))
    return prose.bullets(out) + ("\n\n" + _more(len(ranks), "series") if len(ranks) > NAMED else "")


def text_visible(name: str) -> str:
    from mqperf.present import text

    return text.visible(name)


def _cpu_text(cpu, target, prose, r) -> str:
    if cpu is None or cpu.empty:
        return ""
    out = []
    for c in cpu.to_dict("records"):
        lo, hi = prose.num(c["engines, low"]), prose.num(c["engines, high"])
        engines = f"{lo if lo == hi else lo + ' to ' + hi} general-purpose engines (CPU seconds per second)"
        label = " (extrapolated)" if c["extrapolated"] else ""
        if c["extrapolated"]:
            r.extrapolated(f"{text_visible(c['series'])}: the CPU priced by its {c['model']} fit")
        name = prose.quoted(c["series"])
        if c["target reached"]:
            out.append(f"{name} at {prose.num(target, 12)} msg/s{label}, by its {c['model']} fit: {engines}.")
        else:
            out.append(f"{name} cannot reach {prose.num(target, 12)} msg/s by its {c['model']} fit, so its row prices "
                       f"the most that fit reaches, {prose.num(c['rate priced (msg/s)'])} msg/s{label}: {engines}.")
    return prose.bullets(out)


def _planning_check(ranks, prose) -> str:
    ranked = [rk for rk in ranks.values() if rk.ranked]
    both = [rk for rk in ranks.values() if len(rk.accepted) == 2]
    parts = []
    if ranked:
        parts.append(f"{prose.count(len(ranked), 'series', 'series')} planned from the reading AICc (or AIC) prefers "
                     "by 2 or more")
    if both:
        parts.append(f"{prose.count(len(both), 'series', 'series')} with both readings' answers, the data cannot "
                     "rank them")
    alone = len(ranks) - len(ranked) - len(both)
    if alone:
        parts.append(f"{prose.count(alone, 'series', 'series')} with the fit as the only reading")
    return "; ".join(parts) + "; no answer comes from a rejected reading"


def _weights_text(choices: dict, prose) -> str:
    rel = [s for s, w in choices.items() if w.kind == "relative"]
    if not rel:
        return ""
    if len(rel) == 1:
        return f"{prose.quoted(rel[0])} is fitted with weights 1/y² (equal relative errors): {choices[rel[0]].test}."
    shown = prose.listing(prose.quoted(s) for s in rel[:NAMED])
    more = f" (and {len(rel) - NAMED:,} more)" if len(rel) > NAMED else ""
    return (f"{shown}{more} are fitted with weights 1/y² (equal relative errors): the spread of their residuals grows "
            "with the rate; \"How this report was made\" gives each series' test.")


# -- about the published measurements (shown on the book's own data only) ----------------------

ABOUT_MEASURED = """The source article (the {ref}`Data catalog <data-catalog>` gives every quote) ran
MQ for z/OS 9.3.3 on an IBM z16 LPAR with 3 dedicated general-purpose CPUs and 2 zIIPs (z/OS 2.5,
DS8950 disk), with the Kafka broker on an IBM z15 running RHEL 8.8 on 6 CPUs, linked by a 10Gb
network. The connectors ran in bindings mode in USS, moving 1KB messages. *Sustainable* means the
queue depth did not grow while applications put (for the source) or got (for the sink) at the same
time; *peak* runs pre-load or let the queue fill. The article prints few points: most curves are in
charts whose values it does not give. Every row below is a number the text states, or one derived
from a stated percentage (basis `derived`, with its formula in the data)."""

ABOUT_STATEMENTS = """The sink's 61,588 msg/s at two tasks is printed as "a 36% increase" over 44,996;
the two rates give 36.9 %. The data keep the printed rates; see {ref}`erratum E001 <errata-e001>`.
The sink's one-task sustainable 44,996 msg/s is also *above* the 38,355 msg/s the article prints as its
one-task 1KB *peak* in the message-size table ({ref}`erratum E040 <errata-e040>`).

Two statements are deliberately *not* in the tables above. "We observed a 10% improvement moving
from 1 to 5 tasks" describes the source connector's runs with applications putting at the same time
("ranging from 2270 to 2510 persistent 1KB messages per second"), while 2,271 msg/s is the *peak*
run, where the putter was sped up so the connector always had messages. An earlier edition applied
the +10 % to 2,271 and fitted Amdahl's law through the result, whose limit (about 2,560 msg/s) then
reached the planning table: a point built from two different sets of runs. The book no longer
derives it, so the persistent MQPUT/commit series is a single point and is not fitted. And
"Increasing the number of Kafka producer tasks did not improve throughput" concerns the load
generator's tasks on the Kafka side, not the connector's tasks.max: it rules the producer out as
the sink's bottleneck (see the latch chapter) but relates no two points of any series here."""

ABOUT_BOTTLENECK = """The article's words can separate the two readings where the points cannot:
for the source connector "as further tasks were added, the percentage increase continued to reduce,
until showing no additional benefit moving from 4 to 5 tasks", so the third and fourth tasks still
added something, which a bottleneck reached before two tasks denies."""

ABOUT_CPU = """The article prints the connectors' CPU per 1KB message after zIIP offload (1.5 µs for the
source; 0.5 to 1.7 µs for the sink) and the MQ verb's cost from class(3) accounting (MQGET 5 µs;
MQPUT1 6 to 8 µs). The table leaves out the applications on the other side of the queue and the
queue manager's other work. The sink's printed 0.5–1.7 µs does not follow from its own 21–26 µs at
96 % zIIP eligibility (0.84–1.04 µs): see {ref}`errata E011 <errata-e011>` and
{ref}`E012 <errata-e012>`; the table uses the printed range, which is the wider one."""


def _about_readings(fits, prose) -> str:
    res = fits.results
    parts = []
    src = res.get("source sustainable nonpersistent")
    if src is not None:
        parts.append("The source's sustainable peak is pinned by the article's own \"no additional benefit moving "
                     "from 4 to 5 tasks\": it restates the article rather than predicting anything new.")
    contention = res.get("sink persistent get100 commit")
    if contention is not None:
        parts.append(f"For the sink with MQGET×100 getters (σ = {prose.num(contention.sigma)}) the article traces the "
                     "limit to latch contention on the queue and to too few general-purpose CPUs, not to the "
                     "connector; the same workload on 6 CPUs ran 37 % faster at 4 tasks. A large σ is the model's "
                     "way of saying that something else is the bottleneck.")
    return " ".join(parts)


def _about_cross(fits, pts, prose) -> str:
    sink = fits.results.get("sink sustainable nonpersistent")
    peak = pts[pts["series"] == "sink peak nonpersistent"]
    if sink is None or peak.empty:
        return ""
    row = peak.iloc[0]
    pred = float(sink.predict([float(row["tasks"])])[0])
    return (f"The sink's *peak* runs (no getters, the queue fills) reached {prose.num(row['rate_msg_s'], 5)} msg/s at "
            f"{prose.num(row['tasks'])} tasks, where the sustainable fit gives {prose.num(pred)}: a fit of one "
            "configuration says nothing about another.")
