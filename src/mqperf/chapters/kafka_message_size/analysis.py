"""Message size's report: load, fit, plan, and add every table, chart and sentence to the Results."""

from __future__ import annotations

from mqperf.chapters.kafka_message_size import CHAPTER, fits as k, text as t
from mqperf.data import aggregate, views
from mqperf.present import cards, charts, prose, text
from mqperf.present.results import Results


def analyse(p: dict) -> Results:
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    src = views.describe(p["data"])
    pts = k.points(views.open(p["data"], CHAPTER))
    fits = k.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    plan_kb, max_kb = float(p["plan_msg_size_kb"]), float(p["max_size_kb"])
    r = Results(book_data=src.book_data, source=src.name)
    r.points, r.fit_results = pts, dict(fits.results)
    r.answers = "the rate and MB/s at plan_msg_size_kb and at the planning table's sizes, the half-size, the size for 90 % of B"

    r.about("about_measured", t.ABOUT_MEASURED)
    r.text("aggregation", aggregate.note(pts, per="series and message size", value="rate_msg_s"))
    rows = f": means of {int(pts[aggregate.COUNT].sum()):,} rows" if aggregate.aggregated(pts) else ""
    # Five digits here and in the check: the published rates and MB/s are printed to five (38,355; 37.46).
    r.table("points", k.points_table(pts), caption=f"Rates by message size (1 MB = 1,024 KB){rows}", digits=5)
    check = k.mb_check(pts)
    r.table("mb_check", check, caption="Printed MB/s against rate × size / 1,024", digits=5,
            missing="your file has no approx_mb_s column, so there is no printed MB/s to check")
    r.text("mb_check_text", t.mb_text(check))
    r.about("about_mb", t.ABOUT_MB)

    # Four digits for every column, the miss in % too (a % column alone would get three).
    r.table("fits", k.fits_table(fits), caption="One latency–bandwidth fit per series", digits=4)
    r.text("identification", prose.identification(fits.results), t.unfitted(fits))
    r.table("parameters", k.parameter_table(fits) if fits.any_intervals else None,
            caption="Estimates and 95 % intervals",
            missing="no fit has residual degrees of freedom, so there are no intervals; the estimates are in the "
                    "table above")
    r.text("readings", t.readings(fits, pts, r))
    r.about("about_readings", t.ABOUT_READINGS)

    # The curves span the measured sizes too, whatever max_size_kb asks for.
    span = max(max_kb, float(pts["msg_size_kb"].max()))
    r.chart("rate_chart", _rate_chart(pts, k.curves(fits, span)))
    r.chart("bytes_chart", _bytes_chart(pts, k.curves(fits, span, as_mb=True)))
    r.chart("residual_chart", _residual_chart(k.residuals(fits)))

    loo = k.leave_one_out(fits, pts, src.name, src.sha256)
    r.table("loo", loo, caption="Leave one size out: each rate predicted by a fit of the other sizes",
            missing="no series has three or more distinct sizes, so no size can be left out and still leave a fit")
    r.text("loo_text", t.loo_text(loo))
    anchor = t.about_anchor(fits, pts) if src.book_data else ""
    if anchor:
        r.about("about_anchor", anchor)
    else:
        r.text("about_anchor")

    # The plan tables keep four digits for the fixed share (%) too, as for the rates beside it.
    asked = k.plan(fits, [plan_kb])
    r.table("plan", asked, caption=f"Expected rate at {prose.given(plan_kb)} KB", digits=4)
    r.text("plan_text", t.plan_text(asked, pts, fits, r))
    sizes = sorted({1.0, 2.0, 4.0, 8.0, 16.0, 32.0, max_kb, plan_kb})
    by_size = k.plan(fits, sizes)
    r.table("plan_sizes", by_size, caption="Expected rate by message size (extrapolated: outside the sizes measured)",
            digits=4)
    for row in by_size[by_size["extrapolated"]].to_dict("records"):
        r.extrapolated(f"{text.visible(row['series'])}: the rate at {prose.num(row['size (KB)'])} KB (table)")
    r.about("about_plan", t.ABOUT_PLAN)

    r.checked("Quantities stated", t.identified_check(fits))
    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)
    return r


def _rate_chart(pts, curve):
    return charts.measured_vs_fitted(pts, curve, x="msg_size_kb", y="rate_msg_s", x_title="message size (KB)",
                                     y_title="rate (msg/s)", title="Message rate by size: t(s) = a + s/B")


def _bytes_chart(pts, curve):
    return charts.measured_vs_fitted(pts, curve, x="msg_size_kb", y="mb_s", x_title="message size (KB)",
                                     y_title="MB per second (MB/s)", title="Bytes moved by size, approaching B")


def _residual_chart(frame):
    return charts.residuals(frame, x="msg_size_kb", x_title="message size (KB)",
                            title="Residuals: measured rate against the fit")
