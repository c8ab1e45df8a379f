"""The IMS bridge chapter's words: its sentences, made from the results, and its passages about
the published measurements (seed: the IMS bridge article).

The about-passages are shown only when the chapter runs on the book's own dataset
(:meth:`Results.about`): the system the article measured, what it changed and said, and where it
overstates. The sentences (fits, predictions, plan, CF queueing) are true on any data.
"""

from __future__ import annotations

import math

from mqperf.chapters.ims_bridge import HEADROOM, TARGET_DIGITS
from mqperf.models import evidence
from mqperf.present import prose


def system(r, pts) -> None:
    if not r.book_data:
        # Counts in words only up to ten (prose.count): a larger count is no result a table shows.
        n = pts["series"].nunique()
        r.text("system", f"Your file holds {prose.count(n, 'series', 'series') if n <= 10 else 'many series'}, "
                         f"with CPU counts from {int(pts['cpus'].min()):,} to {int(pts['cpus'].max()):,}; the "
                         "article's system and tuning steps are not part of it.")
        return
    from mqperf.data import views

    env = views.system("ims_bridge")
    listing = "\n".join(f"* {c}, {a.replace('_', ' ')}: {v}" for c, a, v in
                        zip(env["component"], env["attribute"], env["value"]))
    r.about("system", f"""Moving from IMS V12 to IMS V13, the IMS bridge (OTMA) throughput of a set
of MQ request/reply tests fell from about 11,000 to 700 transactions per second. Three queue
managers in a queue sharing group ran each on its own LPAR; queue manager 1 shared LPAR 1 with the
IMS control region and its 16 message processing regions (MPRs), queue managers 2 and 3 reached IMS
through XCF. Batch jobs on every LPAR looped putting a message to the IMS bridge queue and waiting
for the reply. The {{ref}}`Data catalog <data-catalog>` gives every quote:

{listing}""")


def tuning(r) -> None:
    r.about("tuning_about", """The settings the article changed on IMS V13
({ref}`dataset <data-ims_bridge_tuning>`):

* **PWFI** (pseudo wait-for-input) was already on, "but it does make a difference".
* **QBUF**: IMS 13's initial value was 5 message-queue buffers where IMS 10 had been tuned to,
  and IMS 12 fell back to, 255. The IMS trace report field *NUMBER OF WAITS BECAUSE NO BUFFER
  AVAILABLE* shows a shortage. The value chosen is not printed.
* **PSBW** from 24 KB to 200 KB: not all MPRs were processing work because there was not
  enough storage to run them together; afterwards all 16 did.
* **Online log data sets** from 50 to 1,500 cylinders each, and from 5 to 20 of them: they
  had switched often and the archive jobs had run out of free logs.
* **IMSMON** at 270 cylinders: not a performance change, but the old size could not hold a
  minute of trace data.
* **zHPF** on all three LPARs: "in some cases" 20 % more throughput, most on the LPAR with
  the IMS region.

Only the zHPF step has a measured effect of its own; the others are reported together: "all of
these changes brought the IMS v13 bridge tests up to parity with IMS v12". No model can apportion
the recovery among them.""")


def rates(r) -> None:
    r.about("rates_about", """The rates are as printed ({ref}`dataset <data-ims_bridge_rates>`); the
CPU configuration gives the dedicated CPs of LPARs 1, 2 and 3, and only LPAR 1 changed, so the
chapter fits the rate against LPAR 1's CPs. The tuned IMS V13 rate on 3:3:3 is not printed: the
article says it reached parity with IMS V12, so the book uses IMS V12's "around 11,000" and marks
the point `derived`. IMS V13 beat IMS V12 only after LPAR 1 had more CPs; no IMS V12 run on 6:3:3
or 9:3:3 is reported, so the gain belongs to the CPs, not to the version
({ref}`erratum E037 <errata-e037>`). The article calls 6:3:3 "still constrained" and reports
LPARs 2 and 3 (three CPs each) constrained at 9:3:3, with the CF 75 % busy.""")


def plan(r) -> None:
    r.about("plan_about", """The article itself says that driving harder needs CPs on LPARs 1 and 2,
a system change on LPAR 3, and the CF: LPAR 1's CPs are not the only thing to add, and no fit of
these three points sees the other limits.""")


def cf(r) -> None:
    r.about("cf_about", """The article gives the CF's busy share (75 %) at the 9:3:3 peak only, on its
four dedicated processors ({ref}`dataset <data-test_environments>`), and calls 75 % too high
without stating a limit; the chapter's limit is the parameter `cf_max_util`.""")


def errata(r) -> None:
    r.about("errata", """Errata in the source for this chapter:

* {ref}`E037 <errata-e037>`: "eventually IMS V13 had a higher throughput than IMS V12" compares
  IMS V13 on more CPs with IMS V12 on fewer; at equal CPs the article reports parity.""", title=False)


# -- sentences -------------------------------------------------------------------------------------



def the(model: str) -> str:
    """A model's name in a sentence: "the USL", "Amdahl's law"."""
    return model if model.startswith("Amdahl") else f"the {model}"


def few_df(table) -> str | None:
    """What a small residual df does to the intervals: the Student-t quantile they use."""
    few = table[(table["df_resid"] > 0) & (table["df_resid"] <= 2)]
    if few.empty:
        return None
    df = int(few["df_resid"].min())
    t = few.loc[few["df_resid"] == df, "t95"].iloc[0]
    return (f"With {prose.count(df, 'residual degree', 'residual degrees')} of freedom the 95 % intervals use a "
            f"Student-t quantile of {prose.num(t)}, so they span most of the possible range.")


def unfitted(missing: dict) -> str | None:
    """The series no model could fit, or None."""
    if not missing:
        return None
    names = prose.listing(prose.quoted(s) for s in missing)
    return (f"{names} {'has' if len(missing) == 1 else 'have'} fewer than two distinct CPU counts, so no model is "
            "fitted to " + ("it" if len(missing) == 1 else "them") + ": they are shown as measured.")


def disagreement(r, table, res, tops) -> str | None:
    """Where the fits of one series agree (the points) and where they part (beyond them).

    A limit or peak is a number only when its parameters identify it (λ/σ needs σ's interval
    clear of 0 by less than a factor 10 end to end), and beyond the measured CPUs it is
    labelled an extrapolation and recorded.
    """
    out = []
    for series, g in table.groupby("series", sort=False):
        if len(g) < 2:
            continue
        worst = g["rmse"].max()
        parts = []
        past = False
        for row in g.itertuples():
            fit = res[(series, row.key)]
            if row.model == "bottleneck model":
                parts.append(f"the bottleneck model stops at {prose.num(row.limit)} tx/s")
                past |= math.isfinite(row.at_cpus) and row.at_cpus > tops[series]
            elif row.model == "Amdahl's law":
                ci = fit.conf_int().loc["sigma"] if fit.df_resid > 0 else None
                known = ci is not None and bool(evidence.identified(float(ci["lower"]), float(ci["upper"])))
                if not math.isfinite(row.limit):
                    parts.append("Amdahl's law keeps rising without limit")
                elif known:
                    parts.append(f"Amdahl's law keeps rising towards {prose.num(row.limit)} tx/s")
                    past = True
                else:
                    parts.append("Amdahl's law keeps rising, towards a limit λ/σ the data cannot tell (σ's 95 % "
                                 "interval reaches 0 or spans more than a factor 10)")
            elif math.isfinite(row.at_cpus):
                parts.append(f"the USL's modelled peak is {prose.num(row.limit)} tx/s at {prose.num(row.at_cpus)} CPUs")
                past |= row.at_cpus > tops[series]
            else:
                parts.append("the USL has no peak")
        close = (f"the fits pass within {prose.num(worst)} tx/s (RMSE) of the points" if math.isfinite(worst) else
                 "the fits leave no residual degrees of freedom to measure their scatter by")
        text = f"In {prose.quoted(series)} {close}, and disagree about what comes next: {prose.listing(parts)}"
        if past:
            r.extrapolated(f"{series}: the modelled limits and peaks past the measured {prose.num(tops[series])} CPUs")
            text += f" (extrapolated: past the {prose.num(tops[series])} CPUs measured)"
        out.append(text + ".")
    return " ".join(out) or None


def validation(hold, loo) -> str | None:

    out = []
    for series, g in hold.groupby("series", sort=False) if len(hold) else []:
        said = []
        for row in g.itertuples():
            way = "over-predicts" if row.error_pct > 0 else "under-predicts"
            said.append(f"{the(row.model)} {way} it by {prose.num(abs(row.error_pct))} %")
        out.append(f"From {prose.listing(g['fitted_on'].iloc[0].split(', '))} CPUs, predicting {prose.quoted(series)} at "
                   f"{int(g['cpus'].iloc[0]):,}: {prose.listing(said)}.")
    if len(loo):
        err = loo["error %"].abs()
        out.append(f"Leaving out each point in turn gives errors of {prose.num(err.min())} % to "
                   f"{prose.num(err.max())} %.")
    return " ".join(out) or None


def plan_reading(r, plan, ranking, pts, target, n_max, given_target) -> str:
    """Per series, the plan from the fits the data accept: one answer when the ranking prefers
    one fit, else the range of the fits it cannot set apart, said as what the data cannot decide."""


    out = []
    if not given_target:
        out.append(f"No target was given (`-p target_tps`), so the plan asks for {HEADROOM:g} times the largest "
                   f"measured rate: {prose.num(target, TARGET_DIGITS)} tx/s.")
    for series, g in plan.groupby("series", sort=False):
        top = int(pts.loc[pts["series"] == series, "cpus"].max())
        rk = ranking[ranking["series"] == series]
        ok = g[g["accepted"]]
        head = f"For {prose.quoted(series)}"
        if (rk["verdict"] == "preferred").any():
            best = rk[rk["verdict"] == "preferred"].iloc[0]
            trail = rk[~rk["accepted"]]
            head += (f", by AICc over its {prose.count(int(best['points']), 'point')} the data prefer "
                     f"{the(best['model'])}" + (" (" + prose.listing(
                         f"{the(m)} {'misses the replicates' if miss else 'trails by ' + prose.num(d)}"
                         for m, miss, d in zip(trail["model"], trail["misses"], trail["delta"])) + ")"
                                              if len(trail) else "") + ":")
        else:
            unranked = rk[rk["aicc"].isna()]
            why = []
            if len(unranked):
                needs = sorted(set(int(v) for v in unranked["needs"]))
                why.append(f"{prose.count(int(rk['points'].max()), 'point')} rank "
                           + ("none of them" if len(unranked) == len(rk) else prose.listing(
                               the(m) for m in unranked["model"]))
                           + f", as AICc needs at least {prose.listing(prose.num(v) for v in needs)}")
            rejected = rk[~rk["accepted"]]
            if len(rejected):
                why.append(prose.listing(f"{the(m)} {'misses the replicates' if miss else 'trails by ' + prose.num(d)}"
                                         for m, miss, d in zip(rejected["model"], rejected["misses"], rejected["delta"])))
            head += (f" the data cannot decide between {prose.listing(the(m) for m in ok['model'])}"
                     + (f" ({'; '.join(why)})" if why else "") + ":" if len(ok) > 1 else
                     f" {'; '.join(why)}, which leaves {the(ok['model'].iloc[0])}:")
        said = []
        for row in ok.itertuples():
            if row.reachable:
                said.append(f"{the(row.model)} says {prose.extrapolated(f'{int(row.cpus):,} CPUs', row.extrapolated)}"
                            + ("" if row.within else f", more than the {n_max:,} the plan allows (max_cpus)"))
            else:
                said.append(f"{the(row.model)} never reaches {prose.num(target, TARGET_DIGITS)} tx/s"
                            + (f" (its limit, {prose.num(row.limit)} tx/s, is below it)"
                               if math.isfinite(row.limit) and row.limit < target else ""))
        text = head + " " + "; ".join(said) + "."
        beyond = [int(c) for c, e in zip(ok["cpus"], ok["extrapolated"]) if e]
        if beyond:
            r.extrapolated(f"{series}: {prose.listing(f'{c:,}' for c in beyond)} CPUs for {prose.num(target, TARGET_DIGITS)} tx/s, "
                           f"past the {top:,} CPUs measured")
        out.append(text)
    return " ".join(out)


def cf_reading(r, cf, head, target, most, need) -> str:

    at = head[(head["rate_tps"] == cf["rate_tps"]) & (head["cf_processors"] == cf["processors"])].iloc[0]
    text = (f"At {prose.num(cf['rate_tps'])} tx/s the CF's {cf['processors']:,} processors were "
            f"{prose.num(cf['busy_pct'])} % busy: a CF request waits {prose.num(at['p_wait_pct'])} % of the time, "
            f"for {prose.num(at['wait'])} service times on average.")
    ok = head[(head["rate_tps"] == cf["rate_tps"]) & head["within_max"]]
    if len(ok):
        first = ok.iloc[0]
        text += (f" With {int(first['cf_processors']):,} processors the CF would be {prose.num(first['busy_pct'])} % "
                 f"busy and {prose.num(first['p_wait_pct'])} % of requests would wait.")
    now = head[(head["rate_tps"] == target) & (head["cf_processors"] == cf["processors"])].iloc[0]
    if target != cf["rate_tps"]:
        past = target > cf["rate_tps"]
        state = ("would be overloaded" if not now["stable"] else f"would be {prose.num(now['busy_pct'])} % busy")
        text += f" At {prose.num(target, TARGET_DIGITS)} tx/s, {cf['processors']:,} processors {state}"
        text += f", and staying at or below {prose.num(most * 100)} % busy needs {prose.extrapolated(f'{need:,}', past)}."
        if past:
            r.extrapolated(f"{need:,} CF processors for {prose.num(target, TARGET_DIGITS)} tx/s, past the measured "
                           f"{prose.num(cf['rate_tps'], TARGET_DIGITS)} tx/s")
    else:
        text += f" Staying at or below {prose.num(most * 100)} % busy needs {need:,} processors."
    return text + (" This rests on one measured point: the CF cost per transaction cannot be checked against a "
                   "second.")
