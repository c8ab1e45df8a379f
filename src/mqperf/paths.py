"""Where the book's files are.

The book root is the folder holding ``_toc.yml`` and ``data/datapackage.json``: the
``MQPERF_ROOT`` environment variable if set, else the source tree this package was
installed from (an editable install, as ``make`` does).
"""

import os
from pathlib import Path


def book_root() -> Path:
    env = os.environ.get("MQPERF_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "_toc.yml").is_file() and (parent / "data").is_dir():
            return parent
    # Not in a source tree (e.g. a wheel): fall back to the working directory.
    return Path.cwd()


def data_dir() -> Path:
    return book_root() / "data"


def models_dir() -> Path:
    return book_root() / "models"


def chapters_dir() -> Path:
    return book_root() / "chapters"


def package_dir() -> Path:
    return Path(__file__).resolve().parent


def log_dir() -> Path:
    """Where mqperf keeps logs of defects and of fleet workers: ~/.cache/mqperf/logs (or a temp folder)."""
    import tempfile

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (Path(base) / "mqperf" / "logs", Path(tempfile.gettempdir()) / "mqperf-logs"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            continue
    return Path(tempfile.gettempdir())
