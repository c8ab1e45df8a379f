"""Repository-wide pytest plugin: nbval applies the book's rule for "the same book", and its
failures say which number moved.

nbval collects ``chapters/*.ipynb`` from the repository root, so this file (not
``tests/conftest.py``) is the one that sees their items.

- **The rule.** nbval compares a cell's outputs byte for byte (after its sanitisers). A cell
  that fails that comparison passes when :func:`mqperf.publish.samebook.same_outputs` finds
  nothing moved beyond the rule (text identical, every number within one unit in the last
  place it is shown with): another CPU's BLAS kernel may put a value on the other side of a
  rounding boundary, and that is not a result that moved.
- **The account.** When a cell fails, the report gains a section naming each number that
  moved, its table (caption) or chart (title), and by how much; the raw diff nbval prints
  stays below it.
- **Validation writes nothing.** A chapter writes its model cards into the book's ``models/``
  as it runs (its default ``cards_dir``), so nbval executing it would rewrite the committed
  cards, with moved numbers when a result moved. The cards as they were when the session began
  are put back when it ends, and cards it made are removed
  (:class:`mqperf.publish.kept.Cards`); with pytest-xdist, by the controlling process, after
  every worker has finished.
"""

from __future__ import annotations

import pytest


def pytest_configure(config):
    _keep_the_cards(config)
    try:
        from nbval.plugin import IPyNbCell
    except ImportError:  # nbval not installed: nothing to adapt
        return
    if getattr(IPyNbCell.compare_outputs, "_mqperf_rule", False):
        return
    byte_for_byte = IPyNbCell.compare_outputs

    def compare_outputs(self, test, ref, skip_compare=None):
        if byte_for_byte(self, test, ref, skip_compare):
            return True
        from mqperf.publish import samebook

        if samebook.same_outputs(list(ref), list(test)):
            self.comparison_traceback = []
            return True
        return False

    compare_outputs._mqperf_rule = True
    IPyNbCell.compare_outputs = compare_outputs


def _keep_the_cards(config) -> None:
    if hasattr(config, "workerinput") or not (getattr(config.option, "nbval", False)
                                              or getattr(config.option, "nbval_lax", False)):
        return
    from mqperf.paths import models_dir
    from mqperf.publish import kept

    config._mqperf_cards = kept.Cards(models_dir(), None)


def pytest_unconfigure(config):
    cards = getattr(config, "_mqperf_cards", None)
    if cards is not None:
        cards.settle(succeeded=False)


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
        report.longrepr = f"Which numbers moved beyond the rule (stored → now):\n{section}\n\n{report.longrepr}"
