"""``mqperf report build|test``: inside a repository made by ``mqperf init``."""

from __future__ import annotations

from mqperf.publish import repo


def add_parser(sub):
    p = sub.add_parser("report", help="build or validate the reports of a report repository (make report, make test)",
                              description="Inside a repository made by `mqperf init`: `build` runs every report of "
                                          "report.yml whose inputs changed into reports/NAME/ and writes "
                                          "reports/index.html; `test` checks each report's data against its chapter's "
                                          "contract and re-executes it, failing when an output differs from the "
                                          "committed one, with the numbers that moved.",
                              epilog="Exit status: 0 ok, 1 a report differs from the committed one (test) or a "
                                     "chapter failed, 2 bad input (report.yml, data, parameters).")
    p.add_argument("action", choices=("build", "test"), help="build the reports, or validate the committed ones")
    p.add_argument("--config", default=repo.CONFIG, metavar="FILE", help="the repository's report.yml (default: ./report.yml)")
    p.add_argument("--force", action="store_true", help="build: re-run every report, changed or not")
    return p


def command(args) -> int:
    from mqperf.publish.outdir import signals_as_exceptions

    with signals_as_exceptions():
        config = repo.load(args.config)
        if args.action == "build":
            return repo.build(config, force=args.force)
        return repo.validate(config)
