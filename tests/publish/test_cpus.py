"""The CPUs a build or a fleet may use: the machine's, narrowed by the affinity mask and a
container's CPU quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from mqperf.publish import cpus


def _v2(tmp_path, files: dict[str, str], own="/docker/abc"):
    """A cgroup v2 tree: ``files`` maps a cgroup path to its cpu.max."""
    root = tmp_path / "cgroup"
    for path, limit in files.items():
        folder = root / path.strip("/")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "cpu.max").write_text(limit + "\n")
    (root / own.strip("/")).mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "cgroup-of-self"
    proc.write_text(f"0::{own}\n")
    return root, proc


@pytest.mark.parametrize("limit, quota", [("max 100000", None), ("200000 100000", 2.0), ("150000 100000", 1.5),
                                          ("50000 100000", 0.5)])
def test_a_v2_quota_is_read_in_cpus(tmp_path, limit, quota):
    root, proc = _v2(tmp_path, {"/docker/abc": limit})
    assert cpus.cgroup_quota(root, proc) == quota


def test_a_quota_set_above_the_process_cgroup_holds_too(tmp_path):
    root, proc = _v2(tmp_path, {"/": "max 100000", "/docker": "100000 100000", "/docker/abc": "max 100000"})
    assert cpus.cgroup_quota(root, proc) == 1.0


def test_a_v1_quota_under_its_joint_mount(tmp_path):
    root = tmp_path / "cgroup"
    own = root / "cpu,cpuacct" / "docker" / "abc"
    own.mkdir(parents=True)
    (own / "cpu.cfs_quota_us").write_text("300000\n")
    (own / "cpu.cfs_period_us").write_text("100000\n")
    (root / "cpu,cpuacct" / "cpu.cfs_quota_us").write_text("-1\n")  # the root: no limit
    (root / "cpu,cpuacct" / "cpu.cfs_period_us").write_text("100000\n")
    proc = tmp_path / "cgroup-of-self"
    proc.write_text("5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n")
    assert cpus.cgroup_quota(root, proc) == 3.0


def test_no_cgroup_to_read_is_no_quota(tmp_path):
    assert cpus.cgroup_quota(tmp_path / "none", tmp_path / "no-such-file") is None
    root, proc = _v2(tmp_path, {"/docker/abc": "garbage"})
    assert cpus.cgroup_quota(root, proc) is None


def test_the_least_of_machine_affinity_and_quota_rounded_up(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    root, proc = _v2(tmp_path, {"/docker/abc": "150000 100000"})
    assert cpus.usable(cgroup_root=root, proc_cgroup=proc) == 2  # 1.5 CPUs of time: two workers
    root, proc = _v2(tmp_path / "b", {"/docker/abc": "max 100000"})
    assert cpus.usable(cgroup_root=root, proc_cgroup=proc) == 8  # the affinity mask
    root, proc = _v2(tmp_path / "c", {"/docker/abc": "10000 100000"})
    assert cpus.usable(cgroup_root=root, proc_cgroup=proc) == 1  # a tenth of a CPU: still one
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert cpus.usable(cgroup_root=tmp_path / "none", proc_cgroup=tmp_path / "none") == 1


def test_taskset_narrows_what_this_machine_says():
    """On the real machine: pinned to one CPU, a process may use one, whatever the machine has."""
    taskset = shutil.which("taskset")
    if taskset is None:
        pytest.skip("taskset (util-linux) is not installed")
    here = cpus.usable()
    assert 1 <= here <= (os.cpu_count() or 1)
    out = subprocess.run([taskset, "-c", "0", sys.executable, "-c",
                          "from mqperf.publish import cpus; print(cpus.usable())"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


def test_build_and_fleet_size_their_workers_by_it():
    """Neither counts the machine's CPUs itself."""
    import inspect

    from mqperf.publish import build, fleet

    for module in (build, fleet):
        source = inspect.getsource(module)
        assert "cpus.usable()" in source and "cpu_count" not in source, module.__name__
