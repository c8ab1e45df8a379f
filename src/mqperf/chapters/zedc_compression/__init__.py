"""zEDC archive compression: the effects of compressed archives by message size (Hill curves),
recovery from compressed archives, and zEDC capacity by machine generation.

What do zEDC-compressed archives cost and gain at your message size, how much longer does a
recovery from them take, and how many zEDC features do your queue managers need? The analysis
is :mod:`.analysis`; the Hill curves, their evidence and the arithmetic :mod:`.fits` (on
:mod:`mqperf.models.saturation`); the sentences and passages :mod:`.text`.
"""

from mqperf.declarations import Choice, DataFile, Integer, Internal, Number

PARAMETERS = {
    "data": DataFile(help="effect of compression by message size: a CSV with message_size_bytes, "
                          "qm_tcb_increase_pct [, peak_throughput_increase_pct], or a book dataset",
                     contract="zedc_compression"),
    "recovery": DataFile(help="recovery rate and CPU per MB with uncompressed and zEDC-compressed archives",
                         contract="zedc_recovery"),
    "processor": DataFile(help="zEDC processor utilisation measured while one queue manager archived",
                          contract="zedc_processor", files=False),
    "message_size_kb": Number(help="planning: your typical persistent message size", unit="KB", minimum=0,
                              exclusive_minimum=True, maximum=102400),
    "recovery_gb": Number(help="planning: shared-queue data a RECOVER CFSTRUCT reads back from archives "
                               "(GB of 1024 MB)", unit="GB", minimum=0, exclusive_minimum=True, maximum=1e6),
    "cost_unit": Choice(help="the printed 'CPU ms' per MB read as microseconds (\"us\", erratum E039) or as "
                             "printed (\"ms\")", values=("us", "ms")),
    "queue_managers": Integer(help="planning: queue managers whose archives the LPAR's zEDC features compress",
                              unit="queue managers", minimum=1, maximum=1000),
    "archive_rate_share": Number(help="planning: their archive rate as a share of the measured peak (1 % to 100 %)",
                                 minimum=0.01, maximum=1),
    "zedc_max_util": Number(help="planning: the busiest you let a zEDC feature run (1 % to 100 %)", minimum=0.01,
                            maximum=1),
    "machine": Choice(help="planning: the IBM Z generation; z13 and z14 compress on zEDC Express features (the "
                           "capacity table counts them), z15 and later on the on-chip Integrated Accelerator for zEDC",
                      values=("z13", "z14", "z15", "z16", "z17")),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


CHAPTER = "zedc_compression"
#: Effects the chapter fits, with the words the tables use.
METRICS = {"qm_tcb_increase": "queue manager TCB cost increase", "peak_throughput_increase": "peak throughput gain"}
READER_COLUMNS = {"qm_tcb_increase_pct": "qm_tcb_increase", "peak_throughput_increase_pct": "peak_throughput_increase"}
#: Generations that compress on zEDC Express PCIe features; later ones have the on-chip accelerator.
FEATURE_MACHINES = ("z13", "z14")


def analyse(p: dict):
    """Load, fit and plan; every sentence, table and chart of the chapter, in order (:mod:`.analysis`)."""
    from mqperf.chapters.zedc_compression import analysis

    return analysis.analyse(p)
