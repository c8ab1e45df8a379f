"""The book's data and readers' files: load, validate, contracts, views.

``mqperf.data.load(...)`` and friends live in :mod:`mqperf.data.loader`; they are re-exported
here lazily, so importing a light submodule (``mqperf.data.contracts``) does not import pandas.
"""

from __future__ import annotations

import importlib

_LOADER = {"load", "identity", "file_hash", "is_path", "resource", "resource_path", "resource_names",
           "package_descriptor", "PACKAGE_FILE"}


def __getattr__(name: str):
    if name in _LOADER:
        return getattr(importlib.import_module(f"{__name__}.loader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
