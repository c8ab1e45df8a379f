"""Sphinx extension for the book: offline vega and MathJax, generated pages.

Vendored files are copied straight into the output's ``_static`` rather than kept in the
book's ``_static`` folder, because Jupyter Book 1 adds every .js/.css found there to
every page in no fixed order.
"""

from __future__ import annotations

from pathlib import Path

from mqperf.publish import assets


def _config_inited(app, config):
    # Relative mathjax_path is resolved against _static; this replaces the CDN default.
    config.mathjax_path = assets.MATHJAX_SCRIPT
    # sphinx_jupyterbook_latex (which Jupyter Book loads) turns numfig on for every builder, over
    # _config.yml's `numfig: false`. The book numbers no figure or table (no {numref}), and with
    # numfig on Sphinx unpickles and walks every page's doctree on each render: 1.3 s of every
    # render, a no-change one included. This runs after it (priority 900), so the book's value holds.
    config.numfig = False


def _builder_inited(app):
    if app.builder.format == "html":
        app.add_js_file(assets.VEGA_BUNDLE, priority=200)
        _keep_compiled_templates(app)


def _keep_compiled_templates(app):
    """Keep the theme's compiled Jinja templates between renders, beside Sphinx's doctrees.

    Jinja compiles every template from source in each process: 0.2 to 0.3 s of a one-page
    render. Its bytecode cache stores the code with a checksum of the source (and Python's
    version), so an edited template is compiled again.
    """
    from jinja2 import FileSystemBytecodeCache

    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if environment is None:
        return  # another template bridge: leave it as it is
    folder = Path(app.doctreedir).parent / ".jinja-bytecode"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # compiled each time, as before
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


def _drop_thebe(app, pagename, templatename, context, doctree):
    """Jupyter Book always loads sphinx-thebe, whose inline script names a thebe CDN URL.

    The book has no live-code buttons, so its scripts are dropped from every page: the
    built HTML then refers to no CDN at all (tests/test_offline.py checks).
    """
    scripts = context.get("script_files")
    if scripts is None:
        return
    context["script_files"] = [
        s for s in scripts
        if "sphinx-thebe" not in str(getattr(s, "filename", s) or "")
        and "THEBE_JS_URL" not in str(getattr(s, "attributes", {}).get("body", ""))
    ]


def _build_finished(app, exception):
    if exception is None and app.builder.format == "html":
        assets.copy_vendor(Path(app.outdir) / "_static")


def setup(app):
    app.connect("config-inited", _config_inited, priority=900)
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _drop_thebe)
    app.connect("build-finished", _build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
