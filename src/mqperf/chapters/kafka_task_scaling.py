"""Kafka connector task scaling: how far more tasks raise the rate, and where they stop paying.

``analyse`` loads the rates (and any "no gain" statements and CPU costs), fits each series
with the richest model its equations identify (:mod:`._kafka_task_scaling_fits`), and turns
every result into a table, chart or sentence of the report.
"""

from mqperf.parameters import Choice, DataFile, Integer, Internal, Number

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
    "max_tasks": Integer(help="the largest tasks.max the planning tables consider", unit="tasks",
                         minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "kafka_task_scaling"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from mqperf.chapters import _kafka_task_scaling_fits as k
    from mqperf.data import aggregate, views
    from mqperf.present import overhead, prose
    from mqperf.present.results import Results

    src = views.describe(p["data"])
    raw = views.open(p["data"], CHAPTER)
    pts = k.points(raw)
    known = k.statements(views.open(p["constraints"], CHAPTER, "constraints") if p.get("constraints") else None,
                         pts, k.base_cpus(raw))
    fits = k.fit_all(pts, known, p["model"], data_name=src.name, data_hash=src.sha256)
    target, max_tasks = float(p["target_rate_msg_s"]), int(p["max_tasks"])
    r = Results(book_data=src.book_data, source=src.name)
    r.points = pts

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
    r.table("fits", k.fits_table(fits), caption="One fit per series", digits=4)
    r.text("identification", prose.identification(fits.results), _unfitted(fits, prose))
    r.table("parameters", k.parameter_table(fits) if fits.any_intervals else None, digits=4,
            caption="Estimates, standard errors and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no standard errors or intervals; "
                    "the estimates are in the table above")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, "tasks"].max())))
        for name, res in list(fits.results.items())[:NAMED]), _more(len(fits.results), "fitted series"))
    _about(r, "about_readings", _about_readings(fits, prose) if src.book_data else "")

    curve = k.curves(fits, pts, known, max(max_tasks, int(pts["tasks"].max())))
    r.chart("curves", k.curves_chart(pts, curve) if len(curve) else None,
            missing="no series has three or more equations (distinct tasks values plus 'no gain' statements), "
                    "so there is no USL curve to draw")
    band = k.sensitivity_table(fits, pts, known)
    r.table("sensitivity", band, caption="The modelled peak with each 'no gain' statement read within ±3 %",
            digits=4, missing="your file has no 'no gain' statements, so there is no sensitivity band"
            if known.empty else "no USL fit rests on a 'no gain' statement, so there is no sensitivity band")
    r.text("sensitivity_text", _sensitivity_text(band, prose))
    from mqperf.chapters import _kafka_task_scaling_whatif as whatif

    whatif.add(r, fits, curve, known, target, max_tasks)
    usl_fits = {s: res for s, res in fits.results.items() if res.model == "usl"}
    overhead.show(r, usl_fits, {s: float(pts.loc[pts["series"] == s, "tasks"].max()) for s in usl_fits},
                  n_max=max_tasks, x_title="connector tasks (tasks.max)", limit=NAMED,
                  missing="no series has a USL fit (it needs three or more equations), so there is no coherency "
                          "part to set against contention; Amdahl's law assumes none")

    # -- other readings and checks -------------------------------------------------------------
    neck = k.bottleneck_table(fits, pts, known)
    r.table("bottleneck", neck, caption="Bottleneck model X = min(λN, X_max) per series", digits=4,
            missing="no series could be fitted with the bottleneck model")
    r.text("bottleneck_text", _bottleneck_text(neck, fits, prose))
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
    plan = k.plan(fits, pts, target, max_tasks)
    r.table("plan", plan, caption=f"Tasks for {prose.num(target, 12)} msg/s", digits=4)
    r.text("plan_text", _plan_text(plan, target, max_tasks, prose))
    gains = k.gains(fits, max_tasks)
    r.chart("gains", k.gains_chart(gains) if len(gains) else None,
            missing="without a USL fit there is no marginal gain per task to show")
    costs = views.open(p["costs"], CHAPTER, "costs") if p.get("costs") else None
    cpu = k.cpu_at_rate(costs, fits, pts, target, max_tasks) if costs is not None else None
    r.table("cpu", cpu, digits=3,
            caption=f"General-purpose CPU at {prose.num(target, 12)} msg/s, or at the best rate a series' fit reaches",
            missing="no CPU costs were given (costs is empty), so the target rate is not priced in CPU"
            if costs is None else "no fitted series matches the series the CPU costs were measured on")
    r.text("cpu_text", _cpu_text(cpu, target, max_tasks, prose))
    r.about("about_cpu", ABOUT_CPU)

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


def _bottleneck_text(neck, fits, prose) -> str:
    out = []
    for b in list(neck.itertuples(index=False))[:NAMED]:
        res = fits.results[b.series]
        ceiling = (f"a ceiling of {prose.num(b[1])} msg/s with its knee at N = {prose.num(b[2])}" if b[3] else
                   f"no plateau in the points, so its ceiling ({prose.num(b[1])} msg/s) is only a lower bound")
        peak = (f"a peak of {prose.num(res.peak_x())} msg/s at {prose.num(res.peak_n())} tasks"
                if res.model == "usl" and res.kappa > 0 else "no peak")
        if b[5] == "cannot tell":
            verdict = "these points cannot rank the two (AICc needs residual degrees of freedom in both)"
        else:
            crit, best = b[5].split(": ")
            verdict = (f"{crit} prefers the {best} reading by {prose.num(b[6])}" if b[6] >= 2 else
                       f"{crit} leans to the {best} reading by only {prose.num(b[6])}: below about 2, no evidence "
                       "either way")
        out.append(f"{prose.quoted(b.series)}: the bottleneck reading gives {ceiling}; its "
                   f"{_model_name(res)} fit gives {peak}; {verdict}.")
    return prose.bullets(out) + ("\n\n" + _more(len(neck), "series") if len(neck) > NAMED else "")


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


def _plan_text(plan, target, max_tasks, prose) -> str:
    out = []
    best_col = f"best rate with ≤ {max_tasks} tasks (msg/s)"
    for row in list(plan.to_dict("records"))[:NAMED]:
        name, need = prose.quoted(row["series"]), row["tasks for the target"]
        if isinstance(need, str):
            s = (f"{name} does not reach {prose.num(target, 12)} msg/s with up to {prose.num(max_tasks)} tasks "
                 f"(its fit's best is {prose.num(row[best_col])} msg/s).")
        else:
            s = f"{name} reaches {prose.num(target, 12)} msg/s with {prose.count(need, 'task')}."
            if row["beyond the measurements"]:
                s += (f" That is more than its largest measured tasks.max ({prose.num(row['largest measured (tasks)'])}): "
                      "an extrapolation.")
        last = row["last task adding ≥ 5 %"]
        s += (f" Every task up to {prose.num(max_tasks)} adds at least 5 %." if isinstance(last, str) else
              f" The last task that adds at least 5 % is task {prose.num(last)}.")
        out.append(s)
    return prose.bullets(out) + ("\n\n" + _more(len(plan), "series") if len(plan) > NAMED else "")


def _cpu_text(cpu, target, max_tasks, prose) -> str:
    if cpu is None or cpu.empty:
        return ""
    out = []
    for c in cpu.to_dict("records"):
        lo, hi = prose.num(c["engines, low"]), prose.num(c["engines, high"])
        engines = f"{lo if lo == hi else lo + ' to ' + hi} general-purpose engines (CPU seconds per second)"
        if c["target reached"]:
            out.append(f"{prose.quoted(c['series'])} at {prose.num(target, 12)} msg/s: {engines}.")
        else:
            out.append(f"{prose.quoted(c['series'])} cannot reach {prose.num(target, 12)} msg/s with up to "
                       f"{prose.num(max_tasks)} tasks by its fit, so its row prices the best rate the fit reaches, "
                       f"{prose.num(c['rate priced (msg/s)'])} msg/s: {engines}.")
    return prose.bullets(out)


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
