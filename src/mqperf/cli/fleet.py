"""``mqperf fleet``: one chapter's analysis on many datasets (a manifest), on Dask: one summary."""

from __future__ import annotations

from mqperf.cli._common import parameter_option

_DESCRIPTION = (
    "Run CHAPTER on every dataset MANIFEST names and write one summary: DIR/summary.csv (one row per dataset "
    "and fitted series: parameters with 95 % intervals, peak, headroom to the target, validation error, flags, "
    "and for a bad dataset its one-line reason) and DIR/index.html (standalone, offline: the summary table and a "
    "chart across the fleet). MANIFEST is a CSV with columns id (a name safe as a file name, e.g. the queue "
    "manager's), data (the data file, relative to MANIFEST's folder) and optionally one column per chapter "
    "parameter (`mqperf list` shows them) for per-row values; an empty cell keeps the -p value or the default. "
    "Runs on Dask: a local cluster of -j worker processes by default, or an existing cluster with --scheduler.")
_EPILOG = (
    "One bad dataset never stops the others: its row says why (status 'bad input'). Finished rows are kept in a "
    "hidden folder beside DIR (.DIR.mqperf-fleet-cache), so an interrupted run resumes where it stopped and a "
    "rerun recomputes only rows whose data, parameters or mqperf version changed. DIR rules as for `mqperf run`: "
    "a new or empty folder, or one holding an earlier mqperf output; anything else is refused, and DIR is only "
    "replaced when the summary is complete. With --scheduler every worker must have this mqperf installed and "
    "see the data files at the same absolute paths (a shared file system): paths are sent as absolute paths. "
    "Exit status: 0 summary written, 1 summary written but some rows failed (a defect; see their reason), "
    "2 bad input (manifest, parameter, DIR, scheduler address), 130 interrupted (rows done so far are kept).")


def add_parser(sub):
    """Add the ``fleet`` subcommand to ``mqperf``'s subparsers; returns its parser."""
    f = sub.add_parser("fleet", help="run a chapter on many datasets (a manifest) on Dask; one summary",
                              description=_DESCRIPTION, epilog=_EPILOG)
    f.add_argument("manifest", metavar="MANIFEST", help="CSV: id, data [, one column per chapter parameter]")
    f.add_argument("--chapter", required=True, action="append", metavar="NAME",
                   help="chapter to run on every dataset (repeat for several)")
    f.add_argument("--out", required=True, metavar="DIR", help="output folder: new, empty, or an earlier mqperf output")
    f.add_argument("--scheduler", metavar="ADDRESS",
                   help="an existing Dask scheduler, e.g. tcp://host:8786 (then -j is ignored)")
    f.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="worker processes of the local cluster (default: the CPUs this process may use, "
                        "as its affinity and a container's CPU quota allow)")
    parameter_option(f, "a chapter parameter for every row (a manifest column of the same name overrides it per row)")
    f.add_argument("--reports", action="store_true",
                   help="also write each dataset's own report (notebook, offline HTML, model cards) into "
                        "DIR/reports/ID/, made in each worker's warm kernel")
    f.add_argument("--pdf", action="store_true",
                   help="with --reports: also print each report as DIR/reports/ID/CHAPTER.pdf (a local chromium)")
    f.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")
    return f


def command(args) -> int:
    from mqperf.publish import fleet

    return fleet.run(args.manifest, args.chapter, args.out, scheduler=args.scheduler, jobs=args.jobs,
                     parameters=args.parameter, reports=args.reports, pdf=args.pdf, quiet=args.quiet)
