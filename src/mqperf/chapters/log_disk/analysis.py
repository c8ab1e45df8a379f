"""The log disk chapter's analysis: every sentence, table and chart, in order.

Orchestration only: the models and tables are :mod:`.fits`, the sentences :mod:`.text`, the charts
the builders of :mod:`mqperf.present.charts`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mqperf.chapters.log_disk import CHAPTER, MB, fits, text
from mqperf.data import aggregate, views
from mqperf.present import cards, charts, prose
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    src = views.describe(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = ("the persistent message rate and commit latency each disk carries at the planning inputs, with the "
                 "write size against the block sizes measured")
    opened = views.open(p["data"], CHAPTER)
    r.setup.update(opened.attrs.get("setup", {}))
    points = fits.prepare(opened)
    r.points = points
    r.checked("Time per write", "each writer's writes per second are 10⁶ / its average latency in µs (a writer writes "
                                "back to back); rows of one series and block size are replicates of one point")

    example = Path(str(p["data"])).name == "log_disk.csv" and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.what_was_read(points, r.book_data, example),
           aggregate.note(points, per="series, block size and writer count", value="the time per write"))
    r.about("about", text.ABOUT)
    caption = "The write tests, one row per block size and series"
    if aggregate.aggregated(points):
        caption += f" ({int(points[aggregate.COUNT].sum()):,} rows averaged into {len(points):,} points)"
    r.table("measured", fits.measured_table(points), caption=caption)

    # -- the disk model -----------------------------------------------------------------------------
    fs = fits.fit_disks(points)
    r.fit_results = dict(fs.results)
    single = fits.single_blocks(points)
    r.table("fits", fits.fits_table(fs, points), caption="Time per write t(b) = a + b/B, fitted per series "
            "(writes/s per writer against block size, equal relative errors)")
    r.text("fit_reading", text.fit_reading(fs, single))
    measured, curves = fits.chart_frames(fs, points)
    r.chart("chart", None if curves is None else charts.measured_vs_fitted(
        measured, curves, x="blocksize_bytes", y="mb_s", x_title="block size (bytes)",
        y_title="MB/s per writer", title="Each writer's MB/s against block size, measured and fitted"),
        missing="No series has two block sizes or more, so there is no fitted curve to draw")

    loo = fits.held_out(fs, points)
    r.table("held_out", loo, caption="Each block size's time per write, predicted by its series' fit without it",
            missing="No series has three block sizes or more, so none can be left out and still leave a fit "
                    "to predict it")
    r.text("held_out_reading", text.held_out_reading(loo) if len(loo) else None)

    vs = fits.mq_vs_tool(points)
    r.table("mq_vs_tool", vs, caption="MQ's log MB/s against MQLDT's at the same block size (chart readings)",
            missing="Your file gives no MQ log rate at the tool's block sizes (the book's figures do), so MQ's rate is "
                    "not set beside the tool's here; amqsrua figures below check the model against MQ")
    r.text("mq_vs_tool_reading", text.mq_vs_tool_reading(vs) if vs is not None else None)

    writes = views.open(p["amqsrua"], CHAPTER, "amqsrua") if p.get("amqsrua") else None
    check = fits.mq_check(fs, points, writes) if writes is not None and fs.results else None
    r.table("mq_check", check, caption="MQ's log writes (amqsrua) against the disk model at MQ's write size",
            missing="No amqsrua DISK/Log figures were given (parameter amqsrua), so the disk model is not checked "
                    "against MQ's own log writes" if writes is None else
                    "The amqsrua figures match no fitted disk (give the same series names, or one disk)")
    r.text("mq_check_reading", text.mq_check_reading(check) if check is not None and len(check) else None)

    # -- one block size (the printed sample, book data) -----------------------------------------------
    given = p.get("log_bytes_per_message")
    size = float(given) if given is not None else float(p["message_size_bytes"])
    k, n = int(p["messages_per_commit"]), int(p["committers"])
    sample = views.open(p["sample"], CHAPTER, "sample") if p.get("sample") else None
    sampled = fits.sample_check(sample, fs, size=size, k=k, n=n) if sample is not None else None
    r.table("sample", sampled, caption="One printed block size against the fitted sweeps of its device",
            missing="The book sets its printed one-block-size MQLDT run beside its sweeps here (parameter sample); "
                    "for a series of yours with one block size, the fit reading above says what it can tell"
                    if sample is None else
                    "No fitted sweep names the sample's device, so the sample is not set against one")
    r.text("sample_reading", text.sample_reading(sampled) if sampled is not None and len(sampled) else None)

    # -- planning ----------------------------------------------------------------------------------
    plan = fits.plan(points, fs, size=size, k=k, n=n)
    for row in plan.to_dict("records"):
        if row["extrapolated"] != "no":
            r.extrapolated(f"{prose.quoted(row['series'], markdown=False)}: a "
                           f"{prose.num(row['write size (bytes)'])}-byte write, {row['extrapolated'][5:]}")
    r.table("plan", plan, caption="The planning question: persistent messages/s and commit latency this disk "
                                  "carries under group commit (a commit waits one time per write, at most two). Range: the 95 % band of the fit by the delta method; "
                                  "with one block size (or no fit), the rates between all of the write's time fixed "
                                  "and all of it per byte; the limit for many committers is B/L, and needs B identified")
    r.text("plan_reading", text.plan_reading(plan, size=size, size_given=given is not None, k=k, n=n))

    # -- the published persistent rates by log device ----------------------------------------------
    published = views.open(p["published"], CHAPTER, "published")
    shown = _published(published)
    r.about("about_v93", text.ABOUT_V93)
    r.table("published", shown, caption="V9.3 persistent RR-BB peak rates by log device (Table 7)")
    r.text("published_reading", text.published_reading(shown))

    for name, card, result in cards.of_fits(fs, CHAPTER, src.name, **fits.card_extra(size, k, n)):
        r.card(name, card, result)
    return r


def _published(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"message size": frame["message_size"], "log device": frame["log_device"],
                        "round trips/s": frame["rate_rt_s"].astype(float), "CPU %": frame["cpu_pct"].astype(float),
                        "clients": frame["clients"]})
    ssd = frame[frame["log_device"] == "SSD"].set_index("size_bytes")["rate_rt_s"].astype(float)
    out["% of SSD"] = [100 * r / ssd.get(s, float("nan")) for r, s in zip(frame["rate_rt_s"], frame["size_bytes"])]
    out["log bytes/s at least (MB/s)"] = 2 * frame["rate_rt_s"].astype(float) * frame["size_bytes"].astype(float) / MB
    return out
