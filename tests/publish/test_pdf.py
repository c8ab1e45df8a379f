"""``mqperf pdf`` and ``--pdf``: the book and a report as PDFs, printed offline by chromium.

The book's text is read back page by page with poppler's ``pdftotext`` (pypdf's extraction took
37 s for the book's 570 pages, pdftotext 2 s; the reports' short PDFs are read with pypdf): every
chapter's title, every chart's title (a chart printed as a picture would have no text, and no
page may hold a raster image, found in the pages' resources), page numbers on every page after
the title page, and every short table (caption to last row) on one page.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, _need_chromium, need_program

MQPERF = str(Path(sys.executable).with_name("mqperf"))
pytestmark = pytest.mark.browser


def _squash(text: str) -> str:
    """Text without whitespace or soft hyphens, ligatures spelt out (NFKC): PDF extraction splits
    and joins words its own way, and the printed "fi" is one glyph."""
    import unicodedata

    return re.sub(r"[\s\u00ad]+", "", unicodedata.normalize("NFKC", text))


PDFTOTEXT = shutil.which("pdftotext")


def _need_pdftotext():
    need_program(PDFTOTEXT, "pdftotext", "poppler-utils")


def page_texts(pdf: Path, *, raw: bool = False) -> list[str]:
    """Each page's text (squashed), by pdftotext: pages end with a form feed. ``raw`` keeps the
    text in the order the page draws it (a table's cells row by row), not in reading order."""
    _need_pdftotext()
    proc = subprocess.run([PDFTOTEXT, "-enc", "UTF-8", *(["-raw"] if raw else []), str(pdf), "-"],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    pages = proc.stdout.decode("utf-8").split("\f")
    return [_squash(t) for t in (pages[:-1] if pages and not pages[-1].strip() else pages)]


def raster_pages(reader) -> list[int]:
    """Pages that draw a raster image: an image XObject in their resources, or in a form they draw."""
    def has_image(resources, seen) -> bool:
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        for ref in (xobjects.get_object().values() if xobjects else []):
            if getattr(ref, "idnum", None) in seen:
                continue
            seen.add(getattr(ref, "idnum", None))
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image" or (obj.get("/Subtype") == "/Form"
                                                   and has_image(obj.get("/Resources"), seen)):
                return True
        return False

    return [i for i, page in enumerate(reader.pages) if has_image(page.get("/Resources"), set())]


@pytest.fixture(scope="module")
def book_pdf(built_book, tmp_path_factory):
    _need_chromium()
    _need_pdftotext()
    out = tmp_path_factory.mktemp("pdf") / "book.pdf"
    proc = subprocess.run([MQPERF, "pdf", "--no-build", "-o", str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    from pypdf import PdfReader

    reader = PdfReader(out)
    texts = page_texts(out)
    assert len(texts) == len(reader.pages)
    return reader, texts, proc.stdout, out


#: A 2×2 PNG: a raster picture, as a chart printed as an image would be.
_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4zwAE/xkgFAAb8gP91pbyKwAAAABJRU5ErkJggg=="


def test_a_raster_image_is_found_where_printed(tmp_path):
    """The raster check can fail: a page printed with an <img> is reported, a page of text is not."""
    _need_chromium()
    from pypdf import PdfReader

    with_image, without = tmp_path / "img.html", tmp_path / "text.html"
    with_image.write_text(f'<html><body><p>picture</p><img src="data:image/png;base64,{_PNG}" '
                          'style="width:200px;height:200px"></body></html>')
    without.write_text("<html><body><p>only text</p></body></html>")
    # In its own process: a second Playwright in a worker that holds the browser fixture's fails.
    script = ("import sys; from pathlib import Path; from mqperf.publish import pdf; "
              "pdf.reports([(Path(sys.argv[1]), Path(sys.argv[2])), (Path(sys.argv[3]), Path(sys.argv[4]))])")
    proc = subprocess.run([sys.executable, "-c", script, str(with_image), str(tmp_path / "img.pdf"), str(without),
                           str(tmp_path / "text.pdf")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert raster_pages(PdfReader(tmp_path / "img.pdf")) == [0]
    assert raster_pages(PdfReader(tmp_path / "text.pdf")) == []
    assert "onlytext" in "".join(page_texts(tmp_path / "text.pdf"))


def test_the_book_is_printed_from_a_local_server_with_its_links_as_files(tmp_path):
    """``pdf.book`` loads the pages over HTTP on the loopback address (the browser's cache then
    compiles the scripts they share once); the PDF still links another page as its file and a
    heading of its own page within the PDF, as a page printed from its file does, and the server
    is gone after the print."""
    _need_chromium()
    from pypdf import PdfReader

    site = tmp_path / "site"
    (site / "chapters").mkdir(parents=True)
    (site / "chapters" / "one.html").write_text(
        '<html><body><h1 id="top">One</h1><p><a href="two.html#there">to two</a> <a href="#top">to the top</a></p>'
        '</body></html>')
    (site / "chapters" / "two.html").write_text('<html><body><h1 id="there">Two</h1></body></html>')
    script = ("import socket, sys; from pathlib import Path; from mqperf.publish import pdf\n"
              "site = Path(sys.argv[1]); ports = []\n"
              "real = pdf.served\n"
              "import contextlib\n"
              "@contextlib.contextmanager\n"
              "def spy(folder):\n"
              "    with real(folder) as base:\n"
              "        ports.append(int(base.rsplit(':', 1)[1].strip('/'))); yield base\n"
              "pdf.served = spy\n"
              "pdf.book(site, ['chapters/one.html', 'chapters/two.html'], Path(sys.argv[2]), title='t', echo=lambda *a: None)\n"
              "with socket.socket() as s: print('closed' if s.connect_ex(('127.0.0.1', ports[0])) else 'open')\n")
    proc = subprocess.run([sys.executable, "-c", script, str(site), str(tmp_path / "b.pdf")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "closed"
    uris, internal = [], 0
    for page in PdfReader(tmp_path / "b.pdf").pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action is not None and "/URI" in action:
                uris.append(str(action["/URI"]))
            else:
                internal += 1
    assert uris == [(site / "chapters" / "two.html").resolve().as_uri() + "#there"]
    assert internal == 1  # "to the top": a place in the PDF, not an address


def test_without_a_loopback_address_the_book_is_printed_from_its_files(tmp_path, monkeypatch):
    import http.server

    from mqperf.publish import pdf

    with pdf.served(tmp_path) as base:
        assert base.startswith("http://127.0.0.1:")

    def refuse(*args, **kwargs):
        raise OSError(99, "Cannot assign requested address")

    monkeypatch.setattr(http.server, "ThreadingHTTPServer", refuse)
    with pdf.served(tmp_path) as base:
        assert base is None


def _html_pages():
    from mqperf.catalog import toc_files

    return [ROOT / "_build" / "html" / (f + ".html") for f in toc_files(ROOT)]


def _heading(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.S)
    return re.sub(r"<[^>]+>", "", h1.group(1)).replace("#", "").strip()


def test_page_count_and_numbers(book_pdf):
    reader, texts, stdout, _ = book_pdf
    total = len(reader.pages)
    assert f"({total} pages" in stdout
    assert total > 2 * len(_html_pages())  # every chapter printed, not a page each
    for i, text in enumerate(texts[1:], start=2):
        assert f"{i}/{total}" in text, f"page {i} has no page number"


def uncompressed_pages(reader) -> list[int]:
    """The pages (from 1) with a content stream written without a filter."""
    pages = []
    for i, page in enumerate(reader.pages, start=1):
        contents = page.get("/Contents")
        contents = contents.get_object() if contents is not None else []
        streams = [c.get_object() for c in contents] if isinstance(contents, list) else [contents]
        if any("/Filter" not in s for s in streams):
            pages.append(i)
    return pages


def test_every_page_is_stored_compressed(book_pdf):
    """Stamping the page numbers rewrites each page's content; unless compressed again, the book
    weighs 45 MB rather than 10."""
    reader, _, _, path = book_pdf
    assert uncompressed_pages(reader) == []
    assert path.stat().st_size < 30_000 * len(reader.pages), f"{path.stat().st_size:,} bytes"


def test_every_chapter_title_is_in_the_pdf_and_the_bookmarks(book_pdf):
    import html

    reader, texts, _, _ = book_pdf
    titles = [html.unescape(_heading(p)) for p in _html_pages()]
    body = "".join(texts)
    missing = [t for t in titles if _squash(t) not in body]
    assert missing == []
    assert [o.title for o in reader.outline] == titles
    contents = "".join(texts[:reader.get_destination_page_number(reader.outline[0])])
    assert all(_squash(t) in contents for t in titles)  # the contents pages list them


def test_every_chart_is_a_vector_drawing(book_pdf):
    reader, texts, stdout, _ = book_pdf
    specs = []
    for page in _html_pages():
        for payload in re.findall(r"var spec = (\{.*?\});\n", page.read_text(encoding="utf-8")):
            specs.append(json.loads(payload.replace("<\\/", "</")))
    assert specs and f"{len(specs)} charts" in stdout
    body = "".join(texts)
    for spec in specs:
        title = spec.get("title")
        title = title.get("text") if isinstance(title, dict) else title
        title = " ".join(title) if isinstance(title, list) else title  # a long title is set on several lines
        if isinstance(title, str):
            assert _squash(title) in body, f"chart {title!r} is not in the PDF as text"
    assert raster_pages(reader) == []  # no chart became a picture


#: Tables wider than this are not held to one page (see below).
WIDE_TABLE_COLUMNS = 12


def test_no_short_table_is_split_across_pages(book_pdf):
    import html

    from mqperf.publish.pdf import SHORT_TABLE_ROWS

    reader, texts, _, pdf = book_pdf
    # In reading order, pdftotext interleaves the lines of wrapped cells; in drawing order (-raw)
    # a table's cells come row by row, so its last row reads as one string.
    in_order = page_texts(pdf, raw=True)
    checked = 0
    for page in _html_pages():
        for table in re.findall(r"<table.*?</table>", page.read_text(encoding="utf-8"), re.S):
            caption = re.search(r"<caption[^>]*>(.*?)</caption>", table, re.S)
            rows = re.findall(r"<tr.*?</tr>", table, re.S)
            columns = len(re.findall(r"<th[ >]", rows[0])) if rows else 0
            # A short table is kept on one page only when it fits one: a table of many columns wraps
            # its cells into rows taller than a page can hold, whatever its row count.
            if not caption or len(rows) > SHORT_TABLE_ROWS or len(rows) < 3 or columns > WIDE_TABLE_COLUMNS:
                continue
            cap = _squash(html.unescape(re.sub(r"<[^>]+>", "", caption.group(1))))
            last = _squash(html.unescape(re.sub(r"<[^>]+>", " ", rows[-1])))
            pages = [i for i, t in enumerate(texts) if cap in t]
            if len(pages) != 1:
                continue  # a caption printed twice (or cut by extraction) says nothing about this
            assert last[:40] in in_order[pages[0]], f"{page.name}: table {cap[:60]!r} continues on another page"
            checked += 1
    assert checked >= 20


def test_missing_chromium_is_one_line(tmp_path):
    env = {"PATH": "/nonexistent", "MQPERF_CHROMIUM": str(tmp_path / "no-chromium"), "HOME": str(tmp_path)}
    proc = subprocess.run([MQPERF, "pdf", "--no-build", "-o", str(tmp_path / "b.pdf")], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 2 and "chromium not found" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "b.pdf").exists()


def test_run_writes_the_report_pdf_into_its_folder(tmp_path):
    _need_chromium()
    from pypdf import PdfReader

    out = tmp_path / "report"
    proc = subprocess.run([MQPERF, "run", "kafka_task_scaling", "--data",
                           str(ROOT / "data" / "examples" / "kafka_task_scaling.csv"), "--out", str(out), "--pdf", "-q"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    reader = PdfReader(out / "kafka_task_scaling.pdf")
    text = _squash("".join(p.extract_text() for p in reader.pages))
    assert "Kafkaconnectortaskscaling" in text and f"1/{len(reader.pages)}" in text
    manifest = json.loads((out / ".mqperf-report.json").read_text())
    assert "kafka_task_scaling.pdf" in json.dumps(manifest)  # part of the report: replaced with it next time


def test_compare_and_fleet_reports_print_their_pdfs(tmp_path):
    _need_chromium()
    from pypdf import PdfReader

    example = str(ROOT / "data" / "examples" / "kafka_task_scaling.csv")
    out = tmp_path / "cmp"
    proc = subprocess.run([MQPERF, "compare", "kafka_task_scaling", "--data", example, "--data", example,
                           "--out", str(out), "--pdf", "-q"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    text = _squash("".join(p.extract_text() for p in PdfReader(out / "comparison.pdf").pages))
    assert "nodifferencethedatacanresolve" in text
    manifest = tmp_path / "fleet.csv"
    manifest.write_text(f"id,data\nQM01,{example}\n")
    fleet = tmp_path / "fleet"
    proc = subprocess.run([MQPERF, "fleet", str(manifest), "--chapter", "kafka_task_scaling", "--out", str(fleet),
                           "--reports", "--pdf", "-j", "1", "-q"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert len(PdfReader(fleet / "reports" / "QM01" / "kafka_task_scaling.pdf").pages) > 2
