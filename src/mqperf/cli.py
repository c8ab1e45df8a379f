"""The ``mqperf`` command: build the book, list chapters, run a chapter on a reader's data.

This layer only parses arguments, prints, and maps errors to exit statuses:
0 success; 1 a chapter or the HTML build failed; 2 bad input (a data file, a parameter,
a model the data cannot support, an unknown chapter), reported on one line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

from mqperf import __version__
from mqperf.errors import DataError, ModelError, MQPerfError

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    b.add_argument("--force", action="store_true", help="re-execute every chapter even if its inputs are unchanged")
    b.add_argument("--jobs", "-j", type=int, default=None, help="parallel chapter executions (default: CPU count)")
    b.add_argument("--only", nargs="+", metavar="CHAPTER", help="execute only these chapters")
    b.add_argument("--no-html", action="store_true", help="execute chapters only; skip the HTML build")
    b.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")

    ls = sub.add_parser("list", help="chapters with their parameters and data contract")
    ls.add_argument("--json", action="store_true", help="machine-readable output")

    r = sub.add_parser("run", help="execute one chapter on your data into DIR (notebook + offline HTML report)",
                       description="Execute CHAPTER with --data FILE into DIR: DIR/CHAPTER.ipynb, DIR/CHAPTER.html "
                                   "(standalone, works offline) and DIR/models/*.json. FILE is checked against the "
                                   "chapter's data contract first (see `mqperf list`). Never touches chapters/, "
                                   "models/ or _build/; on failure DIR is left as it was.")
    r.add_argument("chapter", metavar="CHAPTER", help="chapter name as `mqperf list` shows it")
    r.add_argument("--data", required=True, metavar="FILE", help="your CSV file")
    r.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="set a chapter parameter (VALUE read as YAML: 5 is a number, abc a string)")
    r.add_argument("--out", required=True, metavar="DIR", help="output folder (created; replaced on success)")
    r.add_argument("--quiet", "-q", action="store_true", help="print only errors")

    v = sub.add_parser("check", help="validate a data file against a chapter's contract or a dataset's schema")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--contract", required=True, help="chapter name, contract name or dataset name")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "list":
            return _list(args)
        if args.command == "run":
            return _run(args)
        if args.command == "check":
            return _check(args)
    except (DataError, ModelError, MQPerfError, LookupError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return EXIT_FAILED


def _one_line(exc: BaseException) -> str:
    text = exc.args[0] if isinstance(exc, LookupError) and exc.args else str(exc)
    return " ".join(str(text).split())


def _build(args) -> int:
    from mqperf import book

    echo = (lambda *_: None) if args.quiet else print
    status = book.build(strict=args.strict, force=args.force, jobs=args.jobs, only=args.only,
                        html=not args.no_html, echo=lambda msg: echo(msg) or sys.stdout.flush())
    if args.quiet:
        print("mqperf build: ok" if status == 0 else "mqperf build: FAILED")
    return status


def _list(args) -> int:
    from mqperf import book
    from mqperf.contracts import describe

    chapters = book.discover()
    if args.json:
        print(json.dumps([{"name": c.name, "title": c.title, "contract": c.contract, "parameters": c.parameters}
                          for c in chapters], indent=2, default=str))
        return EXIT_OK
    for c in chapters:
        print(f"{c.name}  {c.title}")
        if c.contract:
            print(f"  data ({c.data_parameter}): {describe(c.contract)}")
        for name, p in c.parameters.items():
            note = f"  # {p['help']}" if p.get("help") else ""
            print(f"  -p {name} {p['default']}{note}")
        print()
    return EXIT_OK


def _contract_for(name: str) -> str:
    from mqperf import book
    from mqperf.contracts import CONTRACTS

    if name in CONTRACTS:
        return name
    try:
        chapter = book.find(name)
    except LookupError:
        return name  # a dataset name; load() says if it is unknown
    if not chapter.contract:
        raise MQPerfError(f"chapter '{name}' takes no reader data")
    return chapter.contract


def _check(args) -> int:
    from mqperf import data

    frame = data.load(args.file, contract=_contract_for(args.contract))
    print(f"{args.file}: ok ({len(frame)} rows, columns: {', '.join(frame.columns)})")
    return EXIT_OK


def _run(args) -> int:
    from mqperf import book, data, report

    chapter = book.find(args.chapter)
    if not chapter.contract or not chapter.data_parameter:
        raise MQPerfError(f"chapter '{chapter.name}' takes no reader data")
    source = Path(args.data)
    data.load(source, contract=chapter.contract)  # fail fast, before any kernel starts

    params = dict(chapter.meta.get("reader_parameters", {}))
    for name, value in args.parameter:
        if name not in chapter.parameters:
            raise MQPerfError(f"chapter '{chapter.name}' has no parameter '{name}' (has: {', '.join(chapter.parameters)})")
        params[name] = yaml.safe_load(value)
    params[chapter.data_parameter] = str(source.resolve())

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise MQPerfError(f"{out}: exists and is not a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    say = (lambda *_: None) if args.quiet else print
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; the report folder should not be
    try:
        params["cards_dir"] = str((staging / "models").resolve())
        say(f"mqperf run: {chapter.name} on {source} ...")
        start = time.perf_counter()
        nb_path = staging / f"{chapter.name}.ipynb"
        try:
            book.execute_notebook(chapter.path, nb_path, parameters=params, cwd=chapter.path.parent)
        except Exception as exc:
            return _execution_error(exc)
        import nbformat

        nb = nbformat.read(nb_path, as_version=4)
        book.normalise(nb)
        nbformat.write(nb, nb_path)
        report.write_report(nb_path, staging / f"{chapter.name}.html", title=chapter.title,
                            subtitle=f"{chapter.title}: run on {source.name} with mqperf {__version__}")
        _replace_dir(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"  executed in {time.perf_counter() - start:.1f} s")
    say(f"  report:   {out / (chapter.name + '.html')}")
    say(f"  notebook: {out / (chapter.name + '.ipynb')}")
    return EXIT_OK


def _execution_error(exc: Exception) -> int:
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename in ("DataError", "ModelError", "MQPerfError"):
        print(f"error: {_one_line(evalue)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    detail = f"{ename}: {evalue}" if ename else f"{type(exc).__name__}: {exc}"
    print(f"error: the chapter failed: {_one_line(detail)}", file=sys.stderr)
    return EXIT_FAILED


def _replace_dir(staging: Path, out: Path) -> None:
    """Move the finished report into place; the old one goes only when the new one is ready."""
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
