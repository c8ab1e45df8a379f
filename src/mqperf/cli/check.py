"""``mqperf check``: validate files exactly as ``mqperf run`` would, without running a notebook."""

from __future__ import annotations

import tempfile
from pathlib import Path

from mqperf.cli._common import EXIT_OK, parameter_option, say_read
from mqperf.errors import MQPerfError, shorten


def add_parser(sub):
    v = sub.add_parser("check", help="validate a data file as `mqperf run` would, without running anything",
                       description="Validate FILE. Given a chapter name, run on it what `mqperf run` runs, "
                                   "without a notebook (the chapter's contract, then its fits and planning, "
                                   "with the chapter's default parameters); given a contract or dataset name, "
                                   "check the columns, types and ranges only. For a tool's output, says which format was "
                                   "recognised, what was extracted, and the unit conversions made. Prints what was "
                                   "checked and the row count; bad input is one line naming file, column and line, "
                                   "exit status 2.")
    v.add_argument("file", metavar="FILE", nargs="+",
                   help="a CSV, or your tools' own output files (or an MQSMFCSV folder), as `mqperf run --data` takes them")
    v.add_argument("--contract", required=True, help="chapter name, contract name or dataset name")
    parameter_option(v, "with a chapter name: a parameter as `mqperf run` would take it (checked the same way)")
    return v


def command(args) -> int:
    """Validate FILE as `mqperf run` would: its contract, then the chapter's analysis, in this process."""
    from mqperf import catalog, chapters, data, parameters
    from mqperf.data import ingest
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
            say_read(convs)
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
        say_read([conv])
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
    from mqperf import catalog
    from mqperf.data import ingest

    chapter_name, _, input_name = name.partition(".")
    try:
        catalog.find(chapter_name)
    except LookupError:
        return None
    return (chapter_name, input_name) if input_name in ingest.inputs(chapter_name) else None
