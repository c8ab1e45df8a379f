"""``mqperf init``: a repository for a reader's own reports (make report, make test, CI, Pages)."""

from __future__ import annotations

from mqperf.cli._common import parameter_option


def add_parser(sub):
    p = sub.add_parser(
        "init", help="create a repository for your own reports (make report, make test, CI, Pages)",
        description="Create DIR, a repository for your own reports: report.yml (the book pinned by commit, and the "
                    "report: CHAPTER on your --data files with -p parameters), the data files copied into DIR/data, "
                    "a Makefile (`make report` builds the reports into DIR/reports, re-running only those whose "
                    "inputs changed; `make test` checks the data against the chapter's contract and re-executes "
                    "every report, failing with the numbers that moved), a README and "
                    ".github/workflows/report.yml (build and test on every push, publish reports/ to GitHub Pages "
                    "from main). Your files are checked as `mqperf run` would before anything is written.",
        epilog="DIR must be new or empty. Exit status: 0 created, 2 bad input (data, parameter, chapter, DIR).")
    p.add_argument("dir", metavar="DIR", help="the repository to create (new or empty folder)")
    p.add_argument("--chapter", required=True, metavar="NAME", help="the chapter to report on (`mqperf list`)")
    p.add_argument("--data", required=True, nargs="+", action="extend", metavar="FILE",
                   help="your data: a CSV in the chapter's contract shape or your tools' output (files or a folder)")
    parameter_option(p, "a chapter parameter, kept in report.yml")
    p.add_argument("--pdf", action="store_true", help="make report also prints the report as a PDF (needs chromium)")
    p.add_argument("--mqperf-source", metavar="URL",
                   help="where `make` (and the CI runner) clones the book from: a URL a runner can reach "
                        "(https://, ssh://, git://, or git@host:path; default: this checkout's origin remote)")
    p.add_argument("--local-source", action="store_true",
                   help="allow a local path as the source: the reports then build only on this machine, never on "
                        "a CI runner")
    p.add_argument("--mqperf-commit", metavar="REV", help="the book's commit to pin (default: this checkout's HEAD)")
    return p


def command(args) -> int:
    from mqperf.publish import repo_init

    return repo_init.init(args.dir, chapter=args.chapter, data=args.data, parameters=args.parameter, pdf=args.pdf,
                          source=args.mqperf_source, commit=args.mqperf_commit, local_source=args.local_source)
