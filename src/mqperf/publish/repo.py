"""A reader's report repository: ``report.yml`` read and checked, its reports built and validated.

``mqperf init`` (:mod:`mqperf.publish.repo_init`) writes such a repository; inside it
``make report`` calls :func:`build` and ``make test`` calls :func:`validate`.

Built like the book: a report is re-run only when its *input hash* changed (the chapter's
notebook, the package code, the lock file, the data files' bytes, the parameters, the PDF
flag; :func:`input_hash`), stored in the report notebook's ``mqperf`` metadata, so a fresh
clone knows its committed reports are current. Validated like the book: every report is
re-executed and its outputs compared with the committed ones, cell by cell, as nbval
compares (nbval itself cannot run these notebooks: their parameters name files of the
repository, not of nbval's working folder); a difference is named number by number by
:mod:`mqperf.publish.drift`, with the report and its chapter.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mqperf.errors import DataError, MQPerfError

CONFIG = "report.yml"
REPORTS = "reports"
#: Differences listed per report; the first are the data's own tables, where a change shows first.
SHOWN = 25
#: The keys a report entry may have.
KEYS = {"name", "chapter", "data", "parameters", "pdf"}


@dataclass
class Entry:
    name: str
    chapter: str
    data: list[str]
    parameters: dict = field(default_factory=dict)
    pdf: bool = False


@dataclass
class Config:
    root: Path
    source: str
    commit: str
    reports: list[Entry]


def load(path: str | Path = CONFIG) -> Config:
    """``report.yml`` as a :class:`Config`; a one-line DataError naming the file and key otherwise."""
    import re

    import yaml

    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: not found (run `mqperf init` to create a report repository, or give --config)")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise DataError(f"{path}{where}: not valid YAML") from None
    if not isinstance(raw, dict):
        raise DataError(f"{path}: expected keys mqperf and reports")
    pin = raw.get("mqperf") or {}
    if not isinstance(pin, dict) or not pin.get("source") or not re.fullmatch(r"[0-9a-f]{7,40}", str(pin.get("commit", ""))):
        raise DataError(f"{path}: mqperf: needs source (the book's git URL or path) and commit (a commit id)")
    entries, seen = [], set()
    for i, item in enumerate(raw.get("reports") or []):
        where = f"{path}: reports[{i}]"
        if not isinstance(item, dict):
            raise DataError(f"{where}: expected keys {', '.join(sorted(KEYS))}")
        unknown = set(item) - KEYS
        if unknown:
            raise DataError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(KEYS))})")
        name, chapter = str(item.get("name") or item.get("chapter") or ""), str(item.get("chapter") or "")
        if not chapter:
            raise DataError(f"{where}: chapter: missing")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name) or name in seen:
            raise DataError(f"{where}: name {name!r}: give each report a different name of letters, digits, . _ -")
        seen.add(name)
        data = item.get("data")
        data = [data] if isinstance(data, str) else data
        if not data or not all(isinstance(d, str) and d for d in data):
            raise DataError(f"{where}: data: give the data file(s), relative to {path.name}")
        params = item.get("parameters") or {}
        if not isinstance(params, dict):
            raise DataError(f"{where}: parameters: expected NAME: VALUE pairs")
        entries.append(Entry(name, chapter, list(data), params, bool(item.get("pdf", False))))
    if not entries:
        raise DataError(f"{path}: reports: none listed")
    return Config(path.resolve().parent, str(pin["source"]), str(pin["commit"]), entries)


def _given(entry: Entry) -> dict:
    from mqperf import parameters

    return parameters.parse_cli(entry.chapter, [(str(k), _text(v)) for k, v in entry.parameters.items()])


def _text(value) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _files(config: Config, entry: Entry) -> list[Path]:
    out = []
    for d in entry.data:
        path = config.root / d
        if not path.exists():
            raise DataError(f"{config.root / CONFIG}: report {entry.name!r}: data file {d} not found")
        out.append(path)
    return out


def input_hash(config: Config, entry: Entry) -> str:
    """What a report's results depend on; equal hashes mean an identical report."""
    from mqperf import __version__
    from mqperf import catalog
    from mqperf.publish import build as book

    import nbformat

    chapter = catalog.find(entry.chapter)
    h = hashlib.sha256()
    h.update(book.source_hash(nbformat.read(chapter.path, as_version=4)).encode())
    h.update(book.environment_hash().encode())
    for path in _files(config, entry):
        for f in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if f.is_file():
                h.update(f.relative_to(config.root).as_posix().encode() + b"\0" + f.read_bytes())
    h.update(json.dumps({"p": entry.parameters, "pdf": entry.pdf, "v": __version__}, sort_keys=True,
                        default=str).encode())
    return h.hexdigest()


def _stored_hash(notebook: Path) -> str | None:
    if not notebook.is_file():
        return None
    try:
        return json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("mqperf", {}).get("report_inputs")
    except (OSError, ValueError):
        return None


def build(config: Config, *, force: bool = False, say=print) -> int:
    """``make report``: run each report whose inputs changed into ``reports/NAME/``; write the index."""
    from mqperf.paths import chapters_dir
    from mqperf import catalog
    from mqperf.publish import engine, runner

    if any(e.pdf for e in config.reports):
        from mqperf.publish import pdf

        pdf.find_chromium()
    done = 0
    with engine.Kernel(chapters_dir()) as kernel:
        for entry in config.reports:
            chapter = catalog.find(entry.chapter)
            out = config.root / REPORTS / entry.name
            key = input_hash(config, entry)
            if not force and _stored_hash(out / f"{chapter.name}.ipynb") == key:
                say(f"  reused    {entry.name} (inputs unchanged)")
                continue
            with tempfile.TemporaryDirectory(prefix="mqperf-report-") as tmp:
                run = runner.prepare(chapter, _files(config, entry), _given(entry), out, Path(tmp), analyse=False)
                run.metadata = {"report_inputs": key}
                say(f"  running   {entry.name}: {chapter.name} on {run.label} ...")
                try:
                    runner.make(run, chapter, kernel, pdf=entry.pdf, say=lambda *_: None, relative_to=config.root)
                except runner.ChapterFailed as failure:
                    raise MQPerfError(f"report {entry.name!r} ({chapter.name}): {failure.evalue}") from None
            done += 1
    write_index(config)
    say(f"mqperf report build: {len(config.reports)} reports, {done} run, {len(config.reports) - done} reused; "
        f"index: {config.root / REPORTS / 'index.html'}")
    return 0


def validate(config: Config, *, say=print) -> int:
    """``make test``: every report's data against its chapter's contract, and its committed outputs
    against a fresh execution; returns 1 naming every number that moved."""
    import nbformat

    from mqperf.paths import chapters_dir
    from mqperf import catalog
    from mqperf.publish import engine, runner

    problems: list[str] = []
    with engine.Kernel(chapters_dir()) as kernel:
        for entry in config.reports:
            chapter = catalog.find(entry.chapter)
            committed = config.root / REPORTS / entry.name / f"{chapter.name}.ipynb"
            label = f"{REPORTS}/{entry.name} (chapter {chapter.name})"
            if not committed.is_file():
                problems.append(f"{label}: not built (run `make report` and commit {REPORTS}/)")
                continue
            with tempfile.TemporaryDirectory(prefix="mqperf-check-") as tmp:
                try:
                    run = runner.prepare(chapter, _files(config, entry), _given(entry), Path(tmp) / "out",
                                         Path(tmp) / "in", analyse=False)
                except MQPerfError as exc:  # the data no longer meet the chapter's contract
                    problems.append(f"{label}: {exc}")
                    continue
                try:
                    fresh = runner.make(run, chapter, kernel, say=lambda *_: None, relative_to=config.root)
                except runner.ChapterFailed as failure:  # bad data say so as the contract check would
                    problems.append(f"{label}: {'' if failure.bad_input else 'the chapter failed: '}{failure.evalue}")
                    continue
                moved = differences(nbformat.read(committed, as_version=4),
                                    nbformat.read(fresh / f"{chapter.name}.ipynb", as_version=4))
            if moved:
                shown = moved[:SHOWN] + ([f"... and {len(moved) - SHOWN} more"] if len(moved) > SHOWN else [])
                problems.append(f"{label}: results differ from the committed report:\n"
                                + "\n".join(f"    {m}" for m in shown))
            else:
                say(f"  ok        {entry.name}: data meet the contract; outputs as committed")
            if _stored_hash(committed) not in (None, input_hash(config, entry)) and not moved:
                say(f"  note      {entry.name}: its inputs changed since it was built, yet no result moved")
    for p in problems:
        print(f"FAILED {p}")
    print(f"mqperf report test: {len(config.reports) - len(problems)} of {len(config.reports)} reports as committed")
    return 1 if problems else 0


def differences(expected, actual) -> list[str]:
    """Where two executions of one report differ beyond the book's rule (:data:`mqperf.publish.samebook.RULE`):
    a runner's CPU may put a value on the other side of a rounding boundary; that is not a result that moved."""
    import copy

    from mqperf.publish import drift

    if len(expected.cells) != len(actual.cells):
        return [f"the notebook has {len(actual.cells)} cells now, {len(expected.cells)} when committed "
                "(a different mqperf version? run `make report`)"]
    # The injected parameters name the run's files; they are the report's inputs, not its results.
    keep = [i for i, c in enumerate(expected.cells)
            if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    e, a = copy.copy(expected), copy.copy(actual)
    e.cells, a.cells = [expected.cells[i] for i in keep], [actual.cells[i] for i in keep]
    return drift.notebook_differences(e, a)


def write_index(config: Config) -> Path:
    """``reports/index.html``: a page linking every report (what GitHub Pages publishes)."""
    import html

    from mqperf import catalog
    from mqperf.publish import report

    items = []
    for entry in config.reports:
        chapter = catalog.find(entry.chapter)
        folder = config.root / REPORTS / entry.name
        links = [f'<a href="{entry.name}/{chapter.name}.html">{html.escape(chapter.title)}</a>']
        if (folder / f"{chapter.name}.pdf").is_file():
            links.append(f'<a href="{entry.name}/{chapter.name}.pdf">PDF</a>')
        items.append(f"<li><b>{html.escape(entry.name)}</b>: {' · '.join(links)} "
                     f"<span class='meta'>on {html.escape(', '.join(entry.data))}</span></li>")
    body = ["<h1>Reports</h1>", f"<p class='meta'>Built with the MQ Performance Book at commit "
            f"{html.escape(config.commit[:12])}.</p>", "<ul>" + "".join(items) + "</ul>"]
    path = config.root / REPORTS / "index.html"
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(report.standalone("Reports", body, charts=False), encoding="utf-8")
    tmp.replace(path)
    return path
