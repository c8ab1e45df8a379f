"""The package's import graph: wings point one way and nothing imports itself in a circle.

Read from the source with ``ast`` (every import, at module level or inside a function), so a
lazy import counts as much as an eager one: a cycle through a function body is still a cycle
of meaning. A chapter package's ``__init__`` importing its own submodules lazily, and a
submodule reading its package's constants, is one unit and is not counted.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from conftest import ROOT

SRC = ROOT / "src"

#: What each wing may import besides itself. ``mqperf`` is the package root (its version).
ALLOWED = {
    "numbers": set(),
    "errors": set(),
    "paths": {"errors"},
    "declarations": {"errors", "paths"},
    "models": {"mqperf", "errors", "numbers"},
    "data": {"errors", "paths", "numbers", "declarations"},
    "catalog": {"errors", "paths", "data"},
    "parameters": {"errors", "paths", "catalog", "declarations"},
    "present": {"mqperf", "errors", "paths", "numbers", "models", "data", "declarations", "parameters", "catalog"},
    "chapters": {"mqperf", "errors", "paths", "numbers", "models", "data", "declarations", "parameters", "catalog",
                 "present"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "mqperf").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_resolve(a.name) for a in node.names if a.name.startswith("mqperf")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = up + ("." + base if base else "")
            if base.startswith("mqperf"):
                found |= {_resolve(f"{base}.{a.name}") if f"{base}.{a.name}" in MODULES else _resolve(base)
                          for a in node.names}
    return found - {module, ""}


@functools.cache
def graph() -> dict[str, set[str]]:
    """Module -> the mqperf modules it imports (read when a test asks, not at collection)."""
    return {m: _imports(m) for m in MODULES}


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mqperf"


def _one_unit(a: str, b: str) -> bool:
    return a.startswith(b + ".") or b.startswith(a + ".")


def test_wings_import_only_what_lies_below_them():
    wrong = sorted(f"{a} imports {b}" for a, targets in graph().items() if _wing(a) in ALLOWED
                   for b in targets if _wing(b) != _wing(a) and _wing(b) not in ALLOWED[_wing(a)])
    assert not wrong, "imports against the wings:\n" + "\n".join(wrong)


def test_no_import_cycles():
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for u in graph()[v]:
            if _one_unit(u, v):
                continue
            if u not in index:
                visit(u)
                low[v] = min(low[v], low[u])
            elif u in on:
                low[v] = min(low[v], index[u])
        if low[v] == index[v]:
            part = []
            while True:
                u = stack.pop()
                on.discard(u)
                part.append(u)
                if u == v:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    for v in graph():
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_chapters_are_packages_without_helper_modules():
    home = SRC / "mqperf" / "chapters"
    loose = sorted(p.name for p in home.glob("*.py") if p.name != "__init__.py")
    assert not loose, f"chapter code outside a chapter package: {loose}"
