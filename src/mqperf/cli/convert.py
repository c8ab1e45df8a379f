"""``mqperf convert``: a reader's tool output as the contract-shaped CSV a chapter reads."""

from __future__ import annotations

from pathlib import Path

from mqperf.cli._common import EXIT_OK, say_read
from mqperf.errors import MQPerfError, OutputError


def add_parser(sub):
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
    return c


def command(args) -> int:
    """Write a reader's tool output as a chapter input's contract-shaped CSV."""
    from mqperf import catalog
    from mqperf.data import ingest

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
    say_read([conv])
    print(f"wrote {out} ({len(conv.frame)} rows for {args.to})")
    return EXIT_OK
