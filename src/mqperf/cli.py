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
from mqperf.errors import MQPerfError, shorten
from mqperf.publish.outdir import Interrupted, signals_as_exceptions

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line too (exit 2), pointing at --help."""

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"error: {shorten(message, 200)} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mqperf",
        description="The MQ Performance Book: build it, list its chapters, re-run a chapter on your data.",
        epilog="Exit status: 0 ok, 1 a chapter or the HTML build failed, 2 bad input (bad data, a model the data cannot support, an unknown chapter or parameter).",
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
                                   "(standalone, works offline), DIR/models/*.json and DIR/.mqperf-report.json (the "
                                   "list of the report's files). FILE and every -p value are checked first, as "
                                   "`mqperf check` does, before any kernel starts.",
                       epilog="DIR rules: a new or empty folder is created and filled; a folder holding an earlier "
                              "mqperf report gets exactly that report's files replaced (files you added beside "
                              "them stay); a folder holding anything else is refused, as are the book's own "
                              "folders, a folder holding FILE, and a read-only folder. The report is built beside "
                              "DIR and swapped in at the end, so an interrupted or failed run leaves DIR as it was. "
                              "Exit status: 0 ok, 1 the chapter failed, 2 bad input (data, parameter, DIR).")
    r.add_argument("chapter", metavar="CHAPTER", help="chapter name as `mqperf list` shows it")
    r.add_argument("--data", required=True, metavar="FILE", help="your CSV file (comma-separated, UTF-8)")
    r.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a chapter parameter; `mqperf list` shows each one's type and allowed range")
    r.add_argument("--out", required=True, metavar="DIR",
                   help="output folder: new, empty, or holding an earlier mqperf report (see below)")
    r.add_argument("--quiet", "-q", action="store_true", help="print only errors")

    v = sub.add_parser("check", help="validate a data file as `mqperf run` would, without running anything",
                       description="Validate FILE. Given a chapter name, run the same checks `mqperf run` makes "
                                   "before starting a kernel (the chapter's contract and what its models need, "
                                   "with the chapter's default parameters); given a contract or dataset name, "
                                   "check the columns, types and ranges only. Prints what was checked and the row "
                                   "count; bad input is one line naming file, column and line, exit status 2.")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--contract", required=True, help="chapter name, contract name or dataset name")
    v.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="with a chapter name: a parameter as `mqperf run` would take it (checked the same way)")
    from mqperf.publish import fleet

    fleet.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit status. Never lets a traceback reach the terminal."""
    args = _parser().parse_args(argv)
    from mqperf.publish import fleet

    commands = {"build": _build, "list": _list, "run": _run, "check": _check, "fleet": fleet.command}
    # run and check: SIGTERM too unwinds through every `finally`, so no staging folder stays.
    # (build keeps default signal handling: its worker processes inherit handlers.)
    guard = signals_as_exceptions() if args.command in ("run", "check") else contextlib.nullcontext()
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
            _say_error(f"no space left on the device: {_one_line(exc)}; nothing was published (details in {log})")
            return EXIT_FAILED
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


def _log_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (Path(base) / "mqperf" / "logs", Path(tempfile.gettempdir()) / "mqperf-logs"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    return Path(tempfile.gettempdir())


def _write_log(exc: BaseException, extra: str = "") -> Path:
    """Write the traceback of a defect (and ``extra``, e.g. a kernel's stderr) to a new log file."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = _log_dir() / f"mqperf-{stamp}-{os.getpid()}.log"
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
    from mqperf.publish import build as book
    from mqperf.data.contracts import describe

    chapters = book.discover()
    if args.json:
        print(json.dumps([{"name": c.name, "title": c.title, "contract": c.contract, "data_parameter": c.data_parameter,
                           "parameters": parameters.describe(c.name)} for c in chapters], indent=2, default=str))
        return EXIT_OK
    for c in chapters:
        print(f"{c.name}  {c.title}")
        if c.contract:
            print(f"  --data FILE ({c.data_parameter}): {describe(c.contract)}")
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
    from mqperf.publish import build as book
    from mqperf.data.contracts import CONTRACTS

    name = args.contract
    chapter = None
    try:
        # A chapter's contract has the chapter's name: check it as the chapter would.
        chapter = book.find(name)
    except LookupError:
        pass  # another contract (e.g. kafka_latch_cpus.latch_data) or a dataset name
    if chapter is None and args.parameter:
        raise MQPerfError("-p needs a chapter name in --contract (contracts and datasets take no parameters)")
    if chapter is not None:
        if not chapter.contract:
            raise MQPerfError(f"chapter '{chapter.name}' takes no reader data")
        given = parameters.parse_cli(chapter.name, [tuple(p) for p in args.parameter])
        params = parameters.run_overrides(chapter.name, args.file, given)
        # The file as read (preflight may return it aggregated); a second load is cheap
        # next to the fits, and fails with the very line preflight would.
        frame = data.load(args.file, contract=chapter.contract)
        used = chapters.preflight(chapter.name, args.file, params)
        used = getattr(used, "points", used)  # a chapter's Results carry the points it fitted
        what = (f"chapter {chapter.name} (contract {chapter.contract}, "
                f"{'parameters as given' if given else 'default parameters'})")
    else:
        frame = used = data.load(args.file, contract=name)
        what = f"{'contract' if name in CONTRACTS else 'dataset'} {name}"
    summary = f": {len(frame)} rows; columns: {', '.join(shorten(c, 40) for c in frame.columns)}"
    if hasattr(used, "columns") and len(used) < len(frame):
        summary += f"; the chapter averages them into {len(used)} points, one per setting"
    print(f"{args.file}: ok against {what}{summary}")
    return EXIT_OK


def _run(args) -> int:
    from mqperf import parameters

    # Parameters first: their declarations import nothing heavy, so a bad -p (or an unknown
    # chapter) is answered before the notebooks are even read.
    given = parameters.parse_cli(args.chapter, [tuple(p) for p in args.parameter])

    from mqperf import chapters
    from mqperf.paths import chapters_dir
    from mqperf.publish import build as book
    from mqperf.publish import engine, outdir

    # The kernel starts now and imports what chapters need while this process reads the
    # notebook, inspects DIR and checks the data (the checks `mqperf check` makes), so a good
    # run pays for the imports once, in parallel; on bad input it is killed before any
    # notebook runs (well under a second).
    with engine.Kernel(chapters_dir()) as kernel:
        chapter = book.find(args.chapter)
        if not chapter.contract or not chapter.data_parameter:
            raise MQPerfError(f"chapter '{chapter.name}' takes no reader data")
        source = Path(args.data)
        params = parameters.run_overrides(chapter.name, str(source), given)
        outdir.recover(args.out)
        data_files = [v for v in params.values() if isinstance(v, str) and v and os.path.isfile(v)]
        target = outdir.inspect(args.out, data_files=[source, *data_files])
        chapters.preflight(chapter.name, source, params)
        return _run_in(args, chapter, source, params, target, kernel)


def _run_in(args, chapter, source: Path, params: dict, target, kernel) -> int:
    from mqperf.publish import outdir, runner

    say = (lambda *_: None) if args.quiet else print
    start = time.perf_counter()
    with outdir.staging(target) as stage:
        say(f"mqperf run: {chapter.name} on {source} ...")
        try:
            runner.write_report(chapter, source, params, stage, kernel, out=target.path)
        except runner.ChapterFailed as failure:
            return _chapter_failed(failure)
        outdir.publish(stage, target, chapter=chapter.name, version=__version__, data=source.name)
    out = target.path
    say(f"  executed in {time.perf_counter() - start:.1f} s")
    say(f"  report:   {out / (chapter.name + '.html')}")
    say(f"  notebook: {out / (chapter.name + '.ipynb')}")
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
        return EXIT_FAILED
    _say_error(f"the chapter failed: {_one_line(str(failure))} (details in {log})")
    return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
