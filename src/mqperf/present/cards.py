"""Model cards: fitted models as JSON files under ``models/`` (or a reader's output folder)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from mqperf.paths import models_dir


def of_fits(fits, chapter: str, dataset: str | None, **extra) -> list[tuple[str, dict, object]]:
    """(card name, card, result) for each fitted group of a :class:`~mqperf.models.fitset.FitSet`,
    named ``<chapter>__<group>``."""
    return [(card_name(chapter, name), r.to_card(name=f"{chapter}: {name}", dataset=dataset, **extra), r)
            for name, r in fits.results.items()]


def card_name(chapter: str, label: str) -> str:
    """A file-name-safe card name: ``<chapter>__<label with runs of non-alphanumerics as _>``."""
    safe = re.sub(r"[^0-9A-Za-z]+", "_", label).strip("_")
    return f"{chapter}__{safe}"


_UNSAFE = re.compile(r"[^0-9A-Za-z._-]+")
MAX_NAME = 120  # well under the 255 bytes a file name may have


def safe_file_name(name: str) -> str:
    """``name`` as a single, portable file name (no ``/``, no leading dot, at most MAX_NAME characters).

    Names that already are (every card the book writes) come back unchanged. Chapters build
    card names from a reader's series labels, which may hold any text; a changed name ends in
    a hash of the original, so labels that differ only in the characters replaced or cut
    (``a/b`` and ``a_b``, two long labels sharing a prefix) still get different files.
    """
    safe = _UNSAFE.sub("_", name).strip("._")
    if safe == name and len(safe) <= MAX_NAME:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return (safe[: MAX_NAME - 11].rstrip("._") or "card") + "-" + digest


def write_card(card: dict, name: str, cards_dir: str | Path | None = None) -> Path:
    """Write ``card`` as ``<cards_dir>/<name>.json`` (default: the book's models/).

    Written to a temporary file and renamed, so a failed run never leaves half a card.
    Keys keep their order and floats are already rounded by ``to_card``, so re-running a
    chapter rewrites identical bytes.
    """
    directory = Path(cards_dir) if cards_dir else models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    name = safe_file_name(name)
    path = directory / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"card": name, **card}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def load_cards(cards_dir: str | Path | None = None) -> list[dict]:
    directory = Path(cards_dir) if cards_dir else models_dir()
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]
