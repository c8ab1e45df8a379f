"""The ``mqperf`` command: build the book, list chapters, run a chapter on a reader's data.

This layer only parses arguments, prints, and maps errors to exit statuses:
0 success; 1 a chapter or the HTML build failed, or a defect of ours (one line, and the
traceback in a log file whose path the line gives); 2 bad input (a data file, a parameter,
an output folder, a model the data cannot support, an unknown chapter), on one line;
128 + N when signal N (SIGINT, SIGTERM) interrupted a run. No traceback reaches the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from mqperf import __version__
from mqperf.errors import MQPerfError, OutputError, shorten
from mqperf.paths import log_dir
from mqperf.publish.outdir import Interrupted, signals_as_exceptions

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, but a file name is never cut at a hyphen (.mqperf-report.json)."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        return textwrap.fill(self._whitespace_matcher.sub(" ", text).strip(), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line too (exit 2), pointing at --help."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"error: {shorten(message, 200)} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mqperf",
        description="The MQ Performance Book: build it, list its chapters, re-run a chapter on your data.",
        epilog="Exit status: 0 ok, 1 a chapter or the HTML build failed, 2 bad input (bad data, a model the data cannot support, an unknown chapter or parameter) or no space left on the device, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"mqperf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    b = sub.add_parser("build", help="execute changed chapters (parallel, cached) and build the HTML book",
                       description="Execute chapters whose inputs changed (notebook, data they read, package code, "
                                   "lock file) with papermill in parallel, then render _build/html with Jupyter Book. "
                                   "A failed run leaves the committed notebooks and _build/html as they were.")
    b.add_argument("--strict", action="store_true", help="treat Sphinx warnings as errors (-W -n --keep-going)")
    b.add_argument("--force", action="store_true", help="re-execute every chapter and re-render the HTML even if their inputs are unchanged")
    b.add_argument("--jobs", "-j", type=int, default=None, help="parallel chapter executions (default: CPU count)")
    b.add_argument("--only", nargs="+", metavar="CHAPTER", help="execute only these chapters")
    b.add_argument("--no-html", action="store_true", help="execute chapters only; skip the HTML build")
    b.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")

    ls = sub.add_parser("list", help="chapters with their parameters and data contract")
    ls.add_argument("--json", action="store_true", help="machine-readable output")

    r = sub.add_parser("run", help="execute one chapter on your data into DIR (notebook + offline HTML report)",
                       description="Execute CHAPTER with --data FILE into DIR: DIR/CHAPTER.ipynb, DIR/CHAPTER.html "
                                   "(standalone, works offline), DIR/models/*.json, DIR/inputs/ (what was read from your tools' "
                                   "files, as contract-shaped CSV, with conversion.json naming formats, unit "
                                   "conversions and values that were not data) and DIR/.mqperf-report.json (the "
                                   "list of the report's files). FILE and every -p value are checked first, as "
                                   "`mqperf check` does, before any kernel starts.",
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
    r.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a chapter parameter; `mqperf list` shows each one's type and allowed range")
    r.add_argument("--out", required=True, metavar="DIR",
                   help="output folder: new, empty, or holding an earlier mqperf report (see below)")
    r.add_argument("--pdf", action="store_true",
                   help="also write DIR/CHAPTER.pdf: the report printed by a local chromium, charts as vector graphics")
    r.add_argument("--quiet", "-q", action="store_true", help="print only errors")

    v = sub.add_parser("check", help="validate a data file as `mqperf run` would, without running anything",
                       description="Validate FILE. Given a chapter name, run the same checks `mqperf run` makes "
                                   "before starting a kernel (the chapter's contract and what its models need, "
                                   "with the chapter's default parameters); given a contract or dataset name, "
                                   "check the columns, types and ranges only. For a tool's output, says which format was "
                                   "recognised, what was extracted, and the unit conversions made. Prints what was "
                                   "checked and the row count; bad input is one line naming file, column and line, "
                                   "exit status 2.")
    c = sub.add_parser("convert", help="write your tools' output as the CSV a chapter reads (to look at or edit)",
                       description="Read FILE... (mqldt, fio, amqsrua, amqsevt JSON, an MQSMFCSV folder, RMF XML, "
                                   "cph/cphtestp, Kafka perf-test output; the format is recognised from the content) "
                                   "into the contract shape of CHAPTER's main input (or CHAPTER.INPUT, e.g. "
                                   "nativeha_storage.mqldt) and write it to OUT as CSV. Every row keeps its origin in "
                                   "a 'source' column (file:line). OUT must not exist: mqperf never overwrites a "
                                   "file it did not write.",
                       epilog="Exit status: 0 ok, 2 bad input (an unknown format, a file the chapter cannot use, OUT exists).")
    c.add_argument("file", metavar="FILE", nargs="+", help="your tools' output files (or an MQSMFCSV folder)")
    c.add_argument("--to", required=True, metavar="CHAPTER[.INPUT]", help="the chapter (and input) to convert for")
    c.add_argument("-o", "--out", required=True, metavar="OUT", help="the CSV file to write (must not exist)")
    v.add_argument("file", metavar="FILE", nargs="+",
                   help="a CSV, or your tools' own output files (or an MQSMFCSV folder), as `mqperf run --data` takes them")
    v.add_argument("--contract", required=True, help="chapter name, contract name or dataset name")
    v.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="with a chapter name: a parameter as `mqperf run` would take it (checked the same way)")
    from mqperf.publish import compare, fleet, pdf, repo, repo_init

    fleet.add_parser(sub)
    compare.add_parser(sub)
    pdf.add_parser(sub)
    repo_init.add_parser(sub)
    repo.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit status. Never lets a traceback reach the terminal."""
    args = _parser().parse_args(argv)
    from mqperf.publish import compare, fleet, pdf, repo, repo_init

    commands = {"build": _build, "list": _list, "run": _run, "check": _check, "convert": _convert,
                "fleet": fleet.command, "compare": compare.command, "pdf": pdf.command,
                "init": repo_init.command, "report": repo.command}
    # run and check: SIGTERM too unwinds through every `finally`, so no staging folder stays.
    # (build keeps default signal handling: its worker processes inherit handlers.)
    guard = signals_as_exceptions() if args.command in ("run", "check", "convert") else contextlib.nullcontext()
    try:
        with guard:
            return commands[args.command](args)
    except (MQPerfError, LookupError) as exc:
        _say_error(_one_line(exc))
        return EXIT_BAD_INPUT
    except Interrupted as exc:
        _say_error(f"interrupted ({exc})")
        return 128 + exc.signum
    except KeyboardInterrupt:
        _say_error("interrupted")
        return 130
    except BrokenPipeError:
        # The reader piped the output into something that stopped reading (`| head`): not an
        # error. Point stdout at /dev/null so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a defect of ours: one line here, the traceback in a log file
        log = _write_log(exc)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            # Not a defect of ours: the reader's machine, like bad input, is theirs to fix (exit 2).
            _say_error(f"no space left on the device: {_one_line(exc)}; nothing was published (details in {log})")
            return EXIT_BAD_INPUT
        _say_error(f"internal error: {type(exc).__name__}: {_one_line(exc)} (details in {log})")
        return EXIT_FAILED


def _say_error(text: str) -> None:
    print(f"error: {text}", file=sys.stderr)


# A line longer than this is cut word by word: a message may quote a reader's text that
# no helper shortened (an analysis error naming a 100,000-character series, say).
_LINE_LIMIT = 400


def _one_line(exc) -> str:
    text = exc.args[0] if isinstance(exc, LookupError) and exc.args else str(exc)
    line = " ".join(str(text).split())
    if len(line) > _LINE_LIMIT:
        line = " ".join(shorten(word, 80) for word in line.split(" "))
    return shorten(line, _LINE_LIMIT + 100)


def _write_log(exc: BaseException, extra: str = "") -> Path:
    """Write the traceback of a defect (and ``extra``, e.g. a kernel's stderr) to a new log file."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = log_dir() / f"mqperf-{stamp}-{os.getpid()}.log"
    text = (f"mqperf {__version__}, python {sys.version.split()[0]}, argv {sys.argv!r}\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + extra)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return Path("(no log: could not write one)")
    return path


def _build(args) -> int:
    from mqperf.publish import build as book

    echo = (lambda *_: None) if args.quiet else print
    status = book.build(strict=args.strict, force=args.force, jobs=args.jobs, only=args.only,
                        html=not args.no_html, echo=lambda msg: echo(msg) or sys.stdout.flush())
    if args.quiet:
        print("mqperf build: ok" if status == 0 else "mqperf build: FAILED")
    return status


def _list(args) -> int:
    """Chapters, their data contract and their declared parameters (types, ranges, defaults)."""
    from mqperf import parameters
    from mqperf import catalog
    from mqperf.data import ingest
    from mqperf.data.contracts import describe

    chapters = catalog.chapters()
    if args.json:
        print(json.dumps([{"name": c.name, "title": c.title, "contract": c.contract, "data_parameter": c.data_parameter,
                           "formats": {name: [f.name for f in fmts] for name, fmts in ingest.accepted(c.name).items()},
                           "parameters": parameters.describe(c.name)} for c in chapters], indent=2, default=str))
        return EXIT_OK
    for c in chapters:
        print(f"{c.name}  {c.title}")
        if c.contract:
            print(f"  --data FILE ({c.data_parameter}): {describe(c.contract)}")
        for name, fmts in ingest.accepted(c.name).items():
            if fmts:
                print(f"  formats ({name}): {', '.join(f.title for f in fmts)}")
        for p in parameters.describe(c.name):
            if p["name"] == c.data_parameter:
                continue
            unit = f" {p['unit']}" if p.get("unit") else ""
            run = f"; mqperf run: {json.dumps(p['run_default'])}" if p["run_default"] != p["default"] else ""
            print(f"  -p {p['name']} {json.dumps(p['default'])}  ({p['type']}{unit}: {p['range']}{run})")
            print(f"       {p['help']}")
        print()
    return EXIT_OK


def _check(args) -> int:
    """Validate FILE exactly as `mqperf run` would before starting a kernel."""
    from mqperf import chapters, data, parameters
    from mqperf.data import ingest
    from mqperf import catalog
    from mqperf.data.contracts import CONTRACTS

    name = args.contract
    chapter = None
    try:
        # A chapter's contract has the chapter's name: check it as the chapter would.
        chapter = catalog.find(name)
    except LookupError:
        pass  # another contract (e.g. kafka_latch_cpus.latch_data) or a dataset name
    if chapter is None and args.parameter:
        raise MQPerfError("-p needs a chapter name in --contract (contracts and datasets take no parameters)")
    if chapter is not None:
        if not chapter.contract:
            raise MQPerfError(f"chapter '{chapter.name}' takes no reader data")
        given = parameters.parse_cli(chapter.name, [tuple(p) for p in args.parameter])
        with tempfile.TemporaryDirectory(prefix="mqperf-check-") as tmp:
            values, convs = ingest.prepare(chapter.name, args.file, Path(tmp))
            _say_read(convs)
            params = parameters.for_inputs(chapter.name, values, given)
            # The file as read (preflight may return it aggregated); a second load is cheap
            # next to the fits, and fails with the very line preflight would.
            main = next(c for c in convs if c.target == chapter.name)
            frame = data.load(args.file[0], contract=chapter.contract) if main.plain else main.frame
            used = chapters.preflight(chapter.name, values["data"], params)
        used = getattr(used, "points", used)  # a chapter's Results carry the points it fitted
        what = (f"chapter {chapter.name} (contract {chapter.contract}, "
                f"{'parameters as given' if given else 'default parameters'})")
    elif "." in name and _input_of(name) is not None:
        # A chapter's other input (nativeha_storage.mqldt): its files may be a tool's output too.
        chapter_name, input_name = _input_of(name)
        conv = ingest.convert(ingest.route(chapter_name, args.file, explicit_input=input_name)[input_name],
                              chapter_name, input_name)
        _say_read([conv])
        frame = used = data.load(args.file[0], contract=name) if conv.plain else conv.frame
        what = f"contract {name}" if conv.plain else f"input {input_name} of chapter {chapter_name}"
    else:
        if len(args.file) > 1:
            raise MQPerfError("several files need a chapter name in --contract (it says which input each one feeds)")
        frame = used = data.load(args.file[0], contract=name)
        what = f"{'contract' if name in CONTRACTS else 'dataset'} {name}"
    summary = f": {len(frame)} rows; columns: {', '.join(shorten(c, 40) for c in frame.columns)}"
    if hasattr(used, "columns") and len(used) < len(frame):
        summary += f"; the chapter averages them into {len(used)} points, one per setting"
    label = args.file[0] if len(args.file) == 1 else f"{len(args.file)} files"
    print(f"{label}: ok against {what}{summary}")
    return EXIT_OK


def _input_of(name: str):
    """(chapter, input) for a name like ``nativeha_storage.mqldt`` when that input takes files."""
    from mqperf.data import ingest
    from mqperf import catalog

    chapter_name, _, input_name = name.partition(".")
    try:
        catalog.find(chapter_name)
    except LookupError:
        return None
    return (chapter_name, input_name) if input_name in ingest.inputs(chapter_name) else None


def _say_read(convs) -> None:
    """What was recognised in the reader's files, and the notes on units and dropped values."""
    for conv in convs:
        if conv.plain:
            continue
        print(f"{conv.target}: {conv.describe()}")
        for note in conv.notes:
            print(f"  - {note}")


def _convert(args) -> int:
    """Write a reader's tool output as a chapter input's contract-shaped CSV."""
    from mqperf.data import ingest
    from mqperf import catalog

    chapter_name, _, input_name = args.to.partition(".")
    chapter = catalog.find(chapter_name)
    input_name = input_name or "data"
    if input_name not in ingest.inputs(chapter.name):
        raise MQPerfError(f"--to {args.to}: chapter '{chapter.name}' has no input '{input_name}' for reader files "
                          f"(inputs: {', '.join(ingest.inputs(chapter.name)) or 'none'})")
    out = Path(args.out).expanduser()
    if out.exists() or out.is_symlink():
        raise OutputError(f"-o {args.out}: the file exists; mqperf writes only new files here (remove it or choose another name)")
    if not out.parent.is_dir():
        raise OutputError(f"-o {args.out}: the folder {out.parent} does not exist")
    routed = ingest.route(chapter.name, args.file, explicit_input=input_name)
    conv = ingest.convert(routed[input_name], chapter.name, input_name)
    if conv.plain:
        raise MQPerfError(f"{conv.files[0]}: already a CSV in the contract's shape; nothing to convert "
                          f"(check it with `mqperf check {conv.files[0]} --contract {chapter.name}`)")
    ingest.write(conv, out)
    _say_read([conv])
    print(f"wrote {out} ({len(conv.frame)} rows for {args.to})")
    return EXIT_OK


def _run(args) -> int:
    from mqperf import parameters

    # Parameters first: their declarations import nothing heavy, so a bad -p (or an unknown
    # chapter) is answered before the notebooks are even read.
    given = parameters.parse_cli(args.chapter, [tuple(p) for p in args.parameter])

    from mqperf.paths import chapters_dir
    from mqperf import catalog
    from mqperf.publish import engine, runner

    # The kernel starts now and imports what chapters need while this process reads the
    # notebook, inspects DIR and checks the data (the checks `mqperf check` makes), so a good
    # run pays for the imports once, in parallel; on bad input it is killed before any
    # notebook runs (well under a second).
    if args.pdf:
        from mqperf.publish import pdf

        pdf.find_chromium()  # before any work: a missing browser is bad input, said at once
    with engine.Kernel(chapters_dir()) as kernel, tempfile.TemporaryDirectory(prefix="mqperf-inputs-") as tmp:
        chapter = catalog.find(args.chapter)
        run = runner.prepare(chapter, args.data, given, args.out, Path(tmp))
        say = (lambda *_: None) if args.quiet else print
        start = time.perf_counter()
        say(f"mqperf run: {chapter.name} on {run.label} ...")
        if not args.quiet:
            _say_read(run.convs)
        try:
            out = runner.make(run, chapter, kernel, pdf=args.pdf, say=say)
        except runner.ChapterFailed as failure:
            return _chapter_failed(failure)
    say(f"  executed in {time.perf_counter() - start:.1f} s")
    say(f"  report:   {out / (chapter.name + '.html')}")
    say(f"  notebook: {out / (chapter.name + '.ipynb')}")
    if args.pdf:
        say(f"  pdf:      {out / (chapter.name + '.pdf')}")
    return EXIT_OK


def _chapter_failed(failure) -> int:
    """A failed chapter is one line: exit 2 for bad input, else 1 and a log with the details."""
    if failure.bad_input:
        _say_error(_one_line(failure.evalue))
        return EXIT_BAD_INPUT
    extra = "\n--- kernel stderr ---\n" + failure.kernel_stderr if failure.kernel_stderr else ""
    log = _write_log(failure.cause, extra=extra)
    if isinstance(failure.cause, OSError) and failure.cause.errno in (errno.ENOSPC, errno.EDQUOT):
        _say_error(f"no space left on the device while writing the report; nothing was published "
                   f"(details in {log})")
        return EXIT_BAD_INPUT
    _say_error(f"the chapter failed: {_one_line(str(failure))} (details in {log})")
    return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
