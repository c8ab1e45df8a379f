"""HA replication latency: everything the chapter shows, in the order the notebook shows it.

Orchestration only: the data through :func:`mqperf.data.views.open`, the fits and tables from
:mod:`.fits` (on :mod:`mqperf.models.replication`), the sentences from :mod:`.text`, the charts
from :mod:`mqperf.present.charts.capacity`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mqperf.chapters.ha_replication import CHAPTER, EXAMPLE, NAMED, SAID
from mqperf.chapters.ha_replication import fits as f
from mqperf.chapters.ha_replication import text
from mqperf.data import aggregate, views
from mqperf.errors import DataError
from mqperf.present import cards, prose
from mqperf.present.charts import capacity
from mqperf.present.results import Results


def _open(source, input: str) -> tuple[pd.DataFrame, views.Source]:
    return views.open(source, CHAPTER, input), views.describe(source, CHAPTER)


def analyse(p: dict) -> Results:
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    frame, src = _open(p["data"], "data")
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = "the rate at your delay and the largest delay for the target rate, per series"
    rows, col = f.prepare(frame, src.name or "data")
    if p.get("more_data"):
        more, _ = _open(p["more_data"], "more_data")
        more_rows, more_col = f.prepare(more, str(p["more_data"]))
        if more_col != col:
            raise DataError(str(p["more_data"]), f"gives the delay as {more_col}, data as {col}: both must say "
                                                 "the same")
        rows = pd.concat([rows, more_rows], ignore_index=True)
    pts = f.points(rows)
    r.checked("Response time", "N/rate, Little's law for clients with one request outstanding and no think time"
              if "clients" in pts else "not computed: the rows give no clients, so the fit is on the rate and its "
              "slope is k/N")
    r.checked("Delay", f"{col}: " + ("the round trip added between the nodes; a includes the network's own"
                                     if col == "added_latency_ms" else "the whole round trip between the nodes"))
    per_client = f.has_clients(pts)
    r.points = pts
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", text.read(pts, col, example, per_client))
    r.about("about_rdqm", text.about_rdqm())
    r.about("about_v93", text.about_v93(), title=False)
    r.text("aggregation", aggregate.note(pts, per="series and delay", value="rate"))
    r.table("points", f.points_table(pts, col), caption="The points the fits use" + (
        " (single-requester rates are 1000 / the printed latency; basis derived)" if src.book_data else ""))

    # -- the fits -------------------------------------------------------------------------------
    fits = f.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    r.fit_results = dict(fits.results)
    r.text("model", text.model_passage(col))
    r.table("fits", f.fits_table(fits, per_client), caption="R(d) = a + k·d, one fit per series (rates weighted "
            "for equal relative errors)", missing="No series has two or more delays, so nothing could be fitted: "
            + "; ".join(f"{prose.quoted(s, markdown=False)}: {why}" for s, why in list(fits.failures.items())[:NAMED]))
    r.text("identification", prose.identification(fits.results) if fits.results else
           "No series has two or more delays, so no round-trip cost can be fitted.")
    r.text("k_reading", prose.bullets(text.k_reading(fits, per_client)))

    top = float(max(pts[f.D].max(), float(p["your_rtt_ms"])))
    lines = f.curves(fits, pts, top) if fits.results else None
    for key, y, y_title, title in (("rate_chart", "rate", "requests per second", "Rate against the delay"),
                                   ("response_chart", "response_ms", "N / rate (ms)",
                                    "Response time against the delay: a straight line of slope k")):
        drawable = lines is not None and (y == "rate" or "response_ms" in pts)
        r.chart(key, capacity.models_and_points(pts, lines, x=f.D, y=y, x_title=f"{SAID[col]} (ms)", y_title=y_title,
                                                title=title) if drawable else None,
                missing="there is no fit to draw" if lines is None else "the rows give no clients, so there is no "
                "response time N/rate to draw")

    # -- held-out check ---------------------------------------------------------------------------
    loo = f.validation(fits, pts, col) if fits.results else None
    r.table("validation", loo, caption="Each point predicted by its series' fit without it", digits=4,
            missing="there is no fit to check")
    r.text("validation_reading", text.validation_reading(loo) if loo is not None and len(loo) else None)

    # -- planning ---------------------------------------------------------------------------------
    your, target = float(p["your_rtt_ms"]), p.get("target_rate")
    plan = f.plan(fits, pts, your, target) if fits.results else None
    r.table("plan", plan, caption=f"At {prose.given(your)} ms of {SAID[col]}: the rate, by each series' fit at its "
            "clients", missing="no series has a fit to plan with")
    if plan is not None:
        for row in plan.to_dict("records"):
            name = prose.quoted(row["series"], markdown=False)
            if row["extrapolated"] != "no":
                r.extrapolated(f"{name}: the rate at {prose.given(your)} ms (measured {row['measured delays (ms)']} ms)")
            if target is not None and row.get("target: note") == "beyond the measured delays":
                r.extrapolated(f"{name}: the largest delay for {prose.given(target)} requests/s")
    r.text("plan_reading", prose.bullets(text.plan_reading(plan, your, col, target)) if plan is not None else None)

    # -- k at every requester count (a file of its own: the book's is chart readings) ---------------------
    if p.get("concurrency"):
        conc_frame, conc_src = _open(p["concurrency"], "concurrency")
        conc_rows, conc_col = f.prepare(conc_frame, conc_src.name or "concurrency")
        conc_pts = f.points(conc_rows)
        conc = f.fit_all(conc_pts, data_name=conc_src.name, data_hash=conc_src.sha256)
        chart = conc_src.book_data and "basis" in conc_pts and (conc_pts["basis"] == "chart").any()
        r.table("concurrency", f.fits_table(conc, f.has_clients(conc_pts)), caption="R(d) = a + k·d at each requester "
                "count" + (" (chart readings, not printed values)" if chart else ""),
                missing="no series of the concurrency file has two or more delays")
        r.text("concurrency_reading", text.concurrency_reading(conc, f.has_clients(conc_pts), chart))
    else:
        r.missing("concurrency", "No file of the same runs at several requester counts was given (parameter "
                                 "concurrency), so k is not compared across concurrency")
        r.text("concurrency_reading", None)

    # -- Native HA beside one instance (book data only) -----------------------------------------------
    nha = views.open(p["nativeha"], CHAPTER, "nativeha") if p.get("nativeha") and src.book_data else None
    r.about("about_nativeha", text.about_nativeha(), title=False)
    r.table("nativeha", f.nativeha_table(nha) if nha is not None else None, digits=4,
            caption="Native HA against one queue manager (SIQM), persistent, by message size and CPU limit",
            missing="Native HA's comparison with one queue manager is the book's (the OCP report); it is shown on "
                    "the book's data only")

    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)
    return r
