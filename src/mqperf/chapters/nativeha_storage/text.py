"""The NativeHA storage chapter's words: its sentences, made from the results, and its passages
about the published measurements (seed 001).

The passages (:meth:`Results.about`) are shown only when the chapter runs on the book's own
datasets: the system the article measured, what it said, and where its numbers are wrong. Results
are never stated there; they are the sentences below, computed from the tables on any data.
"""

from __future__ import annotations

from mqperf import numbers
from mqperf.chapters.nativeha_storage import BUSY, CHAPTER, LIGHT, SHARE
from mqperf.present import prose

#: The comparison's printed figures, beside what each is (errata E030 to E032).
WHAT_IT_IS = {
    ("a.1", "logical"): "test 3 physical bytes written (label swapped, E030)",
    ("a.1", "physical"): "test 3 logical bytes written (label swapped, E030)",
    ("a.1", "sum"): "physical + logical: double counts (E031)",
    ("c.1", "sum"): "physical + logical rate: double counts (E032)",
}


def measured(r) -> None:
    if not r.book_data:
        r.about("system", "")
        return
    from mqperf.data import views

    env = views.system("nativeha_odf")
    listing = "\n".join(f"* {c}, {a.replace('_', ' ')}: {v}" for c, a, v in
                        zip(env["component"], env["attribute"], env["value"]))
    r.about("system", f"""The article (the {{ref}}`Data catalog <data-catalog>` gives every quote) ran one workload
through a chain of four IBM App Connect Enterprise (ACE) flows with MQ between every step:

> multi-instance application → ACE1 → ACE2 → ACE3 → ACE4 → destination system (with a DB)

12,000 records were sent per test through ACE TCP server nodes (500 connections per port, 9 ports)
whose input, receive and output nodes time out after 5 s ({{ref}}`dataset <data-test_environments>`):

{listing}

Test 1 ran a Native HA queue manager (2 cores, 16 GiB) on ODF with `replica=3`; test 2 a single
resilient queue manager of the same size on the same ODF; test 3 a queue manager on a VM (1 core),
not on ODF; test 4 ran `mqldt` on that VM's disk. Each test printed one `amqsrua -c DISK -t Log`
publication ({{ref}}`dataset <data-nativeha_amqsrua_log>`): a snapshot over its interval (4.3 s, 9.6 s
and 65 s), not an average over the test, so the rates of the three tests are not a like-for-like
comparison; latencies and write sizes are the sturdier figures.""")


def log(r) -> None:
    r.about("log_about", """On the VM, MQ writes the log in 4 KB pages, so each forced commit of a
partly filled page wrote the whole page again. On ODF, records piled up for about 50 ms behind each
write, which is why the ODF logs' write amplification is close to 1.""")


def replication(r) -> None:
    r.about("replication_about", """Native HA keeps the log on three instances (the active one and "two
duplicates"), each on its own volume; ODF with `replica=3` keeps every volume three times ("two
additional sites"). The article's "eightfold" and "a total of eight replicas" count the copies beyond
the first ({ref}`erratum E034 <errata-e034>`). Its "the system is required to await the completion of
all these synchronous write operations" holds for the storage layer only: each Native HA replica
"writes to its own log, acknowledges the data" (IBM MQ documentation, *Native HA*), and the group
works by quorum (`dspmq` reports it as QUORUM). That rule is the documentation's model, not
something the article measured.""")


def advice(r) -> None:
    r.about("advice", """Whichever rule holds, the article's advice follows: give Native HA
non-replicating block storage, or ODF's non-resilient storage class, and let Native HA do the
replicating (the last two rows of the copies table: three copies instead of nine).""")


def comparison(r, frame) -> None:
    if frame is None or not r.book_data:
        r.missing("comparison", "The article's own amqsrua-versus-mqldt comparison belongs to the published "
                                "measurements; on your data compare latencies, not rates: amqsrua reports what the "
                                "workload asked of the log, mqldt what the disk does when driven flat out")
        r.about("comparison_about", "")
        return
    shown = frame.assign(what_it_is=[WHAT_IT_IS.get((i, lab), "as printed")
                                     for i, lab in zip(frame["item"], frame["label_as_printed"])])
    r.table("comparison", shown.rename(columns={"item": "item", "tool": "tool", "metric": "metric",
                                               "label_as_printed": "label as printed", "value": "value",
                                               "unit": "unit", "what_it_is": "what it is"}),
            # digits=10: the article's figures as printed, every digit (26,169,344 bytes)
            caption="The article's amqsrua-versus-mqldt comparison, as printed", digits=10)
    r.about("comparison_about", """The article compares the VM's `amqsrua` figures with `mqldt` and
concludes that "the disk performance is relatively similar in terms of write throughput and latency"
({ref}`dataset <data-nativeha_tool_comparison>`).

* The labels of the total bytes are swapped ({ref}`E030 <errata-e030>`): 26,169,344 is the
  *physical* figure and 4,382,523 the *logical* one.
* Adding physical and logical bytes ({ref}`E031 <errata-e031>`) or rates
  ({ref}`E032 <errata-e032>`) counts the same data twice; the disk wrote the physical figures.
* The throughputs are not comparable ({ref}`E033 <errata-e033>`): `amqsrua` reports what the
  workload asked of the log (403,939 bytes/s), `mqldt` what the disk can do when driven flat out
  (22,321,743 bytes/s). Only the latencies are comparable, and at different write sizes (4,612
  against 16,384 bytes). Read correctly, both say the VM's disk was fast and lightly used.""")


def records(r) -> None:
    r.about("records_about", """The first edition modelled each commit as an M/M/1 customer of the
log (668 ms per commit at test 1's 92 % busy) and found that the log explained most of the lost
records. The article's own figures contradict that model: the ODF log wrote about 5,000 bytes of
records in each 6,025-byte write, at a write amplification of 1.2, which is group commit: commits that
arrive during a write go out together in the next one, so none waits more than about two writes. Read
that way, even test 1's slow log delays a record by under a second, far inside the 5 s timeout. The
records were lost somewhere else: in ACE's TCP nodes (500 connections per port), on the network
between Native HA instances, or in retries of abandoned records, none of which the article measured.
The number of forced writes per record (eight: four MQ hops, a put and a get commit on each) is the
book's assumption, not a figure from the article; doubling it still leaves the chain under 2 s.""")


def errata(r) -> None:
    r.about("errata", """Errata in the source for this chapter:

* {ref}`E030 <errata-e030>`: physical and logical bytes are swapped in the comparison.
* {ref}`E031 <errata-e031>` and {ref}`E032 <errata-e032>`: physical and logical figures are added.
* {ref}`E033 <errata-e033>`: the conclusion that the two tools agree does not follow from the numbers.
* {ref}`E034 <errata-e034>`: nine copies of each write, of which eight are replicas.""", title=False)


# -- sentences ---------------------------------------------------------------------------------------

def num(value, digits=None, unit=None) -> str:
    """:func:`mqperf.present.prose.num` of a table's value (a numpy number or an int)."""
    return prose.num(float(value), digits, unit)


def quoted(name) -> str:
    return prose.quoted(str(name))


def assumptions(book_data: bool, k: int, timeout: float) -> str:
    """Whose the chain's forced writes and timeout are: the article's chain on the book's data; on a
    reader's run the values given, or the book's assumption where they were left at its default."""
    from mqperf import parameters

    if book_data:
        return (f"the article's chain (the book assumes {k:,} forced writes per record; ACE's TCP nodes time out "
                f"after {num(timeout)} s)")
    book = parameters.defaults(CHAPTER)
    same = k == book.get("forced_writes_per_record") and timeout == book.get("timeout_s")
    return (f"{k:,} forced writes per record and a {num(timeout)} s timeout"
            + (" (the book's assumption for the article's ACE chain: set `forced_writes_per_record` and `timeout_s` "
               "for your own)" if same else " (as given)"))


def log_reading(log) -> list[str]:
    """One sentence per series: how busy its log writer was, and what its write amplification says."""
    per = []
    for r in log.itertuples():
        busy = r.busy_pct
        head = (f"{quoted(r.series)} wrote its log in {num(r.write_latency_ms, unit='ms')} per write, "
                f"{num(busy)} % of the way to its serial bound")
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
                sentence += (f" Each write carried about {num(r.records_per_write_bytes)} bytes of log records "
                             f"but wrote {num(r.write_size_bytes)}: a commit that forces a partly filled page "
                             f"writes the whole page, so short writes inflate physical bytes (ratio {num(amp)}).")
            elif amp < 1.3 and busy >= BUSY:
                sentence += (f" Its write amplification is low ({num(amp)}): records piled up behind each slow "
                             "write, so each write carried mostly new records, a symptom of slow writes, not a virtue.")
            else:
                sentence += f" Its write amplification is {num(amp)}."
        per.append(sentence)
    if len(log) == 1:
        return per
    slow, fast = log.loc[numbers.idxmax(log["write_latency_ms"])], log.loc[numbers.idxmin(log["write_latency_ms"])]
    overview = None
    if slow["write_latency_ms"] > fast["write_latency_ms"]:
        overview = (f"Of the series in the figures, {quoted(slow['series'])} had the slowest log "
                    f"writes ({num(slow['write_latency_ms'], unit='ms')}) and {quoted(fast['series'])} the "
                    f"fastest ({num(fast['write_latency_ms'], unit='ms')}).")
    return [overview, prose.bullets(per)]


def mqldt_reading(check) -> str:
    worst = check.loc[numbers.idxmax(check["error_pct"].abs())]
    close = abs(worst["error_pct"]) <= 5
    writers = int(worst["queue_managers"])
    who = f"{writers:,} concurrent writers'" if writers > 1 else "one writer's"
    if len(check) == 1:
        lead = (f"The bound predicts {num(worst['predicted_mb_s'])} MB/s from {who} "
                f"{num(worst['avg_latency_us'], 4)} µs average latency of {int(worst['blocksize_bytes']):,}-byte "
                f"writes, against {num(worst['measured_mb_s'])} MB/s measured: an error of "
                f"{num(worst['error_pct'])} %.")
    else:
        lead = (f"Across {len(check):,} runs the bound's largest error is {num(worst['error_pct'])} % "
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
        parts.append(f"From one instance's {num(q['single_instance_ms'], 4)} ms{on}, the quorum rule predicts "
                     f"{num(q['predicted_ms'])} ms per Native HA write and waiting for all three copies "
                     f"{num(slow['predicted_ms'])} ms; Native HA measured {num(q['measured_nativeha_ms'], 4)} "
                     f"ms, closer to {closer}.")
    return " ".join(parts) + (" An assumed exponential write latency makes this indicative, not a measurement of the "
                              "rule.")


def timeout_reading(limits, timeout, assumed: str) -> str:
    lines = []
    for r in limits.itertuples():
        head = (f"{quoted(r.latency)} ({num(r.write_latency_ms, 4)} ms a write): "
                f"{r.forced_writes:,} writes take {num(r.idle_chain_s)} s on an idle log and at most "
                f"{num(r.busy_chain_s)} s on one that is always busy; ")
        share = f"{num(SHARE * 100)} % of records finish within {num(timeout)} s"
        if r.busy_limit_pct == 0:
            tail = f"fewer than {share} even on an idle log."
        elif r.busy_limit_pct == r.busy_limit_pct:
            tail = f"fewer than {share} once the log writer is more than {num(r.busy_limit_pct, 4)} % busy."
        else:
            tail = (f"at least {share} however busy the log is ({num(r.saturated_share_pct)} % on a log always "
                    f"busy, {num(r.saturated_share_exp_pct)} % if write times are exponential).")
        lines.append(head + tail)
    bullets = "\n".join(f"* {line}" for line in lines)
    return (f"Under group commit, for {assumed}: how long each write latency makes a record's chain of forced "
            f"writes, against the timeout:\n\n{bullets}")


def records_reading(records, k, timeout) -> str:
    def shares(values):
        shown = [f"{num(v)} %" for v in values]
        return shown[0] if len(set(shown)) == 1 else prose.listing(shown)

    model, spread = shares(records["modelled_pct"]), shares(records["exponential_pct"])
    got = prose.listing(f"{num(v)} %" for v in records["received_pct"])
    text = (f"Under group commit each of a record's {k:,} forced writes waits at most the write in progress and its "
            f"own, so at the utilisation each publication showed the log alone lets {model} of records finish within "
            f"{num(timeout)} s ({spread} if write times are exponential), where {got} arrived "
            f"({prose.listing(quoted(s) for s in records['series'])}).")
    if (records["gap_points"] > 0).all():
        text = "**The log does not explain the lost records.** " + text
    if len(records) > 1:
        low_m = records.loc[numbers.idxmin(records["modelled_pct"]), "series"]
        low_r = records.loc[numbers.idxmin(records["received_pct"]), "series"]
        if records["modelled_pct"].nunique() > 1:
            text += (f" The model puts {quoted(low_m)} lowest, as observed." if low_m == low_r else
                     f" The model puts {quoted(low_m)} lowest, but {quoted(low_r)} received least.")
    other = records[(records["gap_points"] > 20) & (records["busy_pct"] < LIGHT)]
    for r in other.itertuples():
        text += (f" {quoted(r.series)} lost records with its log only {num(r.busy_pct)} % busy, so something "
                 "other than the log limited it.")
    return text


def plan_reading(plan, target, size, most, t_max, origin, beyond, timeout) -> str:
    text = (f"To carry {num(target, 6)} bytes/s ({origin[0]}) in {num(size, 6)}-byte writes "
            f"({origin[1]}), with the log "
            f"writer at most {num(most * 100, 6)} % busy, the log must write in {num(t_max)} ms or less"
            + (" (extrapolated: the target is above every measured rate, and under group commit the write size "
               "there is not measured)." if beyond else "."))
    ok = plan[plan["within_max"]]
    busy = plan[plan["fits"] & ~plan["within_max"]]
    over = plan[~plan["fits"]]
    if len(ok):
        text += f" {prose.listing(quoted(s) for s in ok['latency'])} {'meets' if len(ok) == 1 else 'meet'} that."
    if len(busy):
        text += (f" At {prose.listing(quoted(s) for s in busy['latency'])} the log carries the target but runs "
                 f"{prose.listing(num(v) + ' %' for v in busy['busy_pct'])} busy.")
    if len(over):
        text += (f" At {prose.listing(quoted(s) for s in over['latency'])} a serial log could not carry the target "
                 f"in writes of this size (it would need to be "
                 f"{prose.listing(num(v) + ' %' for v in over['busy_pct'])} busy); group commit would make its "
                 "writes larger, so it may still keep up if the disk's bandwidth allows, at a longer latency.")
    return text + (" The bound covers the log only, not the CPU, the network between Native HA instances, or the "
                   "applications.")
