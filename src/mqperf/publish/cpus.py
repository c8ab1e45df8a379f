"""How many CPUs this process may use: what sizes the build's workers and the fleet's cluster.

``os.cpu_count()`` counts the machine's CPUs, not this process's share. In a container started
with ``--cpus 2`` (a CFS quota) on a 64-CPU host, or under ``taskset``, it still says 64, and a
build would start 20 kernels on two CPUs' worth of time. The share is the least of the machine's
count, the affinity mask and the cgroup's quota (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``, in the
process's cgroup and each one above it), a fractional quota rounded up.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def usable(*, cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """The CPUs this process may use, at least 1."""
    counts = [os.cpu_count() or 1]
    try:
        counts.append(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        pass
    quota = cgroup_quota(cgroup_root, proc_cgroup)
    if quota is not None:
        counts.append(math.ceil(quota))
    return max(1, min(counts))


def cgroup_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The tightest CPU quota (in CPUs) on this process's cgroup and its parents, or None for none."""
    try:
        lines = proc_cgroup.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        hierarchy, _, path = line.partition(":")[2].partition(":")
        if hierarchy == "":  # cgroup v2: "0::/path"
            limits += _v2(cgroup_root, path)
        elif "cpu" in hierarchy.split(","):  # cgroup v1: "4:cpu,cpuacct:/path"
            for mount in (hierarchy, "cpu,cpuacct", "cpu"):
                if (cgroup_root / mount).is_dir():
                    limits += _v1(cgroup_root / mount, path)
                    break
    return min(limits) if limits else None


def _levels(base: Path, path: str) -> list[Path]:
    """``base``/path and each folder above it up to ``base`` (a limit set higher up holds too)."""
    here = base / path.strip("/")
    levels = [here, *[p for p in here.parents if p == base or base in p.parents]]
    return [p for p in levels if p.is_dir()]


def _v2(root: Path, path: str) -> list[float]:
    out = []
    for level in _levels(root, path):
        try:
            quota, period = (level / "cpu.max").read_text(encoding="utf-8").split()[:2]
        except (OSError, ValueError):
            continue
        if quota != "max" and float(period) > 0:
            out.append(float(quota) / float(period))
    return out


def _v1(mount: Path, path: str) -> list[float]:
    out = []
    for level in _levels(mount, path):
        try:
            quota = float((level / "cpu.cfs_quota_us").read_text(encoding="utf-8"))
            period = float((level / "cpu.cfs_period_us").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if quota > 0 and period > 0:
            out.append(quota / period)
    return out
