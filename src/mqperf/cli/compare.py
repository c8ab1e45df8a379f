"""``mqperf compare``: one chapter's fits on two or more runs: what changed, and whether the data can tell."""

from __future__ import annotations

import sys

from mqperf.cli._common import EXIT_OK, parameter_option

_DESCRIPTION = (
    "Run CHAPTER's models on two or more runs (each --data is one run: files or a folder, read as `mqperf run` "
    "reads them; give them in time order) and write what changed: DIR/comparison.csv (one row per series and "
    "parameter: before, after, difference, lower, upper, changed, ratio, unit, note, before_run, after_run), "
    "DIR/index.html (standalone, offline: the verdict in words, both fits side by side, the curves overlaid with "
    "their bands and the points) and, for three or more runs, DIR/runs.csv and DIR/changepoints.csv (where a "
    "parameter moved). Intervals: the delta method for the difference of two independent fits, Student-t on "
    "Welch–Satterthwaite degrees of freedom, simultaneous over each series' parameters (Bonferroni), so a "
    "change is claimed only when its interval excludes no change.")
_EPILOG = (
    "DIR rules as for `mqperf run`: a new or empty folder, or one holding an earlier mqperf output; anything else "
    "is refused, and DIR changes only when the comparison is complete. Exit status: 0 written (whether or not "
    "anything changed), 1 a defect of ours, 2 bad input (a data file, a parameter, DIR, a chapter without a "
    "fitted model).")


def add_parser(subparsers):
    """Add the ``compare`` subcommand to ``mqperf``'s subparsers; returns its parser."""
    c = subparsers.add_parser("compare", help="compare a chapter's fits on two or more runs: what changed, by how much",
                              description=_DESCRIPTION, epilog=_EPILOG)
    c.add_argument("chapter", metavar="CHAPTER", help="chapter name as `mqperf list` shows it")
    c.add_argument("--data", required=True, nargs="+", action="append", metavar="FILE",
                   help="one run's data (repeat --data for each run, oldest first); several files or a folder "
                        "make one run, as for `mqperf run`")
    c.add_argument("--label", action="append", default=[], metavar="NAME",
                   help="a name for each run, in the same order (default: the file or folder names)")
    parameter_option(c, "a chapter parameter for every run; `mqperf list` shows them")
    c.add_argument("--level", type=float, default=95.0, metavar="PCT",
                   help="simultaneous confidence level of each series' intervals, in percent (default 95)")
    c.add_argument("--out", required=True, metavar="DIR", help="output folder: new, empty, or an earlier mqperf output")
    c.add_argument("--pdf", action="store_true",
                   help="also write DIR/comparison.pdf, printed by a local chromium (charts as vector graphics)")
    c.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")
    return c


def command(args) -> int:
    """``mqperf compare``: exit 0, or raises an MQPerfError (exit 2)."""
    from mqperf import parameters
    from mqperf.publish import compare

    say = (lambda *_: None) if args.quiet else (lambda m: print(m, flush=True))
    given = parameters.parse_cli(args.chapter, [tuple(p) for p in args.parameter])
    result = compare.run(args.chapter, args.data, out=args.out, labels=args.label, given=given, level=args.level,
                         pdf=args.pdf, say=say)
    for line in compare.verdict_lines(result):
        say(f"  {line}")
    table = result.table
    moved = table.loc[table["changed"], "series"].nunique() if len(table) else 0
    print(f"mqperf compare: {table['series'].nunique() if len(table) else 0} series compared, {moved} changed; "
          f"report: {result.out / 'index.html'}, table: {result.out / 'comparison.csv'}")
    sys.stdout.flush()
    return EXIT_OK
