"""The built-in HTTP/1.1 client ends wire-level replies as the openai SDK does; https.

Each scripted reply (chunked, close-delimited, HTTP/1.0, gzip, cut-off bodies and
chunks, connection resets, plain-text errors) goes once through the lean transport on
the built-in client and once through the SDK; the outcomes must be equal. The https
tests use a self-signed certificate trusted through ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable
from typing import Any

import pytest

from conflicteval import ModelError, get_model
from conflicteval.models import http11

from .wire_server import OK, Step, WireServer, chunked, completion, new_pool, post, reply

# -- the same outcome on both transports ---------------------------------------------------


def _outcome(script: list[Step], transport: str) -> dict[str, Any]:
    with WireServer(list(script)) as server:
        model = get_model(
            "openai/m",
            base_url=server.base_url,
            api_key="test-key",
            cache=False,
            max_attempts=2,
            backoff_initial=0.01,
            backoff_max=0.01,
            timeout=30.0,  # no case here waits on a timeout; a loaded machine must not hit one
            transport=transport,
        )
        result: dict[str, Any]
        try:
            out = model.generate_sync("q")
            result = {"text": out.text, "usage": out.usage}
        except ModelError as exc:
            result = {"error": str(exc), "status": exc.status, "attempts": exc.attempts}
        result["requests"] = len(server.requests)
        result["failures"] = model.failures
        return result


def _reset_mid_body(writer: asyncio.StreamWriter) -> Awaitable[bool]:
    async def reset() -> bool:
        writer.write(reply(completion())[:-10])
        await writer.drain()
        sock = writer.get_extra_info("socket")
        import socket
        import struct

        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
        return False

    return reset()


WIRE_CASES: dict[str, list[Step]] = {
    "chunked": [(reply(chunked(completion("chunks")), "Transfer-Encoding: chunked"), True)],
    "close-delimited": [
        (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + completion(), False)
    ],
    "http-1.0": [(reply(completion("old"), version="HTTP/1.0"), False)],
    "gzip": [(reply(gzip.compress(completion("gz")), "Content-Encoding: gzip"), True)],
    "cut-off-body": [(reply(completion())[:-10], False)] * 2,
    "cut-off-chunked": [(reply(chunked(completion())[:-30], "Transfer-Encoding: chunked"), False)]
    * 2,
    "reset-mid-body": [_reset_mid_body, _reset_mid_body],
    "reset-then-ok": [_reset_mid_body, OK],
    "status-line-only-then-close": [(b"HTTP/1.1 200 OK\r\n", False)] * 2,
    "503-plain-text": [(reply(b"upstream down", status="503 Unavailable"), True)] * 2,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(WIRE_CASES))
def test_wire_level_replies_end_alike_on_both_transports(name: str) -> None:
    builtin = _outcome(WIRE_CASES[name], "http")
    sdk = _outcome(WIRE_CASES[name], "sdk")
    if name == "reset-mid-body":
        # httpx words a reset with an empty message ("connection error: "); the built-in client
        # names it. Everything else about the outcome is the same.
        assert "[Errno 104] Connection reset by peer" in builtin.pop("error")
        assert sdk.pop("error") == "openai/m: connection error:  (after 2 attempts)"
    assert builtin == sdk


def test_a_redirect_is_followed_through_httpx() -> None:
    with WireServer([]) as target:
        moved = reply(b"", f"Location: {target.base_url}/chat/completions", status="307 Moved")
        with WireServer([(moved, True), (moved, True)]) as server:
            model = get_model(
                "openai/m", base_url=server.base_url, api_key="k", cache=False, max_attempts=1
            )
            assert model.generate_sync("q").text == "hello"
            assert len(server.requests) == 2  # the built-in client's try, then httpx's
            assert len(target.requests) == 1 and target.requests[0].raw == server.requests[0].raw


# -- https -------------------------------------------------------------------------------


def _self_signed(tmp_path: Any) -> tuple[str, str]:
    """A self-signed certificate for localhost / 127.0.0.1 and its key, as PEM files."""
    import shutil
    import subprocess

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key_file),
            "-out",
            str(cert_file),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return str(cert_file), str(key_file)


class TLSWireServer(WireServer):
    """The scripted server behind TLS."""

    def __init__(self, script: list[Step], cert: str, key: str) -> None:
        super().__init__(script)
        import ssl

        self.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.tls.load_cert_chain(cert, key)

    @property
    def base_url(self) -> str:
        return f"https://localhost:{self.port}/v1"

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop

        async def boot() -> None:
            self._server = await asyncio.start_server(self._handle, self.host, 0, ssl=self.tls)
            self.port = self._server.sockets[0].getsockname()[1]

        loop.run_until_complete(boot())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            assert self._server is not None
            self._server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
            loop.close()


@pytest.fixture
def trusted_cert(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    cert, key = _self_signed(tmp_path)
    http11.ssl_context.cache_clear()
    yield cert, key
    http11.ssl_context.cache_clear()


def test_https_with_the_certificate_of_ssl_cert_file(
    trusted_cert: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = trusted_cert
    with TLSWireServer([OK, OK, OK], cert, key) as server:
        (refused,) = post(new_pool(), server)  # not trusted yet
        assert isinstance(refused, http11.HTTPError) and "CERTIFICATE_VERIFY_FAILED" in str(refused)
        monkeypatch.setenv("SSL_CERT_FILE", cert)
        http11.ssl_context.cache_clear()
        pool = new_pool()
        first, second = post(pool, server, 2)
        assert (first.status, second.status) == (200, 200)
        assert pool.opened == 1  # one TLS connection, kept alive
        assert server.requests[-1].headers["host"] == f"localhost:{server.port}"


def test_https_ends_alike_on_both_transports(
    trusted_cert: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = trusted_cert
    monkeypatch.setenv("SSL_CERT_FILE", cert)
    outcomes = {}
    for transport in ("http", "sdk"):
        with TLSWireServer([OK], cert, key) as server:
            model = get_model(
                "openai/m", base_url=server.base_url, api_key="k", cache=False, transport=transport
            )
            outcomes[transport] = model.generate_sync("q").text
            assert len(server.requests) == 1
    assert outcomes == {"http": "hello", "sdk": "hello"}
