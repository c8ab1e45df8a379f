"""Issue 10's speed targets, measured side by side in one run; prints figures, asserts nothing.

    .venv/bin/python benchmarks/bench_speed.py             # everything but `make test`
    .venv/bin/python benchmarks/bench_speed.py --test      # also `make test`'s pytest run: wall and CPU
    .venv/bin/python benchmarks/bench_speed.py --test-only # only that
    .venv/bin/python benchmarks/bench_speed.py --no-fleet  # without the 200-dataset fleet

Each build figure is taken in a fresh copy of the book (``MQPERF_ROOT`` points there), so the
working tree, its notebooks and its ``_build`` are never touched. Ratios, not absolute times,
are the targets: they hold on a faster or slower machine alike.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mqperf.publish import cpus

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MQPERF = str(BIN / "mqperf")
#: Copied into a scratch book: what the build and the render read.
BOOK = ("_config.yml", "_toc.yml", "requirements.lock", "chapters", "data", "models", "_static", "docs",
        "README.md")
EXAMPLE = ROOT / "data" / "examples" / "kafka_task_scaling.csv"


def wall(cmd, *, env=None, cwd=ROOT) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return seconds, proc.stdout + proc.stderr


def median_wall(cmd, runs=3, **kw) -> float:
    return statistics.median(wall(cmd, **kw)[0] for _ in range(runs))


def scratch_book(parent: Path, name: str, *, execute: str | None = None) -> Path:
    book = parent / name
    for item in BOOK:
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, book / item, ignore=shutil.ignore_patterns(".*", "__pycache__"))
        elif src.is_file():
            book.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, book / item)
    if execute:
        config = (book / "_config.yml").read_text(encoding="utf-8")
        config = re.sub(r'execute_notebooks: *"?off"?', f'execute_notebooks: "{execute}"', config)
        (book / "_config.yml").write_text(config, encoding="utf-8")
    return book


def row(what: str, figure: str, target: str, held: bool | None) -> None:
    mark = {True: "holds", False: "MISSED", None: ""}[held]
    print(f"  {what:<46} {figure:>22}   target {target:<28} {mark}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--test", action="store_true", help="also run the test suite as `make test` does: its wall time, and its CPU "
                        "against what 4 minutes hold on this machine's cores (by kind of process, as root with acct)")
    parser.add_argument("--test-only", action="store_true", help="only the test suite (as --test), nothing else")
    parser.add_argument("--no-fleet", action="store_true", help="skip benchmarks/bench_fleet.py (200 datasets)")
    args = parser.parse_args()
    if args.test_only:
        test_suite()
        return
    print(f"issue 10 speed figures on {cpus.usable()} cores (medians of 3 where repeated)\n")

    # -- imports ---------------------------------------------------------------------------
    from mqperf.publish import engine

    imports = median_wall([sys.executable, "-c", engine.PRELOAD])
    bare = median_wall([sys.executable, "-c", "pass"])
    row("import everything a chapter needs", f"{imports - bare:.2f} s", "(a figure to keep)", None)
    cli = median_wall([sys.executable, "-c", "import mqperf.cli"])
    row("import the mqperf CLI", f"{cli - bare:.2f} s", "(a figure to keep)", None)

    with tempfile.TemporaryDirectory(prefix="mqperf-bench-") as tmp:
        tmp = Path(tmp)
        # -- build --force against Jupyter Book's own execution ---------------------------
        jb_book = scratch_book(tmp, "jb", execute="force")
        jb, _ = wall([str(BIN / "jupyter-book"), "build", str(jb_book), "--builder", "html"], cwd=jb_book)
        ours = scratch_book(tmp, "ours")
        env = {"MQPERF_ROOT": str(ours)}
        wall([MQPERF, "build"], env=env)  # a first render, so --force compares execution with execution
        forced, _ = wall([MQPERF, "build", "--force"], env=env)
        row("mqperf build --force / JB execute_notebooks: force", f"{forced:.1f} s / {jb:.1f} s = {forced / jb:.2f}x",
            "<= 0.25x", forced / jb <= 0.25)
        fresh_book = scratch_book(tmp, "fresh")
        fresh, _ = wall([MQPERF, "build", "--force"], env={"MQPERF_ROOT": str(fresh_book)})
        row("  same, from a fresh copy (HTML from nothing)", f"{fresh:.1f} s = {fresh / jb:.2f}x", "(for reference)", None)

        # -- a no-change build -------------------------------------------------------------
        nochange = median_wall([MQPERF, "build"], env=env)
        row("no-change mqperf build (make book)", f"{nochange:.2f} s", "<= 2 s", nochange <= 2)

        # -- one changed chapter ------------------------------------------------------------
        nb_path = ours / "chapters" / "kafka_task_scaling.ipynb"
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        first_md = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
        first_md["source"] = "".join(first_md["source"]) + "\n\nA sentence added by the benchmark."
        nb_path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
        changed, out = wall([MQPERF, "build"], env=env)
        own = float(re.search(r"executed\s+kafka_task_scaling \(([\d.]+) s[;)]", out).group(1))
        row("one changed chapter: wall - its own execution", f"{changed:.1f} - {own:.1f} = {changed - own:.1f} s",
            "<= 3 s", changed - own <= 3)

        # -- mqperf run ---------------------------------------------------------------------
        runs = []
        for i in range(3):
            runs.append(wall([MQPERF, "run", "kafka_task_scaling", "--data", str(EXAMPLE), "--out", str(tmp / f"run{i}"),
                              "-q"])[0])
        cold = statistics.median(runs)
        row("mqperf run, cold (no warm state)", f"{cold:.2f} s", "<= 4 s", cold <= 4)
        extra = _per_extra_dataset(tmp)
        row("a run's extra dataset, warm (fleet --reports)", f"{extra:.2f} s", "<= 1.5 s", extra <= 1.5)

    if not args.no_fleet:
        print("\n  mqperf fleet (benchmarks/bench_fleet.py):")
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_fleet.py")], capture_output=True, text=True)
        print("\n".join("    " + line for line in (proc.stdout + proc.stderr).strip().splitlines()))

    if args.test:
        test_suite()


#: `make test`'s pytest command (see the Makefile), without the install in front of it.
TEST_ARGS = ["-m", "pytest", "--nbval", "-n", "auto", "--dist", "loadscope", "--no-loadscope-reorder",
             "-p", "no:cacheprovider", "-q", "tests", "chapters"]
#: The install of a clean clone, taken off `make test`'s 4 minutes (measured: 24 s).
INSTALL_S = 24


def test_suite() -> None:
    """`make test`'s pytest run: its wall time, and the CPU it used against what 4 minutes hold.

    As root with Debian's ``acct`` installed, the CPU is every process that ended during the run,
    by process accounting, split by kind of process (workers, kernels, chromium, ``mqperf``
    scripts). Elsewhere it is what the run's waited-for processes used, which misses chromium.
    """
    import resource

    accounting = _accounting_file()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *TEST_ARGS], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, "CI": os.environ.get("CI", "")})
    out, _ = proc.communicate()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    by_kind = _accounted(accounting, proc.pid) if accounting else None
    # Waited-for descendants only: chromium's processes, reaped by no process of the run, are missed;
    # accounting counts every process that ended.
    cpu = sum(used for _, used in by_kind) if by_kind else \
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cores = cpus.usable()  # the CPUs this process may use, as the build and fleet count them
    budget = (240 - INSTALL_S) * cores
    tail = out.strip().splitlines()[-1] if out.strip() else "(no output)"
    print()
    row("make test's pytest (-n auto, installed venv)", f"{seconds / 60:.1f} min",
        f"<= {(240 - INSTALL_S) / 60:.1f} min (+{INSTALL_S} s install)", seconds <= 240 - INSTALL_S)
    print(f"    {tail}")
    row("  CPU it used" + (" (process accounting)" if by_kind else " (waited-for processes)"), f"{cpu:.0f} s",
        f"<= {budget} s on {cores} cores", cpu <= budget)
    row("  cores kept busy", f"{cpu / seconds:.2f} of {cores}", "(a figure to keep)", None)
    for kind, used in by_kind or []:
        print(f"      {kind:<44} {f'{used:.0f} s':>22}")
    if accounting is None:
        print("    (CPU by kind of process: run as root with Debian's acct installed: apt-get install acct)")
    if proc.returncode != 0:
        sys.exit(f"the test suite failed ({proc.returncode})")


def _accounting_file() -> Path | None:
    """Process accounting switched on into a new file, or None where it cannot be (not root, no acct).

    Accounting is one switch for the whole machine: it is switched off again when the run ends.
    """
    if os.geteuid() != 0 or not (shutil.which("accton") and shutil.which("dump-acct")):
        return None
    path = Path(tempfile.mkdtemp(prefix="mqperf-bench-acct-")) / "pacct"
    path.touch()
    on = subprocess.run(["accton", str(path)], capture_output=True, text=True)
    return path if on.returncode == 0 else None


def _accounted(path: Path, root_pid: int) -> list[tuple[str, float]]:
    """CPU seconds by kind of process, from the accounting file (switched off here, then removed).

    Accounting sees the whole machine: run the benchmark on an otherwise idle one.
    """
    subprocess.run(["accton", "off"], capture_output=True)
    dump = subprocess.run(["dump-acct", str(path)], capture_output=True, text=True).stdout
    shutil.rmtree(path.parent, ignore_errors=True)
    rows = []
    for line in dump.splitlines():
        f = [x.strip() for x in line.split("|")]
        if len(f) > 10 and f[1] == "v3":  # comm|v3|utime|stime|etime|uid|gid|mem|io|pid|ppid: times in 1/100 s
            rows.append((f[0], (float(f[2]) + float(f[3])) / 100, int(f[9]), int(f[10])))
    used: dict[str, float] = {}
    for comm, seconds, pid, ppid in rows:
        if comm.startswith("python") and pid == root_pid:
            kind = "pytest (the controller)"
        elif comm.startswith("python") and ppid == root_pid:
            kind = "pytest workers (tests in-process)"
        elif comm.startswith("python"):
            kind = "other Python (kernels, Jupyter Book)"
        elif comm.startswith(("chromium", "chrome")):
            kind = "chromium (browser tests, PDFs)"
        elif comm.startswith("node"):
            kind = "node (Playwright's driver)"
        elif comm == "mqperf":
            kind = "mqperf scripts"
        else:
            kind = "everything else"
        used[kind] = used.get(kind, 0.0) + seconds
    return sorted(used.items(), key=lambda kv: -kv[1])


def _per_extra_dataset(tmp: Path) -> float:
    """Per-dataset wall of reports made in one warm kernel: (11 reports - 1 report) / 10.

    Distinct generated datasets (the same file twice would be computed once), one worker.
    """
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_fleet

    def fleet_wall(n: int) -> float:
        folder = tmp / f"fleet{n}"
        manifest = bench_fleet.generate(folder / "in", n)
        return wall([MQPERF, "fleet", str(manifest), "--chapter", "kafka_task_scaling", "--out", str(folder / "out"),
                     "--reports", "-j", "1", "-q"])[0]

    return (fleet_wall(11) - fleet_wall(1)) / 10


if __name__ == "__main__":
    main()
