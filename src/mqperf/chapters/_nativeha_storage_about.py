"""The NativeHA storage chapter's passages about the published measurements (seed 001).

Shown only when the chapter runs on the book's own datasets (:meth:`Results.about`): the
system the article measured, what it said, and where its numbers are wrong. Results the
chapter computes are never stated here; they are sentences of the chapter module.
"""

from __future__ import annotations

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
