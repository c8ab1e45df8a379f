"""Q Replication channel tuning: what one sender channel carries at a round trip, window and
batch setting, which bound holds it there, and the window or batch a target rate needs.

The model is :mod:`mqperf.models.channel` (bandwidth–delay bound, batches that wait a round
trip plus a commit for their confirmation); a reader's measured rates are checked against it
and, with three or more batch sizes on one channel, fitted with the units-of-work model of
:mod:`mqperf.models.batching`. Sizes in bytes (KB = 1024 bytes, as BATCHLIM counts them),
rates in MB/s of 10⁶ bytes (as networks count them), times in ms.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="channels to plan: a CSV with rtt_ms [, tcp_window_bytes, message_bytes, batch_size, "
                          "batchlim_kb, link_mb_s, commit_ms, measured_mb_s, series], amqsevt channel statistics, "
                          "or a book dataset",
                     contract="qrep_channel"),
    "settings": DataFile(help="the article's recommended settings", contract="qrep_settings", files=False),
    "rtt_ms": Number(help="planning: round trip between capture and apply systems (the article flags NETTIME "
                          "above 1 ms)", unit="ms", minimum=0, exclusive_minimum=True, maximum=10000),
    "tcp_buffer_bytes": Integer(help="planning: TCPSENDBFRSIZE / TCPRCVBUFRSIZE, the most one connection has in "
                                     "flight", unit="bytes", minimum=1, maximum=2**31 - 1),
    "message_kb": Number(help="planning: QREP message size (the article: 10 KB to 1 MB)", unit="KB", minimum=0,
                         exclusive_minimum=True, maximum=102400),
    # MQ's own limits: BATCHSZ 1-9999, BATCHLIM 0-999999 KB.
    "batch_size": Integer(help="channel BATCHSZ (the article: 200)", unit="messages", minimum=1, maximum=9999),
    "batchlim_kb": Number(help="channel BATCHLIM (the article: at least 5000, the default, up to 100000)",
                          unit="KB", minimum=0, maximum=999999),
    "link_gbit_s": Number(help="planning: network link speed (not in the article)", unit="Gbit/s", minimum=0,
                          exclusive_minimum=True, maximum=10000),
    "commit_ms": Number(help="planning: per-batch time beyond the round trip, e.g. log forces at both ends",
                        unit="ms", minimum=0, maximum=60000),
    "target_mb_s": Number(help="planning: the rate capture must sustain (MB of 10^6 bytes per second)",
                          unit="MB/s", minimum=0, exclusive_minimum=True, maximum=1e6),
    "ping_small_ms": Number(help="optional: average round trip of `ping ... length 256`", unit="ms", minimum=0,
                            exclusive_minimum=True, maximum=10000, optional=True),
    "ping_large_ms": Number(help="optional: average round trip of `ping ... length 4096`", unit="ms", minimum=0,
                            exclusive_minimum=True, maximum=10000, optional=True),
    "cards_dir": Internal(help="where model cards go (only a reader's measured batches are fitted)"),
}

CHAPTER = "qrep_channel"
MB, KB = 1e6, 1024
#: More scenarios than this are summarised by their limits rather than one bullet each.
BULLETS = 6


def analyse(p: dict):
    """Load the channels, evaluate the bounds, check and fit any measured rates, and plan."""
    from mqperf.chapters import _qrep_channel_fits as fitting
    from mqperf.chapters import _qrep_channel_parts as parts
    from mqperf.data import views
    from mqperf.data.views.qrep_channel import recommended
    from mqperf.present.results import Results

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
    r.about("article", ABOUT_ARTICLE)
    r.about("errata", ABOUT_ERRATA)
    r.table("settings", parts.settings_table(settings), digits=6,
            caption="The article's numeric recommendations, as printed (seed 002)")

    # -- the bandwidth-delay bound ---------------------------------------------------------
    given = views.open(p["data"], CHAPTER)
    scenarios = parts.scenarios(given, defaults)
    r.points = scenarios
    evaluated = parts.evaluate(scenarios)
    advice = parts.advice_table(evaluated, rec)
    r.table("advice", advice, caption="The scenarios against the article's channel advice")
    r.text("advice_reading", parts.filled_from_parameters(given, defaults) + parts.advice_reading(advice, len(evaluated)))
    plan = parts.plan(rtt_ms=p["rtt_ms"], window=p["tcp_buffer_bytes"], message_bytes=p["message_kb"] * KB,
                      batch_size=p["batch_size"], batchlim_kb=p["batchlim_kb"], link_mb_s=link_mb_s,
                      commit_ms=p["commit_ms"], target_mb_s=p["target_mb_s"])
    grid = parts.rtt_grid(windows=sorted({65536, 262144, 1048576, 4194304, p["tcp_buffer_bytes"]}),
                          rtts_ms=sorted({0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, p["rtt_ms"], 10 * p["rtt_ms"]}),
                          link_mb_s=link_mb_s)
    r.text("bound", parts.bound_reading(plan, grid))
    r.about("rightsizing", ABOUT_RIGHTSIZING)
    r.chart("rtt_chart", parts.rtt_chart(grid, plan))

    # -- batches ---------------------------------------------------------------------------
    r.text("rows", parts.rows_note(scenarios))
    r.table("scenarios", parts.scenario_table(evaluated), digits=4, caption=parts.scenario_caption(scenarios))
    r.text("scenario_reading", *parts.scenario_reading(evaluated, BULLETS))
    for what in parts.b90_beyond(evaluated)[:12]:
        r.extrapolated(what)
    if len(evaluated) > BULLETS:
        r.table("limits", parts.limit_counts(evaluated), caption="Scenarios by what limits them most")
    else:  # each scenario has its own sentence above
        r.text("limits", None)
    sizes = {"10 KB messages": 10 * KB, f"{p['message_kb']:g} KB messages": p["message_kb"] * KB,
             "1 MB messages": KB * KB}
    curve = parts.batch_curve(plan, sizes, [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])
    r.chart("batch_chart", parts.batch_chart(curve, p["rtt_ms"]))

    # -- checking the model against measurements ------------------------------------------
    r.about("no_rates", ABOUT_NO_RATES)
    check = fitting.measured_check(evaluated)
    r.table("measured", fitting.measured_table(check), digits=4, caption=fitting.measured_caption(check),
            missing="The data has no measured rates (column measured_mb_s), so nothing checks the model "
                    "against a measurement and no batch model is fitted")
    r.text("measured_reading", fitting.measured_reading(check))
    fits = fitting.fit_batches(check, data_name=src.name, data_hash=src.sha256)
    r.text("fit_identification", fitting.fit_status(fits, check))
    if check.empty:  # the measured section's sentence already says why: no fit, nothing to leave out
        for key in ("fits", "fit_reading", "loo", "loo_reading"):
            r.text(key, None)
    else:
        r.table("fits", fitting.fit_table(fits, check), digits=4,
                caption="The units-of-work model X(b) = b/(t_c + b·t_m) per channel, with 95 % intervals",
                missing=fitting.no_fit_reason(check))
        r.text("fit_reading", *fitting.fit_reading(fits, check))
        loo = fitting.fit_loo(fits, check)
        r.table("loo", loo, digits=4, caption="Each measurement predicted by a refit without it",
                missing="No channel was fitted, so there is nothing to leave out")
        r.text("loo_reading", fitting.loo_reading(loo))
    for name, card, result in fits.cards(CHAPTER, src.name):
        r.card(name, card, result)

    # -- planning --------------------------------------------------------------------------
    r.table("plan", parts.plan_table(plan), digits=6,
            caption="One channel at the planning parameters, and what the target needs")
    beyond = parts.plan_coverage(plan, evaluated)
    if beyond:
        r.extrapolated(f"the plan for {p['target_mb_s']:g} MB/s at the planning parameters: {beyond}")
    r.text("plan_reading", *parts.plan_reading(plan, beyond, reader=not src.book_data))
    r.about("apply", ABOUT_APPLY)
    pings, why = parts.pings(rec["ping_bytes"], p["ping_small_ms"], p["ping_large_ms"], link_mb_s)
    r.table("pings", pings, digits=4, caption="Round trip and link from the two pings", missing=why)
    r.text("ping_reading", parts.ping_reading(pings, link_mb_s))
    return r


ABOUT_ARTICLE = (
    "The source is a list of advice for QREP over MQ on z/OS ({ref}`dataset <data-qrep_settings>`; the "
    "{ref}`Data catalog <data-catalog>` gives every quote): a dedicated queue manager, a transmission queue "
    "per consistency group on its own page set and buffer pool, read ahead, many requests per MQ message "
    "(`transbatchsize`) with messages of 10 KB to 1 MB, fast striped logs on modern DASD with zHPF, and for "
    "the channel the numbers below. None of them comes with a measured rate. The scenarios below are the "
    "channels this advice describes: the smallest and the largest recommended message, at the recommended "
    "buffers and `BATCHSZ`, at the 1 ms round trip above which the article suspects a network problem, and "
    "the largest message once more with the largest `BATCHLIM` the article suggests.")

ABOUT_RIGHTSIZING = (
    "The article asks for TCP buffers of 65536 bytes \"to allow dynamic rightsizing\": with it the stack may "
    "grow the window for a long, fast path, so 64 KB is where the window starts, not necessarily where it "
    "ends. A measured rate above the bound is the sign that it grew.")

ABOUT_NO_RATES = (
    "The article prints no channel rates, so nothing in the book can check this model: it rests on TCP's "
    "window rule and on the channel's batch protocol, not on a fit. Run the chapter on your own channel's "
    "rates (column `measured_mb_s`) to check it.")

ABOUT_APPLY = (
    "The bound is a ceiling: log writes at both ends, the apply side's DB2 work and the capture program can "
    "each hold the rate below it. If the apply queues grow deep, the article's advice is to tune QREP (more "
    "apply threads, less DB2 contention), not the channel.")

ABOUT_ERRATA = (
    "No erratum affects this chapter. Two units are not printed in the source and are read as the products "
    "define them: `BATCHLIM` in kilobytes, and the recommended TCP buffers in bytes.")
