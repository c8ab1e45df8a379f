"""Shared fixtures. Tests that need ../shared skip with a reason on a reader's clone,
but fail under CI (CI=true), where ../shared is always beside the project."""

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from mqperf.publish.pdf import CHROMIUM_ARGS as PRINT_ARGS

# Property tests run whole chapter analyses per example: reproducible (derandomised, no example
# database) and without shrinking, which can take many minutes for one failure; the failing
# example is printed as generated.
settings.register_profile("mqperf", derandomize=True, database=None, deadline=None,
                          phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.explain])
settings.load_profile("mqperf")

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MQPERF_SHARED", ROOT.parent / "shared"))


def need_shared(sub: str) -> Path:
    path = SHARED / sub
    if not path.exists():
        unavailable(f"{path} not found: the seeds and reference data live in ../shared beside the project")
    return path


def unavailable(msg: str):
    """Skip with ``msg`` on a reader's machine; fail under CI (CI=true), where nothing may be missing."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + " (required under CI)")
    pytest.skip(msg)


def need_program(path: str | None, name: str, package: str) -> None:
    """A Debian program the test needs (``path`` as shutil.which found it): ``make system-deps`` installs it."""
    if not path:
        unavailable(f"{name} not installed: run `make system-deps` (Debian package {package})")


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    return need_shared("seeds")


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    return need_shared("reference-data")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# -- `make test-fast`: a test that executes a notebook must say so --------------------------------
#
# Under -m "not slow ..." a kernel started in this process, or an `mqperf` subprocess that runs a
# chapter, fails the test with the reason, so the fast loop stays fast and a slow test that lost
# its mark is found at once rather than by a stopwatch.

_RUNS_A_CHAPTER = {"run", "build", "fleet", "report", "pdf", "init", "compare"}


class ExecutesANotebook(AssertionError):
    pass


def _refuse(what: str):
    raise ExecutesANotebook(f"{what} under `make test-fast`: mark the test @pytest.mark.slow")


def pytest_configure(config):
    if "not slow" not in (config.option.markexpr or ""):
        return
    from mqperf.publish import engine

    def no_kernel(self, *args, **kwargs):
        _refuse("a kernel started")

    engine.Kernel.__init__ = no_kernel
    from mqperf.publish import build

    build.execute_notebook = lambda *a, **k: _refuse("a notebook executed")
    # A build executes its stale chapters in a pool of spawned workers, out of this process's reach.
    build.ProcessPoolExecutor = lambda *a, **k: _refuse("a build executed chapters in its worker pool")
    real_popen = subprocess.Popen.__init__

    def popen(self, args, *rest, **kwargs):
        argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else str(args).split()
        if argv and Path(argv[0]).name == "mqperf" and len(argv) > 1 and argv[1] in _RUNS_A_CHAPTER:
            _refuse(f"`mqperf {argv[1]}` ran")
        if len(argv) > 2 and argv[1:3] == ["-m", "mqperf"] and len(argv) > 3 and argv[3] in _RUNS_A_CHAPTER:
            _refuse(f"`mqperf {argv[3]}` ran")
        if "--nbval" in argv or "--nbval-lax" in argv:
            _refuse("pytest --nbval ran")
        real_popen(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = popen


# -- one warm kernel for the session ------------------------------------------------------------

@pytest.fixture(scope="session")
def warm_kernel():
    """The session's one warm kernel (mqperf.publish.engine), for runs that need no isolation."""
    from mqperf.paths import chapters_dir
    from mqperf.publish import engine

    with engine.Kernel(chapters_dir()) as kernel:
        yield kernel


@pytest.fixture
def borrowed_kernel(warm_kernel, monkeypatch):
    """While the test runs, every ``engine.Kernel(...)`` mqperf makes is the session's warm kernel.

    What a command does is unchanged; only the kernel it would start is the session's (whose
    state each run resets, and which a failed run replaces).
    """
    from mqperf.publish import engine

    class Borrowed:
        def __init__(self, cwd, **_kw):
            assert Path(cwd).resolve() == warm_kernel.cwd, "a run in another folder needs its own kernel"

        def __getattr__(self, name):
            return getattr(warm_kernel, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(engine, "Kernel", Borrowed)
    return warm_kernel


@pytest.fixture
def untyped_channels(monkeypatch):
    """The channels Altair had to look up by schema (3 ms each, see present.charts.channels), as
    (encoding, value) pairs."""
    import altair as alt
    from altair.utils import core

    seen = []
    original = core._ChannelCache._wrap_in_channel

    def watched(self, obj, encoding):
        if not isinstance(obj, (alt.SchemaBase, list, tuple)):
            seen.append((encoding, obj))
        return original(self, obj, encoding)

    monkeypatch.setattr(core._ChannelCache, "_wrap_in_channel", watched)
    return seen


@pytest.fixture
def warm_mqperf(borrowed_kernel, monkeypatch):
    """``mqperf ARGS`` in this process, its notebook run in the session's warm kernel.

    Returns ``run(*args, cwd=None) -> (exit status, stdout, stderr)``.
    """
    import contextlib
    import io

    from mqperf import cli

    def run(*args, cwd=None):
        out, err = io.StringIO(), io.StringIO()
        if cwd:
            monkeypatch.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main([str(a) for a in args])
            except SystemExit as exc:  # argparse
                status = exc.code
        return status, out.getvalue(), err.getvalue()

    return run


# -- longest modules first --------------------------------------------------------------------

#: Modules that take longest (measured with --durations=0), started first: pytest-xdist hands a
#: module (--dist loadscope) to whichever worker is free, so the long ones must not come last.
LONGEST_FIRST = ("tests/publish/test_init.py", "tests/test_fleet.py", "tests/publish/test_browser.py",
                 "tests/publish/test_pdf.py", "tests/publish/test_injection.py", "tests/cli/test_hostile_inputs.py",
                 "tests/publish/test_determinism.py", "tests/chapters/zedc_compression/test_zedc_compression_properties.py",
                 "tests/chapters/tls_channel_costs/test_tls_channel_costs_properties.py", "tests/publish/test_build.py",
                 "tests/chapters/kafka_task_scaling/test_kafka_task_scaling_properties.py", "tests/chapters/test_large_inputs.py",
                 "tests/chapters/test_awkward_inputs.py", "tests/chapters/test_byod_examples.py", "tests/cli/test_cli.py",
                 "tests/publish/test_engine.py",
                 # ... and the longest of `make test-fast`, which deselects the ones above
                 "tests/publish/test_render.py", "tests/models/test_refits.py",
                 "tests/data/test_provenance.py", "tests/chapters/request_reply/test_request_reply_book.py")


#: SLOW: what `make test-fast` leaves to `make test`, besides notebooks, builds and the browser.
#: Test files that run whole chapter analyses over many generated datasets are slow by kind: the truth
#: and property tests, the awkward inputs (274 analyses of altered examples) and the large ones (files
#: of 100,000 rows). So is a test, marked where it stands, that estimates a coverage or an error rate
#: over hundreds of simulated data sets. The fast loop keeps each chapter's analysis of its own example
#: (test_preflight) and each model's recovery, edge-case and reference tests.
SLOW_KINDS = ("_truth.py", "_properties.py", "/test_awkward_inputs.py", "/test_large_inputs.py")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collect with the garbage collector off, then freeze what collection made: importing and
    assertion-rewriting some 250 test modules creates objects that live for the whole session, and
    collecting as they come takes a third of the collection's time (4 of 7 CPU-s in each worker);
    frozen, they are not walked again by every full collection while the tests run."""
    import gc

    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.enable()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if str(item.path).endswith(SLOW_KINDS):
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    root = Path(str(config.rootpath))

    def key(item):
        try:
            rel = Path(str(item.path)).relative_to(root).as_posix()
        except ValueError:
            rel = ""
        return rank.get(rel, len(rank))

    items.sort(key=key)  # stable: within a module, and among the rest, the collected order


# -- the built book in a browser (tests/publish/test_browser.py, tests/test_whatif_browser.py) -------------
# Defined once here: a module that imported these fixtures would get its own session-scoped
# copies, and a second Playwright started in a worker that still holds the first fails
# ("Sync API inside the asyncio loop") whenever xdist gives both modules to one worker.

HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# The flags mqperf's own printing uses (Debian's chromium, headless, as root, no network).
CHROMIUM_ARGS = ["--headless", *PRINT_ARGS]


def _need_chromium():
    need_program(CHROMIUM, "chromium", "chromium")


def off_machine(url: str) -> bool:
    """A request a page must never make offline: to any host but the loopback server."""
    from urllib.parse import urlparse

    return urlparse(url).hostname not in ("127.0.0.1", None) and not url.startswith(("data:", "blob:"))


@pytest.fixture(scope="session")
def built_book():
    """Build with -W -n --keep-going; a warning fails the build and so this test."""
    cmd = [str(Path(sys.executable).with_name("mqperf")), "build", "--strict"]
    lock = ROOT / ".cache" / "tests-build.lock"
    lock.parent.mkdir(exist_ok=True)
    # Both browser modules may run on different xdist workers: one builds, the other waits
    # and then finds nothing to do (two renders into one .cache/jb at once would collide).
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    print(proc.stdout)
    assert proc.returncode == 0, f"book build failed:\n{proc.stdout}\n{proc.stderr}"
    return HTML


@pytest.fixture(scope="session")
def server(built_book):
    from mqperf.publish.loopback import Server

    with Server(built_book) as served:
        yield served.url.rstrip("/")


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    _need_chromium()
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield ctx
        ctx.close()
