"""A folder served over HTTP on the loopback address, for as long as a block needs it.

``mqperf pdf`` prints the book from one (the browser's cache then compiles the scripts the pages
share once); the tests serve the built book and a bare repository the same way.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path


class Server:
    """``folder`` over HTTP on 127.0.0.1, on a free port, until :meth:`close` (or the end of a
    ``with`` block). Raises OSError where nothing can listen on the loopback address.

    ``cache_seconds``: how long a browser may keep what it was sent (``Cache-Control: max-age``);
    by default nothing is said, and a browser asks again as it sees fit.
    """

    def __init__(self, folder: Path, *, cache_seconds: int | None = None):
        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):  # the caller reports its own progress
                pass

            def end_headers(self):
                if cache_seconds is not None:
                    self.send_header("Cache-Control", f"max-age={cache_seconds}")
                super().end_headers()

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      functools.partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/"
        threading.Thread(target=self._httpd.serve_forever, name="mqperf-loopback", daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
