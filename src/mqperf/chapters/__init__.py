"""One module per chapter notebook, with the same name: what is specific to that chapter.

Each module declares the chapter's ``PARAMETERS`` (see :mod:`mqperf.parameters`) and a
``preflight(params)`` that calls the same loading, fitting and planning functions the notebook
calls, without drawing or writing anything. :func:`preflight` runs it before any kernel starts,
so ``mqperf check`` and ``mqperf run`` give the same one-line verdict on the same file.

Keep these modules cheap to import: analysis modules (pandas, scipy) are imported inside
``preflight`` only.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

from mqperf import parameters


def module(chapter: str):
    """The module of ``chapter`` (ParameterError for an unknown chapter)."""
    parameters.declarations(chapter)
    return importlib.import_module(f"{__name__}.{chapter}")


def preflight(chapter: str, source: str | Path | None, params: dict | None = None):
    """Validate a run of ``chapter`` on ``source`` as the notebook would, in this process.

    Parameters
    ----------
    chapter
        The chapter's name (its notebook's file name without extension).
    source
        The reader's data file (``--data``); None keeps the chapter's default data.
    params
        Values over the notebook's defaults: ``-p`` values as :func:`mqperf.parameters.parse_cli`
        returns them, optionally with the reader defaults and the data parameter already merged
        (as ``mqperf run`` passes them). ``source`` wins over a data parameter in ``params``.

    Returns
    -------
    object
        What the chapter's loader made of the main data (a DataFrame for most chapters), for
        ``mqperf check`` to summarise.

    Raises
    ------
    DataError, ModelError, ParameterError
        The first problem the notebook would meet, with the message it would print: every
        data parameter (the main file and e.g. ``latch_data``, ``mqldt``) is loaded against its
        contract, and the fits and planning calculations are run on the values given.
    """
    mod = module(chapter)
    run = parameters.effective(chapter, None if source is None else str(source), params)
    values = run.values
    parameters.validate(chapter, {k: v for k, v in values.items() if k != "cards_dir"})
    # Numerical warnings belong in the report the notebook writes, not on the reader's terminal.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mod.preflight(values)
