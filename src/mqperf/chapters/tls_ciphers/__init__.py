"""TLS CipherSpecs on distributed MQ: what each costs in rate and CPU against no TLS.

``analyse`` reads peak rates and CPU by CipherSpec (the xLinux reports' TLS tables, or a reader's runs),
sets each CipherSpec against the series' run without TLS as two ratios (the rates, No TLS / CipherSpec, as
the reports print them, and the CPU per round trip, CPU % / rate, CipherSpec over No TLS), says what one run
per CipherSpec can and cannot tell (a difference between CipherSpecs is tested only where runs repeat), and
prices a rate the reader needs in CPU with each CipherSpec. The arithmetic is in :mod:`.fits`, the
sentences in :mod:`.text`, the orchestration in :mod:`.analysis`. The z/OS TLS chapter
(``tls_channel_costs``) models renegotiation on z/OS channels; this one compares CipherSpecs on xLinux.
"""

from mqperf.declarations import DataFile, Internal, Number

CHAPTER = "tls_ciphers"
#: The reader's example: a hand-made synthetic file (two runs per CipherSpec), not a measurement.
EXAMPLE = "tls_ciphers.csv"
BASELINES = ("no tls", "none", "no-tls")
#: A series when the file has no ``series`` column.
ALL = "all runs"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8

PARAMETERS = {
    "data": DataFile(help="peak rate and CPU by CipherSpec: a CSV with cipherspec, rate_rt_s, cpu_pct [, clients, "
                          "series], or a book dataset", contract=CHAPTER),
    "published": DataFile(help="the V9.3 report's section 6.3 rates and printed No-TLS/TLS ratios; \"\" for none",
                          contract="tls_ciphers_published", files=False, optional=True),
    "your_rate_rt_s": Number(help="planning: the rate you need, priced in CPU % with each CipherSpec",
                             unit="round trips/s", minimum=0, exclusive_minimum=True, maximum=1e8),
    "cards_dir": Internal(help="where model cards would go (this chapter fits no model)"),
}

#: A reader's run prices the example's scale, not the V9.3 server's.
READER_DEFAULTS = {"your_rate_rt_s": 20000.0}


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.tls_ciphers import analysis

    return analysis.analyse(p)
