"""One module per chapter notebook, with the same name: what is specific to that chapter.

Each module declares the chapter's ``PARAMETERS`` (see :mod:`mqperf.parameters`) and an
``analyse(params)`` that loads, fits and plans, and returns a
:class:`mqperf.present.results.Results` holding every sentence, table and chart the notebook
shows; the notebook calls it once (:func:`analyse`) and shows the parts. :func:`preflight`
runs the same function in this process (``mqperf check``, ``compare``, ``fleet``), so a check
and a run give the same one-line verdict on the same file, and nothing can differ between the
two; ``mqperf run`` checks parameters and contracts first (:func:`check_inputs`) and leaves the
analysis to its notebook.

Keep the top of these modules cheap to import (``mqperf list`` reads ``PARAMETERS``): import
pandas, scipy and the models inside functions, or in a sibling module the functions import.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

from mqperf import catalog, parameters


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
    values = _validated(chapter, source, params)
    # Numerical warnings belong in the report the notebook writes, not on the reader's terminal;
    # they are kept on the results (a report should have none: tests hold chapters to that).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if not hasattr(mod, "analyse"):
            return mod.preflight(values)
        results = complete(chapter, mod.analyse(values), values)
    results.warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
    # What check accepts, run must show: a result the notebook shows and this data did not
    # produce is a defect of ours, found here rather than in the kernel.
    lacking = [k for k in catalog.find(chapter).shown if k not in results.items]
    if lacking:
        raise RuntimeError(f"{chapter}: the analysis made no result {', '.join(map(repr, lacking))} on this data")
    return results


def check_inputs(chapter: str, source: str | Path | None, params: dict | None = None) -> None:
    """What :func:`preflight` checks before the analysis: the parameters, and every file the
    chapter reads (the main data and any other data parameter) against its contract.

    ``mqperf run`` calls this rather than :func:`preflight`: its notebook runs the analysis in
    the kernel started meanwhile, and the data are analysed once, there. A model the data cannot
    support fails there with the same one-line message (a chapter error: exit status 2).
    """
    import os

    from mqperf.data import ingest, views

    values = _validated(chapter, source, params)
    for name in ingest.inputs(chapter):
        value = values.get(name)
        if isinstance(value, str) and value and os.path.isfile(value):
            views.open(value, chapter, name)


def _validated(chapter: str, source, params: dict | None) -> dict:
    """The run's effective parameter values, each checked against its declaration."""
    values = parameters.effective(chapter, None if source is None else str(source), params).values
    parameters.validate(chapter, {k: v for k, v in values.items() if k != "cards_dir"})
    return values


def analyse(chapter: str, namespace: dict):
    """The notebook's one call: ``r = chapters.analyse("<chapter>", globals())``.

    Takes the chapter's declared parameters from the notebook's namespace (the papermill
    parameters cell, with any values a run injected) and returns ``analyse``'s Results.
    """
    from mqperf.present import tables

    tables.register_dataframe_display()  # a bare DataFrame a notebook shows goes through the one rule too
    mod = module(chapter)
    values = {name: namespace[name] for name in mod.PARAMETERS if name in namespace}
    return complete(chapter, mod.analyse(values), values)


def complete(chapter: str, results, values: dict):
    """The sections every report has, made from what the chapter's analysis found: "This run"
    and "How this report was made" (:mod:`mqperf.present.howmade`)."""
    from mqperf.present import howmade

    howmade.add(results, chapter, values)
    return results
