"""One content digest for what the build caches by: the SHA-256 of several byte strings, in order."""

from __future__ import annotations

import hashlib


def digest(*parts: bytes) -> str:
    """SHA-256 over the SHA-256 of each part: no two different lists of parts give one digest."""
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()
