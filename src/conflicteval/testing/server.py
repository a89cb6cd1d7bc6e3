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

Run it as a process (used by the benchmarks)::

    python -m conflicteval.testing.server --port 8765 --latency 0.2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ReplyFn = Callable[[dict[str, Any]], str]
Replies = Sequence[str] | Mapping[str, str] | ReplyFn | None
FaultFn = Callable[[int, dict[str, Any]], "Fault | None"]


@dataclass(frozen=True)
class Fault:
    """A fault to inject into one request.

    Use the constructors: :meth:`rate_limit`, :meth:`status_code`, :meth:`quota`,
    :meth:`slow`, :meth:`drip`, :meth:`drop`, :meth:`malformed`, :meth:`truncate`.
    """

    kind: str
    status: int = 200
    retry_after: float | None = None
    retry_after_ms: int | None = None
    delay: float = 0.0
    endless: bool = False

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, *, ms: int | None = None) -> Fault:
        """429 with ``Retry-After: <seconds>`` (or ``retry-after-ms`` when ``ms`` is given)."""
        return cls("rate_limit", status=429, retry_after=retry_after, retry_after_ms=ms)

    @classmethod
    def status_code(cls, status: int) -> Fault:
        """An error status with an OpenAI-style error body (500, 503, 400, 401, ...)."""
        return cls("status", status=status)

    @classmethod
    def quota(cls) -> Fault:
        """429 with error code ``insufficient_quota`` (never worth retrying)."""
        return cls("quota", status=429)

    @classmethod
    def slow(cls, delay: float) -> Fault:
        """Answer normally, but only after ``delay`` seconds (beyond a client's timeout)."""
        return cls("slow", delay=delay)

    @classmethod
    def drip(cls, interval: float = 1.0, *, endless: bool = False) -> Fault:
        """Send the headers at once, then the body one byte every ``interval`` seconds.

        Each byte comes well within a per-read timeout, so only a deadline on
        the whole attempt stops the wait. With ``endless`` the body never ends
        (it announces a huge length and drips spaces).
        """
        return cls("drip", delay=interval, endless=endless)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def malformed(cls) -> Fault:
        """200 with a body that is not valid JSON."""
        return cls("malformed")

    @classmethod
    def truncate(cls) -> Fault:
        """A reply cut in half with ``finish_reason: "length"``."""
        return cls("truncate")


@dataclass(frozen=True)
class BatchOutcome:
    """How the server's Batches endpoint ends one batch (batches take outcomes in order).

    Attributes:
        status: ``completed``, ``expired`` (partial output, the rest in the
            error file as ``batch_expired``), ``cancelled`` or ``failed``
            (validation failed: no files, ``errors`` set).
        polls: Retrieves that show the batch ``in_progress`` before it ends.
        answered: For ``expired``/``cancelled``: how many lines were answered
            (default: half).
        message: For ``failed``: the validation error.
    """

    status: str = "completed"
    polls: int = 1
    answered: int | None = None
    message: str = "the input file is not valid"


@dataclass
class LoggedRequest:
    """One request as the server saw it."""

    n: int
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    fault: str | None
    status: int
    raw: bytes = b""
    """The request body's bytes as received (empty when bodies are not logged)."""

    @property
    def prompt(self) -> str:
        """The last message's content (empty when there is none)."""
        msgs = (self.body or {}).get("messages") or []
        return str(msgs[-1].get("content", "")) if msgs else ""


def _words(text: str) -> int:
    return len(text.split())


@dataclass
class _Config:
    replies: Replies = None
    faults: Sequence[Fault | None] | FaultFn | None = None
    latency: float = 0.0
    reject_response_format: bool | int = False
    log_bodies: bool = True
    _reply_index: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)


class OpenAICompatServer:
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
        if not host.startswith("127.") and host not in ("localhost", "::1"):
            raise ValueError("the test server binds to loopback addresses only")
        self.config = _Config(
            replies=replies,
            faults=faults,
            latency=latency,
            reject_response_format=reject_response_format,
            log_bodies=log_bodies,
        )
        self.host = host
        self.port = port
        self.requests: list[LoggedRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._count = 0
        self.in_flight = 0
        self.max_in_flight = 0
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

    # -- configuration from tests -----------------------------------------
    def set_replies(self, replies: Replies) -> None:
        """Replace the reply script (and restart its position)."""
        with self.config._lock:
            self.config.replies = replies
            self.config._reply_index = 0

    def set_faults(self, faults: Sequence[Fault | None] | FaultFn | None) -> None:
        """Replace the fault script; list positions count from the next request."""
        with self.config._lock:
            self.config.faults = list(faults) if isinstance(faults, Sequence) else faults
            self._fault_base = self._count

    _fault_base = 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def completions(self) -> list[LoggedRequest]:
        """Logged chat-completion requests only."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> OpenAICompatServer:
        """Start serving in a background thread; returns self once listening."""
        self._ready.clear()  # a restart waits for its own server, not the previous one's signal
        self._thread = threading.Thread(target=self._run, name="openai-compat-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("test server did not start")
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> OpenAICompatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)

        async def boot() -> None:
            self._server = await asyncio.start_server(
                self._handle, self.host, self.port, backlog=1024
            )
            self.port = self._server.sockets[0].getsockname()[1]

        loop.run_until_complete(boot())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    # -- request handling ---------------------------------------------------
    def _pick_fault(self, n: int, body: dict[str, Any]) -> Fault | None:
        faults = self.config.faults
        if faults is None:
            return None
        if callable(faults):
            return faults(n, body)
        idx = n - self._fault_base
        return faults[idx] if 0 <= idx < len(faults) else None

    def _reply_text(self, body: dict[str, Any]) -> str:
        replies = self.config.replies
        if replies is None:
            return "OK"
        if callable(replies):
            return str(replies(body))
        if isinstance(replies, Mapping):
            msgs = body.get("messages") or []
            prompt = msgs[-1].get("content", "") if msgs else ""
            return str(replies.get(prompt, "OK"))
        with self.config._lock:
            if not replies:
                return "OK"
            i = min(self.config._reply_index, len(replies) - 1)
            self.config._reply_index += 1
            return str(replies[i])

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                parts = request_line.decode("latin-1").split()
                if len(parts) < 2:
                    break
                method, path = parts[0], parts[1]
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    keep = await self._respond(method, path, headers, raw, writer)
                finally:
                    self.in_flight -= 1
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            try:
                writer.close()
            except RuntimeError:
                pass

    async def _respond(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        n = self._count
        self._count += 1
        body: dict[str, Any] | None = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        entry = LoggedRequest(
            n=n,
            time=time.monotonic(),
            method=method,
            path=path,
            headers=headers,
            body=body if self.config.log_bodies else None,
            fault=None,
            status=200,
            raw=raw if self.config.log_bodies else b"",
        )
        self.requests.append(entry)
        try:
            if "/files" in path or "/batches" in path:
                return self._files_and_batches(entry, method, path, headers, raw, body, writer)
            return await self._answer(entry, method, path, body, writer)
        except ConnectionError:
            return False
        except Exception as exc:  # a reply or fault function of the test raised: say so
            entry.status = 500
            message = f"test server: {type(exc).__name__}: {exc}"
            try:
                self._write(writer, 500, _error_body(message, "server_error"))
            except (ConnectionError, RuntimeError):
                return False
            return True

    async def _answer(
        self,
        entry: LoggedRequest,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        n = entry.n
        if method == "GET" and path.rstrip("/").endswith("/models"):
            listing = {"object": "list", "data": [{"id": "test-model", "object": "model"}]}
            self._write(writer, 200, json.dumps(listing).encode())
            return True
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            entry.status = 404
            self._write(writer, 404, _error_body("not found", "not_found"))
            return True
        if body is None:
            entry.status = 400
            self._write(writer, 400, _error_body("request body is not JSON", "invalid_request"))
            return True
        fault = self._pick_fault(n, body)
        entry.fault = fault.kind if fault else None
        if self.config.latency:
            await asyncio.sleep(self.config.latency)
        if self.config.reject_response_format and "response_format" in body:
            status = (
                400
                if self.config.reject_response_format is True
                else int(self.config.reject_response_format)
            )
            entry.status = status
            self._write(
                writer,
                status,
                _error_body("response_format is not supported by this server", "invalid_request"),
            )
            return True
        if fault is not None:
            if fault.kind == "drop":
                entry.status = 0
                writer.transport.abort()
                return False
            if fault.kind == "rate_limit":
                extra: dict[str, str] = {}
                if fault.retry_after_ms is not None:
                    extra["retry-after-ms"] = str(fault.retry_after_ms)
                elif fault.retry_after is not None:
                    extra["Retry-After"] = f"{fault.retry_after:g}"
                entry.status = 429
                self._write(writer, 429, _error_body("rate limited", "rate_limit_exceeded"), extra)
                return True
            if fault.kind == "quota":
                entry.status = 429
                self._write(
                    writer, 429, _error_body("You exceeded your quota.", "insufficient_quota")
                )
                return True
            if fault.kind == "status":
                entry.status = fault.status
                self._write(writer, fault.status, _error_body(f"error {fault.status}", "server"))
                return True
            if fault.kind == "malformed":
                self._write(writer, 200, b'{"id": "chatcmpl-x", "object": "chat.completion", "choi')
                return True
            if fault.kind == "slow":
                await asyncio.sleep(fault.delay)
        payload = self._completion(n, body, fault)
        if fault is not None and fault.kind == "drip":
            return await self._drip(writer, json.dumps(payload).encode(), fault)
        self._write(writer, 200, json.dumps(payload).encode())
        return True

    def _completion(self, n: int, body: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
        """The chat completion answering ``body`` (the reply script; a truncate fault)."""
        text = self._reply_text(body)
        finish = "stop"
        if fault is not None and fault.kind == "truncate":
            text = text[: max(1, len(text) // 2)]
            finish = "length"
        prompt_words = sum(_words(str(m.get("content", ""))) for m in body.get("messages", []))
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": _words(text),
                "total_tokens": prompt_words + _words(text),
            },
        }
        return payload

    # -- Files and Batches (the OpenAI Batch API, as the SDK uses it) -------------
    def _files_and_batches(
        self,
        entry: LoggedRequest,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        body: dict[str, Any] | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        parts = [p for p in path.split("?")[0].split("/") if p]
        if parts and parts[0] == "v1":
            parts = parts[1:]
        status, payload = self._batch_route(method, parts, headers, raw, body)
        entry.status = status
        if isinstance(payload, bytes):
            self._write(writer, status, payload, content_type="application/octet-stream")
        else:
            self._write(writer, status, json.dumps(payload).encode())
        return True

    def _batch_route(
        self,
        method: str,
        parts: list[str],
        headers: dict[str, str],
        raw: bytes,
        body: dict[str, Any] | None,
    ) -> tuple[int, Any]:
        not_found = (404, json.loads(_error_body("not found", "not_found")))
        with self.config._lock:
            if parts == ["files"] and method == "POST":
                fields = _multipart(headers.get("content-type", ""), raw)
                if "file" not in fields:
                    return 400, json.loads(_error_body("no file in the upload", "invalid_request"))
                name, content = fields["file"]
                purpose = fields.get("purpose", ("", b"batch"))[1].decode()
                file_id = self._store_file(name or "upload.jsonl", purpose, content)
                return 200, _public(self.files[file_id])
            if len(parts) >= 2 and parts[0] == "files":
                record = self.files.get(parts[1])
                if record is None:
                    return not_found
                if len(parts) == 3 and parts[2] == "content":
                    return 200, record["content"]
                return 200, _public(record)
            if parts == ["batches"] and method == "POST":
                return self._create_batch(body or {})
            if parts == ["batches"] and method == "GET":
                data = [self._batch_view(b) for b in self.batches.values()]
                return 200, {"object": "list", "data": data, "has_more": False}
            if len(parts) >= 2 and parts[0] == "batches":
                batch = self.batches.get(parts[1])
                if batch is None:
                    return not_found
                if len(parts) == 3 and parts[2] == "cancel" and method == "POST":
                    if batch["status"] not in ("completed", "expired", "cancelled", "failed"):
                        batch["status"] = "cancelling"
                        batch["cancelling_at"] = int(time.time())
                    return 200, self._batch_view(batch)
                batch["retrieves"] += 1
                self._advance(batch)
                return 200, self._batch_view(batch)
        return not_found

    def _create_batch(self, body: dict[str, Any]) -> tuple[int, Any]:
        record = self.files.get(str(body.get("input_file_id")))
        if record is None:
            return 400, json.loads(_error_body("input_file_id not found", "invalid_request"))
        outcome = self.batch_outcomes.pop(0) if self.batch_outcomes else BatchOutcome()
        batch_id = f"batch_{len(self.batches) + 1}"
        lines = [json.loads(x) for x in record["content"].decode("utf-8").splitlines() if x.strip()]
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint"),
            "errors": None,
            "input_file_id": record["id"],
            "completion_window": body.get("completion_window"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
            "lines": lines,
            "outcome": outcome,
            "retrieves": 0,
        }
        if self.create_faults:
            status = self.create_faults.pop(0)
            return status, json.loads(_error_body(f"error {status} after creating", "server"))
        return 200, self._batch_view(self.batches[batch_id])

    def _advance(self, batch: dict[str, Any]) -> None:
        """Move a batch on by one retrieve; at its outcome's poll, write its result files."""
        status = batch["status"]
        if status in ("completed", "expired", "cancelled", "failed"):
            return
        outcome: BatchOutcome = batch["outcome"]
        if status == "cancelling":
            self._finalise(batch, "cancelled", outcome.answered or 0)
            return
        if batch["retrieves"] <= outcome.polls:
            batch["status"] = "in_progress"
            return
        if outcome.status == "failed":
            batch["status"] = "failed"
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid_request", "message": outcome.message, "line": None}],
            }
            return
        answered = len(batch["lines"]) if outcome.status == "completed" else outcome.answered
        if answered is None:
            answered = len(batch["lines"]) // 2
        self._finalise(batch, outcome.status, answered)

    def _store_file(self, filename: str, purpose: str, content: bytes) -> str:
        """Keep an uploaded or produced file; return its id."""
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "content": content,
        }
        return file_id

    def _finalise(self, batch: dict[str, Any], status: str, answered: int) -> None:
        output: list[str] = []
        errors: list[str] = []
        for i, line in enumerate(batch["lines"]):
            if i < answered:
                row, ok = self._answer_line(line)
            else:
                code = "batch_expired" if status == "expired" else "batch_cancelled"
                row = {
                    "id": f"batch_req_{i}",
                    "custom_id": line.get("custom_id"),
                    "response": None,
                    "error": {"code": code, "message": f"request not run: batch {status}"},
                }
                ok = False
            (output if ok else errors).append(json.dumps(row))
        if output:
            output[1:1] = self.output_garbage
        counts = batch["request_counts"]
        counts["completed"] = len(output)
        counts["failed"] = len(errors)
        for kind, rows in (("output_file_id", output), ("error_file_id", errors)):
            if rows:
                content = ("\n".join(rows) + "\n").encode()
                filename = f"{batch['id']}_{kind}.jsonl"
                batch[kind] = self._store_file(filename, "batch_output", content)
        batch["status"] = status
        batch[f"{status}_at"] = int(time.time())

    def _answer_line(
        self, line: dict[str, Any], *, shape: str = "openai"
    ) -> tuple[dict[str, Any], bool]:
        """One batch input line's result line (and whether it succeeded)."""
        n = self.batch_lines_answered
        self.batch_lines_answered += 1
        custom_id = str(line.get("custom_id"))
        body = line.get("body") or {}
        faults = self.line_faults
        fault = None
        if callable(faults):
            fault = faults(custom_id, body)
        elif faults is not None:
            fault = faults.get(custom_id)
        row: dict[str, Any] = {"id": f"batch_req_{n}", "custom_id": custom_id}
        if fault is not None and fault.kind in ("drop", "malformed"):
            row.update(response=None, error={"code": "server_error", "message": fault.kind})
            return row, False
        if fault is not None and fault.kind in ("status", "rate_limit", "quota"):
            code = "insufficient_quota" if fault.kind == "quota" else "server"
            error = json.loads(_error_body(f"error {fault.status}", code))
            row.update(
                response={"status_code": fault.status, "request_id": f"req_{n}", "body": error},
                error=None,
            )
            return row, False
        completion = self._completion(n, body, fault)
        if shape == "vllm":  # older vllm run-batch: the bare completion
            row.update(response=completion, error=None)
        else:
            row.update(
                response={"status_code": 200, "request_id": f"req_{n}", "body": completion},
                error=None,
            )
        return row, True

    def answer_batch_file(self, text: str, *, shape: str = "openai") -> str:
        """Answer a batch request file's text as ``vllm run-batch`` would: the result lines.

        Replies and line faults follow this server's scripts, as for its Batches
        endpoint; nothing is logged as a chat completion request. ``shape="vllm"``
        writes older vLLM's form (``response`` is the bare completion).
        """
        with self.config._lock:
            rows = [
                self._answer_line(json.loads(x), shape=shape)[0]
                for x in text.splitlines()
                if x.strip()
            ]
        return "".join(json.dumps(r) + "\n" for r in rows)

    @staticmethod
    def _batch_view(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if k not in ("lines", "outcome", "retrieves")}

    async def _drip(self, writer: asyncio.StreamWriter, payload: bytes, fault: Fault) -> bool:
        """Headers now, then one byte of the body per ``fault.delay`` seconds."""
        length = 10**12 if fault.endless else len(payload)
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: keep-alive\r\n\r\n"
        )
        writer.write(head.encode("latin-1"))
        await writer.drain()
        index = 0
        while fault.endless or index < len(payload):
            if writer.is_closing():
                return False
            await asyncio.sleep(fault.delay)
            writer.write(payload[index : index + 1] if index < len(payload) else b" ")
            index += 1
            await writer.drain()  # raises ConnectionError once the client has gone
        return not fault.endless

    @staticmethod
    def _write(
        writer: asyncio.StreamWriter,
        status: int,
        payload: bytes,
        extra_headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}.get(
            status, "Error"
        )
        head = [
            f"HTTP/1.1 {status} {reason}",
            f"Content-Type: {content_type}",
            f"Content-Length: {len(payload)}",
            "Connection: keep-alive",
        ]
        for k, v in (extra_headers or {}).items():
            head.append(f"{k}: {v}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "content"}


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, content)."""
    marker = "boundary="
    if marker not in content_type:
        return {}
    boundary = content_type.split(marker, 1)[1].split(";")[0].strip().strip('"').encode()
    fields: dict[str, tuple[str, bytes]] = {}
    for part in raw.split(b"--" + boundary):
        head, sep, content = part.partition(b"\r\n\r\n")
        if not sep:
            continue
        if content.endswith(b"\r\n"):
            content = content[:-2]
        disposition = head.decode("latin-1")
        name = _header_param(disposition, "name")
        if name:
            fields[name] = (_header_param(disposition, "filename") or "", content)
    return fields


def _header_param(header: str, key: str) -> str | None:
    for piece in header.replace("\r\n", ";").split(";"):
        k, sep, v = piece.strip().partition("=")
        if sep and k.strip() == key:
            return v.strip().strip('"')
    return None


def _error_body(message: str, code: str) -> bytes:
    return json.dumps(
        {"error": {"message": message, "type": code, "code": code, "param": None}}
    ).encode()


def random_faults(
    rate: float, seed: int, *, retry_after: float = 0.05, slow: float = 5.0
) -> FaultFn:
    """A fault function injecting each fault kind at random with a fixed seed.

    About ``rate`` of requests get a fault, spread over 429 (with Retry-After),
    500, 503, slow replies (``slow`` seconds), dropped connections, malformed
    bodies and truncated replies.
    """
    rng = random.Random(seed)
    lock = threading.Lock()
    kinds = [
        Fault.rate_limit(retry_after),
        Fault.status_code(500),
        Fault.status_code(503),
        Fault.slow(slow),
        Fault.drop(),
        Fault.malformed(),
        Fault.truncate(),
    ]

    def pick(n: int, body: dict[str, Any]) -> Fault | None:
        with lock:
            if rng.random() >= rate:
                return None
            return rng.choice(kinds)

    return pick


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
