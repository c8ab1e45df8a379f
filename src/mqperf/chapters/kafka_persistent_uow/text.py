"""Persistent messages and units of work: the chapter's sentences and its about-passages.

Every sentence that states a result is computed here from the fits, readings, checks and plans
(:mod:`.fits`), with :mod:`mqperf.present.prose`, so every number it states is a rounding of one
a table of the same run shows. The ``ABOUT_*`` passages describe the published measurements; the
chapter shows them through ``Results.about``, so they appear only on the book's own dataset.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.kafka_persistent_uow import X
from mqperf.chapters.kafka_persistent_uow.fits import b_for, fraction_label, known, x_max
from mqperf.data import aggregate
from mqperf.models.fitset import FitSet
from mqperf.present import prose

ABOUT_MEASURED = """\
Same system as the other Kafka chapters (MQ for z/OS 9.3.3 on a z16 LPAR with 3 general-purpose
CPUs and 2 zIIPs, DS8950 disk, the broker on a z15, 10Gb network). The *MQ as a source* connector
got **persistent 1KB messages** that a local batch application put at the same time; each commit
waits for the MQ log to be written. The article (see the {ref}`dataset <data-kafka_uow_rates>`)
measured rates "ranging from 2270 to 2510 persistent 1KB messages per second", "a 10% improvement
moving from 1 to 5 tasks" and, once zHPF shortened the log I/O, "a 35-55% increase in throughput".
With one task it "saw a peak rate of 2271 messages per second" when the putter used MQPUT/commit,
and "27,396 messages per second" when 100 messages were put before committing. For the first, the
connector "would use a model of MQGET(success), MQGET(fail), commit", one message per commit; for
the second, "up to 250 messages per commit". These two rates are the points below."""

ABOUT_ATTRIBUTION = """\
Between the two published runs the connector's unit of work changed, and so did the putter: an
application committing every message forces a log write per message, so in the slow run the
connector's commits also queued behind the putter's log writes. The model puts the whole
difference on the connector's unit of work; $t_c$ is "the commit time with a put/commit neighbour
on the same log", not a property of the connector alone."""

ABOUT_READING = """\
The article describes the slow run's unit of work step by step, "MQGET(success), MQGET(fail),
commit", one message per commit, but under its chart says "the number of messages per commit
increases from 2-3 to 250". The chapter reads one message per commit and shows 1 to 3 as the range
above; the two statements are recorded as {ref}`erratum E045 <errata-e045>`. Earlier editions of
this chapter read 2.5, which more than doubles the commit time and the batch for 90 %. For the fast
run the article says "up to 250 messages per commit": a cap, not a count. The chapter reads 250 (the
cap, reached when messages are always there) and keeps 100 to 250 as the range, 100 being the
putter's own unit of work; that lower end is the book's reading, not the article's. Earlier
editions read exactly 250, so the asymptote check below missed how much the reading moves it."""

ABOUT_LOG = """\
The article quotes MP16 ("How much log space does my message use?"): "a 1KB message that is
put/committed logs 2088 bytes", "the same message with get/commit logs just 492 bytes", and "gets
of 10 messages of 1KB followed by a single commit would log 178 bytes per message" (the
{ref}`dataset <data-kafka_log_bytes>`). The put/commit point has one unit-of-work size, so its
per-message and per-commit bytes cannot be separated."""

ABOUT_CHECKS = """\
The references are the article's non-persistent source connector with one task and 1KB messages:
"the Kafka connector can get 28,000 messages per second from the queue when configured with a
single connector task" (sustainable) and the 1KB peak of the message-size table. It is a loose
check: a putter's log contention inflating the slow run's commit time would move $X_\\infty$ too."""

ABOUT_WHATIF = """\
The article says that with zHPF "the I/O times were significantly reduced, and this enabled the
connector to see a 35-55% increase in throughput", without the unit of work or the base rate. The
table applies the gains at the slow run's unit of work, where commits dominate; that is the model's
reading, not a measurement."""

ABOUT_PLAN = """\
For scale: a putter committing every message logs "2088 bytes" per 1KB message (MP16, quoted by the
article), far more than the gets above. It is the putters' logging that the connector's commits wait
behind, which is why the article finds the source connector limited by the log when applications
put persistent messages at the same time."""


def aggregation_sentence(frame: pd.DataFrame) -> str:
    if X in frame:
        return aggregate.note(frame, per="series and messages-per-commit value", value="rate_msg_s")
    return aggregate.note(frame, per="operation and messages-per-commit value", value="log_bytes_per_msg")


def rows_caption(caption: str, frame: pd.DataFrame) -> str:
    """``caption``, with the file rows averaged into the points when there were several per point."""
    if frame is None or aggregate.COUNT not in frame:
        return caption
    return f"{caption} ({int(frame[aggregate.COUNT].sum()):,} file rows averaged into {len(frame):,} points)"


def why_not(lo: float, hi: float, unit: str = "µs") -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "it has no finite interval"
    return f"its {prose.interval(lo, hi, unit)} " + ("reaches zero" if lo <= 0 else "spans more than a factor 10")


def fit_sentences(fits: FitSet, fraction: float) -> list[str]:
    def line(group, r) -> str:
        b_max = float(np.max(r.x))
        name = prose.quoted(group)
        (tc, tc_lo, tc_hi), (tm, tm_lo, tm_hi) = known(r, "t_c"), known(r, "t_m")
        if r.t_m <= 0:
            return (f"In {name} a commit takes {prose.num(r.t_c * 1e6, unit='µs')} and the time "
                    "per message is 0: the rate grows in proportion to the unit of work, with no asymptote.")
        if tm == "unknown":
            commit = (f" A commit takes {prose.num(r.t_c * 1e6, unit='µs')} ({prose.interval(tc_lo, tc_hi, 'µs')})."
                      if tc == "identified" else "")
            return (f"In {name} the data cannot tell the time per message ({why_not(tm_lo, tm_hi)}), so not the "
                    f"asymptote either: up to {prose.num(b_max)} messages per commit the rate has not levelled off "
                    f"enough to show it.{commit}")
        if r.t_c <= 0 or tc == "bound":
            return (f"In {name} the commit time is 0: the rate does not depend on the unit of work, "
                    f"{prose.num(x_max(r), unit='msg/s')} at any size.")
        if tc == "unknown":
            return (f"In {name} the data cannot tell the commit time ({why_not(tc_lo, tc_hi)}); a message takes "
                    f"{prose.num(r.t_m * 1e6, unit='µs')}, so the rate approaches X∞ = "
                    f"{prose.num(x_max(r), unit='msg/s')}, and the unit of work that reaches "
                    f"{fraction_label(fraction)} of it cannot be told.")
        need = b_for(r, fraction)
        return (f"In {name} a commit takes {prose.num(r.t_c * 1e6, unit='µs')} and a message "
                f"{prose.num(r.t_m * 1e6, unit='µs')}: the rate approaches X∞ = {prose.num(x_max(r), unit='msg/s')}, "
                + prose.extrapolated(f"reaches {fraction_label(fraction)} of it at {prose.num(need)} messages per "
                                     "commit", need > b_max)
                + f", and the largest measured unit of work ({prose.num(b_max)} messages) reaches "
                f"{prose.pct(float(r.predict([b_max])[0]) * r.t_m * 100)} of it.")

    return prose.per_fit(fits, line)


def sensitivity_sentences(sens: pd.DataFrame, fraction: float) -> list[str]:
    if sens.empty:
        return []
    out = []
    refs = [c for c in sens.columns if c.startswith("X∞ vs ")]
    for name, g in sens.groupby("series", sort=False):
        t = g["t_c"] * 1e6
        ratio = g["t_c"] / g.loc[g["central"], "t_c"].iloc[0]
        out.append(
            f"Read across the stated range, {prose.quoted(name)}'s commit time runs from "
            f"{prose.num(t.min(), unit='µs')} to {prose.num(t.max(), unit='µs')} (up to "
            f"{prose.num(ratio.max())}× the data's reading), the messages per commit for "
            f"{fraction_label(fraction)} from {prose.num(g['b_for'].min())} to {prose.num(g['b_for'].max())}, "
            f"and the asymptote from {prose.num(g['x_max'].min(), unit='msg/s')} to "
            f"{prose.num(g['x_max'].max(), unit='msg/s')}: a reading, not a confidence interval.")
        if refs:
            miss = g[refs].abs().mean(axis=1)
            best = g.loc[numbers.idxmin(miss)]
            out.append(f"Of these readings, {prose.quoted(best['read as'])} puts the asymptote closest to the "
                       f"non-persistent reference rates (off by {listing_pct(best[refs])}).")
    return out


def listing_pct(values) -> str:
    return prose.listing([prose.pct(float(v)) for v in values])


def check_sentences(checks: pd.DataFrame) -> list[str]:
    if checks.empty:
        return []
    out = []
    loo = checks[checks["check"].str.startswith("leave out")].dropna(subset=["error (%)"])
    if len(loo):
        out.append(f"Left out in turn, each point is predicted by the refit from the others within "
                   f"{prose.pct(float(loo['error (%)'].abs().max()))}.")
    asym = checks[checks["check"].str.startswith("X∞")]
    if not len(asym):
        return out
    ranged = "readings: error from (%)" in asym and asym["readings: error from (%)"].notna().any()
    if ranged:
        lo = asym["readings: error from (%)"].astype(float)
        hi = asym["readings: error to (%)"].astype(float)
        inside = int(((lo <= 0) & (hi >= 0)).sum())
        where = ("every reference rate lies within that range" if inside == len(asym) else
                 "no reference rate lies within that range" if inside == 0 else
                 f"{prose.count(inside, 'x').split()[0]} of the {prose.count(len(asym), 'reference rate')} "
                 f"{'lies' if inside == 1 else 'lie'} within that range")
        out.append(f"Across the readings of the ranged points, the asymptote runs from "
                   f"{prose.num(float(asym['readings: lowest X∞ (msg/s)'].min()), unit='msg/s')} to "
                   f"{prose.num(float(asym['readings: highest X∞ (msg/s)'].max()), unit='msg/s')}, off the "
                   f"reference {'rates' if len(asym) > 1 else 'rate'} by {prose.pct(float(lo.min()))} to "
                   f"{prose.pct(float(hi.max()))}: {where}. A range read from the source is not a confidence "
                   "interval, so this is a consistency check, not a test.")
        return out
    err = asym["error (%)"].astype(float)
    if (err > 0).all():
        side = ("above every non-persistent rate given: the expected side, as a non-persistent commit is "
                "cheap but not free, so its rate sits a little below 1/t_m")
    elif (err < 0).all():
        side = ("below every non-persistent rate given: a persistent asymptote should not lie below a "
                "non-persistent rate, so the fit's time per message is too long for these data")
    else:
        side = "on both sides of the non-persistent rates given"
    out.append(f"The asymptote is off the reference rates by {prose.pct(float(err.min()))} to "
               f"{prose.pct(float(err.max()))}, {side}." if len(err) > 1 else
               f"The asymptote is off the reference rate by {prose.pct(float(err.iloc[0]))}, {side}.")
    return out


def plan_sentences(plan: pd.DataFrame, fraction: float, plan_b: float, fits: FitSet | None = None) -> list[str]:
    out = []
    for name, g in plan.groupby("series", sort=False):
        need = g[g["why"].str.startswith("reaches")]
        asked = g[g["why"].str.startswith("asked")].iloc[0]
        if len(need):
            n = need.iloc[0]
            first = (f"In {prose.quoted(name)}, {prose.num(n['messages per commit'])} messages per commit reach "
                     f"{fraction_label(fraction)} of the asymptote ({prose.num(n['rate (msg/s)'], unit='msg/s')}"
                     + ("; extrapolated); " if n["beyond measured"] else "); "))
        else:
            first = (f"In {prose.quoted(name)} the data cannot tell which unit of work reaches "
                     f"{fraction_label(fraction)} of the asymptote (see the fit above); ")
        tail = f", {prose.pct(asked['% of X∞'])} of X∞" if not math.isnan(asked["% of X∞"]) else ""
        out.append(first + prose.extrapolated(f"{prose.num(plan_b)} messages per commit give "
                                              f"{prose.num(asked['rate (msg/s)'], unit='msg/s')}{tail}",
                                              asked["beyond measured"]) + ".")
    return out


def log_sentences(fits: FitSet) -> list[str]:
    def line(group, r) -> str:
        (lm, lm_lo, lm_hi), (lc, lc_lo, lc_hi) = known(r, "l_m", 1.0), known(r, "l_c", 1.0)
        name = prose.quoted(group)
        if lm == "unknown":
            return f"In {name} the data cannot tell the log bytes per message l_m ({why_not(lm_lo, lm_hi, 'bytes')})."
        if lc == "unknown":
            return (f"{name} logs {prose.num(r.l_m)} bytes per message; the data cannot tell the bytes per commit l_c "
                    f"({why_not(lc_lo, lc_hi, 'bytes')}).")
        if r.l_m <= 0:
            return f"{name} logs {prose.num(r.l_c)} bytes per commit; l_m is 0, so every byte is per commit."
        b_max, within = float(np.max(r.x)), r.batch_for_excess(0.1)
        return (f"{name} logs {prose.num(r.l_m)} bytes per message and {prose.num(r.l_c)} bytes per commit; "
                + prose.extrapolated(f"{prose.num(within)} messages per commit bring a message within 10 % of l_m",
                                     within > b_max) + ".")

    return prose.per_fit(fits, line)


def mixed_sentence(mixed) -> str:
    res, table = mixed
    worst = float(table["error (%)"].abs().max())
    df = res.df_resid
    claim = (f"has {prose.count(df, 'residual degree')} of freedom, so it reports intervals, yet"
             if df > 0 else "has no residual degrees of freedom and")
    return (f"Fitted as one curve, the operations' points give a model that {claim} misses the measured bytes "
            f"by up to {prose.pct(worst)}: an interval does not protect against fitting two operations as one.")


def plan_log_sentence(table: pd.DataFrame, plan_b: float) -> str:
    at = table[table["messages per commit"] == float(plan_b)]
    parts = []
    for _, row in at.iterrows():
        op = prose.quoted(row["operation"])
        beyond = bool(row["beyond measured"] or row["rate beyond measured"])
        if row["rate of series"] == "none":
            parts.append(prose.extrapolated(f"{op} logs {prose.num(row['log bytes per message'])} bytes per message",
                                            bool(row["beyond measured"]))
                         + " (no series is stated for it, so no log bandwidth)")
            continue
        parts.append(f"{op} logs {prose.num(row['log bytes per message'])} bytes per message, "
                     f"{prose.num(row['log (MB/s)'], unit='MB/s')} at the rate of {prose.quoted(row['rate of series'])} "
                     f"({prose.num(row['at rate (msg/s)'], unit='msg/s')}; {row['which series']}"
                     + ("; extrapolated)" if beyond else ")"))
    return f"At {prose.num(plan_b)} messages per commit, {prose.listing(parts)}."
