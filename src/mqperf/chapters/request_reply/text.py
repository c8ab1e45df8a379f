"""Request/reply: the chapter's sentences, each computed from the results it states.

What the file holds, what Little's law says of its rows, what the response time the USL implies
is worth, what the MVA fitted to the rates can claim (the bottleneck's demand and ceiling, only
where the ranking does not prefer the USL, the interval identifies the demand, and the rates
reach :data:`mqperf.models.closed_loop.LEVELLED` of the ceiling), how the models rank, the
planning answers, and where each demand figure came from and what the MVA from them implies
(always saying whose figures they are).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.request_reply import FITTED, N, NAMED
from mqperf.chapters.request_reply.fits import Demands, figure, interval, think_s
from mqperf.models import evidence
from mqperf.models.closed_loop import LEVELLED
from mqperf.models.fitset import FitSet
from mqperf.present import prose


def read(rows, example: bool) -> str:
    series = rows["series"].unique()
    many = prose.count(len(series), "series", "series") if len(series) <= 10 else "many series"
    text = (f"The file's rows fall into {many} ({prose.listing(prose.quoted(s) for s in series[:NAMED])}"
            + (", …" if len(series) > NAMED else "") + "); the Little's-law table below counts them.")
    if example:
        text = ("**This is a synthetic example, not a measurement**: `tools/make_request_reply_example.py` made it "
                "from a known MVA system (the book's default demands below) with noise from a fixed seed, and put "
                "one row off Little's law on purpose. Run the chapter on your own measurements with "
                "`mqperf run request_reply --data FILE`. " + text)
    return text


def little_reading(checked: pd.DataFrame, summary: pd.DataFrame, tolerance: float, messages: int) -> str:
    bad = int((~checked["consistent"]).sum())
    tol = prose.pct(100 * tolerance)
    if bad == 0:
        text = (f"Every row agrees with Little's law within {tol}: X·(R + Z) is between "
                f"{prose.num(summary['smallest ratio'].min(), 4)} and {prose.num(summary['largest ratio'].max(), 4)} "
                "times the stated clients, so every row goes into the fits.")
        if float((checked["ratio"] - 1).abs().max()) <= 1e-9:
            text += (" It holds exactly in every row, as it does when the response times were computed from the "
                     "rates (mqperf does so for cphtestp's results, which give none): then the check tests nothing.")
        return text
    rows = prose.count(bad, "row") if bad <= 10 else "Rows"
    text = (f"{rows} {'disagrees' if bad == 1 else 'disagree'} with Little's law by more than {tol} "
            f"(listed below); ")
    one = bad == 1
    text += (f"the fits leave {'it' if one else 'them'} out." if bad < len(checked) else
             f"that is every row, so the fits use {'it' if one else 'them all'}: read them with care.")
    near = summary[(summary["median ratio"] / messages - 1).abs() <= tolerance] if messages > 1 else summary.iloc[:0]
    for s in near.itertuples(index=False):
        text += (f" In {prose.quoted(s.series)} the median ratio, {prose.num(s[5], 4)}, is near the messages per "
                 "request: the rate may count messages rather than requests.")
    return prose.not_supported(text)


def implied_reading(table: pd.DataFrame, pts: pd.DataFrame, tolerance: float) -> str:
    done = table.dropna(subset=["error %"]) if len(table) else table
    if done.empty:
        return ""
    worst = done.loc[numbers.idxmax(done["error %"].abs())]
    text = (f"The response time the throughput fit implies, N / X(N) − Z, misses the measured response time by at "
            f"most {prose.pct(abs(worst['error %']))} ({prose.quoted(worst['series'])} at "
            f"{prose.count(int(worst['clients']), 'client')}: {prose.num(worst['USL-implied response (ms)'])} ms "
            f"implied against {prose.num(worst['measured response (ms)'])} ms measured).")
    if abs(worst["error %"]) <= 100 * tolerance:
        return text + " That is within the Little's-law tolerance: the fit reads the response time as well as the rows agree."
    if think_s(pts, worst["series"]) * 1e3 > worst["measured response (ms)"]:
        return text + (" There the think time is longer than the response time, and N / X(N) − Z is a small "
                       "difference of large numbers: a few per cent of error in the fitted rate becomes many per cent "
                       "in the response time. Read the response time from the measurements or the MVA.")
    return text + " There the throughput curve misses the rate: read the response time from the measurements or the MVA."


def calibrated_identification(cal: FitSet) -> str:
    """What the MVA fits can claim, in words of their own (the USL's identification sentence is beside them)."""
    res = cal.results
    if not res:
        return "No series has two or more client counts, so the MVA cannot be fitted to the measurements."
    exact = [s for s, r in res.items() if r.exactly_identified]
    stuck = [s for s, r in res.items() if r.df_resid <= 0 and not r.exactly_identified]
    rest = [s for s, r in res.items() if r.df_resid > 0]
    out = []
    if stuck:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in stuck)} has no residual degrees of "
                   "freedom, yet misses its points: read it as a description, not an estimate.")
    if exact:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in exact)} is exactly identified (two "
                   "client counts for two demands): it has no intervals.")
    if rest:
        out.append(f"The MVA fitted to {prose.listing(prose.quoted(s) for s in rest)} leaves residual degrees of "
                   "freedom, and its demands have intervals.")
    return " ".join(out)


def calibrated_reading(cal: FitSet, pts: pd.DataFrame, ranking: pd.DataFrame, accepted: dict) -> list[str]:
    """Per series: the bottleneck's demand and the ceiling, said only when the ranking does not prefer the
    USL by 2 or more (rates that do not behave like a closed loop with one bottleneck), the interval
    identifies D_q, and the rates reach :data:`LEVELLED` of the ceiling. When the MVA from the figures
    wins, both are MVAs and the fitted one still reads the measured system."""
    def line(group, r) -> str:
        name, top = prose.quoted(group), int(pts.loc[pts["series"] == group, N].max())
        mine = ranking[(ranking["series"] == group) & (ranking["model"] == FITTED)]
        delta = float(mine["Δ (criterion)"].iloc[0]) if len(mine) else math.nan
        chosen = accepted.get(group)
        if chosen is not None and chosen.kind == "usl" and delta >= 2:
            return (f"{name}: the rates follow the {chosen.model} better than this one-queue MVA (its criterion is "
                    f"{prose.num(delta)} higher in the ranking below): they do not behave like a closed loop with "
                    "one bottleneck, so its demand is no verdict on the system.")
        lo, hi = interval(r, "d_queue")
        verdict = evidence.identified(lo * 1e6, hi * 1e6)
        share = 100 * float(np.max(r.y)) * r.d_queue
        if not verdict or share < 100 * LEVELLED:
            if r.df_resid <= 0:
                why = "two client counts fit the model exactly, with nothing left to estimate its uncertainty"
            elif not verdict:
                why = (f"its {prose.interval(lo * 1e6, hi * 1e6, 'µs')} "
                       + ("reaches zero" if not lo > 0 else "spans more than a factor 10")
                       if math.isfinite(lo) and math.isfinite(hi) else "it has no finite interval")
            else:
                why = (f"the best measured rate is {prose.pct(share)} of the ceiling the fit puts there, so the "
                       "bottleneck has barely begun to queue")
            return (f"{name}: the data cannot tell the bottleneck's demand ({why}): up to "
                    f"{prose.count(top, 'client')} the rate has not levelled off enough to show a ceiling.")
        return (f"{name}: the measurements put the bottleneck's demand at {prose.num(r.d_queue * 1e6)} µs per "
                f"request ({prose.interval(lo * 1e6, hi * 1e6, 'µs')}), so no number of clients gets past "
                f"{prose.num(r.ceiling)} requests/s ({prose.interval(1 / hi, 1 / lo, 'requests/s')}); the rates "
                "alone cannot name the resource.")

    return prose.per_fit(cal, line)


def ranking_reading(table: pd.DataFrame, accepted: dict, how: dict, example: bool) -> list[str]:
    out = []
    for s, g in table.groupby("series", sort=False):
        name = prose.quoted(s)
        if s not in accepted:
            out.append(f"{name}: {how[s]}, so there is no planning answer.")
            continue
        chosen = accepted[s].model
        if not how[s].startswith("AIC"):
            out.append(f"{name}: {how[s]}, the {chosen}, answers the planning questions.")
            continue
        crit = "AICc" if how[s] == "AICc" else "AIC"
        others = g[(g["model"] != chosen) & g["Δ (criterion)"].notna()]
        close = others[others["Δ (criterion)"] < 2]
        text = (f"{name}: the {chosen} has the lowest {crit}"
                + (f" ({how[s].split(' (')[1].rstrip(')')})" if "(" in how[s] else "")
                + "; " + prose.listing(f"the {o['model']} is {prose.num(o['Δ (criterion)'])} higher"
                                       for o in others.to_dict("records")) + ".")
        if len(close):
            text += " A difference below 2 is no evidence either way."
        kind = accepted[s].kind
        if kind == "figures" and example:
            text += (" The example was generated from these figures, so their winning checks the generator, "
                     "not MQ.")
        elif kind == "figures":
            out.append(text + " The planning answers below come from the figures, which these measurements prefer.")
            continue
        out.append(text + " The planning answers below come from it.")
    return out


def plan_reading(table: pd.DataFrame, target: float, limit: float, top: int) -> list[str]:
    out = []
    t, lim = prose.given(target), prose.given(limit)
    for row in table.to_dict("records"):
        name = f"{prose.quoted(row['series'])} by the {row['model']}"
        need, most = row["clients for the target"], row["most clients within the limit"]
        blind = (f"the rates reach only {prose.pct(row['best measured / ceiling %'])} of its ceiling, too little to "
                 "place it")
        if isinstance(need, (int, np.integer)):
            first = prose.extrapolated(f"reaches {t} requests/s with {prose.count(int(need), 'client')}",
                                       row["target: extrapolated"])
        elif need == "above the ceiling":
            first = (f"does not reach {t} requests/s with any number of clients: {t} requests/s lies above its "
                     f"ceiling ({prose.num(row['model ceiling (requests/s)'])} requests/s)")
        elif need.startswith("cannot tell"):
            first = (f"cannot tell how many clients reach {t} requests/s: more than the "
                     f"{prose.count(int(row['largest measured (clients)']), 'client')} measured, and {blind}")
        else:
            first = f"does not reach {t} requests/s with up to {need.split()[-1]} clients"
        if isinstance(most, (int, np.integer)):
            there = f"{prose.num(row['rate there (requests/s)'])} requests/s there"
            second = (f"keeps the response time within {lim} ms up to {prose.count(int(most), 'client')} "
                      + (f"(extrapolated; {there})" if row["limit: extrapolated"] else f"({there})"))
        elif most.startswith("within"):
            second = f"keeps the response time within {lim} ms at every client count up to {most.split()[-1]}"
        elif most.startswith("cannot tell"):
            second = (f"keeps the response time within {lim} ms at every measured client count; past them it cannot "
                      "tell" + ("" if isinstance(need, str) and need.startswith("cannot tell") else f", as {blind}"))
        else:
            second = f"exceeds {lim} ms even with one client" + (
                f" (extrapolated: the fewest measured is {prose.count(int(row['fewest measured (clients)']), 'client')})"
                if row["limit: extrapolated"] else "")
        out.append(f"{name} {first}, and {second}.")
    return out


def figures_said(p: dict, figures: dict, d: Demands) -> list[str]:
    """Where each demand figure came from: the reader's parameter, or the book's dataset and its quote."""
    said = []
    if d.whose["CPU"] == "book":
        put, get = figure(figures["cpu_costs"], "MQPUT1"), figure(figures["cpu_costs"], "MQGET")
        said.append(f"Queue manager CPU, {prose.num(d.cpu_us)} µs per message (the book's figure): MQPUT1's "
                    f"{prose.num(put['low'])} to {prose.num(put['high'])} µs (midpoint "
                    f"{prose.num((put['low'] + put['high']) / 2)}) plus MQGET's {prose.num(get['low'])} µs, as class(3) "
                    f"accounting measured them for 1 KB messages on the Kafka connector article's z16 "
                    f"(`{p['cpu_costs']}`).")
    else:
        said.append(f"Queue manager CPU, {prose.num(d.cpu_us)} µs per message, as you gave it (`cpu_us_per_msg`).")
    if d.whose["log bytes"] == "book":
        put, get = figure(figures["log_bytes"], "log bytes of a put"), figure(figures["log_bytes"], "log bytes of a get")
        said.append(f"Log, {prose.num(d.log_bytes, 4)} bytes per message (the book's figure): a put and commit "
                    f"({prose.num(put['low'], 4)} bytes) plus a get and commit ({prose.num(get['low'])} bytes) of a "
                    f"1 KB persistent message, one per unit of work (MP16, quoted in the Kafka connector article; "
                    f"`{p['log_bytes']}`).")
    else:
        said.append(f"Log, {prose.num(d.log_bytes, 4)} bytes per message, as you gave it (`log_bytes_per_msg`)"
                    + ("; 0 is a non-persistent workload, with no forced writes." if d.log_bytes == 0 else "."))
    disk = figures["log_disk"]
    if d.whose.get("log bandwidth") == "book":
        said.append(f"Log disk, {prose.num(d.log_mb_s)} MB/s (the book's figure): "
                    f"{figure(disk, 'log disk bandwidth')['figure']} on the NativeHA article's VM (`{p['log_disk']}`); "
                    "a log on faster storage takes less time per byte.")
    elif d.whose.get("log bandwidth") == "yours":
        said.append(f"Log disk, {prose.num(d.log_mb_s)} MB/s, as you gave it (`log_mb_s`).")
    if d.whose.get("log latency") == "book":
        said.append(f"Log force, {prose.num(d.latency_us)} µs per forced write (the book's figure): "
                    f"{figure(disk, 'log write latency')['figure']} on the same VM (`{p['log_disk']}`). A persistent "
                    "message waits for two of them (its put's commit and its get's); concurrent commits share a write "
                    "(group commit), so the latency delays a request without queueing.")
    elif d.whose.get("log latency") == "yours":
        said.append(f"Log force, {prose.num(d.latency_us)} µs per forced write, as you gave it (`log_latency_us`); a "
                    "persistent message waits for two forced writes.")
    if d.whose["network"] == "book":
        said.append(f"Network, {prose.num(d.rtt_us, 4)} µs per message (the book's figure): one round trip at the Q "
                    f"Replication notes' threshold for a healthy channel `nettime` (`{p['network']}`), an upper "
                    "figure for a healthy network rather than a measurement.")
    else:
        said.append(f"Network, {prose.num(d.rtt_us, 4)} µs per message (one round trip), as you gave it "
                    "(`network_rtt_us`).")
    return said


def mva_reading(summary: pd.DataFrame, compare: pd.DataFrame, d: Demands, example: bool, book: bool = False) -> str:
    """What the figures imply, each sentence saying whose figures they are."""
    whose = d.attribution()
    out = []
    for s in summary.to_dict("records"):
        out.append(f"{prose.quoted(s['series'])}: by {whose}, the {s['bottleneck']} would be the bottleneck, with a "
                   f"ceiling of {prose.num(s['ceiling 1/D_max (requests/s)'])} requests/s, and the figures' bounds "
                   f"meet at N* = {prose.num(s['bounds meet at N* (clients)'])} clients. The best measured rate is "
                   f"{prose.pct(s['best / ceiling %'])} of that ceiling.")
    worst_x = compare.loc[numbers.idxmax(compare["rate error %"].abs())]
    resp = compare.dropna(subset=["response error %"])
    tail = ""
    if len(resp):
        worst_r = resp.loc[numbers.idxmax(resp["response error %"].abs())]
        tail = f"; its response time within {prose.pct(abs(worst_r['response error %']))}"
    if example:
        meaning = ("The example was generated from these same figures, so this agreement checks the generator and "
                   "the chapter's arithmetic, not MQ.")
    elif book and not d.all_yours:
        meaning = ("The MVA uses no measurement, and the book's figures among these come from other systems than the "
                   "server these measurements ran on: agreement would be a coincidence of two systems, disagreement is "
                   "expected. Give the server's own figures (`-p cpu_us_per_msg`, ...) to test them against the curves.")
    elif d.all_yours:
        meaning = ("The MVA uses no measurement: agreement says your figures describe the system, disagreement that "
                   "a figure is wrong or a resource is missing.")
    else:
        meaning = ("The MVA uses no measurement, and the book's figures among these describe the systems the book's "
                   "sources measured, not yours: agreement would be a coincidence of two systems, disagreement is "
                   "expected. Give your own figures (`-p cpu_us_per_msg`, ...) to test them against your "
                   "measurements.")
    out.append(f"At the measured client counts the MVA's rate is within {prose.pct(abs(worst_x['rate error %']))} of "
               f"the measurements{tail}. {meaning}")
    return prose.bullets(out)


def implied_demands_reading(implied: pd.DataFrame, tolerance: float) -> str:
    out = []
    for row in implied.to_dict("records"):
        name, d, measured = prose.quoted(row["series"]), row["D from the figures (ms)"], row["response there (ms)"]
        if row["fewest clients"] == 1:
            verdict = ("agree" if abs(d / measured - 1) <= tolerance else "do not agree") if measured > 0 else "cannot be compared"
            first = (f"one client's response time, {prose.num(measured)} ms, is the total demand D; the figures give "
                     f"{prose.num(d)} ms: they {verdict} within {prose.pct(100 * tolerance)}")
        else:
            over = d > measured * (1 + tolerance)
            first = (f"with {prose.count(row['fewest clients'], 'client')} the response time, {prose.num(measured)} ms, "
                     f"bounds D from above; the figures' {prose.num(d)} ms "
                     + ("exceeds it: the figures overstate a demand" if over else "is within it, allowing the tolerance"))
        cap, given = row["D_max at most (µs)"], row["D_max from the figures (µs)"]
        second = (f"the best rate caps D_max at {prose.num(cap)} µs, and the figures' {prose.num(given)} µs "
                  + ("exceeds it: the figures overstate the bottleneck's demand" if given > cap * (1 + tolerance)
                     else "is within it, allowing the tolerance"))
        out.append(f"{name}: {first}; {second}.")
    return prose.bullets(out)


# -- the book's V9.3 data -------------------------------------------------------------------------

ERRATA = ("E100", "E101", "E102", "E103", "E108", "E109", "E110", "E111", "E114")


def about_book(dataset: str, pts: pd.DataFrame, uncertainty: pd.DataFrame) -> str:
    """What the book's request/reply data are: chart readings of the V9.3 xLinux report, with the response time
    derived, and the errata of the datasets read (shown on the book's data only)."""
    lo, hi = float(uncertainty["chart_uncertainty"].min()), float(uncertainty["chart_uncertainty"].max())
    return (
        f"The rates are **read off the charts** of IBM's *MQ V9.3 for Linux (x86-64) Performance Report* "
        f"(`{dataset}`, basis chart): PerfHarness requesters on separate hosts against one queue "
        "manager, round trips per second against the number of requester applications, one curve per workload "
        "(RR-CB, RR-DQ-BB, JMS RR-CC, RR-BB non-persistent and persistent on SSD, SAN and NFS, and RR-BB on SAN "
        "with circular and linear logging). Each marker was located on the embedded chart image; the readings' "
        f"uncertainty, two pixels in round trips per second, is between {prose.num(lo)} and {prose.num(hi)} "
        "requests/s by figure (the \"chart uncertainty\" column of the readings table below). The report prints no "
        "response time, so the chapter derives it as N / X (Little's law with no think time: each requester sends "
        "its next request when the reply arrives); the Little's-law check below therefore holds by construction "
        "and tests nothing here. Every point is one run: no replicates, so the fits' intervals rest on the "
        "scatter of the readings about the curve. The MVA from the figures prices a message with the book's "
        "figures from other systems (a z16's MQ verbs, a VM's log disk), not the report's server: set beside "
        "these curves it shows how far two systems differ, not a model of this one.\n\n"
        "The report's slips in the datasets read here: its lists of tables and figures disagree with the "
        f"captions ({{ref}}`erratum E100 <errata-e100>`, {{ref}}`erratum E101 <errata-e101>`, {{ref}}`erratum E102 <errata-e102>`, {{ref}}`erratum E103 <errata-e103>`; the book uses the captions); "
        f"Table 5's non-persistent RR-BB peak is at a client count Figure 7 does not plot ({{ref}}`erratum E110 <errata-e110>`); "
        f"Table 5 prints sizes as 2K rather than 2KB ({{ref}}`erratum E111 <errata-e111>`); the RR-DQ-BB section refers to itself "
        f"({{ref}}`erratum E114 <errata-e114>`); and the TLS figures of the same chart dataset, which this chapter leaves to the "
        f"TLS CipherSpecs chapter, carry {{ref}}`erratum E108 <errata-e108>` and {{ref}}`erratum E109 <errata-e109>`.")


def peaks_reading(table: pd.DataFrame, against: pd.DataFrame) -> str:
    """What a single printed peak per test can and cannot tell, and how the printed peaks meet the fits."""
    text = ("Each row is one printed peak: the best rate of one run per client count, with the CPU and the clients "
            "there. One point tells the rate the server reached, the CPU it took (CPU % per 100,000 requests/s), and, "
            "by Little's law, the mean response time at that load. It cannot tell the shape of the curve (where the "
            "rate levelled off, whether fewer clients would have done as well, whether more would have lost), and, "
            "with no repeat runs, nothing about the run-to-run spread: a difference between two peaks is not a "
            "tested difference.")
    if against is None or against.empty:
        return text
    worst = against.loc[numbers.idxmax(against["error %"].abs())]
    return text + (f" Where a chart draws the same test, the USL fitted to the readings meets the printed peak, a "
                   f"value the fit did not use, within {prose.pct(abs(float(worst['error %'])))} "
                   f"({prose.quoted(worst['series'])} at {prose.count(int(worst['printed clients']), 'client')}).")
