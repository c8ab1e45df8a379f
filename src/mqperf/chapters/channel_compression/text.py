"""The channel compression chapter's sentences, each computed from its tables, and its passages
about the published report (shown on the book's data only)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mqperf import numbers
from mqperf.present import prose
from mqperf.present.prose import num
from mqperf.present.text import markdown as md_text

SOURCE = "“IBM MQ for z/OS on Channel Compression, Version 1.1, February 2023”"


def errata(r) -> None:
    r.about("errata", (
        "Slips of the report in the datasets this chapter reads (`zos_chcomp_cost`, `zos_chcomp_rate`, "
        "`zos_chcomp_chart`, `zos_chcomp_comptime`): {ref}`erratum E270 <errata-e270>` (ZLIBFAST in hardware outruns ZLIBHIGH at 32KB by more "
        "than the text says), {ref}`erratum E272 <errata-e272>` (ZLIBHIGH costs more times ZLIBFAST than the text "
        "says, for large messages), {ref}`erratum E274 <errata-e274>` (two appendices lettered E: the "
        "book names the data appendices A to E), {ref}`erratum E275 <errata-e275>` (a garbled cipher "
        "comparison), {ref}`erratum E277 <errata-e277>` (over ChaCha20, compression of 0 % compressible "
        "messages does not save CPU up to 32KB, whatever the text says), {ref}`erratum E278 <errata-e278>` "
        "(the ChaCha20 cipher's name misspelt), {ref}`erratum E276 <errata-e276>` (the 8KB ZLIBHIGH compression "
        "COMPTIME rows repeat the decompression rows: marked suspect in the COMPTIME table) and {ref}`erratum E279 <errata-e279>` (the 8KB NONE rate over ChaCha20 "
        "is suspect: the rate line for that channel carries it)."))


def measured(r) -> None:
    r.about("measured", (
        f"The runs are {SOURCE} by the IBM MQ performance team: MQ V9.3 for z/OS on an IBM z16, a request/reply "
        "workload of non-persistent messages between two z/OS queue managers over two pairs of sender-receiver "
        "channels, 2KB to 100KB messages generated at five nominal compressibilities (the table below). The "
        "cost is the report's \"transaction cost\" (MQ MSTR and CHIN address spaces, TCP/IP and the "
        "application, per request/reply transaction; its cost tables, one per channel set-up), the rate its "
        "rate tables. ZLIBFAST in these tables runs on the z16's on-chip Integrated Accelerator for zEDC "
        "(hardware); ZLIBFAST forced into software appears only in charts (below). Three readings the book "
        "makes: KB is taken as `1024 bytes` (the report does not say); compressibility is the nominal column "
        "(the report prints no achieved compression per run: its one chart of achieved compression is shown "
        "below); COMPMSG(NONE), printed with the same value in all five columns, is one run per size and "
        "counted once. Every value is one run: the report gives no repeats and no spread."))


def what_was_read(runs: pd.DataFrame, channels: list[str], chosen: str, *, example: bool) -> str:
    techs = list(dict.fromkeys(runs["technique"]))
    setup = "" if chosen == "(one set-up)" else f" for the channel set-up {md_text(chosen)}"
    said = (f"The data holds {prose.count(len(runs), 'run')}{setup}: "
            f"{prose.listing(md_text(t) for t in techs)}, messages of {num(runs['size_kb'].min())} to "
            f"{num(runs['size_kb'].max())} KB at {prose.count(runs['compressibility_pct'].nunique(), 'compressibility', 'compressibilities')} "
            f"from {num(runs['compressibility_pct'].min())} to {num(runs['compressibility_pct'].max())} %.")
    if len(channels) > 1:
        others = [c for c in channels if c != chosen]
        said += (f" The file also holds {prose.listing(md_text(c) for c in others)}: run with `-p channel NAME` "
                 "to plan for one of them.")
    if runs["rate_tx_s"].isna().all():
        said += " It has no rates (`rate_tx_s`), so the chapter answers for CPU only."
    if example:
        said += (" This is the book's example file, **synthetic**: generated from cost lines with 3 % noise "
                 "(`data/examples/channel_compression.csv`), not a measurement. Run the chapter on your own runs.")
    return said


def single_runs(rep: pd.DataFrame) -> str:
    """What the fits can and cannot say, from whether any point was run more than once."""
    if rep.empty:
        return ""
    if (rep["repeated runs"] == 0).all():
        return ("Every point is a single run. The residuals therefore mix run-to-run noise with whatever the "
                "straight lines miss, and the data cannot separate the two: there is no lack-of-fit test, no "
                "claim that a technique's cost bends with size or compressibility, and the intervals below hold "
                "only if the line is the right shape. A difference between two techniques is stated only where "
                "the lines' own 95 % bands keep them apart.")
    said = []
    for row in rep.to_dict("records"):
        if row["repeated runs"] == 0:
            said.append(f"{md_text(row['technique'])} has no repeated run, so its line's fit cannot be tested")
        elif "test" in row and isinstance(row.get("test"), str):
            verdict = ("misses its points by more than the repeats' scatter" if row["line misses the points"] == "yes"
                       else "is not shown to miss its points")
            said.append(f"{md_text(row['technique'])}'s line {verdict} ({row['test']})")
        else:
            said.append(f"{md_text(row['technique'])} has repeats but no degrees of freedom left to test its line")
    return prose.paragraph(*[s + "." for s in said])


def fitted(fs, unit: str = "µs", what: str = "CPU per transaction") -> str:
    said = []
    for tech, res in fs.results.items():
        ci = res.conf_int()
        per_kb = prose.direction(float(res.params["b"]), ci.loc["b", "lower"], ci.loc["b", "upper"],
                                 subject="each KB of message", up="adds", down="removes", unit=f"{unit}")
        line = f"{md_text(tech)}: {per_kb}"
        if res.has_c:
            line += "; " + prose.direction(float(res.params["c"]), ci.loc["c", "lower"], ci.loc["c", "upper"],
                                           subject="each KB compression removes", up="adds", down="saves",
                                           unit=unit)
        said.append(line + ".")
    for f in fs:
        if not f.ok:
            said.append(f"{md_text(f.group)} is not fitted: {f.reason}.")
    return f"{what[0].upper() + what[1:]}, per technique: " + " ".join(said) if said else ""


def leave_one_out(table: pd.DataFrame) -> str:
    if table.empty:
        return ""
    inside = table[~table["outside the other sizes"]]
    outside = table[table["outside the other sizes"]]
    said = []
    if len(inside):
        w = inside.loc[numbers.idxmax(inside["mean |error| (%)"])]
        said.append(f"Held out between the other sizes, the lines predict a size's runs within "
                    f"{num(inside['mean |error| (%)'].max())} % on average (the worst, {md_text(w['technique'])} "
                    f"at {num(w['held-out size (KB)'])} KB).")
    if len(outside):
        w = outside.loc[numbers.idxmax(outside["mean |error| (%)"])]
        said.append(f"Held out at either end (extrapolating), the mean error reaches {num(w['mean |error| (%)'])} % "
                    f"({md_text(w['technique'])} at {num(w['held-out size (KB)'])} KB): read answers beyond the "
                    "measured sizes with that in mind.")
    return " ".join(said)


def answer(best: dict | None, table: pd.DataFrame, size_kb: float, pct: float) -> str:
    if best is None:
        return "No technique could be fitted, so there is no planning answer."
    row = best["row"]
    where = f"At {num(size_kb)} KB and {num(pct)} % compressibility"
    band = (f" ({prose.interval(row['95 % lower (µs)'], row['95 % upper (µs)'], 'µs')})"
            if np.isfinite(row["95 % lower (µs)"]) else " (no interval: the fit has no residual degrees of freedom)")
    head = prose.extrapolated(f"{where}, {md_text(best['technique'])} costs least CPU per transaction by the "
                              f"lines: {num(row['CPU per transaction (µs)'], unit='µs')}{band}",
                              bool(row["extrapolated"]))
    said = [head + "."]
    nxt = best["next"]
    if nxt is not None:
        if nxt["sign"] == "positive":
            said.append(f"{md_text(nxt['technique'])}, the next cheapest, costs {num(nxt['diff'], unit='µs')} more "
                        f"({prose.interval(nxt['lower'], nxt['upper'], 'µs')}, from the two lines' bands).")
        else:
            said.append(f"The data cannot tell it from {md_text(nxt['technique'])}, the next cheapest: the "
                        f"difference, {num(nxt['diff'], unit='µs')}, has a 95 % interval reaching zero"
                        + (f" ({num(nxt['lower'])} to {num(nxt['upper'], unit='µs')})" if np.isfinite(nxt['lower'])
                           else "") + ".")
    if "rate (tx/s)" in row and np.isfinite(row.get("rate (tx/s)", np.nan)):
        said.append(prose.extrapolated(f"Its time-per-transaction line puts its rate in the measured workload at "
                                       f"{num(row['rate (tx/s)'])} transactions per second", bool(row["extrapolated"]))
                    + "; a rate belongs to the measured workload's concurrency, channels and machine.")
    if row["extrapolated"]:
        said.append(f"The answer is extrapolated: {row['extrapolated']}.")
    return " ".join(said)


def achieved(r) -> None:
    r.about("achieved_text", (
        "How much did a \"40 %\" message compress? The report shows it once, for 100KB messages over ZLIBFAST "
        "(the rate chart for 100KB messages, which plots Table 2's runs at the compressibility they achieved). The book reads the "
        "markers' positions off the chart (basis `chart`, ±1 point): they sit a few points from the nominal "
        "columns, so the nominal compressibility the fits use is close to what was achieved, for this size and "
        "technique at least."), title=False)


def software(r) -> None:
    r.about("software_text", (
        "ZLIBFAST without the on-chip accelerator (forced into software) was run at 32KB only, and the report "
        "shows it only in charts. The book's chart readings (basis `chart`, with their uncertainty) "
        "beside the printed ZLIBFAST (hardware) and ZLIBHIGH runs at 32KB; they are not fitted and not mixed "
        "into the lines above."), title=False)


def by_channel(table: pd.DataFrame, size_kb: float, pct: float) -> str:
    if table.empty:
        return ""
    said = []
    for best, g in table.groupby("cheapest", sort=False):
        apart = g[g.get("told apart", pd.Series("no", index=g.index)) == "yes"]["channel"].tolist()
        close = [c for c in g["channel"] if c not in apart]
        part = f"{md_text(best)} is cheapest for {prose.listing(md_text(c) for c in g['channel'])}"
        if close:
            part += (f" (for {prose.listing(md_text(c) for c in close)} the data cannot tell it from the next "
                     "technique)")
        said.append(part)
    out = (f"Fitting each channel set-up's lines the same way, at {num(size_kb)} KB and {num(pct)} % "
           f"compressibility: {'; '.join(said)}.")
    if (table["extrapolated"] != "").any():
        out += " Some of these answers are extrapolated: the table says which and why."
    return out


def where(r) -> None:
    r.about("where_text", (
        "Where the CPU goes. The report measures COMPTIME, the time MQ spends compressing on the sending "
        "channel and decompressing on the receiving one, per request (a large message is compressed in "
        "segments, several requests per message), and analyses one transaction's channel initiator CPU by "
        "task. The tables are as printed; the note column carries the book's remarks on odd rows."), title=False)


def chin_tasks(tasks: pd.DataFrame) -> str:
    by = tasks.set_index("channel initiator task")
    parts = []
    for task, row in by.iterrows():
        if task == "Total" or row["change (µs)"] == 0:
            continue
        more = "more" if row["change (µs)"] > 0 else "less"
        parts.append(f"the {md_text(task)} {num(abs(row['change (µs)']), unit='µs')} {more}")
    total = by.loc["Total", "change (µs)"] if "Total" in by.index else np.nan
    tail = (f", a net {'increase' if total > 0 else 'saving'} of {num(abs(total), unit='µs')} per transaction"
            if np.isfinite(total) and total != 0 else "")
    return (f"In the report's example, with compression {prose.listing(parts)} (per transaction){tail}: the trade "
            "the lines above fit, compressing against sending and encrypting less.")
