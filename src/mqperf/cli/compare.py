"""``mqperf compare``: one chapter's fits on two or more runs: what changed, and whether the data can tell."""

from __future__ import annotations


def add_parser(sub):
    from mqperf.publish import compare

    return compare.add_parser(sub)


def command(args) -> int:
    from mqperf.publish import compare

    return compare.command(args)
