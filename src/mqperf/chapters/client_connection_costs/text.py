"""The chapter's words: its sentences, made from the results, and its passages about the
published measurements (``r.about``: shown on the book's data only)."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np

from mqperf import numbers
from mqperf.models.evidence import _p
from mqperf.present import prose
from mqperf.present import text as markup

# -- about the published measurements ------------------------------------------------------------

COSTS = (
    "The article prints one table: a BASIC cost for each SHARECNV and listener, and what TLS and suppressing "
    "the CSQX511I/CSQX512I messages add. Here the BASIC row is measured; a configuration with TLS or with "
    "suppression is the BASIC cost plus the printed increment (basis `derived`). The article prints the "
    "increments one at a time and never TLS and suppression together.")

SPACES = (
    "The breakdown comes from the article's chart notes for a local and a shared listener, which do not say "
    "their SHARECNV. The article says \"90% is within the MQ channel initiator address space\" (460 of 510 µs is "
    "90.2 %), and prints no separate runs for the breakdown.")

INCREMENTS = (
    "The article's worked example is 510 + 380 = 890 µs for TLS on a local SHARECNV(0) connection; with "
    "suppression as well it would be 760 µs *if* the two increments add, which was not measured. The TLS cost "
    "is mostly in the channel initiator, and the client's own cipher work limited how fast it could connect. "
    "The {doc}`TLS channel costs <tls_channel_costs>` chapter compares the TLS increment with what TLS costs on "
    "a running channel.")

ERRATA = (
    "Errata: {ref}`E038 <errata-e038>`: the \"300-400 microsecond increase\" for a CHLAUTH block does not match "
    "the printed costs (290 and 910 µs); the calculator uses the printed costs.")

BLOCKED = (
    "The article sums the CHLAUTH cost up as \"a 300-400 microsecond increase\", which fits SHARECNV(0) but "
    "undercounts SHARECNV(1) by more than half ({ref}`erratum E038 <errata-e038>`). An invalid protocol costs "
    "\"of the order of\" 1,100 µs and writes data about the invalid flow to CSQSNAP; its SHARECNV is not "
    "stated. None of the refusals used TLS.\n\n"
    "The MAXINST/MAXINSTC figures hold a surprise the article passes over: at SHARECNV(0) the refusal (440 µs) "
    "costs less than a successful connection (510 µs), as a connection that is turned away should, but at "
    "SHARECNV(1) it costs 850 µs, 260 µs *more* than letting the client in (590 µs). The book reads this as a "
    "measurement, not a misprint: the CHLAUTH refusal shows the same pattern (800 µs, then 1,500 µs), so both "
    "refusals nearly double from SHARECNV(0) to SHARECNV(1) while a successful connection grows by a sixth. "
    "The article does not say why. Both refusals write console messages (CSQX777E; CSQX599E and CSQX489E), and "
    "messages are not cheap (suppressing CSQX511I and CSQX512I saves 130 µs), but that does not explain the "
    "doubling; nor does the article say whether a refused client at SHARECNV(1) retried or flowed more before "
    "being turned away. A limit meant to protect the queue manager from too many instances can therefore cost "
    "more per attempt than the connections it refuses: a client that retries into MAXINST in a loop is a "
    "connection storm priced at the refusal's cost (the calculator below).")


def system(v: dict) -> str:
    """The published system, from the dataset's system attributes ``v``."""
    return (
        "IBM's performance team ran a client that issued MQCONNX and MQDISC 100,000 times against a SVRCONN "
        f"channel and measured the CPU used on the LPAR: {v.get('gp_cpus')} on an {v.get('hardware')}, "
        f"{v.get('os')}, MQ at its 2018 level, with {v.get('coprocessors')} and {v.get('accelerators')} for the "
        f"TLS runs ({v.get('tls_cipher')}). Every cost is CPU microseconds per MQCONNX + MQDISC pair, summed over "
        "the address spaces that do the work (channel initiator, queue manager, Db2, TCP/IP) "
        "({ref}`dataset <data-client_conn_costs>`, {ref}`Data catalog <data-catalog>`).")


def api_order(order) -> str:
    """The article's three application patterns, cheapest first (``order``: cost_rank, model, pattern)."""
    lines = "\n".join(f"{int(row.cost_rank)}. model {row.model}: {row.pattern}" for row in order.itertuples())
    return ("Connecting is expensive next to the work a client usually does once connected. The article orders "
            "three application patterns by cost, cheapest first, and says \"The cost of the connect can be higher "
            "than the combined total of the other APIs\":\n\n" + lines + "\n\nAn application that connects for "
            "each message (the last pattern) turns its message rate into a connection rate, which the calculator "
            "at the end of this chapter prices.")


# -- sentences made from the results -------------------------------------------------------------

def fitted(worst: float) -> str:
    return f"The additive model misses the cells by up to {prose.num(worst, unit='µs')}."


def loo(ok) -> str | None:
    """The additive model's leave-one-cell-out errors (``ok``: the cells it could predict)."""
    # Whether the settings interact is the F-test's to say, not the size of these errors.
    if not len(ok):
        return None
    return (f"Left out one at a time, {prose.count(len(ok), 'cell')} "
            f"{'is' if len(ok) == 1 else 'are'} predicted with errors from {prose.pct(ok['error_pct'].min())} "
            f"to {prose.pct(ok['error_pct'].max())}.")


def spaces_check(check) -> str | None:
    """Which column of the table the address-space sums match (a consistency check)."""
    inc = check[check["listener"] == "shared − local"]
    if not len(inc):
        return None
    best = inc.loc[numbers.idxmin(inc["not_in_those_spaces_us"].abs())]
    local = check[(check["listener"] == "local") & (check["sharecnv"] == best["sharecnv"])]
    parts = [f"The sums match the SHARECNV({int(best['sharecnv'])}) column best: a shared-listener increase of "
             f"{prose.num(best['address_spaces_us'], unit='µs')} against the table's "
             f"{prose.num(best['table_us'])} ({prose.pct(best['explained_pct'])} explained)"]
    if len(local):
        parts.append(f", and {prose.num(local['address_spaces_us'].iloc[0])} of "
                     f"{prose.num(local['table_us'].iloc[0], unit='µs')} for the local listener")
    return ("".join(parts) + ". This is a consistency check, not a second measurement: the "
            "breakdown most likely comes from the same runs as the table, so agreement shows the table's "
            "arithmetic and which column the breakdown belongs to, not that the listener's extra cost was "
            "measured twice.")


def spaces(wide) -> str:
    top = wide.sort_values("increase_us", ascending=False)
    return "With a shared listener, " + prose.listing(
        f"{row.address_space.replace('_', ' ')} goes from {prose.num(row.local_us)} to "
        f"{prose.num(row.shared_us, unit='µs')}" for row in top.itertuples()) + "."


def blocked(table) -> str:
    """Each refusal against a successful connection at the same SHARECNV, as measured."""
    parts = []
    # One figure for each refusal and each success: the differences are as measured, not tested.
    for method, g in table.dropna(subset=["difference_us"]).groupby("method", sort=False):
        parts.append(f"As measured, a {method} cost " + prose.listing(
            f"{prose.num(abs(row.difference_us), unit='µs')} {'more' if row.difference_us >= 0 else 'less'} than "
            f"letting the client in at SHARECNV({row.sharecnv})" for row in g.itertuples()) + ".")
    dearer = table[table["difference_us"] > 0]
    if len(dearer):
        parts.append("Where a refusal costs more than a successful connection, a client retrying into it costs more "
                     "CPU than letting it connect would.")
    return (prose.paragraph(*parts) if parts else
            "No refusal cost has a successful connection at the same SHARECNV in your file to compare with.")


def blocked_fits(ft, results: dict) -> str:
    """The two refusal models: how well each fits, and SHARECNV's factor read multiplicatively."""
    best = ft.loc[numbers.idxmin(ft["largest residual (%)"])]
    worst = ft.loc[numbers.idxmax(ft["largest residual (%)"])]
    mult = ft[ft["model"].str.startswith("multiplicative")]
    return prose.paragraph(
        prose.identification(results),
        f"The {best['model']} model fits within {prose.pct(best['largest residual (%)'])}"
        + (f", the {worst['model']} one misses by up to {prose.pct(worst['largest residual (%)'])}"
           if worst["model"] != best["model"] else "") + ".",
        (f"Read multiplicatively, SHARECNV(1) multiplies a refusal's cost by "
         f"{prose.num(mult['SHARECNV(1) multiplies by'].iloc[0])}." if len(mult) else None))


def storm_caption(rate: float, util: float) -> str:
    return f"{prose.given(rate)} attempts per second, no engine more than {prose.given(util * 100)} % busy"


def storm(rate: float, util: float, lo, hi, bad) -> str:
    """The storm's price for the cheapest and dearest successful connection and the dearest refusal."""
    parts = [f"At {prose.given(rate)} connection attempts a second, the cheapest successful connection "
             f"({prose.quoted(lo['scenario'])}, {prose.num(lo['cpu_us'], unit='µs')}) keeps "
             f"{prose.num(lo['busy_engines'])} engines busy, {prose.num(lo['cpu_s_per_hour'])} CPU seconds an hour"]
    if hi["scenario"] != lo["scenario"]:
        parts.append(f"; the dearest ({prose.quoted(hi['scenario'])}, {prose.num(hi['cpu_us'], unit='µs')}) keeps "
                     f"{prose.num(hi['busy_engines'])} busy and needs {prose.count(int(hi['engines_needed']), 'engine')} "
                     f"at most {prose.given(util * 100)} % busy")
    if len(bad):
        worst = bad.loc[numbers.idxmax(bad["cpu_us"])]
        parts.append(f". A client retrying into the dearest refusal ({prose.quoted(worst['scenario'])}) keeps "
                     f"{prose.num(worst['busy_engines'])} engines busy at the same rate")
    return "".join(parts) + "."


def storm_whatif(rate: float, util: float) -> str:
    return (f"The control starts at {prose.given(rate)} attempts a second (the dashed rule), "
            f"for the cheapest and dearest successful connection and the dearest refusal; moving it recomputes the "
            f"busy engines, the CPU seconds an hour and the engines needed at most {prose.given(util * 100)} % busy in "
            "the page.")


def one_engine(lo1, hi1) -> str:
    return (f"Turned round, one engine is kept busy by "
            f"{prose.num(lo1['attempts per second for one engine'])} attempts a second of the cheapest successful "
            f"connection" + (f" and {prose.num(hi1['attempts per second for one engine'])} of the dearest."
                             if hi1["scenario"] != lo1["scenario"] else "."))


# -- comparisons and options, in the direction their tests support -----------------------------

def difference_sentences(diffs, tests, verdict) -> str | None:
    """The comparisons in words: a direction only where a test against the replicates supports it.

    With replicates, each difference is stated with its t-test, or said to be within the scatter;
    without, the differences are said as measured and no test is claimed. Whether the settings
    interact is the F-test of the additive model's lack of fit (``verdict``); no replicates, no claim.
    """
    if not len(diffs):
        return None
    out = []
    untested = all(t is None for t in tests)
    for comparison, g in diffs.groupby("comparison", sort=False):
        rows = list(g.iterrows())
        subject, base = names(rows[0][1])
        if untested:
            parts = [f"{prose.num(abs(row['difference (µs)']), unit='µs')} "
                     f"{'more' if row['difference (µs)'] >= 0 else 'less'} {at(row)}" for _, row in rows]
            out.append(f"As measured, {subject} cost {prose.listing(parts)} than {base}.")
            continue
        sure = [(i, row) for i, row in rows if tests[i][1] < 0.05]
        unsure = [(i, row) for i, row in rows if tests[i][1] >= 0.05]
        if sure:
            parts = [f"{prose.num(abs(row['difference (µs)']), unit='µs')} "
                     f"{'more' if row['difference (µs)'] > 0 else 'less'} {at(row)}" for _, row in sure]
            out.append(f"{subject[0].upper() + subject[1:]} costs {prose.listing(parts)} than {base} "
                       f"({family_words(tests, [i for i, _ in sure])}).")
        for i, row in unsure:
            out.append(f"{at(row, lead=True)}, the data cannot tell whether {subject} costs more or less than "
                       f"{base}: the measured difference, {prose.num(row['difference (µs)'], unit='µs')}, is within "
                       f"the replicates' scatter ({family_words(tests, [i])}).")
    if untested:
        out.append("Each configuration was run once, so no difference is tested against run-to-run scatter.")
    spread = diffs.groupby("comparison", sort=False)["difference (µs)"].agg(["min", "max", "size"])
    spread = spread[spread["size"] > 1]
    if verdict is not None:
        # "on (1, 8) df" nests a parenthesis in the test's own, which tests/chapters/props.py's
        # evidence pattern stops at; "on 1 and 8 df" says the same.
        verdict = replace(verdict, test=re.sub(r"on \((\d+), (\d+)\) df", r"on  and  df", verdict.test))
    if verdict is not None and len(spread):
        ranges = prose.listing(f"from {prose.num(lo)} to {prose.num(hi, unit='µs')}" for lo, hi in
                               zip(spread["min"], spread["max"]))
        if verdict.holds:
            out.append(f"The differences depend on the other setting ({ranges}): the settings interact, which the "
                       f"additive model cannot describe ({verdict.test}).")
        elif verdict.p_value is not None:
            out.append(f"The differences vary with the other setting ({ranges}) by no more than the replicates' "
                       f"scatter allows, so no interaction is shown ({verdict.test}).")
        elif untested:
            out.append(f"The differences vary with the other setting ({ranges}); with one run per configuration the "
                       "data cannot test whether the settings interact.")
        else:
            out.append(f"The differences vary with the other setting ({ranges}), but the data cannot test whether "
                       f"the settings interact: {verdict.test}.")
    return prose.paragraph(*out)


def family_words(tests, which) -> str:
    """The parenthesis naming the t-tests behind some of a family's differences."""

    df = tests[which[0]][3]
    if all(math.isinf(tests[i][0]) or (tests[i][0] == 0 and tests[i][1] == 1.0) for i in which):
        return "two-sided t-test: the replicates agree exactly, so any difference is real"
    holm = (f" after Holm's correction for the {prose.count(sum(t is not None for t in tests), 'comparison')}"
            if len(tests) > 1 else "")
    return (f"two-sided t-test{'s' if len(which) > 1 else ''} against the replicates' scatter on {df} df: "
            f"{p_range([tests[i][1] for i in which])}{holm}")


def p_shown(p: float) -> str:
    """A p-value as tables show it: "< 0.001" rather than a 0 the display rule makes of 1e-17."""

    return _p(p).removeprefix("p ").removeprefix("= ")


def names(row) -> tuple[str, str]:
    """The two sides of a comparison as a sentence names them (a reader's listener as given)."""

    if row["kind"] == "listener":
        return (f"the {markup.markdown(row['subject'])} listener", f"the {markup.markdown(row['base'])} listener")
    return row["subject"], row["base"]


def at(row, lead: bool = False) -> str:

    where = (f"at SHARECNV({row['level']})" if row["kind"] == "listener" else
             f"with the {markup.markdown(row['level'])} listener")
    return where[0].upper() + where[1:] if lead else where



def span(values, unit: str | None = None) -> str:
    """"a to b" (or one value) of positive amounts, smallest first."""

    a, b = float(np.min(values)), float(np.max(values))
    fmt = (lambda v, u=None: prose.pct(v)) if unit == "%" else (lambda v, u=None: prose.num(v, unit=u))
    if np.isclose(a, b):
        return fmt(a, unit)
    return f"{fmt(a)} to {fmt(b, unit)}"


def option_sentence(what: str, us, pct, tests) -> str:
    """What an option adds or saves, said in the direction its test supports (as measured without replicates)."""

    if any(t is None for t in tests):
        inner = what if what == "TLS" else what[0].lower() + what[1:]
        if (us >= 0).all() or (us <= 0).all():
            verb = "added" if (us >= 0).all() else "saved"
            return (f"As measured, {inner} {verb} {span(np.abs(us), 'µs')} per connection "
                    f"({span(np.abs(pct), '%')} of the basic cost).")
        return (f"As measured, {inner} changed the cost by {prose.num(us.min())} to "
                f"{prose.num(us.max(), unit='µs')} per connection, more in some configurations and less in others.")
    p = np.array([t[1] for t in tests])
    up, down = (p < 0.05) & (us > 0), (p < 0.05) & (us < 0)
    unclear = ~(up | down)

    holm = " after Holm's correction" if len(p) > 1 else ""
    test = f"(two-sided t-test{'s' if len(p) > 1 else ''} of each increment against the replicates' scatter: {p_range(p)}{holm})"
    n = len(us)
    if up.all() or down.all():
        verb = "adds" if up.all() else "saves"
        return (f"{what} {verb} {span(np.abs(us), 'µs')} per connection ({span(np.abs(pct), '%')} of the basic "
                f"cost) {test}.")
    if unclear.all():
        return (f"The data cannot tell whether {what} adds or saves anything: the measured increments, "
                f"{prose.num(us.min())} to {prose.num(us.max(), unit='µs')}, are within the replicates' scatter "
                f"{test}.")
    said = []
    if up.any():
        said.append(f"{what} adds {span(us[up], 'µs')} in {prose.count(int(up.sum()), 'configuration')}")
    if down.any():
        said.append(("it" if said else what) + f" saves {span(-us[down], 'µs')} in "
                    f"{prose.count(int(down.sum()), 'configuration')}")
    if unclear.any():
        said.append(f"in {'the other' if unclear.sum() < n else 'all'} {prose.count(int(unclear.sum()), 'configuration')} "
                    "the data cannot tell whether it adds or saves anything")
    return prose.listing(said, "and").replace(", in ", "; in ") + f" {test}."



def p_range(p_values) -> str:
    """"p < 0.001", "p = 0.03 to 0.2": the p-values of a family, as a test's parenthesis gives them."""

    lo, hi = _p(float(np.min(p_values))), _p(float(np.max(p_values)))
    if lo == hi:
        return lo if len(p_values) == 1 else f"{lo} each"
    return f"p from {lo.removeprefix('p ').removeprefix('= ')} to {hi.removeprefix('p ').removeprefix('= ')}"