"""The ``mqperf`` command: one module per verb, each parsing its arguments, calling a plain function
of :mod:`mqperf.publish` (or of the package below it), printing, and returning an exit status.

Exit statuses: 0 success; 1 a chapter or the HTML build failed, or a defect of ours (one line,
and the traceback in a log file whose path the line gives); 2 bad input (a data file, a
parameter, an output folder, a model the data cannot support, an unknown chapter) or no space
left on the device, on one line; 128 + N when signal N (SIGINT, SIGTERM) interrupted a run. No
traceback reaches the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys

from mqperf.cli import build, check, compare, convert, fleet, init, pdf, report, run
from mqperf.cli import list as list_
from mqperf.cli._common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, Parser, one_line, say_error, write_log
from mqperf.errors import MQPerfError
from mqperf.publish.outdir import Interrupted, signals_as_exceptions

#: The verbs, in the order ``mqperf --help`` lists them.
VERBS = {"build": build, "list": list_, "run": run, "check": check, "convert": convert, "fleet": fleet,
         "compare": compare, "pdf": pdf, "init": init, "report": report}

__all__ = ["main", "console", "parser", "EXIT_OK", "EXIT_FAILED", "EXIT_BAD_INPUT"]


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for (see :mod:`mqperf`)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show mqperf's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        import mqperf

        print(f"mqperf {mqperf.__version__}")
        parser.exit()


def parser() -> Parser:
    p = Parser(
        prog="mqperf",
        description="The MQ Performance Book: build it, list its chapters, re-run a chapter on your data.",
        epilog="Exit status: 0 ok, 1 a chapter or the HTML build failed, 2 bad input (bad data, a model the data "
               "cannot support, an unknown chapter or parameter) or no space left on the device, 130 interrupted.",
    )
    p.add_argument("--version", action=_Version)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for verb in VERBS.values():
        verb.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit status. Never lets a traceback reach the terminal."""
    args = parser().parse_args(argv)
    # run and check: SIGTERM too unwinds through every `finally`, so no staging folder stays.
    # (build keeps default signal handling: its worker processes inherit handlers.)
    guard = signals_as_exceptions() if args.command in ("run", "check", "convert") else contextlib.nullcontext()
    try:
        with guard:
            return VERBS[args.command].command(args)
    except (MQPerfError, LookupError) as exc:
        say_error(one_line(exc))
        return EXIT_BAD_INPUT
    except Interrupted as exc:
        say_error(f"interrupted ({exc})")
        return 128 + exc.signum
    except KeyboardInterrupt:
        say_error("interrupted")
        return 130
    except BrokenPipeError:
        # The reader piped the output into something that stopped reading (`| head`): not an
        # error. Point stdout at /dev/null so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a defect of ours: one line here, the traceback in a log file
        log = write_log(exc)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            # Not a defect of ours: the reader's machine, like bad input, is theirs to fix (exit 2).
            say_error(f"no space left on the device: {one_line(exc)}; nothing was published (details in {log})")
            return EXIT_BAD_INPUT
        say_error(f"internal error: {type(exc).__name__}: {one_line(exc)} (details in {log})")
        return EXIT_FAILED


def console() -> None:
    """The ``mqperf`` script: :func:`main`, then an exit without the interpreter's tear-down
    (:func:`mqperf.publish.quick_exit.quick_exit`: 0.15 to 0.2 s of every command).
    ``python -m mqperf.cli`` exits normally instead, for profilers and debuggers.
    """
    from mqperf.publish.quick_exit import quick_exit

    quick_exit(main())
