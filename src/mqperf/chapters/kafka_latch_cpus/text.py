"""The latch and CPU chapter's words: its sentences, made from the results, and its about-passages
on the published measurements (shown on the book's data only)."""

from __future__ import annotations

import math

import pandas as pd

from mqperf import numbers
from mqperf.chapters.kafka_latch_cpus import MODELS, SET_APART
from mqperf.models import cpu_share
from mqperf.present import prose

#: What a model is called in sentences.
WORDS = {"M/M/c": "M/M/c", "M/M/c at k·A": "M/M/c at k·A", "line in per-CPU busy": "the line in per-CPU busy"}


# -- about the published measurements (book data only) ----------------------------------------

def intro(r) -> None:
    r.about("intro", (
        "With persistent messages and getters that commit every 100 MQGETs, the *MQ as a sink* connector "
        "\"peaked at 35,056 messages per second with tasks.max=2 yet decreased with additional tasks\". The article "
        "traces this to tasks waiting for MQ latches and to too few general-purpose CPUs, although the 3 CPUs were "
        "on average 75 % busy."))



def about_latches(r, latch_source, key: str, markdown) -> None:
    """An about-passage on the latch statements (``markdown()`` makes it): only when the latch
    data are the book's."""
    if latch_source.book_data and r.book_data:
        r.about(key, markdown())
    else:
        r.items[key] = None


def system(r) -> None:
    from mqperf.data import views

    env = views.system("kafka_zos")
    env = env[env["attribute"].isin(["hardware", "gp_cpus", "ziips", "os",
                                                                        "mq_version"])]
    v = dict(zip(env["attribute"], env["value"]))
    r.about("system", (
        "The system is the one of the {doc}`Kafka connector task scaling <kafka_task_scaling>` chapter: "
        f"{v.get('mq_version')} on an {v.get('hardware')} LPAR with {v.get('gp_cpus')} and {v.get('ziips')} "
        f"({v.get('os')}); the Kafka broker on an IBM z15. The sink connector puts persistent 1KB messages to a "
        "queue from which batch applications on z/OS get them, committing every 100 gets. MQ's class(3) accounting "
        "gave the time every task spent waiting for each latch over 3-minute runs; RMF's CPU Activity report "
        "gave the CPUs' busy and the \"Distribution of in-ready work unit queue\". The repeat on 6 CPUs kept "
        "`tasks.max=4`. The article prints the times of one latch only (19, at 4 and 5 tasks) and, for the "
        "other three hot latches, growth percentages; the CPU experiment is four RMF figures and two rates "
        "({ref}`Data catalog <data-catalog>`)."))


ERRATA = ("Errata: {ref}`E002 <errata-e002>`: latch 19's growth is printed as 50 % but its two times give 53 %; the "
          "growth table and the comparison with N(N−1) use the times.")

WAITERS = ("The article says the times are for \"all tasks\", which may include the getting applications, so the "
           "share of connector tasks is an upper bound on what it would be if only they waited.")

RUNS = ("The article's figures: 3 CPUs, 75 % busy, sufficient 45 % of the time (so some ready work waited 55 % of "
        "the time, close to the 60 % IBM's reading of the report takes as CPU contention); 6 CPUs, 47 % busy, "
        "sufficient 65 %, with \"the throughput achieved increased 37%\". The distribution does not separate CPs "
        "from zIIPs, and the connector's work is mostly zIIP-eligible while the busy figures are the "
        "general-purpose CPUs' alone.")

CPU_EFFECT = (
    "The article adds what the latches did from 3 to 6 CPUs: \"the average latch times are 75-90% less\"; "
    "\"latch 19 on the 6 CPU configuration spends 10% less time but makes many more requests of that type\"; "
    "latches \"12, 24 and 31 spend 40 to 70% less time waiting for the latch\". When a task that holds a latch "
    "waits to be dispatched, every task queued on the latch waits too, so a CPU shortage turns into latch "
    "waits: the direction the latches moved, not a prediction of their 75–90 %. The latches remain a limit "
    "with 6 CPUs: more CPUs shorten the waits, they do not remove the contention on one queue.")



def published_growth(g) -> str:
    """The article's four hot latches, in its order, beside N(N−1) (book data only)."""
    from mqperf.data.views import kafka_latch_cpus as view
    from mqperf.models import contention

    pub = view.published()
    growth = pub["growth"]
    coh = (float(contention.coherency_growth(4, 5)) - 1) * 100
    lines = []
    for row in growth.itertuples():
        timed = g[g["latch"].str.startswith(f"latch {row.latch} ")] if len(g) else g
        grew = float(timed["total_pct"].iloc[0]) if len(timed) else row.printed_pct
        need = ((1 + grew / 100) / (1 + coh / 100) - 1) * 100
        lines.append(f"{int(row.rank)}. latch {row.latch} ({row.names}): printed +{prose.num(row.printed_pct)} %"
                     + (f", +{prose.num(grew)} % from its times" if len(timed) else "") + "; "
                     + (f"N(N−1)·X matches it if throughput fell {prose.num(-need)} % from 4 to 5 tasks"
                        if need < 0 else
                        f"faster than N(N−1) even at constant throughput (it would need a throughput gain of "
                        f"{prose.num(need)} %, and the article says throughput fell)"))
    l19 = g[g["latch"].str.startswith("latch 19")] if len(g) else g
    e002 = (f"Latch 19 (BMXL3) is printed as \"increased 50 % from 293 seconds to 449 seconds\"; the two times give "
            f"+{prose.num(l19['total_pct'].iloc[0])} % ({{ref}}`erratum E002 <errata-e002>`), which the tables use. "
            if len(l19) else "")
    return (
        e002 + "The article lists the four hot latches \"in order of highest latch times\" with their growth from "
        "4 to 5 tasks; only latch 19 has times, the other three only printed percentages, which may carry the "
        "same kind of slip. It prints no rate at 5 tasks, but says the rate \"decreased with additional tasks\" "
        "past two, so X(5) ≤ X(4) and each latch's wait per message grew at least as much as its total. In the "
        "article's order:\n\n" + "\n".join(lines) + "\n\nSo latches 24 and 12 grow faster than pairwise whatever "
        "the throughput did; latches 19 and 31 fit N(N−1)·X if throughput fell by the amounts above, which the "
        "article does not print. A latch whose hold time lengthens as it gets hotter, or a holder waiting for a "
        "CPU while it holds the latch, grows faster than pairwise.")



# -- sentences ---------------------------------------------------------------------------------



def growth_sentences(g) -> list[str]:
    """What the growth table says, latch by latch."""


    out = []
    for row in g.itertuples():
        name = f"{prose.quoted(row.latch)} from {row.tasks_from} to {row.tasks_to} tasks"
        if not math.isfinite(row.coherency_pct):
            out.append(f"{name}: the total wait grew {prose.pct(row.total_pct)}; N(N−1) is zero at one task, so "
                       "there is no pairwise growth to compare with.")
            continue
        found = _growth_verdict(row)
        if row.normalised:
            s = (f"{name}: the wait per message grew {prose.pct(row.per_msg_pct)} (total {prose.pct(row.total_pct)}, "
                 f"throughput {prose.pct(row.x_change_pct)}), against {prose.pct(row.coherency_pct)} for N(N−1): "
                 f"{found}.")
        else:
            s = (f"{name}: the total wait grew {prose.pct(row.total_pct)}, against {prose.pct(row.coherency_pct)} "
                 f"for N(N−1) (with no rate for both runs, as if throughput did not change); {found}. "
                 f"Total waits grow like N(N−1)·X, so the growth matches N(N−1) exactly if throughput "
                 f"{_change(row.x_change_for_pairwise_pct)}.")
        out.append(s)
    if len(out) > 8:  # a long file: the table has every row, the text the first few and a count
        out = out[:6] + [f"… and {prose.count(len(out) - 6, 'more pair')} of task counts in the table."]
    return [prose.bullets(out)]


def _growth_verdict(row) -> str:
    """The growth against N(N−1), with the test that decided it (or why there is none)."""
    if row.verdict.startswith("untested"):
        return "with one measurement per task count there is no scatter to test this difference against"
    if row.verdict.startswith("within"):
        return f"the data cannot tell this growth from N(N−1)'s ({row.test})"
    return f"{row.verdict} ({row.test})"



def waiters(w) -> str:
    """Little's law in words: the most tasks waiting, and rows with more waiting than there are."""
    top = w.loc[numbers.idxmax(w["mean_waiting"])]
    over = w[w["share"] > 100]
    return prose.paragraph(
        f"The most: on average {prose.num(top['mean_waiting'])} tasks waiting for {prose.quoted(top['latch'])} "
        f"with {prose.num(top['tasks'])} tasks, {prose.pct(top['share'])} of them.",
        (f"In {prose.count(len(over), 'row')} more tasks wait than there are: the latch times include other "
         "work than the tasks counted (other applications, MQ's own tasks).") if len(over) else None)


def mmc(table) -> str:
    """Which side of RMF M/M/c falls, by how much, and what that suggests."""
    err = table["error_pts"]
    n = len(table)
    if (err > 0).all():
        side = "more time with sufficient CPUs than RMF saw"
    elif (err < 0).all():
        side = "less time with sufficient CPUs than RMF saw"
    else:
        side = "more time with sufficient CPUs than RMF saw in some runs and less in others"
    span = (f"by {prose.num(err.abs().min())} to {prose.num(err.abs().max())} points"
            if n > 1 else f"by {prose.num(abs(err.iloc[0]))} points")
    return prose.paragraph(
        f"M/M/c expects {side} ({'in ' + prose.count(n, 'run') if n > 1 else 'in the one run'}), {span}.",
        "Work burstier than Poisson (a commit or a latch release readying several tasks at once) has less time "
        "with sufficient CPUs at the same load; a closed population of tasks waiting for each other usually has "
        "more." if err.abs().max() > 5 else "Within 5 points: at these loads a Poisson model describes RMF's share.")


def cross(cross, factors, refused) -> str:

    parts = []
    if factors:
        parts.append(f"Each k is exactly identified (one run for one parameter): "
                     f"{'the other runs are its only test' if len(cross) else 'with no other run, it is not tested'}.")
    if len(cross):
        worst = cross.loc[numbers.idxmax(cross["error_pts"].abs())]
        parts.append(f"Across {prose.count(len(cross), 'prediction')}, the errors run from "
                     f"{prose.num(cross['error_pts'].min())} to {prose.num(cross['error_pts'].max())} points; the worst, "
                     f"k = {prose.num(worst['k'])} from {prose.quoted(worst['calibrated_on'])} predicting "
                     f"{prose.quoted(worst['predicting'])}, gives {prose.pct(worst['predicted_pct'])} against "
                     f"{prose.pct(worst['rmf_pct'])}.")
        tested = cross[cross["test"] != ""]
        if tested.empty:
            parts.append("With one measurement per run there is no scatter to test these errors against, so the data "
                         "cannot tell whether one load factor holds across the runs.")
        else:
            missed = tested[tested["beyond"]]
            row = (missed if len(missed) else tested).iloc[0]
            if len(missed):
                parts.append(f"One load factor does not carry from one run to another: k from "
                             f"{prose.quoted(row['calibrated_on'])} misses {prose.quoted(row['predicting'])} by more "
                             f"than the runs' scatter ({row['test']}; each of the {prose.count(len(tested), 'prediction')} "
                             "tested at 5 % over their number).")
            else:
                parts.append("Every error is within the runs' scatter, so one load factor may hold across these runs "
                             f"(the largest: {row['test']}).")
    if refused:
        parts.append(f"{prose.listing(prose.quoted(x) for x in refused)}: a share of 0 or 100 % has no load factor.")
    return prose.paragraph(*parts)


def _moved(name: str, a, b, column: str, unit: str, *, sd: str | None = None, scale=(1.0, 1.0)):
    """How a run quantity moved from run ``a`` to run ``b``, and whether a Welch t-test decided it.

    ``sd`` names the column whose scatter (times ``scale``) tests it; returns (words, tested)."""

    from mqperf.data import aggregate
    from mqperf.models.differences import welch

    x, y = float(a[column]), float(b[column])
    col = aggregate.sd_column(sd or column)
    na, nb = int(a.get(aggregate.COUNT, 1) or 1), int(b.get(aggregate.COUNT, 1) or 1)
    sa = float(a[col]) * scale[0] if col in a and pd.notna(a[col]) else None
    sb = float(b[col]) * scale[1] if col in b and pd.notna(b[col]) else None
    test = welch(x, sa, na, y, sb, nb, what=f"the change in {name.removeprefix('the ')}")
    unit = f" {unit}" if unit else ""
    tested = "one measurement" not in test.test
    if tested and test.holds and x:
        return f"{name} {_change((y - x) / x * 100)} ({test.test})", True
    if tested:
        return (f"{name} went from {prose.num(x)} to {prose.num(y)}{unit}, a change within the runs' scatter "
                f"({test.test})"), True
    return f"{name} went from {prose.num(x)} to {prose.num(y)}{unit}", False


def _change(pct: float) -> str:

    return f"{'rose' if pct >= 0 else 'fell'} by {prose.pct(abs(pct))}"


def more_cpus(a, b, ma, mb) -> str:
    """From the run with fewest CPUs (``a``, its M/M/c row ``ma``) to the one with most (``b``, ``mb``)."""
    parts = [f"From {prose.quoted(a['label'])} to {prose.quoted(b['label'])}:"]
    moves = []
    if pd.notna(a["rate_msg_s"]) and pd.notna(b["rate_msg_s"]):
        moves.append(_moved("the rate", a, b, "rate_msg_s", "msg/s"))
        moves.append(_moved("the CPU per message", a, b, "cpu_us_per_msg", "µs", sd="cpu_us_row"))
    moves.append(_moved("the busy CPUs", a, b, "busy_cpus", "", sd="busy_pct", scale=(a["gp_cpus"] / 100,
                                                                                      b["gp_cpus"] / 100)))
    parts.append("; ".join(words for words, _ in moves) + ";")
    parts.append(f"RMF's time with sufficient CPUs went from {prose.pct(a['sufficient_pct'])} to "
                 f"{prose.pct(b['sufficient_pct'])}, and M/M/c's mean wait for a CPU from "
                 f"{prose.num(ma['wait_bursts'])} to {prose.num(mb['wait_bursts'])} CPU bursts.")
    if not any(tested for _, tested in moves):
        parts.append("With one measurement per run these differences are not tested against any scatter.")
    return " ".join(parts)


def line(fit) -> str:
    """What identifies the measured relation."""
    return "The line has two parameters; " + (
        "two runs fix it exactly, so it has no interval and nothing tests it but a third run."
        if fit.df_resid <= 0 else f"{prose.count(fit.df_resid, 'residual degree')} of freedom give its "
                                  "intervals.")


# -- the plan ---------------------------------------------------------------------------------------

def _semicolons(items: list[str]) -> str:
    """A list whose items hold commas: "a; b; and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return "; ".join(items[:-1]) + "; and " + items[-1]


def column(model: str, fits: dict) -> str:
    """The plan table's column of a model's answer (and, less "CPUs, ", the model's name in tables)."""
    if model == "M/M/c at k·A":
        return f"CPUs, M/M/c at k = {prose.num(float(fits[model].params['k']))}"
    return f"CPUs, {model}"


def beyond(hi, target, busy, most_cpus, most_share, most_work) -> str:
    """Why an answer leaves the measured runs, or "" when it does not."""
    why = []
    if math.isfinite(hi) and hi > most_cpus:
        why.append(f"past the most CPUs measured ({prose.num(most_cpus)})")
    if target > most_share:
        why.append(f"a share past the largest measured ({prose.num(most_share)} %)")
    if busy > most_work * (1 + 1e-9):
        why.append(f"more work than any run carried ({prose.num(most_work)} busy CPUs)")
    return "; ".join(why)


def answer(r, p, runs, table, ranking, fits, failed, accepted, target) -> str:
    # The answer the reader asked for: the target rate or the parameter's work when given (the
    # last rows), else the work of the run with most CPUs.
    asked = bool(p.get("target_rate_msg_s") or p.get("plan_busy_cpus"))
    own = table[table["work to carry"] == f"{runs.iloc[-1]['label']} work"]
    main = table.iloc[-1] if asked or own.empty else own.iloc[-1]
    n = len(runs)
    ranked = ranking[ranking["aicc"].notna()]
    models = [m for m in MODELS if m in fits]
    intro = {"M/M/c": "M/M/c", "M/M/c at k·A": (
        f"M/M/c at k·A, with one load factor k = {prose.num(float(fits['M/M/c at k·A'].params['k']))} fitted to "
        + ("every run" if n > 1 else "the one run") if "M/M/c at k·A" in fits else ""), "line in per-CPU busy": "the line in per-CPU busy through the runs "
                                                                          "(which ignores the CPU count)"}
    parts = [f"{prose.count(len(models), 'model').capitalize()} give the share from the CPUs and their load: "
             + _semicolons([intro[m] for m in models]) + "."]
    if len(ranked) >= 2 and len(accepted) == 1:
        trail = ranked[~ranked["accepted"]]
        unranked = ranking[ranking["aicc"].isna()]
        parts.append(f"By AICc over the {prose.count(n, 'run')} the data prefer {WORDS[accepted[0]]}: "
                     + prose.listing(f"{WORDS[m]} trails by {prose.num(d)}" for m, d in zip(trail["model"],
                                                                                          trail["delta"]))
                     + ("" if unranked.empty else "; " + prose.listing(
                         f"{WORDS[m]} is not ranked (AICc needs at least {prose.num(k)} runs for it)"
                         for m, k in zip(unranked["model"], unranked["needs_runs"]))) + ".")
    else:
        unranked = ranking[ranking["aicc"].isna()]
        why = []
        if len(unranked):
            why.append(f"{prose.count(n, 'run')} rank{'s' if n == 1 else ''} "
                       + ("none of them" if len(unranked) == len(ranking) else prose.listing(
                           WORDS[m] for m in unranked["model"]))
                       + " (AICc needs at least " + prose.listing(
                           f"{prose.num(k)} for {WORDS[m]}" for m, k in zip(unranked["model"], unranked["needs_runs"]))
                       + ")")
        close = ranked[ranked["accepted"]]
        if len(close) >= 2:
            why.append(f"AICc sets {prose.listing(WORDS[m] for m in close['model'])} less than {prose.num(SET_APART)} apart")
        parts.append(f"The data cannot decide between {prose.listing(WORDS[m] for m in accepted)}: "
                     + "; ".join(why) + ".")
    for m, why in failed.items():
        parts.append(f"{WORDS[m][0].upper() + WORDS[m][1:]} is not fitted: {why}.")
    if "line in per-CPU busy" in fits and not math.isfinite(cpu_share.busy_limit_pct(fits["line in per-CPU busy"], target)):
        line = fits["line in per-CPU busy"]
        parts.append("The line in per-CPU busy gives no busy limit: " + (
            "in your runs the share does not fall as busy rises." if float(line.params["b"]) >= 0 else
            f"it reaches {prose.num(target)} % only at no load at all."))
    what = f"{prose.quoted(main['work to carry'])} ({prose.num(main['busy CPUs'])} busy CPUs)"
    lo, hi = main["_lo"], main["_hi"]
    beyond = main["extrapolated"] != "no"
    if not math.isfinite(hi):
        parts.append(f"No model the data accept reaches {prose.num(target)} % of the time with sufficient CPUs for "
                     f"{what} with up to {cpu_share.PLAN_LIMIT:,} CPUs.")
        return prose.paragraph(*parts)
    each = prose.listing(f"{WORDS[m]} says {prose.num(main[column(m, fits)])}" for m in models
                         if math.isfinite(main[column(m, fits)]))
    answer = (f"needs {prose.num(hi)} CPU{'' if hi == 1 else 's'}" if lo == hi else
              f"needs between {prose.num(lo)} and {prose.num(hi)} CPUs")
    parts.append(f"For at least {prose.num(target)} % of the time with sufficient CPUs, {what} "
                 + prose.extrapolated(answer, beyond) + f": {each}.")
    if lo != hi:
        parts.append("The spread is what these runs cannot decide: runs at more CPU counts and loads would rank the "
                     "models and narrow it.")
    if beyond:
        parts.append(f"The answer is extrapolated: {main['extrapolated'][5:]}.")
    rate = p.get("target_rate_msg_s")
    if rate and runs["rate_msg_s"].notna().any():
        if rate > runs["rate_msg_s"].max():
            r.extrapolated(f"the target rate {prose.num(rate)} msg/s, past the largest measured "
                           f"({prose.num(runs['rate_msg_s'].max())} msg/s)")
        parts.append("The rate row assumes that the latches allow that rate and that the CPU per message stays at the "
                     "figure of the run with most CPUs.")
    return prose.paragraph(*parts)
