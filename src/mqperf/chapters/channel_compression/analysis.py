"""The channel compression chapter's analysis: every sentence, table and chart, in order.

Orchestration only: the cost lines and the frames are :mod:`.fits`, the sentences and passages
:mod:`.text`, the charts :mod:`mqperf.present.charts`.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from mqperf.chapters.channel_compression import CHAPTER, EXAMPLE, fits, text
from mqperf.data import views
from mqperf.errors import ModelError
from mqperf.present import charts
from mqperf.present.prose import num
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Load, fit and plan; every sentence, table and chart of the chapter, in order."""
    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = "the CPU per transaction and the rate of each technique at your message size and compressibility"
    size_kb, pct = float(p["message_size_kb"]), float(p["compressibility_pct"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        runs, channels, chosen = fits.load(p["data"], p["channel"])
        r.points = runs
        example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
        text.measured(r)
        r.text("read", text.what_was_read(runs, channels, chosen, example=example))
        r.table("runs", runs_table(runs), caption=f"CPU per transaction (µs) of the {len(runs):,} runs by technique, "
                                                   f"message size and compressibility: {chosen}")
        cpu = fits.fit(runs, "cpu_us", data_name=source.name, data_hash=source.sha256)
        if not cpu.results:
            raise ModelError("no technique could be fitted: each needs three runs or more at two message sizes or "
                             "more (" + "; ".join(f"{t}: {w}" for t, w in cpu.failures.items()) + ")")
        time = fits.fit(runs, "us_per_tx", data_name=source.name, data_hash=source.sha256)
        fit_section(r, runs, cpu, time, pct / 100)
        loo_section(r, runs)
        plan_section(r, cpu, time, size_kb, pct)
        channel_section(r, p["data"], channels, size_kb, pct)
        published_section(r, chosen)
    for tech, res in cpu.results.items():
        r.card(f"{CHAPTER}__cpu_{tech}", res.to_card(name=f"{CHAPTER}: CPU per transaction, {tech}, {chosen}",
                                                     dataset=source.name), res)
    for tech, res in time.results.items():
        r.card(f"{CHAPTER}__time_{tech}", res.to_card(name=f"{CHAPTER}: time per transaction, {tech}, {chosen}",
                                                      dataset=source.name), res)
    text.errata(r)
    return r


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs as a grid: one row per technique and size, one column per compressibility."""
    grid = runs.pivot_table(index=["technique", "size_kb"], columns="compressibility_pct", values="cpu_us",
                            aggfunc="mean", sort=False)
    grid.columns = [f"{num(c)} %" for c in grid.columns]
    grid = grid.reset_index().rename(columns={"technique": "technique", "size_kb": "message (KB)"})
    order = fits.techniques(runs)
    grid["_o"] = grid["technique"].map(order.index)
    return grid.sort_values(["_o", "message (KB)"], kind="stable").drop(columns="_o").reset_index(drop=True)


def fit_section(r, runs, cpu, time, share: float) -> None:
    r.text("fit_text", text.fitted(cpu))
    r.table("fits", fits.fit_table(cpu, runs), caption="Cost line per technique: CPU per transaction")
    r.table("parameters", fits.parameter_table(cpu), caption="Parameters of the CPU lines (S in KB, p the share "
                                                             "removed)")
    measured, lines, near = fits.curves(cpu, share, runs)
    r.chart("chart", charts.measured_vs_fitted(
        measured, lines, x="x", y="cpu", x_title="message size (KB)", y_title="CPU per transaction (µs)",
        title=f"CPU per transaction by technique: lines at {num(share * 100)} % compressibility, runs at "
              f"{num(near * 100)} %"))
    r.table("residuals", fits.residual_table(cpu), caption="Each run against its technique's line")
    rep = fits.replicates(runs, cpu)
    r.text("single_runs", text.single_runs(rep))
    if time.results:
        r.text("time_text", text.fitted(time, what="time per transaction (10⁶ / rate)"))
        r.table("time_parameters", fits.parameter_table(time),
                caption="Parameters of the time-per-transaction lines (µs of elapsed time per transaction)")
    else:
        r.text("time_text")
        r.missing("time_parameters", "The runs have no rates (rate_tx_s), so there is no time-per-transaction line")


def loo_section(r, runs) -> None:
    table = fits.leave_one_size_out(runs)
    r.table("loo", table, caption="Leave one size out: each size's runs predicted by the line through the others",
            missing="No technique has three message sizes, so no size can be held out while two remain to fit")
    r.text("loo_text", text.leave_one_out(table))


def plan_section(r, cpu, time, size_kb: float, pct: float) -> None:
    table = fits.against_cheapest(cpu, fits.plan(cpu, time, size_kb, pct / 100))
    for row in table.to_dict("records"):
        if row["extrapolated"]:
            r.extrapolated(f"{row['technique']} at {num(size_kb)} KB, {num(pct)} %: {row['extrapolated']}")
    best = fits.cheapest(table)
    r.text("plan_text", text.answer(best, table, size_kb, pct))
    r.table("plan", table, caption=f"Each technique at {num(size_kb)} KB and {num(pct)} % compressibility, "
                                   "cheapest first")


def channel_section(r, source, channels, size_kb: float, pct: float) -> None:
    if len(channels) < 2:
        r.text("channels_text")
        r.missing("channels", "The data holds one channel set-up, so there is nothing to compare across set-ups")
        return
    table = fits.by_channel(source, channels, size_kb, pct / 100)
    r.text("channels_text", text.by_channel(table, size_kb, pct))
    r.table("channels", table, caption=f"The cheapest technique at {num(size_kb)} KB and {num(pct)} % "
                                       "compressibility, by channel set-up")


def published_section(r, chosen: str) -> None:
    text.achieved(r)
    text.software(r)
    text.where(r)
    if not r.book_data:
        for key in ("achieved", "software", "comptime", "decomptime", "chin_tasks", "chin_text"):
            r.text(key)
        return
    comp = views.open("zos_chcomp_comptime", CHAPTER, "comptime")
    r.table("comptime", fits.comptime_table(comp, chosen, "compression"),
            caption=f"Compression COMPTIME on the sender (µs per request): {chosen}",
            missing=f"The report prints no COMPTIME for {chosen}")
    r.table("decomptime", fits.comptime_table(comp, chosen, "decompression"),
            caption=f"Decompression COMPTIME on the receiver (µs per request): {chosen}",
            missing=f"The report prints no COMPTIME for {chosen}")
    tasks = views.open("zos_chcomp_chin_task_cpu", CHAPTER, "chin_tasks")
    r.table("chin_tasks", tasks, caption="Channel initiator CPU by task per transaction: the report's example "
                                         "(16KB, 40 % compressible, ZLIBFAST over ECDHE_RSA_256_CBC_SHA384)")
    r.text("chin_text", text.chin_tasks(tasks))
    r.table("achieved", views.open("zos_chcomp_chart", CHAPTER, "achieved"),
            caption="100KB ZLIBFAST: nominal against achieved compressibility (chart readings)")
    soft = views.open("zos_chcomp_chart", CHAPTER, "software")
    printed = views.open("zos_chcomp_cost", CHAPTER)
    printed = printed[(printed["channel"] == "unencrypted") & (printed["message_bytes"] == 32 * 1024)
                      & printed["technique"].isin(["ZLIBFAST", "ZLIBHIGH"])]
    wide = printed.pivot_table(index="compressibility_pct", columns="technique", values=["cpu_us_per_tx", "rate_tx_s"])
    table = pd.DataFrame({
        "compressibility (%)": soft["compressibility_pct"],
        "software ZLIBFAST CPU (µs, chart)": soft["cpu_us_per_tx"],
        "± (µs)": soft["cpu_uncertainty"],
        "hardware ZLIBFAST CPU (µs, printed)": soft["compressibility_pct"].map(wide[("cpu_us_per_tx", "ZLIBFAST")]),
        "ZLIBHIGH CPU (µs, printed)": soft["compressibility_pct"].map(wide[("cpu_us_per_tx", "ZLIBHIGH")]),
        "software ZLIBFAST rate (tx/s, chart)": soft["rate_tx_s"],
        "± (tx/s)": soft["rate_uncertainty"],
        "hardware ZLIBFAST rate (tx/s, printed)": soft["compressibility_pct"].map(wide[("rate_tx_s", "ZLIBFAST")]),
    })
    r.table("software", table, caption="32KB unencrypted: ZLIBFAST in software (chart readings) beside the printed "
                                       "hardware ZLIBFAST and ZLIBHIGH")
