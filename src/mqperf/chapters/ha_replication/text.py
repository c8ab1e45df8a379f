"""HA replication latency: the chapter's sentences, each computed from the tables it states.

What the file holds, how many round trips each series' requests wait for (said only where k's
interval identifies it: :func:`mqperf.present.prose.estimate`), how well each fit predicts the
points it did not use, and the planning answers (labelled "extrapolated" beyond the measured
delays). The passages about the published measurements are :func:`about_*` (book data only).
"""

from __future__ import annotations

import math

import pandas as pd

from mqperf import numbers
from mqperf.chapters.ha_replication import ADDED, NAMED, SAID
from mqperf.chapters.ha_replication.fits import k_interval
from mqperf.models import evidence
from mqperf.models.fitset import FitSet
from mqperf.present import prose


def read(pts: pd.DataFrame, col: str, example: bool, clients: bool) -> str:
    series = list(dict.fromkeys(pts["series"]))
    text = (f"The data hold {prose.count(len(series), 'series', 'series')} "
            f"({prose.listing(prose.quoted(s) for s in series[:NAMED])}{', …' if len(series) > NAMED else ''}), "
            f"with the delay given as the {SAID[col]} (`{col}`); the table below lists every point.")
    if clients:
        text += (" Each row gives its clients, so the response time is N/rate (Little's law with no think time) "
                 "and the fit's k counts round trips per request.")
    else:
        text += (" The rows give no `clients`: the fit's slope is k/N, and how many round trips a request waits for "
                 "cannot be told from the concurrency.")
    if example:
        text = ("**This is a synthetic example, not a measurement**: two series drawn from R = a + k·d with "
                "a = 4 and 9 ms, k = 4 and 5, 100 clients and 2 % noise from a fixed seed. Run the chapter on your "
                "own runs with `mqperf run ha_replication --data FILE`. " + text)
    return text


def k_reading(fits: FitSet, per_client: bool) -> list[str]:
    """Per series, k (or k/N) said only where its interval identifies it (:func:`evidence.identified`)."""
    out = []
    for name, res in list(fits.results.items())[:NAMED]:
        lo, hi = k_interval(res)
        what, unit = ("k (the round trips a request waits for)", None) if per_client else \
            ("the slope b = k/N", "ms per ms")
        if evidence.identified(lo, hi):
            said = prose.estimate(what, res.slope, lo, hi, unit=unit)
        elif not (math.isfinite(lo) and math.isfinite(hi)):
            said = f"the data cannot tell {what}: the fit has no interval (no residual degrees of freedom)"
        else:
            why = "reaches zero" if lo <= 0 else "spans more than a factor of ten"
            said = f"the data cannot tell {what}: its 95 % interval, {prose.num(lo)} to {prose.num(hi)}, {why}"
        out.append(f"{prose.quoted(name)}: {said}.")
    return out


def validation_reading(loo: pd.DataFrame) -> str:
    done = loo.dropna(subset=["error %"]) if len(loo) else loo
    if done.empty:
        return ("No point could be held out: every series has too few delays to fit without one of them, so the "
                "fits are not checked on points they did not use.")
    worst = done.loc[numbers.idxmax(done["error %"].abs())]
    where = [c for c in done.columns if c.endswith("(ms)")][0]
    text = (f"Fitted without it, each point is predicted within {prose.pct(abs(worst['error %']))} at worst "
            f"({prose.quoted(worst['series'])} at {prose.num(worst[where])} ms: "
            f"{prose.num(worst['predicted without it (requests/s)'])} predicted against "
            f"{prose.num(worst['measured (requests/s)'])} measured).")
    first = done.groupby("series", sort=False)[where].transform("min") == done[where]
    worst_at = done.assign(first=first, size=done["error %"].abs()).sort_values("size", ascending=False) \
        .groupby("series", sort=False).head(1)
    at_first = int(worst_at["first"].sum())
    if len(worst_at) > 1 and at_first > len(worst_at) / 2:
        rest = len(worst_at) - at_first
        which = "every series" if rest == 0 else f"every series but {_word(rest)}" \
            if rest <= 10 else "more than half of the series"
        text += (f" In {which} "
                 "the worst-predicted point is the one at the smallest delay: there the straight line overshoots or "
                 "undershoots, as it does when something other than the round trips (a CPU, the log disk) limits a "
                 "loaded system with little delay. Read k and the planning answers of such series with that in mind.")
    skipped = len(loo) - len(done)
    if skipped:
        text += f" {prose.count(skipped, 'point').capitalize()} could not be held out (too few delays left)."
    return text


def _word(n: int) -> str:
    """A small count as a word ("nine"), as :func:`prose.count` writes it."""
    return prose.count(n, "x").rsplit(" ", 1)[0]


def concurrency_reading(fits: FitSet, per_client: bool, chart: bool) -> str:
    """The range of k over the series whose interval identifies it; the rest counted."""
    if not fits.results:
        return ""
    if not per_client:
        return ("The concurrency file gives no clients, so its slopes are k/N and cannot be compared as round trips "
                "per request.")
    known = {s: r for s, r in fits.results.items() if evidence.identified(*k_interval(r))}
    if not known:
        return "At no requester count does k's interval identify it, so the data cannot tell how k moves with load."
    ks = [r.slope for r in known.values()]
    text = (f"Where its interval identifies it ({_word(len(known))} of the {_word(len(fits.results))} series), k lies between {prose.num(min(ks))} and "
            f"{prose.num(max(ks))} round trips per request." if len(fits.results) <= 10 else
            f"Where its interval identifies it, k lies between {prose.num(min(ks))} and {prose.num(max(ks))} round "
            "trips per request.")
    if chart:
        text += " These are fits to chart readings, with the reading's uncertainty in every point."
    return text


def plan_reading(plan: pd.DataFrame, your: float, col: str, target: float | None) -> list[str]:
    out = []
    for row in plan.to_dict("records")[:NAMED]:
        beyond = row["extrapolated"] != "no"
        if not pd.notna(row["95 % lower"]):
            band = " (no interval: the fit has no residual degrees of freedom)"
        elif row["95 % lower"] <= 0:
            band = (f", but its 95 % interval, {prose.num(row['95 % lower'])} to {prose.num(row['95 % upper'])}, "
                    "reaches zero: the fit cannot tell the rate there")
        else:
            band = f" (95 % interval {prose.num(row['95 % lower'])} to {prose.num(row['95 % upper'])})"
        line = prose.extrapolated(f"{prose.quoted(row['series'])}: at {prose.given(your)} ms of {SAID[col]} the fit "
                                  f"predicts {prose.num(row['rate at your delay (requests/s)'])} requests/s{band}",
                                  beyond)
        if target is not None:
            d = row.get("largest delay for the target (ms)")
            if d is None or (isinstance(d, float) and math.isnan(d)):
                line += f"; {prose.given(target)} requests/s is {row['target: note']}"
            else:
                line += prose.extrapolated(f"; it keeps {prose.given(target)} requests/s up to "
                                           f"{prose.num(d)} ms", row["target: note"] != "within the measured delays")
        out.append(line + ".")
    return out


def model_passage(col: str) -> str:
    base = ("the round trips of the test network itself are part of a" if col == ADDED
            else "a excludes every round trip between the nodes")
    return (f"With d the {SAID[col]}, the fit is R(d) = a + k·d on the response time R = N/rate: {base}, and k "
            "is what a round trip costs in requests' time.")


# -- the published measurements (shown on the book's data only) -------------------------------------

def about_rdqm() -> str:
    return ("The RDQM report (`rdqm_performance_1.1`, MQ V9.0.4, three nodes, ten queue managers) added the delay "
            "with `tc` netem on the data replication links, on each node's sending side (its example names one interface as two links: {ref}`erratum E203 <errata-e203>`). Its Tables 3 to 5 print "
            "the peak rate at each delay (their no-delay columns repeat Table 2, kept once here) and a "
            "\"single thread round-trip latency\" without a unit (ms assumed: {ref}`erratum E200 <errata-e200>`); "
            "the single-requester series are those latencies as rates, 1000 / latency (derived). A request there (the "
            "report's \"round trip\") is two persistent puts and two gets. The report "
            "reckons 1 ms of round trip at about 100 km of fibre. Its Figure 3 (the rate at every requester count) "
            "is the book dataset `rdqm_chart`, chart readings that this chapter reads only when asked "
            "(`--data rdqm_chart`), never mixed with the printed tables ({ref}`erratum E202 <errata-e202>`).")


def about_v93() -> str:
    return ("The V9.3 report (`xlinux93_ha_peak`, Tables 12 to 14) measured a multi-instance queue manager (MIQM, "
            "log on NFS) and RDQM at 0, 1 and 2 ms added to the HA link (appendix B says both log to SAN: {ref}`erratum E113 <errata-e113>`); each peak is at its own requester count, "
            "which the fit uses point by point. The captions say 2KB for tables that hold three message sizes "
            "({ref}`erratum E104 <errata-e104>`), and the text names MIQM and SAN for the 1 and 2 ms figures that "
            "show MIQM and RDQM ({ref}`erratum E105 <errata-e105>`, {ref}`erratum E106 <errata-e106>`). Table numbers "
            "are the captions' under the tables, not the list of tables' ({ref}`erratum E102 <errata-e102>`); the "
            "report's edition date is printed two ways ({ref}`erratum E112 <errata-e112>`).")


def about_nativeha() -> str:
    return ("The Native HA report (`OCP4.12-NativeHA`) has **no added-latency measurements**: its three instances "
            "share one cluster's replication network, so it cannot place Native HA on the curves above. What it "
            "has is Native HA beside a single-instance queue manager (SIQM) on the same hardware, by message size "
            "and CPU limit: the share of the single instance's rate that Native HA keeps at the network's own "
            "round trip, below (the printed tables under its Figures 8 to 10; Native HA / SIQM is derived).")
