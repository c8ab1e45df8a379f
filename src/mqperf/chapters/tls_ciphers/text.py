"""TLS CipherSpecs: the chapter's sentences, each computed from the tables it speaks of."""

from __future__ import annotations

import pandas as pd

from mqperf import numbers
from mqperf.chapters.tls_ciphers import NAMED
from mqperf.chapters.tls_ciphers.fits import PER, compared, difference_test
from mqperf.data import aggregate
from mqperf.present import prose

COST = f"CPU % per {PER:,} round trips/s"
RATIO_X, RATIO_C = "rate ratio No TLS / this", "CPU per round trip, this / No TLS"
#: The errata of the datasets read, as links (written out so the errata page's checks find them).
ERRATA = {"xlinux93_tls_peak": ("{ref}`erratum E100 <errata-e100>`", "{ref}`erratum E101 <errata-e101>`",
                                "{ref}`erratum E102 <errata-e102>`", "{ref}`erratum E107 <errata-e107>`",
                                "{ref}`erratum E109 <errata-e109>`", "{ref}`erratum E112 <errata-e112>`"),
          "xlinux92_tls_peak": ("{ref}`erratum E141 <errata-e141>`", "{ref}`erratum E146 <errata-e146>`"),
          "xlinux91_tls_peak": ("{ref}`erratum E180 <errata-e180>`", "{ref}`erratum E181 <errata-e181>`")}


def read(rows: pd.DataFrame, example: bool) -> str:
    series = list(dict.fromkeys(rows["series"]))
    text = (f"The file's runs fall into {prose.count(len(series), 'series', 'series')} "
            f"({prose.listing(prose.quoted(s) for s in series[:NAMED])}{', …' if len(series) > NAMED else ''}).")
    missing = [s for s in series if not rows.loc[rows["series"] == s, "baseline"].any()]
    if missing:
        text += (f" {prose.listing(prose.quoted(s) for s in missing[:NAMED])} "
                 f"{'has' if len(missing) == 1 else 'have'} no run without TLS (`No TLS`): shown, not compared.")
    if example:
        text = ("**This is a synthetic example, not a measurement**: a hand-made file of two runs per CipherSpec, "
                "to show the tests repeats allow. Run the chapter on your own runs with "
                "`mqperf run tls_ciphers --data FILE`. " + text)
    return text


def about_book(datasets: list[str]) -> str:
    refs = [e for d in datasets for e in ERRATA.get(d, ())]
    return (
        "The runs are the peak tables of the TLS sections of IBM's xLinux performance reports for MQ V9.3, "
        "V9.2 and V9.1: the RR-CC workload (MQI client requesters on their own host, 2KB "
        "messages), one printed peak per CipherSpec (the best rate over the client counts tried, with the server's "
        "CPU and the clients there), each against the same report's run without TLS. Each report measured on its "
        "own hardware, so rates are not comparable from release to release; the ratios against each report's "
        "own No TLS run are. The V9.3 TLS tables are headed \"V9.3 GM\" though the text says they were measured "
        "on V9.3.4. Every peak is one run: the ratios are the reports' own, with no spread. The report's slips in "
        "these tables (lists of tables that disagree with the captions, the heading's level, the text's "
        "percentages that its tables do not give, tables printed twice): " + ", ".join(refs) + ".")


def costs_reading(table: pd.DataFrame, rows: pd.DataFrame) -> list[str]:
    out = []
    tls = compared(table)
    for s, g in tls.groupby("series", sort=False):
        name = prose.quoted(s)
        lo, hi = g.loc[numbers.idxmin(g[RATIO_C])], g.loc[numbers.idxmax(g[RATIO_C])]
        text = (f"{name}: against no TLS, the CipherSpecs run at {prose.num(g[RATIO_X].min())} to "
                f"{prose.num(g[RATIO_X].max())} times lower peak rates (No TLS / CipherSpec) and take "
                f"{prose.num(g[RATIO_C].min())} to {prose.num(g[RATIO_C].max())} times the CPU per round trip; in "
                f"these runs the least CPU per round trip was {prose.quoted(lo['CipherSpec'])}'s, the most "
                f"{prose.quoted(hi['CipherSpec'])}'s.")
        if len(g) < 2:
            out.append(text)
            continue
        ordered = g.sort_values(RATIO_C)
        a, b = ordered.iloc[0], ordered.iloc[1]
        test = difference_test(rows, s, a["CipherSpec"], b["CipherSpec"])
        if test is None:
            text += (f" One run per CipherSpec: the table orders them, but with no repeat there is no spread to test a "
                     f"difference against, so the data cannot tell whether {prose.quoted(a['CipherSpec'])} is cheaper "
                     f"than {prose.quoted(b['CipherSpec'])} ({prose.num(a[RATIO_C])} against {prose.num(b[RATIO_C])}) "
                     "or whether the order would hold in another run.")
        else:
            t, p = test
            verdict = "differ" if p < 0.05 else "may not differ: the data cannot tell"
            text += (f" The two cheapest, {prose.quoted(a['CipherSpec'])} and {prose.quoted(b['CipherSpec'])}, "
                     f"{verdict} in CPU per round trip (two-sided t-test, Welch: t = {t:.2f}, p = {p:.3g}).")
        out.append(text)
    return out


def plan_reading(plan: pd.DataFrame, rate: float) -> list[str]:
    out = []
    for s, g in plan.groupby("series", sort=False):
        base = g[g["baseline"]]
        tls = g[~g["baseline"] & g["CPU % added to No TLS"].notna()]
        if base.empty or tls.empty:
            continue
        b = base.iloc[0]
        lo, hi = tls.loc[numbers.idxmin(tls["CPU % at your rate"])], tls.loc[numbers.idxmax(tls["CPU % at your rate"])]

        def said(row) -> str:
            cpu = f"{prose.num(row['CPU % at your rate'])} %"
            if row["CPU % at your rate"] > 100:
                cpu += ", more than the whole machine"
            return prose.extrapolated(cpu, row["extrapolated"])

        out.append(f"{prose.quoted(s)}: at {prose.given(rate)} round trips/s the measured server would need "
                   f"{said(b)} of its CPU without TLS, {said(lo)} with {prose.quoted(lo['CipherSpec'])} (the least) "
                   f"and {said(hi)} with {prose.quoted(hi['CipherSpec'])} (the most), taking CPU as proportional to "
                   "the rate from each CipherSpec's measured point.")
    return out


def published_reading(check: pd.DataFrame) -> str:
    if check is None or check.empty:
        return ""
    bad = check[~check["agrees to the printed digits"]]
    if bad.empty:
        return (f"All {prose.count(len(check), 'printed ratio')} of section 6.3 agree with the rates printed beside "
                "them to the two decimals printed. Those rates are the section's own, not always the tables' "
                "peaks, so its ratios differ a little from the ones above.")
    return (f"{prose.count(len(bad), 'printed ratio')} of section 6.3 {'does' if len(bad) == 1 else 'do'} not "
            "agree with the rates printed beside them (the table lists them).")


def single_run_note(pts: pd.DataFrame) -> str:
    if aggregate.COUNT in pts and int(pts[aggregate.COUNT].max()) > 1:
        return ("Repeated runs of a series and CipherSpec are averaged: the table shows each mean with its runs (n) "
                "and their standard deviations (sd), and the CPU per round trip is the mean of the runs' own. The "
                "difference between the two cheapest CipherSpecs is tested against the runs' spread.")
    return ("Each CipherSpec has one run per series. A ratio of two single runs carries both runs' run-to-run "
            "variation, which one run cannot show: read a ratio as that day's result, and a small difference "
            "between two CipherSpecs as no difference until repeats test it.")


#: A peak whose CPU is at least this busy is CPU-bound: its rate is what the CPU allows.
BUSY = 95.0


def bound_reading(table: pd.DataFrame) -> list[str]:
    """Per series: whether every peak ran the CPU to :data:`BUSY` % (then the rate ratio is the CPU ratio),
    or which did not (there the rate ratio mixes CPU with other limits)."""
    out = []
    for s, g in table.groupby("series", sort=False):
        if g["rate ratio No TLS / this"].isna().all() or len(g) < 2:
            continue
        low = g.loc[numbers.idxmin(g["CPU %"])]
        if float(low["CPU %"]) >= BUSY:
            out.append(f"{prose.quoted(s)}: every peak ran the server's CPU at {prose.num(BUSY)} % or more (the least, "
                       f"{prose.num(low['CPU %'])} %), so each rate is what the CPU allowed and the rate ratio "
                       "prices the CPU: the two ratios tell the same story.")
        else:
            out.append(f"{prose.quoted(s)}: not every peak ran the CPU to {prose.num(BUSY)} % (the least, "
                       f"{prose.quoted(low['CipherSpec'])} at {prose.num(low['CPU %'])} %): where it did not, "
                       "something else (the log, the network, the clients) held the rate, and the CPU per round trip, "
                       "not the rate ratio, is the price of the encryption.")
    return out
