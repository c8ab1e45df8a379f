"""Which chapters exist: the one reader of the chapter notebooks' own facts.

A chapter is a notebook ``chapters/<name>.ipynb`` (listed in ``_toc.yml``) with a package
``mqperf.chapters.<name>``. This module reads each notebook once (cached by its modification
time) for what the rest of mqperf needs without running it:

- its title (the notebook's ``mqperf.title`` metadata) and book order (``_toc.yml``);
- the defaults of its cell tagged ``parameters``, read with :mod:`ast` as papermill reads them;
- the results it shows (every ``r.show("key")``), which ``mqperf check`` holds the analysis to;
- its contract (``data/contracts/<name>.json``) when a reader's file can feed it.

Cheap to import: ``mqperf list`` and ``mqperf run`` start here, before pandas or a kernel.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from mqperf.paths import book_root, chapters_dir

#: The parameter ``mqperf run --data FILE`` sets.
DATA_PARAMETER = "data"

_SHOW = re.compile(r"""\br\.show\(\s*["']([^"']+)["']\s*\)""")


@dataclass(frozen=True)
class Chapter:
    """One chapter as its notebook states it."""

    name: str
    path: Path
    title: str
    defaults: dict = field(default_factory=dict)
    shown: tuple = ()
    meta: dict = field(default_factory=dict)

    @property
    def contract(self) -> str | None:
        """The contract a reader's ``--data`` file must meet: named like the chapter, when it has one."""
        from mqperf.data.contracts import CONTRACTS

        return self.name if self.name in CONTRACTS else None

    @property
    def data_parameter(self) -> str | None:
        return DATA_PARAMETER if self.contract and DATA_PARAMETER in self.defaults else None


def _source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _defaults(cells) -> dict:
    for cell in cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            out = {}
            for node in ast.parse(_source(cell)).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    out[node.targets[0].id] = ast.literal_eval(node.value)
            return out
    return {}


_CACHE: dict[Path, tuple[float, Chapter]] = {}


def _read(path: Path) -> Chapter:
    stamp = path.stat().st_mtime
    cached = _CACHE.get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    nb = json.loads(path.read_text(encoding="utf-8"))
    meta = nb.get("metadata", {}).get("mqperf", {})
    shown = tuple(k for c in nb["cells"] if c.get("cell_type") == "code" for k in _SHOW.findall(_source(c)))
    chapter = Chapter(path.stem, path, meta.get("title", path.stem), _defaults(nb["cells"]), shown, meta)
    _CACHE[path] = (stamp, chapter)
    return chapter


def toc_files(root: Path | None = None) -> list[str]:
    """Files named in _toc.yml, in book order (without extension)."""
    import yaml

    toc = yaml.safe_load((root or book_root()).joinpath("_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return files


def names() -> list[str]:
    """Every chapter's name (its notebook's file name), sorted."""
    return sorted(p.stem for p in chapters_dir().glob("*.ipynb"))


def chapters() -> list[Chapter]:
    """Every chapter, in table-of-contents order."""
    root = book_root()
    order = {f: i for i, f in enumerate(toc_files(root))}
    found = [_read(p) for p in sorted(chapters_dir().glob("*.ipynb"))]
    rel = lambda c: str(c.path.relative_to(root).with_suffix(""))  # noqa: E731
    return sorted(found, key=lambda c: order.get(rel(c), len(order)))


def find(name: str) -> Chapter:
    """The chapter named ``name``; LookupError naming the known ones otherwise."""
    path = chapters_dir() / f"{name}.ipynb"
    if not isinstance(name, str) or "/" in name or not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or not path.is_file():
        raise LookupError(f"no chapter named '{name}' (known: {', '.join(names())})")
    return _read(path)
