"""IMS bridge tuning: how does the transaction rate grow with the CPUs of the LPAR, what do three
readings of that growth (Amdahl's law, the bottleneck model, the USL) say about the next CPUs, and
how much headroom has the coupling facility?

The analysis (:mod:`.analysis`) fits the models per series where the points identify them
(:mod:`.fits`), predicts points the fits did not use, answers the planning question (CPUs for a
target rate) and, when the file has the coupling facility's busy share, asks M/M/c what a higher
rate would do to it (:mod:`mqperf.models.cpu_share`; the what-if chart in :mod:`.whatif`). Its
sentences and the passages about the published measurements are in :mod:`.text`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="transaction rate against CPUs: a CSV with cpus, rate_tps [, series, cf_busy_pct, "
                          "cf_processors], or a book dataset", contract="ims_bridge"),
    "tuning": DataFile(help='the tuning steps with settings before and after; "" to skip',
                       contract="ims_bridge_tuning", files=False, optional=True),
    "target_tps": Number(help="planning: the transaction rate to plan for; none plans for 1.25 times the "
                              "largest measured rate", unit="tx/s", minimum=0, exclusive_minimum=True, maximum=1e8,
                         optional=True),
    "cf_max_util": Number(help="planning: the busiest you let the CF run (the article calls 75 % too high)",
                          minimum=0.01, maximum=1),
    # A z/OS LPAR has at most a few hundred processors.
    "max_cpus": Integer(help="planning: the most CPUs the tables consider", unit="CPUs", minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

CHAPTER = "ims_bridge"
# The book's 30,000 tx/s is a target for the article's system: on a reader's data the plan asks
# for 25 % more than their own largest rate unless -p target_tps sets one.
READER_DEFAULTS = {"target_tps": None}
#: With no target given, the plan asks for this multiple of the largest measured rate.
HEADROOM = 1.25
#: The models fitted to each series, in the order tables give them (named by ``prose.model_name``).
MODELS = ("amdahl", "bottleneck", "usl")
#: A fit is set apart by AICc when it trails the best by more than this. Burnham and Anderson
#: (2002, §2.6) give a model within 2 of the best substantial support and one 4 to 7 behind
#: considerably less: planning answers leave the data, where the fits part most, so a fit
#: keeps its place in the range until it trails by more than 4.
SET_APART = 4.0
#: The most CPUs a planning answer searches for the USL and Amdahl's law.
PLAN_LIMIT = 4096
#: Digits of the plan's target rate in sentences and captions: 1.25 × a measured rate keeps its
#: tx/s whole (26,750), where the sentence rule (three digits) would round it to 26,800.
TARGET_DIGITS = 6


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.ims_bridge import analysis

    return analysis.analyse(p)
