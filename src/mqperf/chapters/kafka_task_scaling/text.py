"""Task scaling's sentences and its about-passages (the latter shown on the book's data only).

Every sentence is made from the results (the fits, the rankings and the frames of :mod:`.fits`),
so it is true for any data; the about-passages speak of the published measurements.
"""

from __future__ import annotations

from mqperf import numbers
from mqperf.chapters.kafka_task_scaling import NAMED, fits
from mqperf.present import prose
from mqperf.present.text import visible


def more(total: int, what: str) -> str:
    return f"The tables give the other {total - NAMED:,} {what}." if total > NAMED else ""


def unfitted(fits) -> str:
    names = list(fits.failures)
    if not names:
        return ""
    shown = prose.listing(prose.quoted(s) for s in names[:NAMED])
    rest = f" (and {len(names) - NAMED:,} more)" if len(names) > NAMED else ""
    verb = "has" if len(names) == 1 else "have"
    return (f"{shown}{rest} {verb} a single tasks value: a configuration, not a scaling curve, so "
            f"{'it is' if len(names) == 1 else 'they are'} not fitted.")


def sensitivity_text(band) -> str:
    return prose.bullets(
        f"Read within ±3 %, the statement behind {prose.quoted(b.series)} moves its modelled peak between "
        f"{prose.num(b[3])} and {prose.num(b[4])} msg/s (read literally: {prose.num(b[2])} msg/s). "
        "This is a reading-sensitivity band, not a confidence interval."
        for b in band.itertuples(index=False))


def bottleneck_text(ranks, pts, r) -> str:
    out = []
    named = [rk for rk in ranks.values() if rk.readings[1] is not None]
    for rk in named[:NAMED]:
        own, neck = rk.readings
        b = neck.result
        low, high = fits.measured(pts, rk.series)
        ceiling = (f"a ceiling of {prose.num(b.x_max)} msg/s with its knee at N = {prose.num(b.knee())}"
                   if "x_max" not in b.at_bound else
                   f"no plateau in the points, so its ceiling ({prose.num(b.x_max)} msg/s) is only a lower bound")
        if own.shape == "peak":
            n_top, x_top = own.top()
            where = " (extrapolated: beyond the largest measured count)" if n_top > high else ""
            if where:
                r.extrapolated(f"{visible(rk.series)}: the modelled peak by its {own.model} fit")
            peak = f"a modelled peak of {prose.num(x_top)} msg/s at {prose.num(n_top)} tasks{where}"
        elif own.shape == "limit":
            peak = (f"no peak, only a limit of {prose.num(own.top()[1])} msg/s that more tasks approach (extrapolated: "
                    "reached only as tasks grow without bound)")
            r.extrapolated(f"{visible(rk.series)}: the modelled limit by its {own.model} fit")
        else:
            peak = "no peak and no limit"
        uses = (f"so the planning below uses the {rk.accepted[0].model} reading" if rk.ranked else
                "so the planning below gives both readings' answers")
        out.append(f"{prose.quoted(rk.series)}: the bottleneck reading gives {ceiling}; its {own.model} fit gives "
                   f"{peak}; {rk.why}, {uses}.")
    return prose.bullets(out) + ("\n\n" + more(len(named), "series") if len(named) > NAMED else "")


def loo_text(loo) -> str:
    if loo is None or loo.empty:
        return ""
    done = loo.dropna(subset=["error %"])
    failed = len(loo) - len(done)
    tail = (f" {prose.count(failed, 'point')} could not be predicted: too few equations were left to fit."
            if failed else "")
    if done.empty:
        return "No left-out point could be predicted: too few equations were left to fit in every case."
    worst = done.loc[numbers.idxmax(done["error %"].abs())]
    return (f"Leaving each point out in turn and fitting what the others allow, the worst prediction is for "
            f"{prose.quoted(worst['series'])} at {prose.num(worst['tasks'])} tasks: "
            f"{prose.num(worst['predicted rate (msg/s)'])} msg/s predicted against {prose.num(worst['measured rate (msg/s)'])} measured "
            f"({prose.pct(worst['error %'])}).{tail}")


def cross_text(cross) -> str:
    if cross is None or cross.empty:
        return ""
    lines = [f"The fit of {prose.quoted(c[0])} predicts {prose.quoted(c[1])} at {prose.num(c[2])} tasks as "
             f"{prose.num(c[4])} msg/s against {prose.num(c[3])} measured ({prose.pct(c[5])})."
             for c in list(cross.itertuples(index=False))[:NAMED]]
    return prose.bullets(lines) + "\n\nA USL fit describes one system and workload; it does not carry over."


def target_clause(row: dict, target: float) -> str:
    """"reaches T msg/s with N tasks" or "does not reach T msg/s ...", labelled when extrapolated."""
    need, t = row["tasks for the target"], prose.given(target)
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


def paying_clause(row: dict) -> str:
    s = f"the last task that adds at least 5 % is task {prose.num(row['last task adding ≥ 5 %'])}"
    if "last task adding ≥ 5 %" in row["beyond the measured counts"]:
        s += " (extrapolated)"
    return s


def plan_text(ranks, frame, target, r) -> str:
    """The planning answers in words, from ``frame`` (:func:`.fits.plan_table`)."""
    out = []
    for name, rk in list(ranks.items())[:NAMED]:
        rows = frame[frame["series"] == name].to_dict("records")
        q = prose.quoted(name)
        for row in rows:
            for what in row["beyond the measured counts"].split("; "):
                if what != "nothing":
                    r.extrapolated(f"{visible(name)}: {what} by its {row['model']} fit")
        if len(rows) == 1:
            row = rows[0]
            head = (f"{q}, by its {row['model']} fit ({rk.why})" if rk.readings[1] is not None
                    else f"{q}, by its {row['model']} fit (the only reading)")
            out.append(f"{head}, {target_clause(row, target)}; {paying_clause(row)}.")
        else:
            said = [(target_clause(row, target), paying_clause(row)) for row in rows]
            parts = [f"{q}: {rk.why}, so both readings answer."]
            if said[0] == said[1]:
                parts.append(f"By its {rows[0]['model']} and {rows[1]['model']} fits alike, {q} {said[0][0]}; "
                             f"{said[0][1]}.")
            else:
                parts += [f"By its {row['model']} fit, {q} {t}; {g}." for row, (t, g) in zip(rows, said)]
            out.append(" ".join(parts))
    return prose.bullets(out) + ("\n\n" + more(len(ranks), "series") if len(ranks) > NAMED else "")


def cpu_text(cpu, target, r) -> str:
    if cpu is None or cpu.empty:
        return ""
    out = []
    for c in cpu.to_dict("records"):
        lo, hi = prose.num(c["engines, low"]), prose.num(c["engines, high"])
        engines = f"{lo if lo == hi else lo + ' to ' + hi} general-purpose engines (CPU seconds per second)"
        label = " (extrapolated)" if c["extrapolated"] else ""
        if c["extrapolated"]:
            r.extrapolated(f"{visible(c['series'])}: the CPU priced by its {c['model']} fit")
        name = prose.quoted(c["series"])
        if c["target reached"]:
            out.append(f"{name} at {prose.given(target)} msg/s{label}, by its {c['model']} fit: {engines}.")
        else:
            out.append(f"{name} cannot reach {prose.given(target)} msg/s by its {c['model']} fit, so its row prices "
                       f"the most that fit reaches, {prose.num(c['rate priced (msg/s)'])} msg/s{label}: {engines}.")
    return prose.bullets(out)


def planning_check(ranks) -> str:
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


def weights_text(choices: dict) -> str:
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


def about_readings(fits) -> str:
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


def about_cross(fits, pts) -> str:
    sink = fits.results.get("sink sustainable nonpersistent")
    peak = pts[pts["series"] == "sink peak nonpersistent"]
    if sink is None or peak.empty:
        return ""
    row = peak.iloc[0]
    pred = float(sink.predict([float(row["tasks"])])[0])
    # The published rate with its five printed digits (sentences round to fewer).
    return (f"The sink's *peak* runs (no getters, the queue fills) reached {prose.num(row['rate_msg_s'], 5)} msg/s at "
            f"{prose.num(row['tasks'])} tasks, where the sustainable fit gives {prose.num(pred)}: a fit of one "
            "configuration says nothing about another.")
