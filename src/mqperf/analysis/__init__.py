"""Chapter-level analysis: load a chapter's data, fit its models, build its tables.

These functions keep chapter notebooks to prose and a few calls; the models themselves
live in :mod:`mqperf.models`. Importing this package makes every table a chapter shows,
a bare DataFrame included, go through :mod:`mqperf.present.tables` (one display rule).
"""

from mqperf.present import tables as _tables  # noqa: F401 (registers the DataFrame display)
