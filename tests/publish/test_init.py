"""``mqperf init``: a reader's report repository that builds, validates and fails on drift.

The repository is made from the book's example file, committed, cloned afresh, and then used
as a reader (and their CI) would: `make report`, `make test`, the workflow's `run:` steps in
order, and a changed number in the data, which `make test` must name. Its `make` clones this
book at its HEAD commit and installs it with the lock file (the uv cache makes that quick).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

pytestmark = pytest.mark.slow

MQPERF = str(Path(sys.executable).with_name("mqperf"))
CHAPTER = "kafka_task_scaling"
EXAMPLE = ROOT / "data" / "examples" / f"{CHAPTER}.csv"
GIT = ["git", "-c", "user.name=mqperf tests", "-c", "user.email=tests@localhost"]


def _sh(cmd, cwd, check=True):
    # As on a reader's runner: GitHub's images set no PYTHONDONTWRITEBYTECODE, so Python writes the
    # bytecode it imports and the book's `make install` compiles nothing ahead (see its Makefile).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "MQPERF_ROOT", "PYTHONDONTWRITEBYTECODE"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    proc = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True,
                          env=env, timeout=1200)
    if check:
        assert proc.returncode == 0, f"{cmd}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def served_book(tmp_path_factory):
    """The book as a runner reaches it: a bare repository served over HTTP (git's dumb protocol)."""
    from mqperf.publish.loopback import Server

    if _sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"], ROOT, check=False).returncode:
        pytest.skip("the book is not a git checkout, so mqperf init cannot pin it")
    base = tmp_path_factory.mktemp("served")
    _sh(["git", "clone", "-q", "--bare", str(ROOT), str(base / "book.git")], base)
    _sh(["git", "-C", str(base / "book.git"), "update-server-info"], base)

    with Server(base) as served:
        yield served.url + "book.git"


@pytest.fixture(scope="module")
def clone(tmp_path_factory, served_book):
    base = tmp_path_factory.mktemp("init")
    made = base / "reports-repo"
    _sh([MQPERF, "init", str(made), "--chapter", CHAPTER, "--data", str(EXAMPLE), "-p", "target_rate_msg_s", "50000",
         "--mqperf-source", served_book], base)
    _sh(GIT + ["add", "-A"], made)
    _sh(GIT + ["commit", "-qm", "mqperf init"], made)
    work = base / "clone"
    _sh(["git", "clone", "-q", str(made), str(work)], base)
    return work


def test_the_generated_tree(clone, served_book):
    files = sorted(p.relative_to(clone).as_posix() for p in clone.rglob("*") if ".git/" not in p.as_posix() + "/"
                   and p.is_file() and ".mqperf" not in p.parts and "reports" not in p.parts)
    assert files == [".github/workflows/report.yml", ".gitignore", "Makefile", "README.md",
                     f"data/{EXAMPLE.name}", "report.yml"]
    config = yaml.safe_load((clone / "report.yml").read_text())
    head = _sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"], ROOT).stdout.strip()
    assert config["mqperf"] == {"source": served_book, "commit": head}
    assert config["reports"] == [{"name": CHAPTER, "chapter": CHAPTER, "data": [f"data/{EXAMPLE.name}"],
                                  "parameters": {"target_rate_msg_s": 50000.0}, "pdf": False}]
    assert (clone / "data" / EXAMPLE.name).read_bytes() == EXAMPLE.read_bytes()
    readme = (clone / "README.md").read_text()
    assert "make report" in readme and "make test" in readme
    # The README names the real source and commit, not a bare https://github.com/.
    assert f"[MQ Performance Book]({served_book})" in readme and head[:12] in readme
    assert "(https://github.com/)" not in readme


def test_make_report_then_test_from_a_clean_clone(clone):
    built = _sh(["make", "report"], clone)
    assert "1 run, 0 reused" in built.stdout
    report = clone / "reports" / CHAPTER
    assert {p.name for p in report.iterdir()} >= {f"{CHAPTER}.ipynb", f"{CHAPTER}.html", "models"}
    assert str(clone) not in (report / f"{CHAPTER}.ipynb").read_text()  # no machine's paths committed
    assert "0 run, 1 reused" in _sh(["make", "report"], clone).stdout  # unchanged: not re-run
    tested = _sh(["make", "test"], clone)
    assert "1 of 1 reports as committed" in tested.stdout
    _sh(GIT + ["add", "-A"], clone)
    _sh(GIT + ["commit", "-qm", "first report"], clone)


def test_the_workflow_parses_and_its_run_steps_pass_in_order(clone):
    wf = yaml.safe_load((clone / ".github" / "workflows" / "report.yml").read_text())
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers
    steps = wf["jobs"]["build"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert uses[0].startswith("actions/checkout@") and uses[1].startswith("actions/setup-python@")
    assert steps[1]["with"]["python-version"].startswith("3.11.")  # pinned, not a range
    assert any(u.startswith("actions/cache@") and ".mqperf" in s["with"]["path"] for u, s in zip(uses, steps))
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    deploy = wf["jobs"]["deploy"]
    assert deploy["if"] == "github.ref == 'refs/heads/main'" and deploy["needs"] == "build"
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    runs = [s["run"] for s in steps if "run" in s]
    assert runs == ["make install", "make test", "make report"]
    for command in runs:  # the actions themselves cannot run here; the commands can, in order
        _sh(command, clone)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert (clone / upload["with"]["path"] / "index.html").is_file()


def test_a_changed_number_fails_make_test_naming_chapter_and_number(clone):
    data = clone / "data" / EXAMPLE.name
    original = data.read_text()
    try:
        data.write_text(original.replace("nonpersistent 1KB,3,63672", "nonpersistent 1KB,3,61000"))
        assert data.read_text() != original
        failed = _sh(["make", "test"], clone, check=False)
        assert failed.returncode != 0
        assert f"FAILED reports/{CHAPTER} (chapter {CHAPTER})" in failed.stdout
        assert "63,672 → 61,000" in failed.stdout
    finally:
        data.write_text(original)


def test_the_default_pin_is_the_origin_at_head_and_a_local_path_needs_saying_so():
    from mqperf.errors import MQPerfError
    from mqperf.publish.repo_init import is_remote, pin

    origin = _sh(["git", "-C", str(ROOT), "remote", "get-url", "origin"], ROOT, check=False).stdout.strip()
    head = _sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"], ROOT).stdout.strip()
    if origin and is_remote(origin):
        assert pin(None, None, say=lambda *_: None) == (origin, head)
    else:  # a clone of a local checkout (as in CI): its origin is a path no runner can reach
        with pytest.raises(MQPerfError, match="a CI runner cannot clone"):
            pin(None, None, say=lambda *_: None)
        assert pin(None, None, say=lambda *_: None, local_ok=True) == (origin or str(ROOT), head)
    assert pin("https://example.invalid/book.git", head[:12], say=lambda *_: None) == (
        "https://example.invalid/book.git", head)  # a short id is pinned in full
    with pytest.raises(MQPerfError, match="--local-source"):
        pin(str(ROOT), None, say=lambda *_: None)
    with pytest.raises(MQPerfError):
        pin(f"file://{ROOT}", None, say=lambda *_: None)


def test_a_local_source_is_refused_in_one_line_or_allowed_when_asked(tmp_path):
    target = tmp_path / "repo"
    cmd = [MQPERF, "init", str(target), "--chapter", CHAPTER, "--data", str(EXAMPLE), "--mqperf-source", str(ROOT)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and not target.exists()
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "a CI runner cannot clone" in lines[0] and "--local-source" in lines[0], proc.stderr
    proc = subprocess.run(cmd + ["--local-source"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    readme = (target / "README.md").read_text()
    assert str(ROOT) in readme and "builds there only" in readme


@pytest.mark.parametrize("case", ["not empty", "bad data", "unknown chapter"])
def test_init_refuses_in_one_line_and_writes_nothing(tmp_path, case):
    target = tmp_path / "repo"
    data = EXAMPLE
    chapter = CHAPTER
    if case == "not empty":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif case == "bad data":
        data = tmp_path / "bad.csv"
        data.write_text("series,tasks,rate_msg_s\nA,1,fast\n")
    else:
        chapter = "no_such_chapter"
    proc = subprocess.run([MQPERF, "init", str(target), "--chapter", chapter, "--data", str(data)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    expected = ["notes.txt"] if case == "not empty" else []
    assert sorted(p.name for p in target.iterdir()) == expected if target.exists() else expected == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left
