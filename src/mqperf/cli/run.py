"""``mqperf run``: one chapter on a reader's data into a folder: notebook, offline report, cards."""

from __future__ import annotations

import errno
import tempfile
import time
from pathlib import Path

from mqperf.cli._common import (EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, one_line, parameter_option, say_error,
                                say_read, write_log)


def add_parser(sub):
    r = sub.add_parser("run", help="execute one chapter on your data into DIR (notebook + offline HTML report)",
                       description="Execute CHAPTER with --data FILE into DIR: DIR/CHAPTER.ipynb, DIR/CHAPTER.html "
                                   "(standalone, works offline), DIR/models/*.json, DIR/inputs/ (what was read from your tools' "
                                   "files, as contract-shaped CSV, with conversion.json naming formats, unit "
                                   "conversions and values that were not data) and DIR/.mqperf-report.json (the "
                                   "list of the report's files). Every -p value and FILE's columns, types and "
                                   "ranges are checked before the notebook runs; the notebook then runs the "
                                   "chapter's fits and planning, and data they cannot support stop it with the "
                                   "one line `mqperf check` would print (exit status 2).",
                       epilog="DIR rules: a new or empty folder is created and filled; a folder holding an earlier "
                              "mqperf report gets exactly that report's files replaced (files you added beside "
                              "them stay); a folder holding anything else is refused, as are the book's own "
                              "folders, a folder holding FILE, and a read-only folder. The report is built beside "
                              "DIR and swapped in at the end, so an interrupted or failed run leaves DIR as it was. "
                              "Exit status: 0 ok, 1 the chapter failed, 2 bad input (data, parameter, DIR) or no space left on the device.")
    r.add_argument("chapter", metavar="CHAPTER", help="chapter name as `mqperf list` shows it")
    r.add_argument("--data", required=True, nargs="+", action="extend", metavar="FILE",
                   help="your data: a CSV in the chapter's contract shape, or your tools' own output as they "
                        "wrote it (mqldt, fio, amqsrua, amqsevt JSON, an MQSMFCSV folder, RMF XML, cph/cphtestp, "
                        "Kafka perf-test), recognised from the content; several files make one dataset (a sweep "
                        "of runs), and each goes to the chapter input its format feeds")
    parameter_option(r, "set a chapter parameter; `mqperf list` shows each one's type and allowed range")
    r.add_argument("--out", required=True, metavar="DIR",
                   help="output folder: new, empty, or holding an earlier mqperf report (see below)")
    r.add_argument("--pdf", action="store_true",
                   help="also write DIR/CHAPTER.pdf: the report printed by a local chromium, charts as vector graphics")
    r.add_argument("--quiet", "-q", action="store_true", help="print only errors")
    return r


def command(args) -> int:
    from mqperf import parameters

    # Parameters first: their declarations import nothing heavy, so a bad -p (or an unknown
    # chapter) is answered before the notebooks are even read.
    given = parameters.parse_cli(args.chapter, [tuple(p) for p in args.parameter])

    from mqperf.paths import chapters_dir
    from mqperf import catalog
    from mqperf.publish import engine, runner

    # The kernel starts now and imports what chapters need while this process reads the
    # notebook, inspects DIR and checks the parameters and the files' contracts; on such bad
    # input it is killed before any notebook runs. The analysis runs once, in the notebook: a
    # model the data cannot support fails there, in the same one line as `mqperf check` says.
    if args.pdf:
        from mqperf.publish import pdf

        pdf.find_chromium()  # before any work: a missing browser is bad input, said at once
    with engine.Kernel(chapters_dir()) as kernel, tempfile.TemporaryDirectory(prefix="mqperf-inputs-") as tmp:
        chapter = catalog.find(args.chapter)
        run = runner.prepare(chapter, args.data, given, args.out, Path(tmp), analyse=False)
        say = (lambda *_: None) if args.quiet else print
        start = time.perf_counter()
        say(f"mqperf run: {chapter.name} on {run.label} ...")
        if not args.quiet:
            say_read(run.convs)
        try:
            out = runner.make(run, chapter, kernel, pdf=args.pdf, say=say)
        except runner.ChapterFailed as failure:
            return chapter_failed(failure)
    say(f"  executed in {time.perf_counter() - start:.1f} s")
    say(f"  report:   {out / (chapter.name + '.html')}")
    say(f"  notebook: {out / (chapter.name + '.ipynb')}")
    if args.pdf:
        say(f"  pdf:      {out / (chapter.name + '.pdf')}")
    return EXIT_OK


def chapter_failed(failure) -> int:
    """A failed chapter is one line: exit 2 for bad input, else 1 and a log with the details."""
    if failure.bad_input:
        say_error(one_line(failure.evalue))
        return EXIT_BAD_INPUT
    extra = "\n--- kernel stderr ---\n" + failure.kernel_stderr if failure.kernel_stderr else ""
    log = write_log(failure.cause, extra=extra)
    if isinstance(failure.cause, OSError) and failure.cause.errno in (errno.ENOSPC, errno.EDQUOT):
        say_error(f"no space left on the device while writing the report; nothing was published "
                   f"(details in {log})")
        return EXIT_BAD_INPUT
    say_error(f"the chapter failed: {one_line(str(failure))} (details in {log})")
    return EXIT_FAILED
