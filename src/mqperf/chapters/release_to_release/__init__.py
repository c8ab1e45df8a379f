"""Release to release: what changed in peak rate and CPU per round trip from one MQ release to the next?

:func:`analyse` reads peak rates and CPU per release and workload (the book's: the xLinux
V9.1, V9.2 and V9.3 performance reports' peak tables; a reader's: their own runs), compares each
release with the one before it on every workload both ran, as ``mqperf compare`` compares two
runs' fits (:mod:`mqperf.models.compare`), and answers the planner's question: from one release
to another, what change in peak rate and CPU per round trip, and how sure? One printed peak per
release has no spread, so without repeat runs the chapter gives no interval and says a change
exceeds the run-to-run noise only under a stated assumption; a step to another machine is not
read as the release's. The arithmetic is in :mod:`.fits`, the sentences in :mod:`.text`.
"""

from mqperf.declarations import DataFile, Internal, Number, Text

CHAPTER = "release_to_release"
#: The unit of the peak rate, as table columns and sentences name it.
RATE = "round trips/s"
#: CPU per round trip as the tables name it: CPU % of the server per 1,000 round trips/s.
COST = "CPU per round trip (% per 1,000 round trips/s)"
#: The two quantities compared, by their column in the fits, as sentences name them.
QUANTITIES = {"rate": "peak rate", "cost": "CPU per round trip"}
#: Workloads the sentences name one by one; the tables give the rest.
NAMED = 4

PARAMETERS = {
    "data": DataFile(help="peak rate and CPU per release and workload: a CSV with release, workload, rate_rt_s, "
                          "cpu_pct [, replicate, clients, machine, basis]", contract=CHAPTER),
    "assumed_noise_pct": Number(help="without repeat runs: the run-to-run difference between two peaks of one setup "
                                     "you take as plausible (an assumption, not a measurement); larger changes are "
                                     "said to exceed it", unit="%", minimum=0, maximum=100),
    "from_release": Text(help="planning: the release you run now (empty: the oldest in the data)", max_length=100),
    "to_release": Text(help="planning: the release you would upgrade to (empty: the newest in the data)",
                       max_length=100),
    "workload": Text(help="planning: the workload to answer for (empty: every workload both releases ran)",
                     max_length=200),
    "cards_dir": Internal(help="where model cards go (a file of one release: its cells' means, for mqperf compare)"),
}


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.release_to_release import analysis

    return analysis.analyse(p)
