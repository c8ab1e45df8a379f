"""What every verb shares: help that never cuts a file name, usage errors and errors in one line, logs of defects."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path

import mqperf
from mqperf.errors import shorten
from mqperf.paths import log_dir

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class Formatter(argparse.HelpFormatter):
    """argparse's help layout, but a file name is never cut at a hyphen (.mqperf-report.json)."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        import textwrap

        return textwrap.fill(self._whitespace_matcher.sub(" ", text).strip(), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line too (exit 2), pointing at --help."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"error: {shorten(message, 200)} (see `{self.prog} --help`)\n")


def parameter_option(parser, help: str) -> None:
    """``-p NAME VALUE`` (repeatable): a chapter parameter."""
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"), help=help)


def say_read(convs) -> None:
    """What was recognised in the reader's files, and the notes on units and dropped values."""
    for conv in convs:
        if conv.plain:
            continue
        print(f"{conv.target}: {conv.describe()}")
        for note in conv.notes:
            print(f"  - {note}")


def say_error(text: str) -> None:
    print(f"error: {text}", file=sys.stderr)


# A line longer than this is cut word by word: a message may quote a reader's text that
# no helper shortened (an analysis error naming a 100,000-character series, say).
LINE_LIMIT = 400


def one_line(exc) -> str:
    text = exc.args[0] if isinstance(exc, LookupError) and exc.args else str(exc)
    line = " ".join(str(text).split())
    if len(line) > LINE_LIMIT:
        line = " ".join(shorten(word, 80) for word in line.split(" "))
    return shorten(line, LINE_LIMIT + 100)


def write_log(exc: BaseException, extra: str = "") -> Path:
    """Write the traceback of a defect (and ``extra``, e.g. a kernel's stderr) to a new log file."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = log_dir() / f"mqperf-{stamp}-{os.getpid()}.log"
    text = (f"mqperf {mqperf.__version__}, python {sys.version.split()[0]}, argv {sys.argv!r}\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + extra)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError:
        return Path("(no log: could not write one)")
    return path
