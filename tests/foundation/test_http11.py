"""The built-in HTTP/1.1 client of the lean transport, against a real loopback server.

The server is the project's test-server plumbing (``HTTPServerBase``) answering each
request with the next raw reply of a script, so framing, keep-alive, closed connections
and size bounds are exercised on real sockets. Where a wire-level reply can also reach
the openai SDK, the two transports must end it alike.
"""

from __future__ import annotations

import asyncio
import gzip
import time
from collections.abc import Awaitable

import pytest

from conflicteval.models import http11

from .wire_server import OK, WireServer, chunked, completion, new_pool, post, reply


def test_keep_alive_connections_are_reused() -> None:
    with WireServer([OK] * 5) as server:
        pool = new_pool()
        replies = post(pool, server, 5)
        assert [r.status for r in replies] == [200] * 5
        assert pool.opened == 1 and server.connections == 1
        assert [r.headers["content-length"] for r in server.requests] == ["2"] * 5
        assert server.requests[0].raw == b"{}"
        assert server.requests[0].headers["host"] == f"127.0.0.1:{server.port}"


def test_concurrent_requests_open_one_connection_each_and_pool_them() -> None:
    with WireServer([]) as server:
        pool = new_pool()
        url = server.base_url + "/chat/completions"

        async def run() -> tuple[int, int]:
            await asyncio.gather(*(pool.post(url, b"{}") for _ in range(4)))
            idle = pool.idle_connections()
            await asyncio.gather(*(pool.post(url, b"{}") for _ in range(4)))
            await pool.aclose()
            return idle, pool.opened

        assert asyncio.run(run()) == (4, 4)
        assert server.connections == 4


@pytest.mark.parametrize(
    "head",
    [("Connection: close",), ("Connection: Keep-Alive, Close",)],
)
def test_a_connection_the_server_will_close_is_not_reused(head: tuple[str, ...]) -> None:
    with WireServer([(reply(completion(), *head), False), OK]) as server:
        pool = new_pool()
        assert [r.status for r in post(pool, server, 2)] == [200, 200]
        assert pool.opened == 2


def test_http_1_0_is_reused_only_with_keep_alive() -> None:
    one_o = (reply(completion(), version="HTTP/1.0"), False)
    one_o_kept = (reply(completion(), "Connection: keep-alive", version="HTTP/1.0"), True)
    with WireServer([one_o, one_o_kept, OK]) as server:
        pool = new_pool()
        assert [r.status for r in post(pool, server, 3)] == [200] * 3
        assert pool.opened == 2


def test_chunked_replies_are_read_and_the_connection_reused() -> None:
    body = completion("a chunked reply, " * 20)
    step = (reply(chunked(body), "Transfer-Encoding: chunked"), True)
    with WireServer([step, step, OK]) as server:
        pool = new_pool()
        first, second, third = post(pool, server, 3)
        assert first.content == body and second.content == body
        assert third.status == 200 and pool.opened == 1


def test_a_close_delimited_reply_is_read_to_the_end_and_not_reused() -> None:
    body = completion("until the end")
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
    with WireServer([(head + body, False), OK]) as server:
        pool = new_pool()
        first, second = post(pool, server, 2)
        assert first.content == body and second.status == 200
        assert pool.opened == 2


def test_gzip_bodies_are_decoded() -> None:
    body = completion("squeezed")
    with WireServer([(reply(gzip.compress(body), "Content-Encoding: gzip"), True)]) as server:
        (first,) = post(new_pool(), server)
        assert first.content == body


def test_interim_1xx_replies_are_skipped_and_retry_after_kept() -> None:
    early = b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
    limited = reply(b'{"error": {"message": "slow down"}}', "Retry-After: 7", status="429 Too Many")
    with WireServer([(early + limited, True)]) as server:
        (first,) = post(new_pool(), server)
        assert first.status == 429 and first.headers["retry-after"] == "7"


def test_an_idle_connection_the_server_closed_is_not_used() -> None:
    # The server answers with keep-alive, then closes the connection while it sits idle.
    with WireServer([(reply(completion()), False), OK]) as server:
        pool = new_pool()
        first, second = post(pool, server, 2, pause=0.05)
        assert (first.status, second.status) == (200, 200)
        assert pool.opened == 2 and len(server.requests) == 2  # never sent on the closed one


def _drop_after_reading(writer: asyncio.StreamWriter) -> Awaitable[bool]:
    async def drop() -> bool:
        writer.transport.abort()
        return False

    return drop()


def test_a_stale_connection_is_retried_once_when_it_was_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The server drops the request that comes on an idle pooled connection (the race of an
    # idle timeout): nothing of the reply was read, so it goes again on a new connection.
    monkeypatch.setattr(http11, "STALE_IDLE", 0.05)
    with WireServer([OK, _drop_after_reading, OK]) as server:
        pool = new_pool()
        first, second = post(pool, server, 2, pause=0.1)
        assert (first.status, second.status) == (200, 200)
        assert pool.opened == 2 and len(server.requests) == 3


def test_a_connection_lost_right_after_reuse_is_a_failure_not_a_silent_resend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reused at once: a dropped request is the server's failure, left to the retry policy
    # (as on httpx), and never sent twice behind the caller's back.
    monkeypatch.setattr(http11, "STALE_IDLE", 60.0)
    with WireServer([OK, _drop_after_reading, OK]) as server:
        pool = new_pool()
        first, second, third = post(pool, server, 3)
        assert first.status == 200 and third.status == 200
        assert isinstance(second, http11.ServerDisconnected)
        assert str(second) == "Server disconnected without sending a response."
        assert len(server.requests) == 3


def test_a_stale_retry_happens_once_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http11, "STALE_IDLE", 0.05)
    with WireServer([OK, _drop_after_reading, _drop_after_reading, OK]) as server:
        pool = new_pool()
        first, second = post(pool, server, 2, pause=0.1)
        assert first.status == 200 and isinstance(second, http11.ServerDisconnected)
        assert len(server.requests) == 3  # the first try and one retry, not a third


def test_oversized_headers_are_refused() -> None:
    huge = (reply(completion(), "X-Big: " + "x" * 70_000), True)
    with WireServer([huge, huge]) as server:
        (first,) = post(new_pool(), server)
        assert isinstance(first, http11.HTTPError) and "larger than 65536 bytes" in str(first)
        (second,) = post(new_pool(max_header_bytes=1024), server)
        assert isinstance(second, http11.HTTPError) and "larger than 1024" in str(second)


def test_oversized_bodies_are_refused_by_length_and_by_chunks() -> None:
    body = completion("x" * 5000)
    steps = [(reply(body), True), (reply(chunked(body, 512), "Transfer-Encoding: chunked"), True)]
    with WireServer(steps) as server:
        first, second = post(new_pool(max_body_bytes=4096), server, 2)
        for err in (first, second):
            assert isinstance(err, http11.HTTPError) and "larger than 4096" in str(err)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"HTTP/2 200 OK\r\n\r\n", "malformed status line"),
        (b"HTTP/1.1 2x0 OK\r\n\r\n", "malformed status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nxx", "conflicting Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "malformed Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "unsupported Transfer-Encoding"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", "malformed chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", "CRLF"),
        (b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1\r\n\r\nx", "unsupported"),
    ],
)
def test_replies_breaking_the_protocol_are_errors(raw: bytes, words: str) -> None:
    with WireServer([(raw, False)]) as server:
        (first,) = post(new_pool(), server)
        assert isinstance(first, http11.HTTPError) and words in str(first)


def test_the_timeout_bounds_the_whole_exchange() -> None:
    async def drip(writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        for _ in range(100):  # 50 s in all: far past the timeout on any machine
            await asyncio.sleep(0.5)
            writer.write(b" ")
            await writer.drain()
        return True

    with WireServer([drip]) as server:
        pool = new_pool()

        async def run() -> float:
            start = time.monotonic()
            with pytest.raises(TimeoutError):
                await pool.post(server.base_url, b"{}", timeout=0.3)
            await pool.aclose()
            return time.monotonic() - start

        # not before the timeout, and long before the body could have ended (a loaded
        # machine only makes the drip slower): the timeout, not a read, ended it
        assert 0.25 < asyncio.run(run()) < 40.0
        assert pool.idle_connections() == 0


def test_proxies_in_the_environment_are_left_to_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert http11.applies_to("http://10.0.0.1:8000/v1")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert http11.applies_to("http://10.0.0.1:8000/v1")
    assert not http11.applies_to("https://api.example.com/v1")
    monkeypatch.setenv("ALL_PROXY", "http://proxy:3128")
    assert not http11.applies_to("http://10.0.0.1:8000/v1")
    monkeypatch.setenv("NO_PROXY", "10.0.0.1")
    assert http11.applies_to("http://10.0.0.1:8000/v1")
    assert not http11.applies_to("ftp://10.0.0.1/v1")


def test_headers_with_line_breaks_or_beyond_ascii_are_refused_before_sending() -> None:
    with WireServer([]) as server:
        url = server.base_url + "/chat/completions"

        async def run(pool: http11.Pool, extra: dict[str, str] | None) -> str:
            try:
                await pool.post(url, b"{}", headers=extra)
            except http11.HTTPError as exc:
                return str(exc)
            finally:
                await pool.aclose()
            return "sent"

        key_with_newline = http11.Pool({"Authorization": "Bearer key\n"})
        assert "line break" in asyncio.run(run(key_with_newline, None))
        assert "line break" in asyncio.run(run(new_pool(), {"X-A": "a\r\nX-Injected: 1"}))
        assert "not ASCII" in asyncio.run(run(new_pool(), {"X-A": "café"}))
        assert asyncio.run(run(new_pool(), {"X-A": "fine"})) == "sent"
        assert len(server.requests) == 1 and server.requests[0].headers["x-a"] == "fine"
