"""Channel compression on z/OS: CPU per transaction and rate by COMPMSG technique, message size
and compressibility.

At my message size and compressibility, which compression technique (NONE, RLE, ZLIBFAST,
ZLIBHIGH) costs least CPU per transaction, and what rate did it carry? Per technique the chapter
fits cost = a + b·S + c·S·p (:mod:`mqperf.models.compression`: S the message in KB, p the share
compression removes) to the CPU per transaction and to the time per transaction (10⁶ / rate),
then answers at the reader's size and compressibility. The fits and the frames are
:mod:`.fits`, the sentences and passages :mod:`.text`, the orchestration :mod:`.analysis`.
"""

from mqperf.declarations import DataFile, Internal, Number, Text

CHAPTER = "channel_compression"
#: The example the Bring-your-own-data page shows: synthetic (see the chapter's "What was read").
EXAMPLE = "channel_compression.csv"
#: The technique that does not compress: its cost does not depend on compressibility.
NONE = "NONE"
KB = 1024

PARAMETERS = {
    "data": DataFile(help="runs by technique: a CSV with technique, message_bytes, compressibility_pct or "
                          "compression_ratio, cpu_us_per_tx [, rate_tx_s, channel], or a book dataset",
                     contract=CHAPTER),
    "channel": Text(help="the channel set-up to plan for (the file's channel column, e.g. a CipherSpec); "
                         "\"\" for the first in the file", max_length=100),
    "message_size_kb": Number(help="planning: your message size", unit="KB", minimum=0, exclusive_minimum=True,
                              maximum=102400),
    "compressibility_pct": Number(help="planning: the share of your messages compression removes (COMPRATE)",
                                  unit="%", minimum=0, maximum=99),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}

#: On a reader's file the book's channel name means nothing: plan for the file's first channel.
READER_DEFAULTS = {"channel": ""}


def analyse(p: dict):
    """Load, fit and plan; every sentence, table and chart of the chapter, in order (:mod:`.analysis`)."""
    from mqperf.chapters.channel_compression import analysis

    return analysis.analyse(p)
