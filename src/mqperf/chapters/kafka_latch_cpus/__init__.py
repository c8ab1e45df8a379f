"""Latch contention and more CPUs: do the latches' waits grow like pairwise contention as tasks are
added, how much of the time has the LPAR enough CPUs, and how many CPUs would a target need?

The analysis (:mod:`.analysis`) lays out the latch waits and their growth beside N(N−1), the RMF
share of time with sufficient CPUs beside M/M/c and its load-factor correction, and plans CPUs
from the models the runs do not set apart (:mod:`.fits`; the models are
:mod:`mqperf.models.cpu_share`); its sentences and about-passages are in :mod:`.text`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="share of time with sufficient CPUs: a CSV with gp_cpus, busy_pct, sufficient_pct "
                          "[, rate_msg_s, label], or a book dataset", contract="kafka_latch_cpus"),
    "latch_data": DataFile(help='latch wait times: a CSV with tasks, latch_s [, latch, rate_msg_s, run_s]; "" for none',
                           contract="kafka_latch_cpus.latch_data", optional=True),
    "run_s": Number(help="seconds the latch times cover; none takes it from the data", unit="s",
                    minimum=0, exclusive_minimum=True, maximum=1e7, optional=True),
    # 100 % is only reached with infinitely many CPUs.
    "target_sufficient_pct": Number(help="planning question: CPUs for this % of time with sufficient CPUs",
                                    unit="%", minimum=0, maximum=100, exclusive_minimum=True,
                                    exclusive_maximum=True),
    "target_rate_msg_s": Number(help="planning: the rate to carry at the CPU per message of the run with most "
                                     "CPUs; 0 to skip", unit="msg/s", minimum=0, maximum=1e9),
    "plan_busy_cpus": Number(help="planning: or CPUs' worth of work to carry directly (busy % x CPUs / 100); "
                                  "none to skip", unit="CPUs", minimum=0, maximum=1024, optional=True),
    # Erlang C is evaluated for every CPU count up to this, per planned load and chart series.
    "max_cpus": Integer(help="the largest CPU count the charts show (the plan searches up to 1,024)", unit="CPUs",
                        minimum=1, maximum=256),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

# On a reader's file the book's target rate means nothing: plan from their own runs unless -p sets one.
READER_DEFAULTS = {"target_rate_msg_s": 0}

CHAPTER = "kafka_latch_cpus"
#: Runs calibrated and cross-predicted (each pair is a prediction).
CROSS = 12
#: Runs (and planned loads) drawn as series in the charts.
SHOWN = 12
#: A model is set apart by AICc when it trails the best by more than this (Burnham and Anderson
#: 2002, §2.6: within 2, substantial support; 4 to 7 behind, considerably less). Plans leave the
#: runs, where the models part most, so a model stays in the range until it trails by more than 4.
SET_APART = 4.0
#: The plan's models, in the order tables and sentences give them.
MODELS = ("M/M/c", "M/M/c at k·A", "line in per-CPU busy")


def analyse(p: dict):
    """Load, fit and plan: every sentence, table and chart the notebook shows.

    Returns
    -------
    mqperf.present.results.Results
        Items in display order (the notebook shows them one per cell); ``fit_results`` maps
        every fit's name to its FitResult, for the identification checks.
    """
    from mqperf.chapters.kafka_latch_cpus import analysis

    return analysis.analyse(p)
