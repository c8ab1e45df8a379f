"""``mqperf build``: execute the chapters whose inputs changed, then render the HTML book."""

from __future__ import annotations

import sys


def add_parser(sub):
    b = sub.add_parser("build", help="execute changed chapters (parallel, cached) and build the HTML book",
                       description="Execute chapters whose inputs changed (notebook, data they read, package code, "
                                   "lock file) with papermill in parallel, then render _build/html with Jupyter Book. "
                                   "A failed run leaves the committed notebooks, model cards and _build/html as they "
                                   "were; a re-executed notebook or model card that is the same book as the "
                                   "committed one (text identical, numbers within one unit in their last shown "
                                   "place) is left as it was.")
    b.add_argument("--strict", action="store_true", help="treat Sphinx warnings as errors (-W -n --keep-going)")
    b.add_argument("--force", action="store_true",
                   help="re-execute every chapter and re-render the HTML even if their inputs are unchanged")
    b.add_argument("--jobs", "-j", type=int, default=None, help="parallel chapter executions (default: the CPUs this process may use, "
                   "as its affinity and a container's CPU quota allow)")
    b.add_argument("--only", nargs="+", metavar="CHAPTER", help="execute only these chapters")
    b.add_argument("--no-html", action="store_true", help="execute chapters only; skip the HTML build")
    b.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")
    return b


def command(args) -> int:
    from mqperf.publish import build as book

    echo = (lambda *_: None) if args.quiet else print
    status = book.build(strict=args.strict, force=args.force, jobs=args.jobs, only=args.only,
                        html=not args.no_html, echo=lambda msg: echo(msg) or sys.stdout.flush())
    if args.quiet:
        print("mqperf build: ok" if status == 0 else "mqperf build: FAILED")
    return status
