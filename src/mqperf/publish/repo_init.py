"""``mqperf init``: a small repository for a reader's own reports, built and validated like the book.

It holds ``report.yml`` (the book's version, pinned by commit, and the reports: chapter, data,
parameters, PDF or not), the data files copied in, a ``Makefile`` with the two commands
(``make report``, ``make test``), a README and a GitHub Actions workflow that tests every push
and publishes ``reports/`` to GitHub Pages from main. ``make`` clones the book at the pinned
commit into ``.mqperf/book`` and installs it with the book's own lock file, so a report is
rebuilt with exactly the code and dependency versions it was made with.

The folder is made in a hidden sibling and renamed into place at the end: a failed or
interrupted ``init`` leaves nothing. ``DIR`` must be new or empty.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from mqperf.errors import MQPerfError, OutputError

PYTHON_VERSION = "3.11.7"


def _git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else ""


_REMOTE = re.compile(r"^(?:https?|ssh|git|git\+ssh)://[^/\s]+/\S+$|^[\w.-]+@[\w.-]+:\S+$")


def is_remote(source: str) -> bool:
    """True for a source a CI runner can clone: a URL (https, ssh, git) or scp-like ``user@host:path``."""
    return bool(_REMOTE.match(source.strip()))


def web_page(source: str) -> str | None:
    """The web page of a remote source, where its host has one at the obvious place (else None)."""
    m = re.match(r"^(?:https?://|ssh://git@|git://|git@)([\w.-]+)[:/](.+?)(?:\.git)?/?$", source.strip())
    if not m or m.group(1) not in ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org"):
        return source if source.startswith(("https://", "http://")) else None
    return f"https://{m.group(1)}/{m.group(2)}"


def pin(source: str | None, commit: str | None, say=print, *, local_ok: bool = False) -> tuple[str, str]:
    """The book to pin: (source, full commit id).

    The source must be one a CI runner can reach (:func:`is_remote`); a local path (the
    checkout itself, or an origin that is a path on this machine) is refused in one line
    unless ``local_ok``, since the generated workflow's install step could not clone it.
    """
    from mqperf.paths import book_root

    root = book_root()
    if not (root / ".git").exists() and not (source and commit):
        raise MQPerfError(f"{root}: not a git checkout, so its version cannot be pinned; give --mqperf-source URL "
                          "and --mqperf-commit REV")
    source = source or _git(root, "remote", "get-url", "origin") or str(root)
    if not is_remote(source) and not local_ok:
        raise MQPerfError(f"the book's source {source} is a path on this machine, which a CI runner cannot clone: "
                          "give --mqperf-source URL (e.g. https://github.com/you/mq-performance-book.git), or "
                          "--local-source to build the reports on this machine only")
    rev = _git(root, "rev-parse", "--verify", f"{commit or 'HEAD'}^{{commit}}") if (root / ".git").exists() else commit
    if not rev:
        raise MQPerfError(f"--mqperf-commit {commit}: no such commit in {root}")
    if not commit and _git(root, "status", "--porcelain", "--untracked-files=no"):
        say(f"note: the book at {root} has uncommitted changes; the repository pins commit {rev[:12]}, without them")
    if is_remote(source) and (root / ".git").exists() and not _git(root, "branch", "-r", "--contains", rev):
        say(f"note: commit {rev[:12]} is on no remote branch this checkout knows; push it to {source} before "
            "a runner builds the reports")
    return source, rev


def _copy_data(files: list[Path], dest: Path) -> list[str]:
    """Copy each file or folder into ``dest``; returns their paths relative to the repository."""
    dest.mkdir(parents=True)
    names = []
    for f in files:
        name = f.name
        if (dest / name).exists():
            name = f"{len(names) + 1}-{name}"
        if f.is_dir():
            shutil.copytree(f, dest / name)
        else:
            shutil.copy2(f, dest / name)
        names.append(f"data/{name}")
    return names


def init(directory, *, chapter: str, data, parameters=(), pdf: bool = False, source: str | None = None,
         commit: str | None = None, local_source: bool = False) -> int:
    """Make ``directory``, a repository for a reader's reports (see the module's docstring); returns 0.

    Raises an MQPerfError (or OutputError) in one line for bad input: nothing is written then."""
    return _init(directory, chapter, list(data), [tuple(p) for p in parameters], pdf, source, commit, local_source)


def _init(directory, chapter_name: str, data_files: list, pairs: list, print_pdf: bool, source, commit,
          local_source: bool) -> int:
    import tempfile

    import yaml

    from mqperf import catalog, parameters
    from mqperf.publish import runner
    from mqperf.publish.outdir import checkpoint, signals_as_exceptions

    with signals_as_exceptions():
        chapter = catalog.find(chapter_name)
        given = parameters.parse_cli(chapter.name, pairs)
        target = Path(directory).expanduser().resolve()
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise OutputError(f"{directory}: exists and is not an empty folder; mqperf init makes a new repository")
        if not target.parent.is_dir():
            raise OutputError(f"{directory}: the folder {target.parent} does not exist")
        if print_pdf:
            from mqperf.publish import pdf

            pdf.find_chromium()
        files = [Path(f).expanduser().resolve() for f in data_files]
        with tempfile.TemporaryDirectory(prefix="mqperf-init-") as tmp:  # the files as `mqperf run` checks them
            runner.prepare(chapter, files, given, Path(tmp) / "out", Path(tmp) / "in")
        source, commit = pin(source, commit, local_ok=local_source)
        stage = target.parent / f".{target.name}.mqperf-init"
        if stage.exists():
            shutil.rmtree(stage)
        try:
            stage.mkdir()
            data = _copy_data(files, stage / "data")
            report = {"name": chapter.name, "chapter": chapter.name, "data": data,
                      "parameters": {k: v for k, v in given.items()}, "pdf": bool(print_pdf)}
            config = {"mqperf": {"source": source, "commit": commit}, "reports": [report]}
            (stage / "report.yml").write_text(CONFIG_HEAD + yaml.safe_dump(config, sort_keys=False, allow_unicode=True),
                                              encoding="utf-8")
            (stage / "Makefile").write_text(MAKEFILE, encoding="utf-8")
            (stage / "README.md").write_text(readme(chapter.name, chapter.title, source, commit), encoding="utf-8")
            (stage / ".gitignore").write_text(".mqperf/\n__pycache__/\n*.tmp\n", encoding="utf-8")
            workflow = stage / ".github" / "workflows"
            workflow.mkdir(parents=True)
            (workflow / "report.yml").write_text(WORKFLOW.replace("@PYTHON@", PYTHON_VERSION), encoding="utf-8")
            subprocess.run(["git", "init", "--quiet", str(stage)], check=False, capture_output=True)
            checkpoint()
            if target.exists():
                target.rmdir()  # empty, checked above
            stage.rename(target)
        finally:
            if stage.exists():
                shutil.rmtree(stage, ignore_errors=True)
    print(f"mqperf init: {target} (report {chapter.name} on {len(data)} data file{'s' * (len(data) != 1)}, "
          f"book pinned at {commit[:12]})")
    print(f"  next: cd {target} && make report && make test && git add -A && git commit -m 'First report'")
    return 0


CONFIG_HEAD = """\
# What `make report` builds and `make test` validates (mqperf report build / test).
# mqperf: the MQ Performance Book these reports are made with, pinned by commit.
# reports: one entry per report, written to reports/<name>/. data paths are relative to this
# file; parameters are the chapter's (`mqperf list`); pdf: true also prints the report as a PDF.
"""

MAKEFILE = """\
# The two commands: `make report` builds the reports, `make test` validates them.
# The book is cloned at the commit report.yml pins and installed with its own lock file.
PYTHON ?= python3.11
BOOK_SOURCE := $(shell sed -n 's/^  source: *//p' report.yml)
BOOK_COMMIT := $(shell sed -n 's/^  commit: *//p' report.yml)
BOOK        := .mqperf/book
MQPERF      := $(BOOK)/.venv/bin/mqperf
STAMP       := .mqperf/installed-$(BOOK_COMMIT)

.PHONY: report test install clean

report: $(STAMP)
\t$(MQPERF) report build

test: $(STAMP)
\t$(MQPERF) report test

install: $(STAMP)

$(STAMP):
\t@test -n "$(BOOK_COMMIT)" || { echo "error: report.yml pins no mqperf commit"; exit 2; }
\ttest -d $(BOOK)/.git || git clone --quiet "$(BOOK_SOURCE)" $(BOOK)
\tgit -C $(BOOK) cat-file -e "$(BOOK_COMMIT)^{commit}" 2>/dev/null || git -C $(BOOK) fetch --quiet origin
\tgit -C $(BOOK) checkout --quiet --detach "$(BOOK_COMMIT)"
\t$(MAKE) -C $(BOOK) install PYTHON=$(PYTHON)
\trm -f .mqperf/installed-*
\ttouch $@

clean:
\trm -rf .mqperf
"""

def readme(chapter: str, title: str, source: str, commit: str) -> str:
    """The repository's README, naming the book's real source and commit."""
    page = web_page(source)
    book = f"[MQ Performance Book]({page})" if page else "MQ Performance Book"
    where = (f"cloned from `{source}` at commit `{commit[:12]}`" if is_remote(source) else
             f"cloned from `{source}`, a path on the machine that made this repository, at commit `{commit[:12]}`: "
             "it builds there only; set `mqperf.source` in report.yml to a URL for CI")
    return README.format(chapter=chapter, title=title, book=book, where=where)


README = """\
# Reports: {title}

Reports made with the {book} (its `mqperf` command, {where}), built and validated in CI like the
book itself.

```bash
make report   # installs the pinned book into .mqperf/, then builds reports/ (only what changed)
make test     # checks the data against the chapter's contract and re-executes every report:
              # fails, naming the number that moved, when a result differs from the committed one
```

Then commit `reports/` with the data: `make test` compares against what is committed.

* `report.yml` lists the reports: the chapter (`{chapter}`), the data files under `data/`, the
  parameters and whether to print a PDF. Add an entry to add a report; change the pinned commit to
  move to another version of the book.
* `reports/<name>/` holds each report: the executed notebook, a standalone HTML page, the model
  cards and, with `pdf: true`, a PDF; `reports/index.html` links them.
* `.github/workflows/report.yml` runs `make report` and `make test` on every push and publishes
  `reports/` to GitHub Pages from `main` (enable Pages with "GitHub Actions" as the source).
"""

WORKFLOW = """\
name: report
on:
  push:
  workflow_dispatch:
permissions:
  contents: read
  pages: write
  id-token: write
concurrency:
  group: report-${{ github.ref }}
  cancel-in-progress: true
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "@PYTHON@"
      - uses: actions/cache@v4
        with:
          path: |
            .mqperf
            ~/.cache/uv
          key: mqperf-${{ runner.os }}-${{ hashFiles('report.yml') }}
      - name: Install the pinned book
        run: make install
      # Validate first: the committed reports against a fresh execution (a report rebuilt here
      # would hide a result that moved).
      - name: Validate the reports against the committed ones
        run: make test
      - name: Build the reports (all reused when current; writes the index)
        run: make report
      - uses: actions/upload-pages-artifact@v3
        with:
          path: reports
  deploy:
    if: github.ref == 'refs/heads/main'
    needs: build
    runs-on: ubuntu-24.04
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"""
