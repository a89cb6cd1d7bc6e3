"""A small, real HTTP file server standing in for dataset hosts in tests.

It serves two kinds of address on 127.0.0.1 from its own thread:

* ``/datasets/<repo>/resolve/<revision>/<path>`` answers like the Hugging Face Hub's file
  endpoint (``HEAD`` with ``X-Repo-Commit``, ``ETag`` and ``Content-Length``; ``GET`` with the
  bytes), so ``huggingface_hub`` downloads from it when ``HF_ENDPOINT`` points here;
* any other path is a plain file (``GET`` with ``Range`` support, ``206 Partial Content``), for
  the addresses the registry fetches over HTTPS when ``CONFLICTEVAL_DATA_MIRROR`` points here.

Example:
    >>> with FileServer({"/download/x.csv": b"a,b\\n"}) as srv:  # doctest: +SKIP
    ...     srv.url("/download/x.csv")
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_HF_PATH = re.compile(r"^/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")


class FileServer:
    """Serve in-memory files over real HTTP.

    Args:
        files: Plain files, address path → bytes.
        hub: Hugging Face files, ``(repo, filename)`` → bytes, served at any revision.
        commit: The commit hash the Hub stand-in reports for a branch name (a revision that
            is already a commit hash is reported as itself).
        fail_after: Plain files only: close the connection after this many body bytes of the
            next N ``GET`` requests (to test resumed downloads); set ``fail_times``.
        fail_times: How many ``GET`` requests are cut off by ``fail_after``.
        ignore_range: Answer ``200`` with the whole file even when a range is asked for.
        etags: Plain files: send an ``ETag`` (the sha256 of the bytes) and honour ``If-Range``
            (a range whose ``If-Range`` names another ``ETag`` gets the whole file, ``200``).
        range_from_zero: Answer a range request with ``206`` and the whole file from byte 0
            (a server that ignores the range but still says 206).
        no_length: Plain files: send no ``Content-Length`` (the body ends when the
            connection closes), so a cut body cannot be told from a whole one.
    """

    def __init__(
        self,
        files: Mapping[str, bytes] | None = None,
        *,
        hub: Mapping[tuple[str, str], bytes] | None = None,
        commit: str = "0" * 40,
        fail_after: int | None = None,
        fail_times: int = 0,
        ignore_range: bool = False,
        etags: bool = False,
        range_from_zero: bool = False,
        no_length: bool = False,
    ) -> None:
        self.files = dict(files or {})
        self.hub = dict(hub or {})
        self.commit = commit
        self.fail_after = fail_after
        self.fail_times = fail_times
        self.ignore_range = ignore_range
        self.etags = etags
        self.range_from_zero = range_from_zero
        self.no_length = no_length
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str) -> str:
        """The full address of ``path``."""
        return self.base_url + path

    def start(self) -> FileServer:
        """Start serving on an ephemeral port."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_HEAD(self) -> None:
                server._handle(self, body=False)

            def do_GET(self) -> None:
                server._handle(self, body=True)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, h: BaseHTTPRequestHandler, body: bool) -> None:
        path = h.path.split("?", 1)[0]
        rng = h.headers.get("Range")
        with self._lock:
            self.requests.append({"method": h.command, "path": path, "range": rng})
        match = _HF_PATH.match(path)
        if match:
            data = self.hub.get((match["repo"], match["file"]))
            if data is None:
                self._send(h, 404, b"", {"X-Error-Code": "EntryNotFound"}, body)
                return
            etag = '"' + hashlib.sha256(data).hexdigest() + '"'
            rev = match["rev"]
            commit = rev if re.fullmatch(r"[0-9a-f]{40}", rev) else self.commit
            self._send(h, 200, data, {"X-Repo-Commit": commit, "ETag": etag}, body)
            return
        data = self.files.get(path)
        if data is None:
            self._send(h, 404, b"not found", {}, body)
            return
        start = 0
        status = 200
        headers: dict[str, str] = {"Accept-Ranges": "bytes"}
        etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
        if self.etags:
            headers["ETag"] = etag
            if_range = h.headers.get("If-Range")
            if if_range is not None and if_range != etag:
                rng = None  # the file changed: the whole new file
        if rng and self.range_from_zero:
            status = 206
            headers["Content-Range"] = f"bytes 0-{len(data) - 1}/{len(data)}"
            rng = None
        if rng and not self.ignore_range:
            m = re.fullmatch(r"bytes=(\d+)-", rng.strip())
            if m:
                start = int(m.group(1))
                if start >= len(data):
                    self._send(h, 416, b"", {"Content-Range": f"bytes */{len(data)}"}, body)
                    return
                status = 206
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        payload = data[start:]
        cut = None
        with self._lock:
            if body and self.fail_after is not None and self.fail_times > 0:
                self.fail_times -= 1
                cut = self.fail_after
        if cut is not None:
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, v)
            if not self.no_length:
                h.send_header("Content-Length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload[:cut])
            h.wfile.flush()
            h.close_connection = True
            return
        if self.no_length:
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            if body:
                h.wfile.write(payload)
            h.close_connection = True
            return
        self._send(h, status, payload, headers, body)

    @staticmethod
    def _send(
        h: BaseHTTPRequestHandler,
        status: int,
        payload: bytes,
        headers: Mapping[str, str],
        body: bool,
    ) -> None:
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        if body and payload:
            h.wfile.write(payload)
