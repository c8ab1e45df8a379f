"""``python -m mqperf.cli``: the ``mqperf`` command, ending with a normal interpreter exit.

The ``mqperf`` script (:func:`mqperf.cli.console`) skips the interpreter's tear-down; this entry
keeps it, so a profiler or debugger wrapped around the command (``python -m cProfile -m
mqperf.cli ...``) sees the program end and writes what it gathered.
"""

import sys

from mqperf.cli import main

sys.exit(main())
