"""``python -m mqperf.cli``: the ``mqperf`` command."""

import sys

from mqperf.cli import main

sys.exit(main())
