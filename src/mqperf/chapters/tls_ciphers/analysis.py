"""TLS CipherSpecs: everything the chapter shows, in the order the notebook shows it (orchestration only)."""

from __future__ import annotations

from pathlib import Path

from mqperf.chapters.tls_ciphers import CHAPTER, EXAMPLE, NAMED
from mqperf.chapters.tls_ciphers import fits as f
from mqperf.chapters.tls_ciphers import text
from mqperf.data import views
from mqperf.present import charts, prose
from mqperf.present.charts import storage  # noqa: F401 (charts.storage)
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    src = views.describe(p["data"], CHAPTER)
    opened = views.open(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.setup.update(opened.attrs.get("setup", {}))
    r.answers = "CPU % at your rate with each CipherSpec (extrapolated above the rate a run reached)"
    rows = f.prepare(opened)
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.read(rows, example))
    if "dataset" in opened:  # the book's tables (a reader's file has no such column)
        r.about("about_data", text.about_book(list(dict.fromkeys(opened["dataset"]))))
    else:
        r.text("about_data", "")
    r.checked("Baseline", "each series' CipherSpecs are set against its own run without TLS (`No TLS`); "
                          "series without one are shown, not compared")

    pts = f.points(rows)
    r.points = pts
    table = f.costs(pts)
    rate = float(p["your_rate_rt_s"])
    r.table("costs", table.drop(columns="baseline").dropna(axis=1, how="all"), caption=f"Peak rate and CPU by CipherSpec, and the cost of TLS: "
            f"rate ratio = No TLS rate / this rate; CPU per round trip = CPU % / rate (shown per {f.PER:,} round "
            "trips/s), this over No TLS")
    r.text("bound_text", prose.bullets(text.bound_reading(table)[:NAMED]))
    ratios = f.compared(table)
    r.chart("ratio_chart", charts.storage.dots(
        ratios[["series", "CipherSpec", text.RATIO_C]].rename(columns={text.RATIO_C: "ratio"}), x="ratio",
        y="CipherSpec", colour="series", x_title="CPU per round trip, CipherSpec / No TLS",
        title="The CPU cost of each CipherSpec against no TLS") if len(ratios) else None,
        missing="No series has both a run without TLS and a run with a CipherSpec.")
    r.text("single_run", text.single_run_note(pts))
    r.text("costs_text", prose.bullets(text.costs_reading(table, rows)[:NAMED]) if len(f.compared(table)) else
           "No series has both a run without TLS and a run with a CipherSpec, so there is no ratio to state.")

    plan = f.plan(table, rate)
    for row in plan[plan["extrapolated"]].to_dict("records"):
        r.extrapolated(f"{prose.quoted(row['series'], markdown=False)}, {row['CipherSpec']}: CPU at "
                       f"{prose.given(rate)} round trips/s, above the {prose.num(row['measured peak (round trips/s)'])} "
                       "the run reached")
    r.table("plan", plan.drop(columns="baseline"), caption=f"CPU % at {prose.given(rate)} round trips/s by CipherSpec "
            "(CPU % / rate × your rate: proportional to the rate)")
    r.text("plan_text", prose.bullets(text.plan_reading(plan, rate)[:NAMED]))

    pub = views.open(p["published"], CHAPTER, "published") if src.book_data and p.get("published") else None
    check = f.published_check(pub) if pub is not None else None
    r.table("published", check, caption="The V9.3 report's printed No-TLS / TLS ratios (section 6.3) against the "
            "rates printed beside them", missing="Printed ratios are the book's V9.3 report's; a reader's file has "
            "its ratios in the table above.")
    r.text("published_text", text.published_reading(check))
    return r
