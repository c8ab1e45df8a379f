"""The built book in a real browser: every chart draws, formulas typeset, nothing leaves the machine.

Builds the book with warnings as errors (`mqperf build --strict`, which reuses current
chapters), serves _build/html on 127.0.0.1 and loads every page in headless Chromium
(Debian's package, installed by `make test` / .ci/install-system-deps).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, off_machine

pytestmark = pytest.mark.browser


def test_strict_build_succeeds(built_book):
    assert (built_book / "index.html").exists()


def test_no_cdn_reference_in_any_page(built_book):
    offenders = [str(p.relative_to(built_book)) for p in built_book.rglob("*.html")
                 if re.search(r"cdn\.jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_no_page_carries_the_date_it_was_rendered(built_book):
    """The same book rendered on two days is the same HTML: no "Last updated on <date>" stamp."""
    offenders = [str(p.relative_to(built_book)) for p in built_book.rglob("*.html")
                 if re.search(r"Last updated on|docbuild:last-update", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_render_numbers_no_figure(built_book):
    """numfig stays off in the render, though sphinx_jupyterbook_latex turns it on for every builder
    (mqperf.publish.sphinxext turns it back off): with it on, each render walks every page's doctree."""
    import pickle

    environment = ROOT / ".cache" / "jb" / "_build" / ".doctrees" / "environment.pickle"
    with environment.open("rb") as fh:
        env = pickle.load(fh)
    assert env.config.numfig is False and env.toc_fignumbers == {}
    assert "caption-number" not in "".join(p.read_text(encoding="utf-8") for p in built_book.rglob("*.html"))


def test_vendored_assets_present(built_book):
    assert (built_book / "_static" / "vendor" / "vega-bundle.js").stat().st_size > 500_000
    assert (built_book / "_static" / "vendor" / "mathjax" / "tex-svg.js").exists()


def _pages():
    from mqperf.catalog import toc_files

    return [f + ".html" for f in toc_files(ROOT)]


@pytest.mark.parametrize("page", _pages())
def test_page_renders_offline(browser, server, page):
    requests, errors = [], []
    tab = browser.new_page()
    # Every console error counts, a 404 too (a page that named no icon made the browser ask for /favicon.ico).
    tab.on("console", lambda m: errors.append(f"{m.text} ({m.location.get('url', '')})") if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    # Every request is seen; one for another host would fail (the browser's flags, tested below).
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(f"{server}/{page}", wait_until="load")
    charts = tab.locator("div.mqperf-chart")
    n = charts.count()
    for i in range(n):
        # vega-embed draws an <svg class="marks"> inside the chart's div when it succeeds.
        charts.nth(i).locator("svg.marks").wait_for(state="attached", timeout=20_000)
    if tab.locator("span.math, div.math").count():
        tab.locator("mjx-container").first.wait_for(state="attached", timeout=20_000)
    external = [u for u in requests if off_machine(u)]
    icons = tab.locator("link[rel='icon']").count()
    tab.close()
    assert external == [], f"{page} requested off-machine URLs"
    assert icons == 1, f"{page} names no icon"
    # pydata-sphinx-theme logs this on a browser's first visit (no stored light/dark mode).
    errors = [e for e in errors if "invalid theme mode" not in e]
    assert errors == [], f"{page} console errors: {errors}"


def test_the_browser_reaches_nothing_off_the_machine(browser, server):
    """The flags mqperf prints with (and these tests browse with) keep every request on the machine:
    another host, by name or by address, over http or https, fails at once, in the browser, at the
    proxy that is not there; the loopback server still answers."""
    tab = browser.new_page()
    failed = {}
    tab.on("requestfailed", lambda r: failed.__setitem__(r.url, r.failure))
    tab.goto(f"{server}/chapters/intro.html", wait_until="load")  # (index.html redirects there)
    urls = ["http://example.com/a.png", "https://example.com/b.js", "http://93.184.216.34/c.png",
            "https://[2606:2800:220:1:248:1893:25c8:1946]/d.png"]
    statuses = tab.evaluate("""async urls => Promise.all(urls.map(u => fetch(u).then(r => r.status, e => 'failed')))""",
                            urls)
    local = tab.evaluate("async u => (await fetch(u)).status", f"{server}/chapters/intro.html")
    tab.close()
    assert statuses == ["failed"] * len(urls) and local == 200
    assert set(failed) == set(urls), failed
    # Without the flags these fail otherwise here (no route out: ERR_FAILED, ERR_ADDRESS_UNREACHABLE),
    # and connect on a machine that has one.
    assert set(failed.values()) == {"net::ERR_PROXY_CONNECTION_FAILED"}, failed


def test_kafka_chapter_has_charts(browser, server):
    tab = browser.new_page()
    tab.goto(f"{server}/chapters/kafka_task_scaling.html", wait_until="load")
    n = tab.locator("div.mqperf-chart").count()
    tab.locator("div.mqperf-chart svg.marks").nth(n - 1).wait_for(state="attached", timeout=20_000)
    # Data marks drawn, not just an empty frame: the measured points are paths in the SVG.
    marks = tab.locator("div.mqperf-chart").first.locator("svg.marks path").count()
    tab.close()
    assert n >= 2 and marks > 10


def _report_for(chapter: str, tmp_path: Path, mqperf) -> Path:
    """Run CHAPTER on its example file (data/examples/, shown on the Bring-your-own-data page)."""
    data = ROOT / "data" / "examples" / f"{chapter}.csv"
    out = tmp_path / "report"
    status, _, err = mqperf("run", chapter, "--data", data, "--out", out, "-q")
    assert status == 0, err
    return out / f"{chapter}.html"


@pytest.mark.parametrize("chapter", ["kafka_task_scaling", "tls_channel_costs"])
def test_standalone_report_renders_offline(browser, tmp_path, chapter, warm_mqperf):
    report = _report_for(chapter, tmp_path, warm_mqperf)
    requests = []
    tab = browser.new_page()
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(report.as_uri(), wait_until="load")
    charts = tab.locator("div.mqperf-chart")
    for i in range(charts.count()):
        charts.nth(i).locator("svg.marks").wait_for(state="attached", timeout=20_000)
    if "window.MathJax" in report.read_text(encoding="utf-8"):  # the report inlines MathJax for formulas
        tab.locator("mjx-container").first.wait_for(state="attached", timeout=20_000)
    n = charts.count()
    tab.close()
    assert n >= 1
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
