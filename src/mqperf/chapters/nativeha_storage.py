"""NativeHA storage latency: the recovery log's serial-writer bound, replication, the timeout.

:func:`analyse` reads the log figures (amqsrua DISK/Log), checks the serial bound on mqldt,
counts replicas, follows a record through its forced writes to the timeout and answers the
planning question; the arithmetic is in :mod:`mqperf.chapters._nativeha_storage_model`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="recovery log figures: a CSV with write_latency_us, write_size_bytes, physical_bytes_s "
                          "[, logical_bytes_s, interval_s, series] (amqsrua -c DISK -t Log), or a book dataset",
                     contract="nativeha_storage"),
    "mqldt": DataFile(help='log disk tests: mqldt output (text or --csvFile CSV) or fio output (JSON or text), '
                           'a book dataset, or "" for none', contract="nativeha_storage.mqldt", optional=True),
    "records": DataFile(help='records sent and received in the article\'s tests; "" for none',
                        contract="nativeha_records", files=False, optional=True),
    "comparison": DataFile(help='the article\'s printed amqsrua-versus-mqldt comparison; "" to skip',
                           contract="nativeha_tool_comparison", files=False, optional=True),
    "target_log_bytes_s": Number(help="planning: physical log bytes per second the workload must write; none: the "
                                      "highest physical rate in your figures", unit="bytes/s", minimum=0,
                                 exclusive_minimum=True, maximum=1e11, optional=True),
    "write_size_bytes": Number(help="planning: average log write size at that rate (amqsrua Log - write size); none: "
                                    "the write size of the series the target comes from", unit="bytes", minimum=0,
                               exclusive_minimum=True, maximum=1e9, optional=True),
    "your_latency_ms": Number(help="planning: a write latency of your storage to evaluate beside the measured ones",
                              unit="ms", minimum=0, exclusive_minimum=True, maximum=60000, optional=True),
    "max_log_utilisation": Number(help="planning: the busiest you let the log writer run (1 % to 99 %)",
                                  minimum=0.01, maximum=0.99),
    "forced_writes_per_record": Integer(help="forced log writes on one record's path (the book assumes 8 for the "
                                             "article's chain: 4 MQ hops, a put and a get commit each)",
                                        unit="writes", minimum=1, maximum=10000),
    "timeout_s": Number(help="request timeout of the ACE TCP nodes", unit="s", minimum=0, exclusive_minimum=True,
                        maximum=86400),
    "cards_dir": Internal(help="where model cards would go (this chapter fits no model)"),
}

#: On a reader's run the planning target is the reader's own (the highest physical rate in the figures
#: unless given), never the book's 403,939 bytes/s; "your latency" is shown only when given.
READER_DEFAULTS = {"target_log_bytes_s": None, "write_size_bytes": None, "your_latency_ms": None}

#: Below this share of records finishing in time, the timeout table says where the log's queueing pushes it.
SHARE = 0.9
#: A log busier than this writes almost back to back; one less busy than LIGHT is lightly used.
BUSY, LIGHT = 70.0, 10.0


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    import pandas as pd

    from mqperf.chapters import _nativeha_storage_about as about
    from mqperf.chapters import _nativeha_storage_model as m
    from mqperf.data import aggregate, views
    from mqperf.present import charts
    from mqperf.present.results import Results

    source = views.describe(p["data"])
    r = Results(book_data=source.book_data, source=source.name)
    r.answers = ("the longest write latency for the planning target, and each latency's log utilisation and share of "
                 "records within the timeout at that target")
    k, timeout = int(p["forced_writes_per_record"]), float(p["timeout_s"])
    stats = m.publications(views.open(p["data"], "nativeha_storage"))
    r.points = stats
    _setup(r, stats)
    mqldt = views.open(p["mqldt"], "nativeha_storage", "mqldt") if p.get("mqldt") else None

    about.measured(r)
    # This chapter fits nothing, so the shared note's clause about fits does not apply.
    r.text("aggregation", aggregate.note(stats, per="series", value="each figure")
           .replace(", and the fits go through the means", ""))
    r.table("publications", _publications_shown(stats), caption="amqsrua DISK/Log figures, one row per publication "
            "or series", digits=5)

    log = m.log_table(stats)
    r.table("log", log.rename(columns=LOG_COLUMNS), caption="The figures read correctly, against a serial log "
            "writer's bound", digits=4)
    r.text("log_reading", *log_reading(log))
    r.chart("latency_chart", m.latency_chart(stats, mqldt))
    about.log(r)

    if mqldt is None:
        r.missing("mqldt", "No mqldt results were given (parameter mqldt), so the serial bound is not checked "
                           "against a disk driven back to back")
        r.text("mqldt_reading", None)
    else:
        check = m.mqldt_check(mqldt)
        r.table("mqldt", check.rename(columns=MQLDT_COLUMNS), caption="mqldt's (or fio's) bandwidth predicted from its "
                "own average latency (concurrent writers × block size / latency), against what it measured", digits=4)
        r.text("mqldt_reading", mqldt_reading(check))

    copies = m.replication_table(float(stats["physical_bytes_s"].iloc[0]))
    about.replication(r)
    r.table("replication", copies.rename(columns=REPLICATION_COLUMNS), caption="Copies of each log write, by layer",
            digits=4)
    r.chart("replication_chart", m.replication_chart(copies))
    r.text("replication_reading", f"The last column prices the copies for a log writing "
           f"{prose_num(stats['physical_bytes_s'].iloc[0])} bytes/s, the physical rate of "
           f"{quoted(stats['series'].iloc[0])} (the first row of the figures).")
    quorum = m.quorum_check(stats)
    r.table("quorum", quorum.rename(columns=QUORUM_COLUMNS), digits=4, caption="Native HA's write latency predicted "
            "from one instance's on the same storage", missing="Your figures do not say which rows are one queue "
            "manager and which Native HA on the same storage (columns instances and storage), so there is no "
            "quorum check")
    r.text("quorum_reading", quorum_reading(quorum) if len(quorum) else None)
    about.advice(r)

    comparison = views.open(p["comparison"], "nativeha_storage", "comparison") if p.get("comparison") else None
    about.comparison(r, comparison)

    latencies = m.candidate_latencies(stats, mqldt, p.get("your_latency_ms"))
    assumed = _assumptions(r, k, timeout)
    curve = m.timeout_curve(latencies, forced_writes=k, timeout_s=timeout)
    r.chart("timeout_chart", charts.lines(charts.sampled(curve, by=["latency"]), x="busy_pct", y="share_pct",
            colour="latency", points=False, x_title="log writer busy (%)",
            y_title=f"records finishing within {prose_num(timeout)} s (%)",
            title="Under group commit a busy log delays each commit by at most one more write"))
    limits = m.timeout_thresholds(latencies, forced_writes=k, timeout_s=timeout, share=SHARE)
    r.table("timeout", limits.drop(columns="where").rename(columns=timeout_columns(timeout)), digits=4,
            caption=f"How long a record's forced writes take under group commit, against the {prose_num(timeout)} s "
                    "timeout")
    r.text("timeout_reading", timeout_reading(limits, timeout, assumed))

    received = views.open(p["records"], "nativeha_storage", "records") if p.get("records") else None
    records = m.records_check(log, received, forced_writes=k, timeout_s=timeout) if received is not None else None
    r.table("records", None if records is None else records.rename(columns=records_columns(timeout)), digits=3,
            caption=f"The log-only model's share of records within {prose_num(timeout)} s, against the share "
                    "that arrived",
            missing="There is no count of records sent and received for your runs (parameter records), so the "
                    "timeout model is not checked against what arrived" if received is None else
                    "None of your series is in the records dataset, so the timeout model is not checked against "
                    "what arrived")
    r.text("records_reading", records_reading(records, k, timeout) if records is not None and len(records) else None)
    about.records(r)

    target, size, origin = _target(p, log, r.book_data)
    most = float(p["max_log_utilisation"])
    t_max = m.max_latency_ms(target, size, most)
    beyond = target > float(log["physical_bytes_s"].max()) * (1 + 1e-12)
    if beyond:
        r.extrapolated(f"the planning target, {prose_num(target, 6)} bytes/s, above every measured physical rate")
    r.table("plan_limit", pd.DataFrame([{"target (bytes/s)": target, "write size (bytes)": size,
                                         "log writer busy at most (%)": most * 100,
                                         "longest write latency (ms)": t_max,
                                         "extrapolated": "above every measured rate" if beyond else "no"}]), digits=6,
            caption="The planning question: the longest write latency that keeps the log within the limit")
    plan = m.latency_plan(target, size, latencies, forced_writes=k, timeout_s=timeout, max_utilisation=most)
    r.table("plan", plan.rename(columns=plan_columns(timeout)), digits=4,
            caption="Each write latency at the target rate")
    r.text("plan_reading", plan_reading(plan, target, size, most, t_max, origin, beyond, timeout))
    about.errata(r)
    return r


def _setup(r, stats) -> None:
    """The interval length the figures state (amqsrua publications), for "How this report was made"."""
    from mqperf.present import prose

    iv = stats["interval_s"].dropna() if "interval_s" in stats else stats.iloc[0:0]
    if len(iv):
        lo, hi = float(iv.min()), float(iv.max())
        r.setup["interval length"] = (f"{prose.num(lo)} s" if prose.num(lo) == prose.num(hi) else
                                      f"{prose.num(lo)} to {prose.num(hi)} s") + " (amqsrua publications, interval_s)"


def _assumptions(r, k: int, timeout: float) -> str:
    """Whose the chain's forced writes and timeout are: the article's chain on the book's data; on a
    reader's run the values given, or the book's assumption where they were left at its default."""
    from mqperf import parameters

    if r.book_data:
        return (f"the article's chain (the book assumes {k:,} forced writes per record; ACE's TCP nodes time out "
                f"after {prose_num(timeout)} s)")
    book = parameters.defaults("nativeha_storage")
    same = k == book.get("forced_writes_per_record") and timeout == book.get("timeout_s")
    return (f"{k:,} forced writes per record and a {prose_num(timeout)} s timeout"
            + (" (the book's assumption for the article's ACE chain: set `forced_writes_per_record` and `timeout_s` "
               "for your own)" if same else " (as given)"))


def _target(p, log, book: bool = False):
    """The planning target and write size, and where each comes from, in words."""
    target, size = p.get("target_log_bytes_s"), p.get("write_size_bytes")
    busiest = log.loc[log["physical_bytes_s"].idxmax()]
    whose = "the book's " if book else ""
    if target is None:
        target = float(busiest["physical_bytes_s"])
        origin = f"the highest physical rate in the figures, that of {quoted(busiest['series'])}"
    else:
        origin = f"{whose}`target_log_bytes_s`" + ("" if book else ", as given")
    if size is None:
        size = float(busiest["write_size_bytes"])
        size_origin = f"the write size of {quoted(busiest['series'])}"
    else:
        size_origin = f"{whose}`write_size_bytes`" + ("" if book else ", as given")
    return float(target), float(size), (origin, size_origin)


# -- columns for people ------------------------------------------------------------------------------

LOG_COLUMNS = {"series": "series", "write_latency_ms": "write latency (ms)", "write_size_bytes": "write size (bytes)",
               "physical_bytes_s": "physical (bytes/s)", "writes_s": "writes/s", "max_writes_s": "at most writes/s",
               "serial_bound_bytes_s": "serial bound (bytes/s)", "busy_pct": "log writer busy (%)",
               "records_per_write_bytes": "log records per write (bytes)",
               "write_amplification": "write amplification (physical/logical)"}
MQLDT_COLUMNS = {"blocksize_bytes": "block size (bytes)", "queue_managers": "concurrent writers",
                 "avg_latency_us": "average latency (µs)", "predicted_mb_s": "predicted (MB/s)",
                 "measured_mb_s": "measured (MB/s)", "error_pct": "error (%)",
                 "predicted_writes_s": "predicted writes/s", "measured_writes_s": "measured writes/s"}
REPLICATION_COLUMNS = {"configuration": "configuration", "instances": "instances keeping the log",
                       "storage_copies": "storage copies", "copies_written": "copies written",
                       "copies_beyond_first": "copies beyond the first",
                       "bytes_s_all_copies": "written across all copies (bytes/s)"}
QUORUM_COLUMNS = {"storage": "storage", "rule": "acknowledgement rule", "single_instance_ms": "one instance (ms)",
                  "predicted_ms": "predicted Native HA (ms)", "measured_nativeha_ms": "measured Native HA (ms)",
                  "error_pct": "error (%)"}


def timeout_columns(timeout):
    return {"latency": "write latency of", "write_latency_ms": "write latency (ms)",
            "forced_writes": "forced writes per record", "idle_chain_s": "chain on an idle log (s)",
            "busy_chain_s": "longest chain, log always busy (s)",
            "busy_limit_pct": f"busy (%) above which fewer than {prose_num(SHARE * 100)} % finish within "
                              f"{prose_num(timeout)} s",
            "saturated_share_pct": f"within {prose_num(timeout)} s, log always busy (%)",
            "saturated_share_exp_pct": f"within {prose_num(timeout)} s, log always busy, exponential writes (%)"}


def records_columns(timeout):
    return {"series": "series", "busy_pct": "log writer busy (%)", "chain_mean_s": "modelled chain mean (s)",
            "modelled_pct": f"modelled within {prose_num(timeout)} s (%)",
            "exponential_pct": "with exponential write times (%)", "received_pct": "received (%)",
            "gap_points": "model − received (points)"}


def plan_columns(timeout):
    return {"latency": "write latency of", "write_latency_ms": "write latency (ms)",
            "serial_bound_bytes_s": "serial bound (bytes/s)", "busy_pct": "log writer busy at target (%)",
            "fits": "carries the target", "within_max": "within the limit",
            "share_pct": f"records within {prose_num(timeout)} s (%)"}


def _publications_shown(stats):
    from mqperf.data import aggregate

    cols = {"series": "series", "interval_s": "interval (s)", "write_latency_us": "write latency (µs)",
            "write_size_bytes": "write size (bytes)", "physical_bytes_s": "physical (bytes/s)",
            "logical_bytes_s": "logical (bytes/s)", "instances": "instances", "storage": "storage",
            aggregate.COUNT: "publications (n)"}
    for c in ("write_latency_us", "physical_bytes_s"):
        cols[aggregate.sd_column(c)] = f"{cols[c].split(' (')[0]} sd ({cols[c].split('(')[1]}"
    shown = stats[[c for c in cols if c in stats and stats[c].notna().any()]]
    return shown.rename(columns=cols)


# -- sentences ---------------------------------------------------------------------------------------

def prose_num(value, digits=3, unit=None):
    from mqperf.present import prose

    return prose.num(float(value), digits, unit)


def quoted(name):
    from mqperf.present import prose

    return prose.quoted(str(name))


def log_reading(log) -> list[str]:
    """One sentence per series: how busy its log writer was, and what its write amplification says."""
    from mqperf.present import prose

    per = []
    for r in log.itertuples():
        busy = r.busy_pct
        head = (f"{quoted(r.series)} wrote its log in {prose_num(r.write_latency_ms, unit='ms')} per write, "
                f"{prose_num(busy)} % of the way to its serial bound")
        if busy > 100:
            head += (": more than a serial writer could, so its writes overlapped or the rate and the latency come "
                     "from different moments")
        elif busy >= BUSY:
            head += ": writing almost back to back, so the latency, not the load, set its rate"
        elif busy < LIGHT:
            head += ": lightly used"
        sentence = head + "."
        amp = r.write_amplification
        if amp == amp:  # logical bytes given
            if amp >= 2:
                sentence += (f" Each write carried about {prose_num(r.records_per_write_bytes)} bytes of log records "
                             f"but wrote {prose_num(r.write_size_bytes)}: a commit that forces a partly filled page "
                             f"writes the whole page, so short writes inflate physical bytes (ratio {prose_num(amp)}).")
            elif amp < 1.3 and busy >= BUSY:
                sentence += (f" Its write amplification is low ({prose_num(amp)}): records piled up behind each slow "
                             "write, so each write carried mostly new records, a symptom of slow writes, not a virtue.")
            else:
                sentence += f" Its write amplification is {prose_num(amp)}."
        per.append(sentence)
    if len(log) == 1:
        return per
    slow, fast = log.loc[log["write_latency_ms"].idxmax()], log.loc[log["write_latency_ms"].idxmin()]
    overview = None
    if slow["write_latency_ms"] > fast["write_latency_ms"]:
        overview = (f"Of the series in the figures, {quoted(slow['series'])} had the slowest log "
                    f"writes ({prose_num(slow['write_latency_ms'], unit='ms')}) and {quoted(fast['series'])} the "
                    f"fastest ({prose_num(fast['write_latency_ms'], unit='ms')}).")
    return [overview, prose.bullets(per)]


def mqldt_reading(check) -> str:
    worst = check.loc[check["error_pct"].abs().idxmax()]
    close = abs(worst["error_pct"]) <= 5
    writers = int(worst["queue_managers"])
    who = f"{writers:,} concurrent writers'" if writers > 1 else "one writer's"
    if len(check) == 1:
        lead = (f"The bound predicts {prose_num(worst['predicted_mb_s'])} MB/s from {who} "
                f"{prose_num(worst['avg_latency_us'], 4)} µs average latency of {int(worst['blocksize_bytes']):,}-byte "
                f"writes, against {prose_num(worst['measured_mb_s'])} MB/s measured: an error of "
                f"{prose_num(worst['error_pct'])} %.")
    else:
        lead = (f"Across {len(check):,} runs the bound's largest error is {prose_num(worst['error_pct'])} % "
                f"({int(worst['blocksize_bytes']):,}-byte writes, {who.removesuffix(chr(39)).removesuffix('s')}"
                f"{'s' if writers > 1 else ''}).".replace("one writer", "one writer"))
    many = (check["queue_managers"] > 1).any()
    return lead + ((" For synchronous writers, latency is throughput" + (", times the writers running at once."
                                                                          if many else "."))
                   if close else
                   " That is more than the time between writes explains: the writes were not back to back, or more "
                   "files or writers ran at once than the results say.")


def quorum_reading(quorum) -> str:
    parts = []
    for where, g in quorum.groupby("storage", sort=False):
        q, slow = g.iloc[0], g.iloc[1]
        closer = "the quorum rule" if abs(q["error_pct"]) < abs(slow["error_pct"]) else "waiting for every copy"
        on = f" on {quoted(where)}" if where else ""
        parts.append(f"From one instance's {prose_num(q['single_instance_ms'], 4)} ms{on}, the quorum rule predicts "
                     f"{prose_num(q['predicted_ms'])} ms per Native HA write and waiting for all three copies "
                     f"{prose_num(slow['predicted_ms'])} ms; Native HA measured {prose_num(q['measured_nativeha_ms'], 4)} "
                     f"ms, closer to {closer}.")
    return " ".join(parts) + (" An assumed exponential write latency makes this indicative, not a measurement of the "
                              "rule.")


def timeout_reading(limits, timeout, assumed: str) -> str:
    lines = []
    for r in limits.itertuples():
        head = (f"{quoted(r.latency)} ({prose_num(r.write_latency_ms, 4)} ms a write): "
                f"{r.forced_writes:,} writes take {prose_num(r.idle_chain_s)} s on an idle log and at most "
                f"{prose_num(r.busy_chain_s)} s on one that is always busy; ")
        share = f"{prose_num(SHARE * 100)} % of records finish within {prose_num(timeout)} s"
        if r.busy_limit_pct == 0:
            tail = f"fewer than {share} even on an idle log."
        elif r.busy_limit_pct == r.busy_limit_pct:
            tail = f"fewer than {share} once the log writer is more than {prose_num(r.busy_limit_pct, 4)} % busy."
        else:
            tail = (f"at least {share} however busy the log is ({prose_num(r.saturated_share_pct)} % on a log always "
                    f"busy, {prose_num(r.saturated_share_exp_pct)} % if write times are exponential).")
        lines.append(head + tail)
    bullets = "\n".join(f"* {line}" for line in lines)
    return (f"Under group commit, for {assumed}: how long each write latency makes a record's chain of forced "
            f"writes, against the timeout:\n\n{bullets}")


def records_reading(records, k, timeout) -> str:
    from mqperf.present import prose

    def shares(values):
        shown = [f"{prose_num(v)} %" for v in values]
        return shown[0] if len(set(shown)) == 1 else prose.listing(shown)

    model, spread = shares(records["modelled_pct"]), shares(records["exponential_pct"])
    got = prose.listing(f"{prose_num(v)} %" for v in records["received_pct"])
    text = (f"Under group commit each of a record's {k:,} forced writes waits at most the write in progress and its "
            f"own, so at the utilisation each publication showed the log alone lets {model} of records finish within "
            f"{prose_num(timeout)} s ({spread} if write times are exponential), where {got} arrived "
            f"({prose.listing(quoted(s) for s in records['series'])}).")
    if (records["gap_points"] > 0).all():
        text = "**The log does not explain the lost records.** " + text
    if len(records) > 1:
        low_m = records.loc[records["modelled_pct"].idxmin(), "series"]
        low_r = records.loc[records["received_pct"].idxmin(), "series"]
        if records["modelled_pct"].nunique() > 1:
            text += (f" The model puts {quoted(low_m)} lowest, as observed." if low_m == low_r else
                     f" The model puts {quoted(low_m)} lowest, but {quoted(low_r)} received least.")
    other = records[(records["gap_points"] > 20) & (records["busy_pct"] < LIGHT)]
    for r in other.itertuples():
        text += (f" {quoted(r.series)} lost records with its log only {prose_num(r.busy_pct)} % busy, so something "
                 "other than the log limited it.")
    return text


def plan_reading(plan, target, size, most, t_max, origin, beyond, timeout) -> str:
    from mqperf.present import prose

    text = (f"To carry {prose_num(target, 6)} bytes/s ({origin[0]}) in {prose_num(size, 6)}-byte writes "
            f"({origin[1]}), with the log "
            f"writer at most {prose_num(most * 100, 6)} % busy, the log must write in {prose_num(t_max)} ms or less"
            + (" (extrapolated: the target is above every measured rate, and under group commit the write size "
               "there is not measured)." if beyond else "."))
    ok = plan[plan["within_max"]]
    busy = plan[plan["fits"] & ~plan["within_max"]]
    over = plan[~plan["fits"]]
    if len(ok):
        text += f" {prose.listing(quoted(s) for s in ok['latency'])} {'meets' if len(ok) == 1 else 'meet'} that."
    if len(busy):
        text += (f" At {prose.listing(quoted(s) for s in busy['latency'])} the log carries the target but runs "
                 f"{prose.listing(prose_num(v) + ' %' for v in busy['busy_pct'])} busy.")
    if len(over):
        text += (f" At {prose.listing(quoted(s) for s in over['latency'])} a serial log could not carry the target "
                 f"in writes of this size (it would need to be "
                 f"{prose.listing(prose_num(v) + ' %' for v in over['busy_pct'])} busy); group commit would make its "
                 "writes larger, so it may still keep up if the disk's bandwidth allows, at a longer latency.")
    return text + (" The bound covers the log only, not the CPU, the network between Native HA instances, or the "
                   "applications.")
