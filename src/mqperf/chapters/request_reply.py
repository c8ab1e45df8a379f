"""Request/reply capacity: clients, throughput and response time.

``analyse`` checks every row of a closed-loop measurement against Little's law, fits the USL
to the rate against clients and reads the response time it implies
(:mod:`._request_reply_fits`); fits a one-queue MVA to the rates, which gives the reader's own
bottleneck demand and ceiling where the data identify them, and ranks the three models of the
rate by AICc, planning with the winner (:mod:`._request_reply_models`); and sets an exact
mean-value analysis from per-message demand figures beside the measurements
(:mod:`._request_reply_mva`). The figures default to the book's (CPU of the MQ verbs, log
bytes per message, a log disk's bandwidth and forced-write latency, a network round trip), and
every sentence about what they imply says whose figures they are.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

CHAPTER = "request_reply"
#: The example the book runs on: synthetic, made by tools/make_request_reply_example.py.
EXAMPLE = "request_reply.csv"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8

PARAMETERS = {
    "data": DataFile(help="closed-loop measurements: a CSV with clients, rate_msg_s, response_time_ms "
                          "[, think_time_ms, series]", contract=CHAPTER),
    "cpu_costs": DataFile(help="published CPU of MQPUT1 and MQGET (Kafka connector article), for the default CPU "
                               "per message", contract="kafka_cpu_costs", files=False),
    "log_bytes": DataFile(help="published log bytes of a 1 KB persistent put and get (MP16), for the default log "
                               "bytes per message", contract="kafka_log_bytes", files=False),
    "log_disk": DataFile(help="published mqldt run (NativeHA chapter), for the default log bandwidth",
                         contract="nativeha_mqldt", files=False),
    "network": DataFile(help="the Q Replication notes' healthy nettime, for the default network round trip",
                        contract="qrep_settings", files=False),
    "cpu_us_per_msg": Number(help="queue manager CPU per message put and got; none: from cpu_costs", unit="µs",
                             minimum=0, maximum=1e6, optional=True),
    "log_bytes_per_msg": Number(help="log bytes per message put and got (0: non-persistent); none: from log_bytes",
                                unit="bytes", minimum=0, maximum=1e9, optional=True),
    "log_mb_s": Number(help="log disk bandwidth; none: from log_disk", unit="MB/s", minimum=0,
                       exclusive_minimum=True, maximum=1e6, optional=True),
    "log_latency_us": Number(help="latency of one forced log write (a persistent message waits for two: its put's "
                                  "and its get's commit); none: from log_disk; 0 leaves it out", unit="µs", minimum=0,
                             maximum=1e7, optional=True),
    "network_rtt_us": Number(help="network round trip per message; none: from network", unit="µs", minimum=0,
                             maximum=1e7, optional=True),
    "messages_per_request": Integer(help="messages per request, each put and got once (2: the request and its "
                                         "reply)", unit="messages", minimum=1, maximum=100),
    "tolerance": Number(help="Little's law: rows whose X·(R + Z) / N is further from 1 than this are flagged",
                        minimum=0.001, maximum=1),
    "target_rate_msg_s": Number(help="planning question: how many clients for this rate?", unit="requests/s",
                                minimum=0, exclusive_minimum=True, maximum=1e9),
    "max_response_ms": Number(help="planning question: how many clients keep the response time within this?",
                              unit="ms", minimum=0, exclusive_minimum=True, maximum=1e6),
    "max_clients": Integer(help="the largest number of clients the curves and planning consider", unit="clients",
                           minimum=1, maximum=1000),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def analyse(p: dict):
    """Everything the chapter shows, computed from ``p`` (the notebook's parameters)."""
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from mqperf.chapters import _request_reply_fits as f
    from mqperf.chapters import _request_reply_models as models
    from mqperf.chapters import _request_reply_mva as m
    from mqperf.data import aggregate, views
    from mqperf.errors import ModelError
    from mqperf.present import prose
    from mqperf.present.results import Results

    src = views.describe(p["data"], CHAPTER)
    opened = views.open(p["data"], CHAPTER)
    rows = f.prepare(opened)
    tolerance, target, limit = float(p["tolerance"]), float(p["target_rate_msg_s"]), float(p["max_response_ms"])
    r = Results(book_data=src.book_data, source=src.name)
    r.setup.update(opened.attrs.get("setup", {}))  # what a tool's files state (cphtestp)
    r.answers = "clients for the target rate and clients within the response-time limit, per series"
    example = Path(str(p["data"])).name == EXAMPLE and Path(str(p["data"])).parent.name == "examples"
    r.text("read", _read(rows, example, prose))

    # -- Little's law, before any fit ---------------------------------------------------------
    checked = f.little(rows, tolerance)
    summary = f.little_summary(checked, tolerance)
    r.table("little", summary, caption="Little's law, N = X·(R + Z), checked on every row", digits=4)
    r.text("little_text", f.little_reading(checked, summary, tolerance, int(p["messages_per_request"])))
    r.table("flagged", f.flagged_table(checked), caption=f"Rows further than {prose.pct(100 * tolerance)} from "
            "Little's law", digits=4, missing="no row disagrees with Little's law beyond the tolerance")
    pts = f.points(checked)
    r.points = pts
    r.text("aggregation", aggregate.note(pts, per="series and client count", value="rate_msg_s"))
    r.table("points", f.points_table(pts), caption="The points the fits use", digits=5)

    # -- the USL fit and the response time it implies --------------------------------------------
    fits = f.fit_all(pts, data_name=src.name, data_hash=src.sha256)
    r.fit_results = dict(fits.results)
    r.table("fits", f.fits_table(fits), caption="Throughput against clients: one fit per series", digits=4)
    r.text("identification", prose.identification(fits.results) if fits.results else
           "No series has two or more client counts, so no scaling curve can be fitted.")
    r.text("readings", prose.bullets(
        " ".join(prose.usl_reading(name, res, measured_max_n=float(pts.loc[pts["series"] == name, "clients"].max()),
                                   unit="requests/s"))
        for name, res in list(fits.results.items())[:NAMED]))
    implied = f.implied_response(fits, pts) if fits.results else None
    r.table("implied", implied, caption="Response time: measured, and implied by the throughput fit (N / X(N) − Z)",
            digits=4, missing="without a throughput fit there is no implied response time")
    r.text("implied_text", f.implied_reading(implied, pts, tolerance) if implied is not None else "")

    # -- the MVA the measurements calibrate (read after the ranking below) ------------------------------
    cal = models.calibrate(pts, data_name=src.name, data_hash=src.sha256)
    r.fit_results.update({f"{s} (MVA fitted)": res for s, res in cal.results.items()})
    r.table("calibrated", models.calibrated_table(cal), digits=4,
            caption="The one-queue MVA fitted to each series' rates: the bottleneck's demand D_q and the delay D_d")

    # -- MVA from the demand figures ------------------------------------------------------------
    figures = {k: views.open(p[k], CHAPTER, k) for k in ("cpu_costs", "log_bytes", "log_disk", "network")}
    d = m.resolve(p, figures)
    r.table("figures", _figures_table(figures, p), caption="The book's figures the default demands come from",
            digits=5)
    r.text("demands_text", prose.bullets(d.said), f"A request is {prose.count(d.messages, 'message')}, "
           "each put and got once, so its demand at each resource is that many times a message's.")
    r.table("demands", m.demands_table(d), caption="Service demands per request, and whose figures they are", digits=4)
    top = max(int(p["max_clients"]), int(pts["clients"].max()))
    grid = np.unique(np.round(np.linspace(1, top, 60)).astype(int))
    try:
        solved = m.solve_all(d, pts, top)
    except ModelError:
        solved = {}
    nothing = "no resource that queues has a demand above 0 (CPU and log are both 0), so there is no MVA"
    summary = m.summary_table(solved, pts) if solved else None
    compare = m.compare_table(solved, pts) if solved else None
    r.table("mva_summary", summary, caption=f"MVA from {d.attribution()}, by series: bottleneck, ceiling and where "
            "the bounds meet", digits=4, missing=nothing)
    r.table("mva", compare, caption="MVA from the figures beside the measurements", digits=4, missing=nothing)
    r.text("mva_text", m.mva_reading(summary, compare, d, example) if solved else "")
    r.table("utilisation", m.utilisation_table(solved, pts) if solved else None, digits=3,
            caption="Where a request spends its time, by the MVA from the figures", missing=nothing)
    implied_d = m.implied_table(solved, pts) if solved else None
    r.table("implied_demands", implied_d, caption="What the measurements alone say about the figures' demands",
            digits=4, missing=nothing)
    r.text("implied_demands_text", m.implied_reading(implied_d, tolerance) if solved else "")

    # -- which model: AICc -------------------------------------------------------------------------
    cands = models.candidates(pts, fits, cal, solved, d.attribution())
    ranking, accepted, how = models.rank(cands, d.all_yours)
    r.table("ranking", ranking, caption="The models of the rate, ranked per series (lowest criterion accepted)",
            digits=4, missing="no series has a model to rank")
    r.text("ranking_text", prose.bullets(models.ranking_reading(ranking, accepted, how, example)[:NAMED]))
    r.text("calibrated_text", models.calibrated_identification(cal),
           prose.bullets(models.calibrated_reading(cal, pts, ranking, accepted)[:NAMED]))
    r.checked("Model choice", "; ".join(f"{prose.quoted(s, markdown=False)}: {how[s]}" + (
        f" ({accepted[s].model})" if s in accepted else "") for s in list(how)[:NAMED]) or "no series")

    lines = [f.curves(fits, pts, grid), _calibrated_curves(cal, pts, grid, models)] + (
        [m.curves(solved, grid)] if solved else [])
    lines = pd.concat([x for x in lines if len(x)], ignore_index=True) if any(len(x) for x in lines) else None
    r.chart("rate_chart", None if lines is None else f.chart(pts, lines, y="rate", y_title="requests per second",
                                                               title="Throughput against clients"),
            missing="there is neither a fitted model nor an MVA from the figures to draw")
    r.chart("response_chart", None if lines is None else f.chart(pts, lines, y="response_ms", y_title="response time (ms)",
                                                                   title="Response time against clients"),
            missing="there is neither a fitted model nor an MVA from the figures to draw")

    # -- planning, with the accepted model ------------------------------------------------------------
    plan = models.plan(accepted, target, limit, top) if accepted else None
    r.table("plan", plan, caption=f"Clients for {prose.num(target, 12)} requests/s, and within "
            f"{prose.num(limit, 12)} ms, by each series' accepted model (planning range 1 to {top:,} clients)",
            digits=4, missing="no model answers for any series (see the ranking above)")
    if plan is not None:
        for row in plan.to_dict("records"):
            name = prose.quoted(row["series"], markdown=False)
            if row["target: extrapolated"]:
                r.extrapolated(f"{name}: clients for {prose.num(target, 12)} requests/s "
                               f"({row['clients for the target']:,}, measured up to {row['largest measured (clients)']:,})")
            if row["limit: extrapolated"]:
                r.extrapolated(f"{name}: clients within {prose.num(limit, 12)} ms "
                               f"({row['most clients within the limit']:,}, measured up to "
                               f"{row['largest measured (clients)']:,})")
    r.text("plan_text", prose.bullets(models.plan_reading(plan, target, limit, top)[: 2 * NAMED])
           if plan is not None else "")

    for name, card, result in fits.cards(CHAPTER, src.name):
        r.card(name, card, result)
    from mqperf.present.cards import card_name

    for s, res in cal.results.items():
        r.card(card_name(CHAPTER, f"{s} mva"), res.to_card(name=f"{CHAPTER}: {s}, MVA fitted", dataset=src.name), res)
    return r


def _calibrated_curves(cal, pts, grid, models):
    import pandas as pd

    frames = []
    for s, res in cal.results.items():
        x = res.predict(grid)
        frames.append(pd.DataFrame({"series": s, "clients": grid, "curve": models.FITTED, "rate": x,
                                    "response_ms": (grid / x - models.think_s(pts, s)) * 1e3}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _read(rows, example: bool, prose) -> str:
    series = rows["series"].unique()
    many = prose.count(len(series), "series", "series") if len(series) <= 10 else "many series"
    text = (f"The file's rows fall into {many} ({prose.listing(prose.quoted(s) for s in series[:NAMED])}"
            + (", …" if len(series) > NAMED else "") + "); the Little's-law table below counts them.")
    if example:
        text = ("**This is a synthetic example, not a measurement**: `tools/make_request_reply_example.py` made it "
                "from a known MVA system (the book's default demands below) with noise from a fixed seed, and put "
                "one row off Little's law on purpose. Run the chapter on your own measurements with "
                "`mqperf run request_reply --data FILE`. " + text)
    return text


def _figures_table(figures: dict, p: dict):
    import pandas as pd

    frames = [fr.assign(dataset=p[k]) for k, fr in figures.items()]
    return pd.concat(frames, ignore_index=True)[["figure", "low", "high", "unit", "dataset"]]
