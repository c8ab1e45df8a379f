"""The zEDC compression chapter's words: what each Hill curve may say, the sentences of every
section, made from the results, and the passages about the published measurements (seed 004).

A curve's plateau and half-way size are said only as far as its data identify them
(:func:`reading`); the passages (:meth:`Results.about`) are shown only on the book's own data.
"""

from __future__ import annotations

import numpy as np

from mqperf import numbers
from mqperf.chapters.zedc_compression import METRICS
from mqperf.models import saturation
from mqperf.present import prose
from mqperf.present.prose import num, pct


def kb(value) -> str:
    """A message size in KB as sentences give it: exact (4,096, not 4,100), as the tables show it."""
    return num(value, 6)


# -- about the published measurements ----------------------------------------------------------------

def system(r) -> None:
    """The measured system, before its environment table."""
    r.about("measured_about", (
        "The source article ran an MQ V9 queue manager on an IBM z13 (2964-703, three processors) with the LPAR's "
        "single zEDC processor, and archives written to an SMS data class with zEDC compaction required (`ZR`) "
        "and the `EXTENDED` data set name type; without `EXTENDED`, its first attempt compressed nothing. The "
        "{ref}`Data catalog <data-catalog>` gives every quote; the environment rows are these:"))


def tests(r) -> None:
    """The two kinds of test, before the effects table."""
    r.about("tests_about", (
        "Two kinds of test. A dedicated persistent workload drove the log to its limit at four message sizes, with "
        "dual logs and dual archives, once with and once without compressed archives "
        "({ref}`dataset <data-zedc_log_compression>`). And a `RECOVER CFSTRUCT` read 4 GB of highly compressible "
        "shared-queue data (offloaded to SMDS) back from single archives, uncompressed and compressed "
        "({ref}`dataset <data-zedc_recovery>`). The effects by size, as printed (percent increase with zEDC over "
        "the same run without):"))


def dfwbp(r) -> None:
    """Why throughput gained: the archives' I/O, not compression itself."""
    r.about("dfwbp_about", (
        "The throughput gain has a cause the article names: log copy 2 and the archives shared a disk control unit "
        "whose cache showed disk fast write bypass (DFWBP); compressing the archives cut their I/O, DFWBP fell to 0 "
        "and log copy 2's response time with it, which \"manifested in a 45% improvement in peak throughput with "
        "large messages\". The gain is a property of that I/O configuration: a log whose devices are not contended "
        "would not see it."))


def errata(r) -> None:
    r.about("errata", "{ref}`E039 <errata-e039>`: the recovery cost is printed as CPU milliseconds per MB, which "
                      "the measured machine could not have spent; the book reads it as microseconds by default.")


# -- sentences ---------------------------------------------------------------------------------------

def measured(effects) -> str:
    """What a reader's data give, effect by effect."""
    said = []
    for metric, g in effects.groupby("metric", sort=False):
        said.append(f"the {METRICS[metric]} at {prose.count(len(g), 'message size')} "
                    f"({kb(g['size_kb'].min())} to {kb(g['size_kb'].max())} KB)")
    return f"Your data gives {prose.listing(said)}."


def unknown(what: str, lo: float, hi: float, unit: str) -> str:
    """"the data cannot tell X: its 95 % interval (a to b) reaches zero / spans a factor f"."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"the data cannot tell {what}: it has no finite interval"
    if lo <= 0:
        return f"the data cannot tell {what}: its 95 % interval ({num(lo)} to {num(hi, unit=unit)}) reaches zero or below"
    return f"the data cannot tell {what}: its 95 % interval ({num(lo)} to {num(hi, unit=unit)}) spans a factor {num(hi / lo)}"


def reading(effect: str, res, size_kb, pct_values) -> str:
    """What a Hill fit may say of one effect: only what its data identify.

    Rules (issue 21): the curve's plateau and half-way size are read only when the effect rises
    with size beyond its scatter (:func:`trend`); the half-way size s50 is stated only when its
    95 % interval identifies it (:func:`mqperf.models.evidence.identified`) and it lies within the
    sizes measured; the plateau only when its interval identifies it and s50 lies within the
    sizes (else the plateau is an extrapolation, said so); with no residual degrees of freedom
    the data cannot tell how far either is from the truth.
    """
    from mqperf.models import evidence

    lo_x, hi_x = float(np.min(size_kb)), float(np.max(size_kb))
    slope = saturation.slope_test(size_kb, pct_values)
    side = evidence.within(res.s50, lo_x, hi_x)
    if slope is not None and slope[1] < 0.05 and slope[0] < 0:
        return (f"The {effect} falls with message size ({slope[2]}), which a Hill curve (an effect that rises and "
                "levels off) cannot describe: its plateau and half-way size mean nothing here.")
    # A rise is tested against a constant with the Hill fit's own scatter where it has some, else
    # (three sizes) by the slope against ln(size).
    rise = saturation.rise_test(res)
    test = (rise[0], rise[1]) if rise is not None else ((slope[1], slope[2]) if slope is not None else None)
    if test is not None and test[0] >= 0.05:
        return (f"The {effect} shows no rise with message size beyond its scatter ({test[1]}), so the data cannot "
                "tell a plateau or a half-way size.")
    rises = f"The {effect} rises with message size" + (f" ({test[1]})" if test is not None else "")
    if res.df_resid <= 0 or res.cov is None:
        return (f"{rises}, but the data cannot tell its plateau or half-way size: with no residual degrees of "
                f"freedom the curve through the points (plateau {pct(res.y_max)}, half of it at {num(res.s50)} KB) "
                "has no interval.")
    ci = res.conf_int()
    y_lo, y_hi = (float(v) for v in ci.loc["y_max"])
    s_lo, s_hi = res.s50_conf_int()
    if side == "above":
        return (f"{rises}, and the fitted curve has not reached half its plateau by the largest size measured: its "
                f"half-way size, {num(res.s50)} KB, lies beyond {kb(hi_x)} KB, so the data cannot tell where the "
                f"effect levels off (the fitted plateau, {pct(res.y_max)}, is an extrapolation).")
    if side == "below":
        out = (f"{rises}, but the fitted half-way size, {num(res.s50)} KB, lies below the smallest size "
               f"measured ({kb(lo_x)} KB), so the data cannot tell where the rise happens")
        plateau = evidence.identified(y_lo, y_hi)
        return out + (f"; across the sizes measured it stays near its plateau, {pct(res.y_max)} "
                      f"({prose.interval(y_lo, y_hi, '%')})." if plateau else ".")
    plateau, half = evidence.identified(y_lo, y_hi), evidence.identified(s_lo, s_hi)
    bend = saturation.bend_test(res)
    if bend is not None and bend[0] >= 0.05:
        # A line in log size does as well: the data do not show the effect levelling off at all.
        return (f"{rises}, but the data cannot tell whether it levels off: the Hill curve fits no better than a "
                f"straight line in log size ({bend[1]}), so neither its plateau (fitted at {pct(res.y_max)}) nor its "
                f"half-way size (fitted at {num(res.s50)} KB) is located.")
    if not half:
        # Without the bend located, the plateau it leads to is not located either.
        out = (f"{rises}, but {unknown('where it reaches half its plateau', s_lo, s_hi, 'KB')}, so the plateau "
               f"(fitted at {pct(res.y_max)}) is not located either.")
    elif plateau:
        out = (f"{rises} and levels off near {pct(res.y_max)} ({prose.interval(y_lo, y_hi, '%')}), with half of it "
               f"reached at about {num(res.s50)} KB ({prose.interval(s_lo, s_hi, 'KB')}).")
    else:
        out = (f"{rises}, with half of its plateau reached at about {num(res.s50)} KB "
               f"({prose.interval(s_lo, s_hi, 'KB')}); {unknown('the plateau itself', y_lo, y_hi, '%')}.")
    if res.active_bounds:
        out += (f" Here {prose.listing(res.active_bounds)} is held at its bound, so the intervals are conditional on "
                "that.")
    return out


def leave_one_out(table) -> str:
    """How far each effect's held-out sizes were missed, and the refits that held a bound."""
    said = []
    for effect, g in table.groupby("effect", sort=False):
        ok = g.dropna(subset=["error (points)"])
        if ok.empty:
            said.append(f"No held-out size of the {effect} could be predicted.")
            continue
        worst = ok.loc[numbers.idxmax(ok["error (points)"].abs())]
        said.append(f"Held out in turn, every size of the {effect} is predicted within "
                    f"{num(abs(worst['error (points)']))} percentage points (the largest miss at "
                    f"{kb(worst['held-out size (KB)'])} KB, predicted {pct(worst['predicted (%)'])} against "
                    f"{pct(worst['measured (%)'])}).")
        bound = ok[ok["refit"].str.startswith("on a bound")]
        if len(bound):
            said.append(f"{prose.count(len(bound), 'refit').capitalize()} of the {effect} "
                        f"{'holds' if len(bound) == 1 else 'hold'} a parameter at its bound (plateau "
                        f"{prose.listing(pct(v, 4) for v in bound['refit plateau (%)'])}): such a plateau is an "
                        "extrapolation, not an estimate.")
    return " ".join(said)


def per_message(cpu: dict) -> str:
    """Whether compression costs more or less CPU per message, as far as both readings agree."""
    table, low, high = cpu["table"], cpu["low"], cpu["high"]
    first, last = 0, len(table) - 1
    span = (f"between {pct(low[first])} and {pct(high[first])} at {kb(table['message size (KB)'][first])} KB"
            + (f", and between {pct(low[last])} and {pct(high[last])} at {kb(table['message size (KB)'][last])} KB"
               if last > first else ""))
    if "more" not in cpu:
        # No scatter to test against: the readings are described as given, no direction is claimed.
        if (low > 0).all():
            head = "As given, both readings show more CPU per message at every size"
        elif (high <= 0).all():
            head = "As given, neither reading shows more CPU per message at any size"
        else:
            head = "As given, the readings differ in sign across the sizes"
        return (f"{head}: {span}. With no estimate of the values' scatter (one value per size and a Hill fit with "
                "no residual degrees of freedom), no direction is tested.")
    more, less, how = cpu["more"], cpu["less"], cpu["how"]
    if more.all():
        text = f"Either way, compression costs more CPU per message at every size ({how}): {span}."
    elif less.all():
        text = f"Either way, compression costs less CPU per message at every size ({how}): {span}."
    else:
        said = []
        if more.any():
            said.append(f"costs more CPU per message at "
                        f"{prose.listing(kb(v) for v in table['message size (KB)'][more.to_numpy()])} KB")
        if less.any():
            said.append(f"costs less CPU per message at "
                        f"{prose.listing(kb(v) for v in table['message size (KB)'][less.to_numpy()])} KB")
        rest = ~(more | less)
        tail = (f"; at {prose.listing(kb(v) for v in table['message size (KB)'][rest.to_numpy()])} KB the readings "
                "disagree or the data cannot tell" if rest.any() else "")
        text = (f"Under both readings, compression {prose.listing(said)}{tail} ({how}). The readings span {span}."
                if said else f"At no size do both readings agree beyond the values' scatter ({how}): {span}.")
    return text


def where(row) -> str:
    """", above the largest size measured (4,096 KB)" for an answer beyond the sizes measured, else ""."""
    if row["side"] == "within":
        return ""
    return (f", {'above the largest' if row['side'] == 'above' else 'below the smallest'} size measured "
            f"({kb(row['edge (KB)'])} KB)")


def at_size(answers, size_kb: float) -> str:
    """Each effect modelled at the reader's size, with its band where the fit has one."""
    said = []
    for _, row in answers.iterrows():
        effect, beyond, there = row["effect"], bool(row["extrapolated"]), where(row)
        fit, lo, hi = row["modelled (%)"], row["95 % lower (%)"], row["95 % upper (%)"]
        at = prose.extrapolated(f"at {kb(size_kb)} KB", beyond)
        if not np.isfinite(lo):
            said.append(f"The {effect} {at} is modelled at {pct(fit)}{there}, with no band: the fit has "
                        "no residual degrees of freedom, so the data cannot tell how far the true effect may be.")
        elif lo <= 0 <= hi:
            said.append(f"The {effect}'s band {at} includes zero{there}: the data cannot promise any effect at "
                        "that size.")
        else:
            said.append(f"The {effect} {at} is modelled at {pct(fit)} (95 % band {pct(lo)} to {pct(hi)}){there}.")
    return " ".join(said)


def recovery(plan, gb: float, unit: str, *, book_recovery: bool, book_data: bool) -> list[str]:
    """The recovery's time and CPU, compressed against uncompressed, and whose figures they are."""
    said = []
    by = plan.set_index("archives")
    # Whose numbers: on a reader's run with the book's recovery measurements, the sentence says so.
    whose = "With the book's recovery measurements (seed 004), r" if book_recovery and not book_data else "R"
    if {"uncompressed", "zedc compressed"} <= set(by.index):
        u, c = by.loc["uncompressed"], by.loc["zedc compressed"]
        said.append(f"{whose}ecovering {num(gb)} GB from compressed archives takes "
                    f"{num(c['time (s)'] / u['time (s)'])} times as long ({num(c['rate (MB/s)'])} MB/s against "
                    f"{num(u['rate (MB/s)'])}) and {num(c['CPU (s)'] / u['CPU (s)'])} times the CPU, whichever unit the "
                    f"cost is read in: {num(u['time (min)'])} min uncompressed and {num(c['time (min)'])} min "
                    f"compressed, keeping {num(c['processors busy during recovery'])} of one processor busy.")
    if book_recovery:
        said.append(("These are single measurements of highly compressible data (seed 004); " if book_data else
                     "These are the book's figures (seed 004: one `RECOVER CFSTRUCT` of highly compressible data), "
                     "not measurements of your system; ") + (
                        "the book reads their printed \"CPU ms\" per MB as µs (erratum E039): set `cost_unit` to "
                        "\"ms\" to see that the printed unit would need more processors than the measured machine had."
                        if unit == "us" else
                        "read as printed (\"CPU ms\" per MB), the book's figures need more processors than the "
                        "measured machine had wherever the last column says no (erratum E039)."))
    return said


def capacity(needs, p, book_data: bool) -> str:
    """The features each kind of message needs, scaled from the book's one queue manager."""
    machine, qms, share, cap = p["machine"], p["queue_managers"], p["archive_rate_share"], p["zedc_max_util"]
    said = [f"with {kind} messages the offered load is {num(load)} "
            f"{'feature' + chr(39) + 's' if num(load) == '1' else 'features' + chr(39)} worth and keeping each at most "
            f"{pct(cap * 100)} busy needs {prose.count(need, 'feature')}"
            + (" (one feature alone would be overloaded)" if load >= 1 else "") for kind, load, need in needs]
    # The utilisations are the book's (seed 004: one queue manager on a z13), scaled by the reader's
    # queue managers and archive rate: the sentence says whose numbers they are.
    return (f"Scaled from the book's measurement of one queue manager archiving on a z13's zEDC "
            f"Express feature (seed 004{'' if book_data else ', not your system'}): on a {machine}, "
            f"with {prose.count(qms, 'queue manager')} archiving at {pct(share * 100)} of that "
            f"measured peak, {prose.listing(said, 'and')}.")


def capacity_caption(limits, p) -> str:
    qms, share, cap = p["queue_managers"], p["archive_rate_share"], p["zedc_max_util"]
    drawer = [v for k, v in limits.items() if "drawer" in k]
    lpars = [v for k, v in limits.items() if "partitions" in k]
    return (f"zEDC Express features needed for {prose.count(qms, 'queue manager')} at {pct(share * 100)} of "
            f"the measured peak rate, each feature at most {pct(cap * 100)} busy") + (
        f" (a PCIe I/O drawer takes up to {num(drawer[0])}; each can be shared by up to {num(lpars[0])} LPARs)"
        if drawer and lpars else "")


def fitted(fitset) -> str:
    """What the fits identify, and what each curve may say of its effect (:func:`reading`)."""
    said = [prose.identification({METRICS[m]: res for m, res in fitset.results.items()})]
    for metric, res in fitset.results.items():
        said.append(reading(METRICS[metric], res, res.x, res.y))
    for metric, why in fitset.failures.items():
        said.append(f"The {METRICS[metric]} is not fitted: {why}.")
    return " ".join(said)


def residuals(fitset) -> str:
    readings = []
    for m, res in fitset.results.items():
        words = prose.residual_reading(res.y - res.fittedvalues, res.y, "points")
        readings.append(f"For the {METRICS[m]}, {words[0].lower()}{words[1:]}")
    return " ".join(readings)


def residuals_caption(fitset) -> str:
    steps = [f"{METRICS[m]} given to {num(prose.printed_step(res.y))} points, rounding up to "
             f"±{num(0.5 * prose.printed_step(res.y))}" for m, res in fitset.results.items()]
    return f"Residuals of the Hill fits ({'; '.join(steps)})"
