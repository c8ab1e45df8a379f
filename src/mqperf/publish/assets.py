"""Offline JavaScript for charts and formulas: vega/vega-lite/vega-embed and MathJax.

The vega bundle comes from vl-convert (the version Altair's schema names), wrapped so its
top-level names stay private and only ``window.vega``, ``window.vegaLite`` and
``window.vegaEmbed`` are set. MathJax 3 comes from the ``django-static-mathjax`` wheel
(plain static files; Django is not needed). Both are copied into the built book, so
pages never reach a CDN.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mqperf.paths import book_root

VEGA_BUNDLE = "vendor/vega-bundle.js"
MATHJAX_DIR = "vendor/mathjax"
MATHJAX_SCRIPT = f"{MATHJAX_DIR}/tex-svg.js"
# Only what tex-svg.js loads on demand: TeX extensions (autoload), the menu, a11y helpers.
_MATHJAX_PARTS = ("tex-svg.js", "input", "ui", "a11y", "adaptors")


def vega_lite_version() -> str:
    """The Vega-Lite minor version Altair's schema targets, e.g. '6.4'."""
    import altair as alt  # here, not at the top: a render that copies nothing needs no Altair (0.2 s)

    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def vega_bundle_path() -> Path:
    """A cached bundle file for this Altair + vl-convert pair (built once, ~1.5 s).

    Named by Altair's distribution version, which fixes the Vega-Lite version its schema targets:
    finding the file needs no import of Altair (0.3 s of every ``mqperf run``), only making it."""
    from importlib.metadata import version

    import vl_convert as vlc

    cache = Path(os.environ.get("MQPERF_CACHE", book_root() / ".cache")) / "vendor"
    path = cache / f"vega-bundle-altair{version('altair')}-vlc{vlc.__version__}.js"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        bundle = vlc.javascript_bundle(vl_version=vega_lite_version())
        tmp = path.with_suffix(".tmp")
        tmp.write_text("/* vega, vega-lite, vega-embed via vl-convert */\n(function () {\n" + bundle + "\n})();\n", encoding="utf-8")
        tmp.replace(path)
    return path


def vega_bundle() -> str:
    return vega_bundle_path().read_text(encoding="utf-8")


def mathjax_root() -> Path:
    import mathjax  # the django-static-mathjax distribution

    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"


#: Names the distributions the vendored files come from, in the output: what they were copied from.
_STAMP = "vendor/.mqperf-vendor"


def _vendor_versions() -> str:
    from importlib.metadata import version

    return ", ".join(f"{d} {version(d)}" for d in ("altair", "vl-convert-python", "django-static-mathjax"))


def copy_vendor(static_dir: Path) -> None:
    """Put the vega bundle and MathJax under ``static_dir`` (a built site's ``_static``).

    Every render calls this; a site that already holds them, copied from the same versions (its
    stamp says which), is left as it is, so a render that changes one page copies no files.
    """
    stamp, versions = static_dir / _STAMP, _vendor_versions()
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == versions and (static_dir / VEGA_BUNDLE).is_file() \
            and (static_dir / MATHJAX_SCRIPT).is_file():
        return
    stamp.unlink(missing_ok=True)  # a copy that fails half-way leaves no stamp, so the next render copies again
    target = static_dir / VEGA_BUNDLE
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(vega_bundle_path(), target)
    mj_target = static_dir / MATHJAX_DIR
    src = mathjax_root()
    for part in _MATHJAX_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, mj_target / part, dirs_exist_ok=True)
        else:
            mj_target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / part, mj_target / part)
    stamp.write_text(versions, encoding="utf-8")
