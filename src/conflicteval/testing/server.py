"""A small, real OpenAI-compatible HTTP server for tests, examples and benchmarks.

It serves ``POST /v1/chat/completions``, ``GET /v1/models`` and the Files and
Batches endpoints of the OpenAI Batch API (upload, file content, create /
retrieve / list / cancel batch; each request line answered from the same reply
script, with line faults and scripted batch outcomes) over real HTTP/1.1
(keep-alive) on 127.0.0.1 with an ephemeral port, from its own thread and event
loop, so clients talk to it through the real openai SDK and httpx. Replies come
from a script; faults can be injected per request; every request is logged.

Example:
    >>> with OpenAICompatServer(replies=["Paris"], faults=[Fault.rate_limit(0.1)]) as srv:
    ...     model = get_model("openai/test", base_url=srv.base_url, api_key="k")
    ...     model.generate_sync("Capital of France?").text
    'Paris'

The server is built in layers, one module per job: ``http_plumbing`` (HTTP/1.1,
lifecycle, request log), ``chat`` (chat completions and the reply script),
``batches`` (Files and Batches) and ``faults`` (what to inject); this module puts
them together and keeps every name importable from here.

Run it as a process (used by the benchmarks)::

    python -m conflicteval.testing.server --port 8765 --latency 0.2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conflicteval.testing.batches import BatchOutcome, FilesAndBatchesServer
from conflicteval.testing.chat import Replies, ReplyFn, _Config
from conflicteval.testing.faults import Fault, FaultFn, random_faults
from conflicteval.testing.http_plumbing import LoggedRequest, RawRequest

__all__ = [
    "BatchOutcome",
    "Fault",
    "FaultFn",
    "LoggedRequest",
    "OpenAICompatServer",
    "Replies",
    "ReplyFn",
    "main",
    "random_faults",
]


class OpenAICompatServer(FilesAndBatchesServer):
    """A real local OpenAI-compatible server with scripted replies and fault injection.

    Args:
        replies: A list (in order; the last repeats when it runs out), a
            mapping from the last message's content to a reply (default reply
            ``"OK"``), a callable ``(request_json) -> str``, or None (replies
            ``"OK"``).
        faults: A list applied to requests in arrival order (None = no fault),
            or a callable ``(n, request_json) -> Fault | None``. A reply or fault
            function that raises is answered with a 500 naming the error.
        latency: Seconds to wait before answering every request.
        reject_response_format: Answer 400 (or this status, when an int) to requests
            carrying ``response_format``.
        enforce_rules: Refuse, with the real API's HTTP 400 and message, what OpenAI
            refuses (a reasoning model sent ``max_tokens``, a temperature other than 1
            or ``top_p``; a chat model sent ``reasoning_effort``), online and per batch
            line (see :mod:`conflicteval.testing.api_rules`).
        host: Interface to bind (loopback only).
        port: Port (0: ephemeral).
        create_faults: HTTP statuses answered, in order, to batch creations after
            the batch was created (the client sees an error; the batch exists).
        output_garbage: Lines added to every batch output file (damaged lines).

    Attributes:
        requests: The request log (list of LoggedRequest), in arrival order.
        max_in_flight: The most requests the server was handling at once.
    """

    def __init__(
        self,
        replies: Replies = None,
        *,
        faults: Sequence[Fault | None] | FaultFn | None = None,
        latency: float = 0.0,
        reject_response_format: bool | int = False,
        enforce_rules: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
        log_bodies: bool = True,
        batch_outcomes: Sequence[BatchOutcome] | None = None,
        line_faults: Mapping[str, Fault]
        | Callable[[str, dict[str, Any]], Fault | None]
        | None = None,
        create_faults: Sequence[int] | None = None,
        output_garbage: Sequence[str] | None = None,
    ) -> None:
        super().__init__(host, port)
        self.config = _Config(
            replies=replies,
            faults=faults,
            latency=latency,
            reject_response_format=reject_response_format,
            enforce_rules=enforce_rules,
            log_bodies=log_bodies,
        )
        self.batch_outcomes: list[BatchOutcome] = list(batch_outcomes or [])
        self.line_faults = line_faults
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_lines_answered = 0
        self.create_faults: list[int] = list(create_faults or [])
        """HTTP statuses answered, in order, to batch creations AFTER the batch was created
        (a server that fails while answering: the batch exists, the client sees an error)."""
        self.output_garbage: list[str] = list(output_garbage or [])
        """Lines added to every batch output file (a provider writing a damaged line)."""

    async def _respond(self, request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        entry, body = self._log_request(request, log_bodies=self.config.log_bodies)
        return await self._answer_or_500(entry, writer, self._route(entry, request, body, writer))

    async def _route(
        self,
        entry: LoggedRequest,
        request: RawRequest,
        body: Any,
        writer: asyncio.StreamWriter,
    ) -> bool:
        method, path = request.method, request.path
        if self.create_hold is not None and method == "POST" and path.endswith("/batches"):
            await self.create_hold.wait()
        if "/files" in path or "/batches" in path:
            return self._files_and_batches(
                entry, method, path, request.headers, request.raw, body, writer
            )
        return await self._answer(entry, method, path, body, writer)


def main(argv: list[str] | None = None) -> None:
    """Run the server in the foreground (for benchmarks and manual tests)."""
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible test server")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--echo", action="store_true", help="reply with the last message")
    parser.add_argument("--reply", default=None, help="reply with this text to every request")
    args = parser.parse_args(argv)
    replies: Replies = (
        (lambda body: "echo: " + str(body["messages"][-1]["content"]))
        if args.echo
        else ([args.reply] if args.reply is not None else None)
    )
    faults = random_faults(args.fault_rate, args.seed) if args.fault_rate else None
    server = OpenAICompatServer(
        replies, faults=faults, latency=args.latency, port=args.port, log_bodies=False
    )
    server.start()
    print(json.dumps({"base_url": server.base_url, "port": server.port}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
