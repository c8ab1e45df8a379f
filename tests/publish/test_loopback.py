"""``mqperf.publish.loopback.Server``: a folder over HTTP on the loopback address, for a block."""

from __future__ import annotations

import socket
import urllib.request

from mqperf.publish.loopback import Server


#: No proxy, whatever the environment says: the address is this machine's.
_open = urllib.request.build_opener(urllib.request.ProxyHandler({})).open


def test_it_serves_the_folder_on_the_loopback_address_and_stops_after(tmp_path):
    (tmp_path / "a.html").write_text("<p>one</p>", encoding="utf-8")
    with Server(tmp_path) as plain, Server(tmp_path, cache_seconds=60) as cached:
        assert plain.url.startswith("http://127.0.0.1:") and plain.url.endswith("/")
        with _open(plain.url + "a.html") as reply:
            assert reply.read() == b"<p>one</p>" and reply.headers.get("Cache-Control") is None
        with _open(cached.url + "a.html") as reply:
            assert reply.headers.get("Cache-Control") == "max-age=60"
        port = int(plain.url.rsplit(":", 1)[1].strip("/"))
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # closed with the block
