"""mqperf.publish.assets: the offline vega bundle and MathJax, copied into a built site once."""

from __future__ import annotations

import pytest

from mqperf.publish import assets


def _copies_nothing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("copied a file the site already held")

    monkeypatch.setattr(assets.shutil, "copyfile", refuse)
    monkeypatch.setattr(assets.shutil, "copytree", refuse)


def test_a_site_gets_the_bundle_and_mathjax_then_is_left_as_it_is(tmp_path, monkeypatch):
    static = tmp_path / "_static"
    assets.copy_vendor(static)
    bundle, mathjax = static / assets.VEGA_BUNDLE, static / assets.MATHJAX_SCRIPT
    assert bundle.read_bytes() == assets.vega_bundle_path().read_bytes()
    assert "MathJax" in mathjax.read_text(encoding="utf-8")
    with monkeypatch.context() as m:
        _copies_nothing(m)
        assets.copy_vendor(static)  # what a render that changed one page does: nothing to copy


@pytest.mark.parametrize("change", ["bundle removed", "MathJax removed", "other versions", "no stamp"])
def test_a_site_missing_a_file_or_copied_from_other_versions_is_copied_again(tmp_path, monkeypatch, change):
    static = tmp_path / "_static"
    assets.copy_vendor(static)
    stamp = static / assets._STAMP
    if change == "bundle removed":
        (static / assets.VEGA_BUNDLE).unlink()
    elif change == "MathJax removed":
        (static / assets.MATHJAX_SCRIPT).unlink()
    elif change == "other versions":
        stamp.write_text("altair 5.0.0, vl-convert-python 1.0.0, django-static-mathjax 3.0.0", encoding="utf-8")
    else:
        stamp.unlink()
    assets.copy_vendor(static)
    assert (static / assets.VEGA_BUNDLE).is_file() and (static / assets.MATHJAX_SCRIPT).is_file()
    assert stamp.read_text(encoding="utf-8") == assets._vendor_versions()
    with monkeypatch.context() as m:
        _copies_nothing(m)
        assets.copy_vendor(static)


def test_a_copy_that_fails_half_way_leaves_no_stamp(tmp_path, monkeypatch):
    static = tmp_path / "_static"
    assets.copy_vendor(static)
    (static / assets.MATHJAX_SCRIPT).unlink()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(assets.shutil, "copytree", broken)
    monkeypatch.setattr(assets.shutil, "copyfile", broken)
    with pytest.raises(OSError):
        assets.copy_vendor(static)
    assert not (static / assets._STAMP).exists()


def test_the_cached_bundle_is_found_without_importing_altair(tmp_path, monkeypatch):
    """Every report embeds the bundle: finding the cached file must not cost an import of Altair
    (0.3 s of each ``mqperf run``); making it names the Vega-Lite version Altair's schema targets."""
    import subprocess
    import sys

    monkeypatch.setenv("MQPERF_CACHE", str(tmp_path))
    made = assets.vega_bundle_path()
    assert "vegaEmbed" in made.read_text(encoding="utf-8")
    code = ("import sys; from mqperf.publish import assets; p = assets.vega_bundle_path(); "
            "print(p); print('altair' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "MQPERF_CACHE": str(tmp_path)}).stdout.split()
    assert out == [str(made), "False"]
