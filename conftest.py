"""Repository-wide pytest plugin: nbval failures say which number moved.

nbval collects ``chapters/*.ipynb`` from the repository root, so this file (not
``tests/conftest.py``) is the one that sees their items. When a chapter's cell fails
because its outputs differ from the stored ones, the report gains a section naming each
number that moved, its table (caption) or chart (title), and by how much; the raw diff
nbval prints stays below it. The comparison itself is :mod:`mqperf.publish.drift`.
"""

from __future__ import annotations

import pytest


def drift_section(item) -> str | None:
    """The drift lines for a failed nbval cell item, as one block of text, or None."""
    expected = getattr(getattr(item, "cell", None), "outputs", None)
    actual = getattr(item, "test_outputs", None)
    if expected is None or actual is None:
        return None
    from mqperf.publish import drift

    try:
        lines = drift.describe(list(expected), list(actual))
    except Exception as exc:  # noqa: BLE001 - the account is an aid; nbval's own report must still show
        return f"(could not compare the outputs number by number: {type(exc).__name__}: {exc})"
    return "\n".join(f"  {line}" for line in lines) if lines else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not (report.failed and call.when == "call" and hasattr(item, "test_outputs")):
        return
    section = drift_section(item)
    if section:
        # longrepr is what -q and the short summary show first; put the account on top.
        report.longrepr = f"Which numbers moved (stored → now):\n{section}\n\n{report.longrepr}"
