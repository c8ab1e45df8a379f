"""``mqperf pdf``: the whole book as one PDF."""

from __future__ import annotations


def add_parser(sub):
    p = sub.add_parser(
        "pdf", help="the whole book as one PDF (charts as vector graphics, contents, page numbers)",
        description="Build the book if anything changed (as `mqperf build`), then print every page of "
                    "_build/html in book order with a local chromium and merge them into one PDF: a title page "
                    "with the contents, a bookmark per chapter, page numbers, charts as vector drawings. Works "
                    "offline. Default output: _build/pdf/mq-performance-book.pdf.",
        epilog="Exit status: 0 written, 1 the build or a page failed, 2 bad input (chromium missing, -o exists).")
    p.add_argument("-o", "--out", metavar="FILE", help="the PDF to write (must not exist); default "
                                                      "_build/pdf/mq-performance-book.pdf, replaced each time")
    p.add_argument("--no-build", action="store_true", help="print _build/html as it is, without building first")
    p.add_argument("--quiet", "-q", action="store_true", help="print only errors and the final line")
    return p


def command(args) -> int:
    from mqperf.publish import pdf

    return pdf.print_book(args.out, build=not args.no_build, quiet=args.quiet)
