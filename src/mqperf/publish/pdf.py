"""PDF: the built HTML printed by Debian's chromium, charts as vector drawings, pages merged.

Jupyter Book 1's own ``pdfhtml`` builder asks Playwright to download a browser (impossible
offline) and its LaTeX route prints every Altair chart as a ``<chart: …>`` placeholder.
Printing what the browser draws keeps the charts as SVG, so they reach the PDF as vector
paths and text. Each page is printed once its charts have drawn (every
``div.mqperf-chart`` holds vega-embed's ``svg.marks``) and its formulas are typeset, with
print rules (:data:`PRINT_CSS`) that drop the navigation, let tables use the page's width and
keep a table row, a short table and a chart on one page. The book's parts are merged with
pypdf behind a title page with a table of contents, bookmarked, and numbered.

Functions here raise :class:`~mqperf.errors.MQPerfError` with one line when chromium is
missing, and write their PDF to a temporary file renamed at the end, so a failed print
leaves no half file.
"""

from __future__ import annotations

import html
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from mqperf.errors import MQPerfError

#: Chromium flags that work headless as root with no network (DESIGN.md's spike)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # ... and that keep everything on the machine: a request for another host goes to a
                 # proxy that is not there (the loopback address is never proxied) and no name resolves
                 # but localhost. Unlike Playwright's request routing, this leaves the browser its
                 # cache, so the scripts a page shares with the last are not compiled again.
                 "--proxy-server=http://127.0.0.1:9", "--dns-prefetch-disable",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1"]
#: A4 with margins that leave room for the page number.
PAGE = {"format": "A4", "margin": {"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"}}
#: How long one page may take to draw its charts and formulas.
DRAW_TIMEOUT_MS = 60_000

PRINT_CSS = """
@media print {
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, .prev-next-area,
  .bd-footer, .bd-footer-article, footer, .headerlink, #pst-back-to-top, .skip-link { display: none !important; }
  .bd-main, .bd-content, .bd-article-container, .bd-page-width, .bd-container, .bd-container__inner,
  .bd-article { max-width: none !important; width: 100% !important; padding: 0 !important; margin: 0 !important; }
  body { font-size: 10pt; }
  table { width: 100% !important; font-size: 7.5pt; table-layout: auto; word-break: break-word; }
  thead { display: table-header-group; }
  tr, .mqperf-chart, figure, img, svg, .mqperf-table-short { break-inside: avoid; page-break-inside: avoid; }
  /* A title longer than its chart is drawn past the plot, as on screen, not cut at the SVG edge. */
  .mqperf-chart, .mqperf-chart svg { overflow: visible !important; }
  .output, .cell_output, .output_area, div.highlight { overflow: visible !important; }
  h1, h2, h3 { break-after: avoid; }
}
"""

#: Tables up to this many rows are kept on one page; longer ones break between rows, header repeated.
SHORT_TABLE_ROWS = 25


def find_chromium() -> str:
    """Debian's chromium (or ``MQPERF_CHROMIUM``); a one-line error saying how to get it."""
    path = os.environ.get("MQPERF_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path or not os.access(path, os.X_OK):
        raise MQPerfError("chromium not found: the PDF is printed by a local chromium; install Debian's "
                          "(`sudo apt-get install chromium`) or set MQPERF_CHROMIUM to its path")
    return path


@contextmanager
def browser():
    """A headless chromium page driven by Playwright (no browser download: Debian's chromium)."""
    from playwright.sync_api import sync_playwright

    exe = find_chromium()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b.new_page()
        finally:
            b.close()


def _drawn(page, source: str) -> int:
    """Wait until every chart of the page has drawn (and formulas are typeset); the chart count."""
    charts = page.locator("div.mqperf-chart")
    n = charts.count()
    try:
        page.wait_for_function(
            "n => document.querySelectorAll('div.mqperf-chart svg.marks').length >= n", arg=n,
            timeout=DRAW_TIMEOUT_MS)
        if page.locator("span.math, div.math").count():
            page.locator("mjx-container").first.wait_for(state="attached", timeout=DRAW_TIMEOUT_MS)
    except Exception as exc:  # Playwright's TimeoutError: one line, naming the page
        raise MQPerfError(f"{source}: its charts did not draw within {DRAW_TIMEOUT_MS // 1000} s, so it was "
                          f"not printed ({type(exc).__name__})") from None
    return n


def print_page(page, path: Path, target: Path, *, footer: bool, served: tuple[str, Path] | None = None) -> tuple[int, str]:
    """Print one HTML file to ``target``; returns how many charts it drew, and its first heading.

    ``served``: (base URL, folder) of :func:`served`, which ``path`` lies in; the page is loaded from
    there, and its links are written back as the files they name, as a page loaded as a file has them.
    """
    if served is None:
        page.goto(path.resolve().as_uri(), wait_until="load")
    else:
        base, folder = served
        page.goto(base + quote(path.resolve().relative_to(folder.resolve()).as_posix()), wait_until="load")
        page.evaluate("""([from, to]) => { const here = location.href.split('#')[0];
            document.querySelectorAll('a[href]').forEach(a => {
                if (a.href.startsWith(from) && a.href.split('#')[0] !== here) a.href = to + a.href.slice(from.length);
            }); }""", [base, folder.resolve().as_uri() + "/"])
    charts = _drawn(page, str(path))
    heading = page.evaluate("""() => { const h = document.querySelector('main h1, article h1, h1');
        return h ? h.textContent : document.title; }""").replace("#", "").strip()
    page.add_style_tag(content=PRINT_CSS)
    page.evaluate("""rows => document.querySelectorAll('table').forEach(t => {
        if (t.rows.length <= rows) t.classList.add('mqperf-table-short'); })""", SHORT_TABLE_ROWS)
    page.emulate_media(media="print")
    options = dict(PAGE, path=str(target), print_background=True, prefer_css_page_size=False)
    if footer:
        options.update(display_header_footer=True, header_template="<span></span>",
                       footer_template='<div style="font-size:8px;width:100%;text-align:center;color:#555">'
                                       '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')
    page.pdf(**options)
    return charts, heading


def reports(pairs: list[tuple[Path, Path]]) -> None:
    """Standalone reports (``mqperf run``, ``compare``, ``fleet --reports``) as PDFs with page numbers,
    in one browser: each (HTML file, PDF to write)."""
    with browser() as page:
        for html_file, target in pairs:
            tmp = target.with_name(f".{target.name}.tmp")
            try:
                print_page(page, html_file, tmp, footer=True)
                tmp.replace(target)
            finally:
                tmp.unlink(missing_ok=True)


@contextmanager
def served(folder: Path):
    """``folder`` over HTTP on the loopback address while a book prints; yields its base URL, or
    None where no server can listen there (the book is then printed from its files, only slower).

    Pages loaded from a server share the browser's cache, so the scripts every page of the book
    loads (MathJax and Vega, 3 MB) are compiled once; loaded as files, every page compiled them
    again: a quarter of the browser's work for the book. Only this machine can reach the address,
    and the server ends with the print.
    """
    from mqperf.publish.loopback import Server

    try:
        server = Server(folder, cache_seconds=3600)  # a fresh browser profile each print
    except OSError:  # no loopback address to listen on (a locked-down sandbox): the pages load as files
        yield None
        return
    with server:
        yield server.url


@dataclass
class Part:
    title: str
    pages: int
    charts: int


def book(html_dir: Path, files: list[str], target: Path, *, title: str, echo=print) -> list[Part]:
    """The built book (``files`` relative to ``html_dir``, in order) as one numbered, bookmarked PDF."""
    import tempfile

    from pypdf import PdfReader, PdfWriter

    parts: list[Part] = []
    with tempfile.TemporaryDirectory(prefix="mqperf-pdf-") as tmp, browser() as page, served(html_dir) as base:
        printed = []
        for i, name in enumerate(files):
            out = Path(tmp) / f"{i:03d}.pdf"
            charts, head = print_page(page, html_dir / name, out, footer=False,
                                      served=(base, html_dir) if base else None)
            part = PdfReader(out)  # read once: counted here, appended below
            pages = len(part.pages)
            parts.append(Part(head, pages, charts))
            printed.append(part)
            echo(f"  printed  {name} ({pages} page{'s' * (pages != 1)}, {charts} chart{'s' * (charts != 1)})")
        contents = Path(tmp) / "contents.pdf"
        lead = _contents(page, contents, title, parts, lead=1)
        lead = _contents(page, contents, title, parts, lead=lead)  # the contents' own length moves every number
        writer = PdfWriter()
        writer.append(str(contents))
        starts, at = [], lead  # counted, not asked of the writer (which walks its page tree each time)
        for part, reader in zip(parts, printed):
            starts.append(at)
            writer.append(reader)
            at += part.pages
        for part, start in zip(parts, starts):
            writer.add_outline_item(part.title, start)
        _number(writer)
        writer.add_metadata({"/Title": title, "/Creator": "mqperf pdf"})
        partial = target.with_name(f".{target.name}.tmp")
        try:
            with partial.open("wb") as fh:
                writer.write(fh)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
    return parts


def _contents(page, target: Path, title: str, parts: list[Part], *, lead: int) -> int:
    """The title page with the table of contents; returns its length in pages."""
    from pypdf import PdfReader

    rows, at = [], lead + 1
    for part in parts:
        rows.append(f"<tr><td>{html.escape(part.title)}</td><td class='n'>{at}</td></tr>")
        at += part.pages
    page.set_content(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0} h1{font-size:24pt;margin:30mm 0 4mm}"
        "p{color:#555} table{width:100%;border-collapse:collapse;margin-top:12mm;font-size:11pt}"
        "td{padding:2mm 0;border-bottom:1px dotted #bbb} td.n{text-align:right;width:20mm}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>Printed from the built book by mqperf pdf.</p>"
        f"<h2>Contents</h2><table>{''.join(rows)}</table></body></html>")
    page.emulate_media(media="print")
    page.pdf(path=str(target), **PAGE)
    return len(PdfReader(target).pages)


def _number(writer) -> None:
    """Stamp "n / total" at the foot of every page but the first (the title page)."""
    from pypdf import PageObject
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    total = len(writer.pages)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    for i, page in enumerate(writer.pages):
        if i == 0:
            continue
        width = float(page.mediabox.width)
        text = f"{i + 1} / {total}"
        stamp = PageObject.create_blank_page(width=width, height=float(page.mediabox.height))
        stamp[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/MQPN"): font})})
        # Helvetica digits are 0.556 em wide: centre the text by its width at 8 pt.
        x = width / 2 - len(text) * 0.556 * 8 / 2
        stream = DecodedStreamObject()
        stream.set_data(f"q 0.33 g BT /MQPN 8 Tf {x:.2f} 22 Td ({text}) Tj ET Q".encode("ascii"))
        stamp[NameObject("/Contents")] = writer._add_object(stream)
        page.merge_page(stamp)
        # merge_page writes the page's content back uncompressed: 42 of the book's 45 MB, not 1.4 compressed.
        page.compress_content_streams()


# -- mqperf pdf ------------------------------------------------------------------------------

def print_book(out: Path | None = None, *, build: bool = True, quiet: bool = False) -> int:
    """Print the whole book as one PDF (``out``, or ``_build/pdf/mq-performance-book.pdf``); returns
    the exit status of the build (0 when printed). Raises an MQPerfError for bad input."""
    import time

    from mqperf import catalog
    from mqperf.errors import OutputError
    from mqperf.paths import book_root
    from mqperf.publish import build as builder

    say = (lambda *_: None) if quiet else (lambda m: print(m, flush=True))
    start = time.perf_counter()
    root = book_root()
    if out:
        target = Path(out).expanduser()
        if target.exists() or target.is_symlink():
            raise OutputError(f"-o {out}: the file exists; mqperf writes only new files here "
                              "(remove it or choose another name)")
        if not target.parent.is_dir():
            raise OutputError(f"-o {out}: the folder {target.parent} does not exist")
    else:
        target = root / "_build" / "pdf" / "mq-performance-book.pdf"
        target.parent.mkdir(parents=True, exist_ok=True)
    find_chromium()  # before a build that may take a while
    if build:
        status = builder.build(strict=False, echo=say if not quiet else (lambda *_: None))
        if status != 0:
            return status
    html_dir = root / "_build" / "html"
    if not (html_dir / "index.html").is_file():
        raise MQPerfError(f"{html_dir}: no built book to print (run `mqperf build` first, or drop --no-build)")
    files = [f + ".html" for f in catalog.toc_files(root)]
    say(f"mqperf pdf: printing {len(files)} pages of {html_dir} ...")
    parts = book(html_dir, files, target, title="MQ Performance Book", echo=say)
    from pypdf import PdfReader

    pages = len(PdfReader(target).pages)  # the contents may take more than one page
    charts = sum(p.charts for p in parts)
    print(f"mqperf pdf: {target} ({pages} pages incl. the contents, {charts} charts as vector graphics) "
          f"in {time.perf_counter() - start:.1f} s")
    return 0
