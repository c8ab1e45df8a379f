"""HA replication latency: what a round trip between the nodes costs an HA queue manager's rate.

RDQM, Native HA and multi-instance queue managers finish a persistent request only when its log
writes have reached another node, so every request waits some number ``k`` of network round
trips. :func:`analyse` fits R(d) = a + k·d to the response time N/X at each delay d between the
nodes (:mod:`mqperf.models.replication`), states k where its interval identifies it, checks each
fit on the points it did not use, and answers the planner's question: at my round-trip time,
what rate? The model choice and tables are in :mod:`.fits`, the sentences in :mod:`.text`, the
orchestration in :mod:`.analysis`.
"""

from mqperf.declarations import DataFile, Internal, Number

CHAPTER = "ha_replication"
#: The example the Bring-your-own-data page shows: synthetic (see :func:`.text.read`).
EXAMPLE = "ha_replication.csv"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 12
#: The two ways a file may give the delay, and how the sentences name each.
ADDED, RTT = "added_latency_ms", "rtt_ms"
SAID = {ADDED: "added round-trip delay", RTT: "round-trip time"}

PARAMETERS = {
    "data": DataFile(help="HA rates against the delay between the nodes: a CSV with rate and added_latency_ms or "
                          "rtt_ms [, series, clients, cpu_pct], or a book dataset (rdqm_net_delay, xlinux93_ha_peak, "
                          "rdqm_chart, xlinux93_ha_chart)", contract=CHAPTER),
    "more_data": DataFile(help='another file or book dataset of the same shape, fitted beside data (the book: the '
                               'V9.3 report\'s MIQM/RDQM tables); "" for none', contract=CHAPTER, optional=True),
    "nativeha": DataFile(help='Native HA against one queue manager on the same cluster (OCP report, no delay data); '
                              '"" to leave it out', contract="ocp_nha_cpu_scaling", files=False, optional=True),
    "concurrency": DataFile(help='the same measured at several requester counts, one series per count, fitted on '
                                 'their own (the book: chart readings of the RDQM report\'s Figure 3); "" for none',
                            contract=CHAPTER, optional=True),
    "your_rtt_ms": Number(help="planning: the delay to predict the rate at (added delay when the data give "
                               "added_latency_ms, the whole round trip when rtt_ms)", unit="ms", minimum=0,
                          maximum=10000),
    "target_rate": Number(help="planning: the rate to keep; the largest delay that still reaches it, per series; "
                               "none to skip", unit="requests/s", minimum=0, exclusive_minimum=True, maximum=1e9,
                          optional=True),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

#: On a reader's run only the reader's files are fitted: no V9.3 tables beside them, no OCP table.
READER_DEFAULTS = {"more_data": "", "nativeha": "", "concurrency": "", "target_rate": None}


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.ha_replication import analysis

    return analysis.analyse(p)
