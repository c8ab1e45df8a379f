"""``analyse(p)``: load the channels, evaluate the bounds, check and fit any measured rates, plan,
and add every sentence, table and chart the notebook shows."""

from __future__ import annotations

from mqperf.chapters.qrep_channel import BULLETS, CHAPTER, KB, MB, text
from mqperf.chapters.qrep_channel import fits as fitting
from mqperf.data import views
from mqperf.data.views.qrep_channel import recommended
from mqperf.present import cards, charts
from mqperf.present.charts import costs as cost_charts
from mqperf.present.results import Results


def analyse(p: dict):
    """Load the channels, evaluate the bounds, check and fit any measured rates, and plan."""
    src = views.describe(p["data"], CHAPTER)
    r = Results(book_data=src.book_data, source=src.name)
    r.answers = ("the window, BATCHSZ, BATCHLIM and channels the target needs, and each scenario's BATCHSZ for "
                 "90 % of its bound")
    link_mb_s = p["link_gbit_s"] * 1e9 / 8 / MB
    defaults = {"batch_size": p["batch_size"], "batchlim_kb": p["batchlim_kb"], "link_mb_s": link_mb_s,
                "commit_ms": p["commit_ms"], "tcp_window_bytes": p["tcp_buffer_bytes"],
                "message_bytes": p["message_kb"] * KB}
    settings = views.open(p["settings"], CHAPTER, "settings")
    rec = recommended(settings)

    # -- what the article recommends -------------------------------------------------------
    r.about("article", text.ABOUT_ARTICLE)
    r.about("errata", text.ABOUT_ERRATA)
    # Six digits: one "value" column holds bytes, KB and counts as printed (65536, 100000), which
    # no one unit's digits would show whole.
    r.table("settings", fitting.settings_table(settings), digits=6,
            caption="The article's numeric recommendations, as printed (seed 002)")

    # -- the bandwidth-delay bound ---------------------------------------------------------
    given = views.open(p["data"], CHAPTER)
    scenarios = fitting.scenarios(given, defaults)
    r.points = scenarios
    evaluated = fitting.evaluate(scenarios)
    advice = fitting.advice_table(evaluated, rec)
    r.table("advice", advice, caption="The scenarios against the article's channel advice")
    r.text("advice_reading", text.filled_from_parameters(given, defaults) + text.advice_reading(advice, len(evaluated)))
    plan = fitting.plan(rtt_ms=p["rtt_ms"], window=p["tcp_buffer_bytes"], message_bytes=p["message_kb"] * KB,
                        batch_size=p["batch_size"], batchlim_kb=p["batchlim_kb"], link_mb_s=link_mb_s,
                        commit_ms=p["commit_ms"], target_mb_s=p["target_mb_s"])
    grid = fitting.rtt_grid(windows=sorted({65536, 262144, 1048576, 4194304, p["tcp_buffer_bytes"]}),
                            rtts_ms=sorted({0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, p["rtt_ms"], 10 * p["rtt_ms"]}),
                            link_mb_s=link_mb_s)
    r.text("bound", text.bound_reading(plan, grid))
    r.about("rightsizing", text.ABOUT_RIGHTSIZING)
    r.chart("rtt_chart", _rtt_chart(grid, plan))

    # -- batches ---------------------------------------------------------------------------
    r.text("rows", text.rows_note(scenarios))
    r.table("scenarios", fitting.scenario_table(evaluated), caption=text.scenario_caption(scenarios))
    r.text("scenario_reading", *text.scenario_reading(evaluated, BULLETS))
    for what in text.b90_beyond(evaluated)[:12]:
        r.extrapolated(what)
    if len(evaluated) > BULLETS:
        r.table("limits", fitting.limit_counts(evaluated), caption="Scenarios by what limits them most")
    else:  # each scenario has its own sentence above
        r.text("limits", None)
    sizes = {"10 KB messages": 10 * KB, f"{p['message_kb']:g} KB messages": p["message_kb"] * KB,
             "1 MB messages": KB * KB}
    curve = fitting.batch_curve(plan, sizes, [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])
    r.chart("batch_chart", _batch_chart(curve, p["rtt_ms"]))

    # -- checking the model against measurements ------------------------------------------
    r.about("no_rates", text.ABOUT_NO_RATES)
    check = fitting.measured_check(evaluated)
    r.table("measured", fitting.measured_table(check), caption=text.measured_caption(check),
            missing="The data has no measured rates (column measured_mb_s), so nothing checks the model "
                    "against a measurement and no batch model is fitted")
    r.text("measured_reading", text.measured_reading(check))
    fits = fitting.fit_batches(check, data_name=src.name, data_hash=src.sha256)
    r.text("fit_identification", text.fit_status(fits, check))
    if check.empty:  # the measured section's sentence already says why: no fit, nothing to leave out
        for key in ("fits", "fit_reading", "loo", "loo_reading"):
            r.text(key, None)
    else:
        r.table("fits", fitting.fit_table(fits, check),
                caption="The units-of-work model X(b) = b/(t_c + b·t_m) per channel, with 95 % intervals",
                missing=text.no_fit_reason(check))
        r.text("fit_reading", *text.fit_reading(fits, check))
        loo = fitting.fit_loo(fits, check)
        r.table("loo", loo, caption="Each measurement predicted by a refit without it",
                missing="No channel was fitted, so there is nothing to leave out")
        r.text("loo_reading", text.loo_reading(loo))
    for name, card, result in cards.of_fits(fits, CHAPTER, src.name):
        r.card(name, card, result)

    # -- planning --------------------------------------------------------------------------
    # Six digits: the "value" column mixes units (a 65,536-byte window, a BATCHLIM in KB), shown whole.
    r.table("plan", fitting.plan_table(plan), digits=6,
            caption="One channel at the planning parameters, and what the target needs")
    beyond = fitting.plan_coverage(plan, evaluated)
    if beyond:
        r.extrapolated(f"the plan for {p['target_mb_s']:g} MB/s at the planning parameters: {beyond}")
    r.text("plan_reading", *text.plan_reading(plan, beyond, reader=not src.book_data))
    r.about("apply", text.ABOUT_APPLY)
    pings, why = fitting.pings(rec["ping_bytes"], p["ping_small_ms"], p["ping_large_ms"], link_mb_s)
    r.table("pings", pings, caption="Round trip and link from the two pings", missing=why)
    r.text("ping_reading", text.ping_reading(pings, link_mb_s))
    return r


def _rtt_chart(grid, plan: dict):
    """Log–log rate against round trip: each window a line of slope −1 until the link caps it."""
    return cost_charts.log_lines(
        grid, x="round trip (ms)", y="rate (MB/s)", colour="window", colour_title="TCP window",
        x_title="round-trip time (ms, log scale)", y_title="most one channel can carry (MB/s, log scale)",
        title="The bandwidth-delay bound: window / round trip",
        mark={"round trip (ms)": plan["rtt_ms"], "rate (MB/s)": plan["effective_mb_s"],
              "label": "the planning round trip and window"})


def _batch_chart(curve, rtt_ms: float):
    return charts.lines(curve, x="BATCHSZ", y="rate (MB/s)", colour="messages", log_x=True,
                        x_title="BATCHSZ (messages, log scale)", y_title="modelled rate (MB/s)",
                        title=f"One channel at {rtt_ms:g} ms round trip: rate against batch size")
