"""What the persistent-messages chapter says about the published measurements (book data only).

The chapter shows these through ``Results.about``, so they appear only when it runs on the book's
own dataset; every sentence that states a result is computed elsewhere.
"""

ABOUT_MEASURED = """\
Same system as the other Kafka chapters (MQ for z/OS 9.3.3 on a z16 LPAR with 3 general-purpose
CPUs and 2 zIIPs, DS8950 disk, the broker on a z15, 10Gb network). The *MQ as a source* connector
got **persistent 1KB messages** that a local batch application put at the same time; each commit
waits for the MQ log to be written. The article (see the {ref}`dataset <data-kafka_uow_rates>`)
measured rates "ranging from 2270 to 2510 persistent 1KB messages per second", "a 10% improvement
moving from 1 to 5 tasks" and, once zHPF shortened the log I/O, "a 35-55% increase in throughput".
With one task it "saw a peak rate of 2271 messages per second" when the putter used MQPUT/commit,
and "27,396 messages per second" when 100 messages were put before committing. For the first, the
connector "would use a model of MQGET(success), MQGET(fail), commit", one message per commit; for
the second, "up to 250 messages per commit". These two rates are the points below."""

ABOUT_ATTRIBUTION = """\
Between the two published runs the connector's unit of work changed, and so did the putter: an
application committing every message forces a log write per message, so in the slow run the
connector's commits also queued behind the putter's log writes. The model puts the whole
difference on the connector's unit of work; $t_c$ is "the commit time with a put/commit neighbour
on the same log", not a property of the connector alone."""

ABOUT_READING = """\
The article describes the slow run's unit of work step by step, "MQGET(success), MQGET(fail),
commit", one message per commit, but under its chart says "the number of messages per commit
increases from 2-3 to 250". The chapter reads one message per commit and shows 1 to 3 as the range
above; the two statements are recorded as {ref}`erratum E045 <errata-e045>`. Earlier editions of
this chapter read 2.5, which more than doubles the commit time and the batch for 90 %. For the fast
run the article says "up to 250 messages per commit": a cap, not a count. The chapter reads 250 (the
cap, reached when messages are always there) and keeps 100 to 250 as the range, 100 being the
putter's own unit of work; that lower end is the book's reading, not the article's. Earlier
editions read exactly 250, so the asymptote check below missed how much the reading moves it."""

ABOUT_LOG = """\
The article quotes MP16 ("How much log space does my message use?"): "a 1KB message that is
put/committed logs 2088 bytes", "the same message with get/commit logs just 492 bytes", and "gets
of 10 messages of 1KB followed by a single commit would log 178 bytes per message" (the
{ref}`dataset <data-kafka_log_bytes>`). The put/commit point has one unit-of-work size, so its
per-message and per-commit bytes cannot be separated."""

ABOUT_CHECKS = """\
The references are the article's non-persistent source connector with one task and 1KB messages:
"the Kafka connector can get 28,000 messages per second from the queue when configured with a
single connector task" (sustainable) and the 1KB peak of the message-size table. It is a loose
check: a putter's log contention inflating the slow run's commit time would move $X_\\infty$ too."""

ABOUT_WHATIF = """\
The article says that with zHPF "the I/O times were significantly reduced, and this enabled the
connector to see a 35-55% increase in throughput", without the unit of work or the base rate. The
table applies the gains at the slow run's unit of work, where commits dominate; that is the model's
reading, not a measurement."""

ABOUT_PLAN = """\
For scale: a putter committing every message logs "2088 bytes" per 1KB message (MP16, quoted by the
article), far more than the gets above. It is the putters' logging that the connector's commits wait
behind, which is why the article finds the source connector limited by the log when applications
put persistent messages at the same time."""
