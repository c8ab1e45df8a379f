"""Client connection costs: what does a client's MQCONNX + MQDISC cost in CPU, how do SHARECNV,
the listener, TLS and message suppression change it, what does a refused connection cost, and
how many engines does a connection storm keep busy?

The chapter's parts: :mod:`.fits` (configurations, regressions, comparisons and the tests
against the replicates), :mod:`.whatif` (the connection-storm calculator), :mod:`.text` (its
sentences and the passages about the published measurements) and :mod:`.analysis` (``analyse``).
"""

from mqperf.declarations import DataFile, Internal, Number

PARAMETERS = {
    "data": DataFile(help="CPU per connect and disconnect: a CSV with sharecnv, listener, cpu_us "
                          "[, tls, suppress_x511], or a book dataset", contract="client_connection_costs"),
    "blocked": DataFile(help='costs of refused connection attempts; "" for none',
                        contract="client_conn_blocked", files=False, optional=True),
    "address_space": DataFile(help='cost by address space, local against shared listener; "" for none',
                              contract="client_conn_address_space", files=False, optional=True),
    "storm_rate_per_s": Number(help="planning question: connection attempts per second in a storm",
                               unit="attempts/s", minimum=0, exclusive_minimum=True, maximum=1e7),
    "max_utilisation": Number(help="the highest share of an engine the planner accepts (1 % to 100 %)",
                              minimum=0.01, maximum=1),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


CHAPTER = "client_connection_costs"

#: How tables and sentences name the refusal methods of the ``blocked`` data.
METHOD_NAMES = {"chlauth": "CHLAUTH block", "maxinst_maxinstc": "MAXINST/MAXINSTC limit",
                "invalid_protocol": "invalid protocol"}


def analyse(p: dict):
    """Load, fit and plan: every sentence, table and chart the notebook shows (:mod:`.analysis`)."""
    from mqperf.chapters.client_connection_costs import analysis

    return analysis.analyse(p)
