"""Shared fixtures. Tests that need ../shared skip with a reason on a reader's clone,
but fail under CI (CI=true), where ../shared is always beside the project."""

import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

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
        msg = f"{path} not found: the seeds and reference data live in ../shared beside the project"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " (required under CI)")
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    return need_shared("seeds")


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    return need_shared("reference-data")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
