"""The log disk chapter's sentences, each computed from the tables it sits beside, and its
passages about the published measurements (shown on the book's data only)."""

from __future__ import annotations

import math

import pandas as pd

from mqperf import numbers
from mqperf.models import evidence
from mqperf.present import prose
from mqperf.present.text import markdown as md_text


def q(name) -> str:
    return prose.quoted(str(name))


def what_was_read(points: pd.DataFrame, book: bool, example: bool = False) -> str:
    sizes = points.groupby("series", sort=False)["blocksize_bytes"].nunique()
    text = (f"The data holds synchronous writes from "
            f"{prose.count(len(sizes), 'disk or configuration', 'disks or configurations')} (series); "
            f"{prose.listing(q(s) + ' at ' + prose.count(int(n), 'block size') for s, n in sizes.items())}.")
    writers = points["queue_managers"].max()
    if writers > 1:
        text += (" Some rows had several writers at once (the table's writers column): the fits use each "
                 "writer's own time per write.")
    if example:
        text += (" This is the book's example file, **synthetic**: write times generated from the chapter's own model "
                 "for two made-up disks (`data/examples/log_disk.csv`), not a measurement. Run the chapter on your own "
                 "mqldt or fio output to read your disk.")
    if book:
        text += (" These are the book's readings of the mqio report's MQ vs MQLDT figures (basis chart): MQLDT's "
                 "MB/s at each block size amqsrua reported for MQ, with the time per write derived as block size "
                 "over bytes per second, since MQLDT writes one block at a time.")
    return text


def fit_reading(fits, single: dict) -> str:
    parts = []
    results = fits.results
    if results:
        parts.append(prose.identification(results))
    for f in fits:
        if f.ok:
            r = f.result
            ci = r.conf_int()
            a = _estimate("the per-write latency a", r.a * 1e6, ci.loc["a", "lower"] * 1e6, ci.loc["a", "upper"] * 1e6,
                          "µs", held="a" in r.active_bounds)
            b = _estimate("the bandwidth B", r.bandwidth / 1e6, ci.loc["B", "lower"] / 1e6, ci.loc["B", "upper"] / 1e6,
                          "MB/s", held="B" in r.active_bounds)
            parts.append(f"In {q(f.group)}, {a}; {b}.")
        elif f.group in single:
            b0, _ = single[f.group]
            parts.append(f"{q(f.group)} was measured at one block size ({prose.given(b0)} bytes): one time per write cannot be split into a fixed "
                         "latency and a per-byte time, so no bandwidth is known and the planning answer gives the "
                         "range the two extremes allow.")
        else:
            parts.append(f"{q(f.group)} is not fitted: {f.reason}; the planning answer gives the range its measured "
                         "block size nearest the write allows.")
    if single:
        parts.append("A sweep of block sizes (`mqldt --bsize=4K,16K,64K,256K,1M`) identifies both.")
    return prose.paragraph(*parts)


def _estimate(name: str, value: float, lo: float, hi: float, unit: str, *, held: bool) -> str:
    if held:
        return f"{name} is held at its bound ({prose.num(value)} {unit}): the data do not show it"
    verdict = evidence.identified(lo, hi)
    if verdict:
        return f"{name} is about {prose.num(value)} {unit} (95 % interval {prose.num(lo)} to {prose.num(hi)} {unit})"
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{name} is {prose.num(value)} {unit}, with no interval"
    return f"the data cannot tell {name} (its 95 % interval in the table reaches zero or spans more than a factor 10)"


#: A held-out error (%) past which the sentence says the model does not hold over the range.
LARGE = 20.0  # a fifth, as the sentence says it


def held_out_reading(loo: pd.DataFrame) -> str | None:
    ok = loo.dropna(subset=["error %"])
    if ok.empty:
        return None
    lo, hi = ok["error %"].min(), ok["error %"].max()
    worst = ok.loc[numbers.idxmax(ok["error %"].abs())]
    text = (f"Left out one at a time and predicted from the other block sizes of its series, each measured time per "
            f"write is predicted with errors from {prose.num(lo)} % to {prose.num(hi)} %")
    if ok["series"].nunique() > 1:
        text += f"; the largest in {q(worst['series'])}"
    if abs(worst["error %"]) > LARGE:
        text += (". An error of more than a fifth of the time per write says that disk is not one latency and one "
                 "bandwidth over the whole range (a cache that fills, a link that saturates)")
    return text + "."


def mq_vs_tool_reading(table: pd.DataFrame) -> str:
    lo = table[["MQ / MQLDT, smallest block (%)", "MQ / MQLDT, largest block (%)"]].min().min()
    hi = table[["MQ / MQLDT, smallest block (%)", "MQ / MQLDT, largest block (%)"]].max().max()
    return (f"At the block size it wrote, MQ reached {prose.num(lo)} % to {prose.num(hi)} % of MQLDT's rate at the "
            "same block size (first and last block size of each figure). MQLDT writes back to back and MQ's log "
            "writer waits for commits to arrive, so MQLDT's curve is the disk's ceiling for MQ, not MQ's rate.")


def mq_check_reading(check: pd.DataFrame) -> str | None:
    if check.empty:
        return None
    inside = check[check["write size measured by the tool"] == "yes"]
    lo, hi = check["MQ / model"].min(), check["MQ / model"].max()
    text = (f"MQ's own log writes took {prose.num(lo)} to {prose.num(hi)} times the model's time per write at their "
            "write size")
    if len(inside) and len(inside) < len(check):
        text += (f" ({prose.num(inside['MQ / model'].min())} to {prose.num(inside['MQ / model'].max())} times for the "
                 "write sizes within the block sizes the tool measured; the others are extrapolations of the model)")
    elif not len(inside):
        text += " (every write size is outside the block sizes the tool measured: the model is extrapolated)"
    return text + ". A ratio near 1 says the disk model prices MQ's log writes; well above 1, MQ's writes wait on more than the disk."


def plan_reading(plan: pd.DataFrame, *, size: float, size_given: bool, k: int, n: int) -> str:
    where = "as given" if size_given else "the message size itself: the least the log can carry, so these rates are upper bounds"
    head = (f"With {prose.given(size)} log bytes per message ({where}), {prose.given(k)} per commit and "
            f"{prose.given(n)} application{'s' if n != 1 else ''} committing at once, each forced write carries "
            f"{prose.given(plan['write size (bytes)'].iloc[0])} bytes. ")
    lines = []
    for row in plan.to_dict("records"):
        extra = row["extrapolated"] != "no"
        if pd.notna(row.get("persistent msg/s")):
            band = (f" (95 % band {prose.num(row['msg/s lower'])} to {prose.num(row['msg/s upper'])})"
                    if pd.notna(row.get("msg/s lower")) and pd.notna(row.get("msg/s upper")) else "")
            line = (f"{q(row['series'])}: at most {prose.num(row['persistent msg/s'])} persistent messages/s{band}, "
                    f"a commit waiting {prose.num(row['time per write (µs)'])} µs (up to "
                    f"{prose.num(row['commit latency, at most (µs)'])} µs when it just misses a write)")
        elif pd.notna(row.get("msg/s lower")):
            line = (f"{q(row['series'])}: between {prose.num(row['msg/s lower'])} and {prose.num(row['msg/s upper'])} "
                    "persistent messages/s, depending on how the measured time per write splits into fixed and "
                    "per-byte time")
        else:
            line = f"{q(row['series'])}: no answer ({row['range']})"
        lines.append(prose.extrapolated(line, extra))
    if (plan.get("writers", pd.Series([1])) > 1).any():
        head += ("A series with several writers at once answers for each of that many queue managers sharing the disk. ")
    return head + "\n\n" + prose.bullets(lines)


def sample_reading(check: pd.DataFrame) -> str | None:
    if check.empty:
        return None
    first = check.iloc[0]
    fitted = "fit's t(b) (µs)"
    parts = [f"{q(row['fitted sweep'])} {prose.num(row[fitted])} µs (error {prose.num(row['error %'])} %)"
             for row in check.to_dict("records")]
    return (f"The printed MQLDT run wrote {prose.given(first['block size (bytes)'])}-byte blocks at "
            f"{prose.num(first['printed time per write (µs)'])} µs each (printed); at that block size the fits to the "
            f"figures' chart readings give {prose.listing(parts)}. "
            f"Alone, that one time allows anything from {prose.num(first['one block: msg/s lower'])} to "
            f"{prose.num(first['one block: msg/s upper'])} persistent messages/s at the planning inputs: it cannot "
            "say how much of a write is fixed latency and how much is bandwidth, which is what a write of another "
            "size costs. The sweeps narrow it to one answer each.")


# -- the published measurements (book data only) ---------------------------------------------

ABOUT = (
    "The mqio report (*Persistent Messaging Performance in IBM MQ for Linux*, Paul Harris, MQ V9.0.4 on a "
    "2×14-core x3550) drove the log with MQ-CPH requesters and then ran MQLDT at the very block size amqsrua "
    "reported for MQ's log writes, for a local HDD and SSD behind a RAID cache, a SAN volume and NFS over "
    "1, 10 and 40 Gb links (Figures 7–21). The figures print no numbers: the book's readings of them "
    "(`mqio_mq_vs_mqldt_chart`, basis chart) carry their reading uncertainty, one drawing unit of the "
    "vector chart, in each row's `chart_uncertainty`. MQ's own write latency and size come "
    "from the printed Tables 12–14 (`mqio_log_device_results`, basis measured); the check below sets printed "
    "values against a fit to chart readings and says so. The report's slips that touch these tables: Figure 7's "
    "log set ({ref}`erratum E245 <errata-e245>`), a figure reference ({ref}`erratum E246 <errata-e246>`), a broken "
    "cross-reference ({ref}`erratum E247 <errata-e247>`), unit typos in captions ({ref}`erratum E250 <errata-e250>`, "
    "{ref}`erratum E249 <errata-e249>`), a column name ({ref}`erratum E248 <errata-e248>`), an amqsrua sample that "
    "does not match its table row ({ref}`erratum E251 <errata-e251>`), the 2K samples' log set "
    "({ref}`erratum E252 <errata-e252>`), Figures 22/23 against Table 13 ({ref}`erratum E253 <errata-e253>`) and "
    "the MQ version named in the audience note ({ref}`erratum E254 <errata-e254>`)."
)

ABOUT_V93 = (
    "The V9.3 xLinux report ran the persistent RR-BB workload (MQI bindings, request and reply both persistent) "
    "with the log on the server's local NVMe SSDs, a SAN volume and NFS (Table 7, `xlinux93_rr_bb_peak`). Each "
    "round trip puts two persistent messages, so the log carries at least 2 × rate × message size bytes per "
    "second (the table's last column; MQ's log records add to it). Its table numbering slips are in the errata: "
    "{ref}`erratum E100 <errata-e100>`, {ref}`erratum E101 <errata-e101>`, {ref}`erratum E102 <errata-e102>`, "
    "{ref}`erratum E110 <errata-e110>` and {ref}`erratum E111 <errata-e111>` (message sizes printed as 2K and 2KB)."
)


def published_reading(table: pd.DataFrame) -> str:
    """The smallest message size's rates by device, against the SSD's, with the CPU each used."""
    small = table[table["message size"] == table["message size"].iloc[0]]
    ssd = small[small["log device"] == "SSD"]
    if ssd.empty or len(small) < 2:
        return ""
    base = ssd.iloc[0]
    parts = [f"{md_text(row['log device'])} {prose.num(row['round trips/s'])} ({prose.num(row['% of SSD'])} % of the "
             f"SSD's, CPU {prose.num(row['CPU %'])} %)" for row in small.to_dict("records") if row["log device"] != "SSD"]
    return (f"In the V9.3 report, on one server and workload, {md_text(base['message size'])} persistent round trips peak at "
            f"{prose.num(base['round trips/s'])} per second with the log on SSD (CPU {prose.num(base['CPU %'])} %), "
            f"{prose.listing(parts)}." + (" Only the log device differs between these rows, and the slower devices leave "
                                         "more than half of the CPU idle: the log device sets their rate."
                                         if (small.loc[small["log device"] != "SSD", "CPU %"] < 50).all() else ""))
