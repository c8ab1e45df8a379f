"""environment.yml lists exactly pyproject.toml's dependencies; the lock pins all of them."""

import re
import tomllib

import yaml

from conftest import ROOT


def _pyproject_deps():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"] + project["optional-dependencies"]["test"]


def test_environment_yml_matches_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert [d for d in pip if d != "-e ."] == _pyproject_deps()
    assert "python=3.11" in env["dependencies"]


def test_lock_pins_every_dependency():
    lock = (ROOT / "requirements.lock").read_text()
    pinned = {m.group(1).lower().replace("_", "-") for m in re.finditer(r"^([A-Za-z0-9_.-]+)==", lock, re.M)}
    for dep in _pyproject_deps():
        name = re.split(r"[<>=!~\[ ]", dep, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pinned, f"{name} is not pinned in requirements.lock (run make lock)"
