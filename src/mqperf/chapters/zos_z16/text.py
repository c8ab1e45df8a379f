"""z/OS on z16: the chapter's sentences, each computed from the results it states, and the
about-passages on the book's data (the report's system, its chart readings and its errata).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.chapters.zos_z16 import ALL, MACHINE, NAMED, WORKLOAD
from mqperf.models import evidence
from mqperf.present import prose

READ_LO, READ_HI = "readings' low %", "readings' high %"
SINGLE_RUNS = ("Each point is one run: the data give no run-to-run spread, so a change at one CPU count is a single "
               "difference that no test can separate from the noise of a rerun.")
REPEATED_RUNS = ("Some points average repeated runs (n and sd in the points table); the comparison uses their means "
                 "and tests no single count's change against that spread.")


def read(pts: pd.DataFrame, example: bool) -> str:
    machines = list(dict.fromkeys(pts[MACHINE]))
    workloads = [w for w in dict.fromkeys(pts[WORKLOAD]) if w != ALL]
    chart = int((pts["basis"] == "chart").sum())
    text = (f"The data give {prose.count(len(pts), 'point')} of peak rate against CPUs on "
            f"{prose.count(len(machines), 'machine')} ({prose.listing(prose.quoted(m) for m in machines[:NAMED])}"
            + (", …" if len(machines) > NAMED else "") + ")"
            + (f" for {prose.count(len(workloads), 'workload')}" if workloads else "") + ".")
    if chart:
        text += (" Every rate is a reading off a chart (basis chart)" if chart == len(pts) else
                 " Some rates are readings off a chart (basis chart), the others printed or measured")
        text += ": the points table's rate basis column says which each is, and the fits and comparisons use them as given."
    if example:
        text = ("**This is a synthetic example, not a measurement**: `tools/make_zos_z16_example.py` made it from "
                "the Universal Scalability Law with known parameters and 1 % noise from a fixed seed. Run the chapter "
                "on your own runs with `mqperf run zos_z16 --data FILE`. " + text)
    return text


def validation_reading(table: pd.DataFrame) -> str:
    done = table.dropna(subset=["error %"]) if len(table) else table
    if done.empty:
        return prose.not_supported("no point could be predicted from the others: every series has too few CPU counts "
                                   "to refit without one")
    worst = done.loc[numbers.idxmax(done["error %"].abs())]
    return (f"Refitted without each point in turn, the fits predict the point left out within "
            f"{prose.pct(abs(worst['error %']))} at worst ({prose.quoted(worst['series'])} at "
            f"{prose.count(int(worst['CPUs']), 'CPU')}: {prose.num(worst['predicted (msg/s)'], unit='msg/s')} predicted "
            f"against {prose.num(worst['measured (msg/s)'], unit='msg/s')}).")


def comparison_reading(summary: pd.DataFrame, table: pd.DataFrame, a: str, b: str) -> list[str]:
    a, b = prose.quoted(a), prose.quoted(b)
    out = []
    for row in summary.to_dict("records"):
        what = "the peak rate" if row["change"] == "rate change" else "CPU per transaction"
        name = "" if row["workload"] == ALL else f"{prose.quoted(row['workload'])}: "
        n = row["CPU counts"]
        lower, higher = row["counts lower"], row["counts higher"]
        span = (f"by {prose.pct(row['smallest %'])} at every one of the" if row["smallest %"] == row["largest %"] else
                f"by {prose.pct(row['smallest %'])} to {prose.pct(row['largest %'])} across the")
        text = (f"{name}{'F' if not name else 'f'}rom {a} to {b}, {what} changes {span} "
                f"{prose.count(n, 'CPU count')} both measured "
                f"(lower on {b} at {prose.count(lower, 'count')}, higher at {prose.count(higher, 'count')}).")
        lo, hi = row["95 % lower (if the same at every count) %"], row["95 % upper (if the same at every count) %"]
        if math.isfinite(lo) and math.isfinite(hi):
            side = evidence.sign(lo, hi)
            mean = prose.pct(row["mean %"])
            if side == "cannot tell":
                text += (f" Taking the change as the same at every count, its mean, {mean}, has a "
                         f"{prose.interval(lo, hi, '%')} that includes zero: the data cannot tell whether {b} "
                         f"raises or lowers {what}.")
            else:
                text += (f" Taking the change as the same at every count, {what} is {'lower' if side == 'negative' else 'higher'} "
                         f"on {b} by {prose.pct(abs(row['mean %']))} on average ({prose.interval(lo, hi, '%')}). That interval "
                         "assumes one change at every count; the table shows how far single counts stray from it.")
        else:
            text += " Fewer than three counts: no interval for a mean change."
        out.append(text)
    for col, what in (("rate change within readings", "rate"), ("CPU change within readings", "CPU")):
        if col in table and table[col].any():
            k = int(table[col].sum())
            out.append(f"At {prose.count(k, 'CPU count')} the {what} change is no larger than the two chart readings' "
                       "uncertainty together: there the chart cannot show a change at all.")
    return out


def lspr_reading(table: pd.DataFrame, a: str, b: str) -> list[str]:
    a, b = prose.quoted(a), prose.quoted(b)
    out = []
    for row in table.to_dict("records"):
        c = prose.count(int(row["CPUs"]), "CPU")
        lo = min(row["LSPR LOW %"], row["LSPR AVERAGE %"], row["LSPR HIGH %"])
        hi = max(row["LSPR LOW %"], row["LSPR AVERAGE %"], row["LSPR HIGH %"])
        if row["against the LSPR range"].startswith("not measured"):
            out.append(f"At {c} the LSPR expects {prose.pct(lo)} to {prose.pct(hi)}, but the data have no run there "
                       "on both machines.")
            continue
        name = "" if row["workload"] in ("", ALL) else f"{prose.quoted(row['workload'])}, "
        side = {"within": "within", "above": "above", "below": "below",
                "overlaps the range within the readings": "overlapping"}[row["against the LSPR range"]]
        unseen = (f" The chart cannot tell this change from none, but every value its readings allow lies {side} the "
                  "range." if row.get("CPU change within readings") is True and side != "overlapping" else "")
        out.append(f"{name}{c[0].upper() + c[1:] if not name else c}: transactions per CPU second change by {prose.pct(row['measured ITR change %'])} from "
                   f"{a} to {b}, {side} the LSPR's {prose.pct(lo)} to {prose.pct(hi)}"
                   + (f" once the chart readings' uncertainty is allowed ({prose.pct(row[READ_LO])} to "
                      f"{prose.pct(row[READ_HI])})" if side == "overlapping" else "") + f".{unseen}")
    if out:
        out.append("The LSPR projects capacity for a mix of work; one MQ micro-benchmark at one CPU count is one "
                   "run, so a point outside the range says this workload at this count moved differently, not that "
                   "the projection is wrong.")
    return out


def plan_reading(plan: pd.DataFrame, a: str | None, b: str, target: float, at: int) -> list[str]:
    out = []
    col_b = b
    qa, b = (prose.quoted(a) if a is not None else None), prose.quoted(b)
    t = prose.given(target)
    for row in plan.to_dict("records"):
        name = "" if row["workload"] == ALL else f"{prose.quoted(row['workload'])}: "
        need = row["CPUs for the target"]
        if isinstance(need, str):
            limit = prose.num(row[f"peak or limit {col_b} (msg/s)"], unit="msg/s")
            at_n = row[f"peak at {col_b} (CPUs)"]
            if need.startswith("not within"):
                first = (f"{name}by its fit, {b} does not reach {t} msg/s {need.removeprefix('not ')}, the most the search "
                         "considers (an extrapolation far past any measurement).")
            elif pd.isna(at_n):
                first = (f"{name}by its fit, {b} does not reach {t} msg/s with any number of CPUs: the target lies above "
                         f"the limit the model approaches as CPUs grow without bound, {limit}, itself an extrapolation.")
            else:
                first = (f"{name}by its fit, {b} does not reach {t} msg/s with any number of CPUs: the target lies above "
                         f"the modelled peak, {limit}"
                         + (f", itself an extrapolation (at {prose.num(at_n)} CPUs)." if row["peak: extrapolated"] else "."))
        else:
            first = f"{name}by its fit, {b} " + prose.extrapolated(
                f"reaches {t} msg/s with {prose.count(int(need), 'CPU')}", row["target: extrapolated"])
            other = row.get(f"CPUs for the target on {a}") if a is not None else None
            first += ((f" ({qa} by its fit: {prose.count(int(other), 'CPU')})" if isinstance(other, (int, np.integer))
                       else f" ({qa} does not reach it by its fit)") if other is not None else "") + "."
        parts = [first]
        fitted = row.get(f"rate change at {at} CPUs (fits) %")
        if qa is not None and fitted is not None and not pd.isna(fitted):
            measured = row.get(f"rate change at {at} CPUs (measured) %")
            cpu = row.get(f"CPU change at {at} CPUs (measured) %")
            sentence = (f"At {prose.count(at, 'CPU')} the fits put the rate change from {qa} at "
                        + prose.extrapolated(prose.pct(fitted), row["rate at plan CPUs: extrapolated"]))
            unseen = ", within the two chart readings' uncertainty: no change the chart can show"
            if measured is not None and not pd.isna(measured):
                sentence += f", the single runs there at {prose.pct(measured)}"
                sentence += f" ({unseen[2:]})" if row.get(f"rate change within readings at {at} CPUs") else ""
            sentence += (f"; CPU per transaction changes by {prose.pct(cpu)} there (one run on each machine"
                         + (unseen if row.get(f"CPU change within readings at {at} CPUs") else "") + ")."
                         if cpu is not None and not pd.isna(cpu) else
                         "; the data have no CPU per transaction at that count on both machines.")
            parts.append(sentence)
            lo_c, hi_c = row.get("CPU change, smallest (measured) %"), row.get("CPU change, largest (measured) %")
            if lo_c is not None and not pd.isna(lo_c):
                parts.append(f"Across the CPU counts both machines measured, plan for a CPU-per-transaction change "
                             f"between {prose.pct(lo_c)} and {prose.pct(hi_c)}, depending on the LPAR's size.")
            peak = row.get("peak change %")
            if peak is not None and not pd.isna(peak):
                parts.append(f"The modelled peaks, both within the measured CPUs, differ by {prose.pct(peak)}; the "
                             f"highest measured rates by {prose.pct(row['highest measured change %'])}.")
            else:
                parts.append(f"The fits do not place both peaks within the measured CPUs, so plan the peak on the "
                             f"highest measured rates: {prose.pct(row['highest measured change %'])} from {qa} to {b}.")
        said = " ".join(parts)
        out.append(said[0].upper() + said[1:])
    return out


def moved_reading(ams: pd.DataFrame, key: pd.DataFrame) -> list[str]:
    """What IBM's published changes say, computed from the two tables."""
    out = []
    cost, tput = ams["transaction cost change %"], ams["throughput change %"]
    big = ams.loc[numbers.idxmax(tput)]
    lower = ("lower on z16 in every case" if cost.lt(0).all() else
             f"lower on z16 in {prose.count(int(cost.lt(0).sum()), 'case')}")
    out.append(f"AMS: in IBM's measurements the transaction cost changed by {prose.pct(cost.min())} to "
               f"{prose.pct(cost.max())} from z15 to z16 ({lower}), and throughput by {prose.pct(tput.min())} to "
               f"{prose.pct(tput.max())}, most for {big['message size']} messages with {big['policy']} protection.")
    change = key["change %"]
    low, high = key.loc[numbers.idxmin(change)], key.loc[numbers.idxmax(change)]
    if change.lt(0).all():
        out.append(f"TLS: a secret key negotiation cost the channel initiator {prose.pct(-high['change %'])} to "
                   f"{prose.pct(-low['change %'])} less CPU on z16 (most for {prose.quoted(low['CipherSpec'])}: "
                   f"{prose.num(low['z15 CPU (ms)'], unit='ms')} on z15, {prose.num(low['z16 CPU (ms)'], unit='ms')} "
                   "on z16).")
    else:
        out.append(f"TLS: a secret key negotiation's CPU changed by {prose.pct(low['change %'])} to "
                   f"{prose.pct(high['change %'])} from z15 to z16.")
    out.append("These are single published figures, one run each: they show which costs moved and how far, not the "
               "spread a rerun would give.")
    return out


ABOUT_MOVED = (
    "The report's summary gives the AMS throughput gain as \"up to 46%\", where its table's largest value is +46.9 "
    "({ref}`erratum E305 <errata-e305>`); the tables here keep the printed values (`z16_ams_change`, "
    "`z16_tls_secret_key_cost`).")


# -- about the published measurements (book data only) ----------------------------------------------

ABOUT_SYSTEM = (
    "IBM's report \"IBM MQ for z/OS on z16 Performance\" measured MQ `9.3` on z/OS `2.5` on an IBM z15 "
    "(`8561-7J0`, Crypto Express 7S) and an IBM z16 (`3931-7K0` Max200, Crypto Express 8S), with LPARs "
    "of 2 to 32 dedicated CPUs. The scaling workloads are 2KB non-persistent request/reply, out of syncpoint and in "
    "syncpoint, with 32 requester and 32 server tasks on one queue manager and accounting trace class 3 enabled. "
    "Most of the report's results are charts: the rates and CPU costs here are readings off its four scalability "
    "charts (`z16_scaling_chart`, basis chart, each with its reading uncertainty), except the four peak rates its "
    "text prints (`z16_scaling_peaks`, basis measured). The text gives no CPU count for the two in-syncpoint peaks; "
    "they are placed at 30 CPUs, where the chart draws them.")

ABOUT_ERRATA = (
    "The report's own slips touch these numbers. It converts the z15 out-of-syncpoint peak, 1,638,600 msg/s, into "
    "840,740 transactions/s, which is half the chart's 30-CPU point rather than half the printed peak "
    "({ref}`erratum E300 <errata-e300>`); it says that peak was reached with 32 CPUs, though the chart's highest "
    "z15 point is at 30 ({ref}`erratum E301 <errata-e301>`; the generation table, `z16_generation_peak_rate`, repeats "
    "the printed peak in millions); and it calls the z16 shortfall \"nearly 20%\", more than the printed message rates give "
    "({ref}`erratum E302 <errata-e302>`). The table below holds the peaks as printed; the fits use the printed "
    "1,638,600 at 32 CPUs and the chart's reading at 30.")

ABOUT_MACHINES = (
    "The report attributes part of the difference between the machines to the cores per processor unit "
    "(`z16_machine_comparison`): on its z15 up to 10 processors were allocated per PU, on its z16 at most 6, so "
    "tests that fitted onto one z15 PU spilled over onto several on z16, where its micro-benchmarks most often fell "
    "short of the LSPR. Two slips make the table harder to read: it gives the z15 five drawers where the test "
    "environment appendix gives four ({ref}`erratum E303 <errata-e303>`), and it uses \"PU\" both for a chip and "
    "for a dual-chip module ({ref}`erratum E304 <errata-e304>`).")
