"""``python -m mqperf.cli``: the ``mqperf`` command."""

from mqperf.cli import console

console()
