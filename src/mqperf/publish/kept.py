"""What a chapter's re-execution keeps of what was there before it: its notebook and its model cards.

Another CPU's BLAS kernel may put a value on the other side of a rounding boundary. When the
outputs are nonetheless the same book by :data:`mqperf.publish.samebook.RULE`, a forced build
on that machine must leave the committed files byte for byte, so a reader's clone shows no
change: :func:`notebook` keeps the committed cells, :class:`Cards` the committed cards.

A chapter writes its cards into ``models/`` while it runs, before it is known to succeed, so
:class:`Cards` also puts back what a failed run changed: a card it rewrote gets its bytes back,
and a card it made is removed (it is this run's own).
"""

from __future__ import annotations

import json
from pathlib import Path


def notebook(nb, committed: Path):
    """The executed notebook ``nb``, with the committed notebook's outputs where nothing moved.

    When ``committed`` holds the same cells and every output is the same book by the rule, the
    committed cells are kept under the new metadata. Any cell that moved beyond the rule makes
    the whole new notebook the result.
    """
    import nbformat

    from mqperf.publish import drift

    try:
        old = nbformat.read(committed, as_version=4)
    except (OSError, ValueError):
        return nb
    if drift.notebook_differences(old, nb):
        return nb
    old.metadata = nb.metadata
    return old


def same_card(old: bytes, new: bytes) -> bool:
    """Two model cards' bytes say the same by the rule (:func:`mqperf.publish.drift.card_differences`
    finds nothing: the same keys, text identical but for its numbers, every number within one unit
    in its last shown place)."""
    from mqperf.publish import drift

    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return False
    return not drift.card_differences(a, b)


class Cards:
    """A chapter's cards (``<directory>/<chapter>__*.json``) as they were before a run; with no
    chapter, every card in ``directory`` (a validation run of several chapters).

    Call :meth:`settle` once the run has ended, with whether it succeeded.
    """

    def __init__(self, directory: Path, chapter: str | None):
        self.directory = Path(directory)
        self.pattern = f"{chapter}__*.json" if chapter else "*.json"
        self.before = {p.name: p.read_bytes() for p in self._cards()}

    def _cards(self) -> list[Path]:
        return sorted(self.directory.glob(self.pattern)) if self.directory.is_dir() else []

    def settle(self, *, succeeded: bool) -> None:
        """After a success, a rewritten card the same by the rule gets its old bytes back; after a
        failure, every card is as it was before the run."""
        now = {p.name: p for p in self._cards()}
        for name, path in now.items():
            old = self.before.get(name)
            if old is None:
                if not succeeded:
                    path.unlink(missing_ok=True)
                continue
            new = path.read_bytes()
            if new != old and (not succeeded or same_card(old, new)):
                _replace(path, old)
        if not succeeded:
            for name in self.before.keys() - now.keys():
                _replace(self.directory / name, self.before[name])


def _replace(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path`` whole (a temporary file renamed), as cards are written."""
    tmp = path.with_name(f".{path.name}.kept")
    tmp.write_bytes(content)
    tmp.replace(path)
