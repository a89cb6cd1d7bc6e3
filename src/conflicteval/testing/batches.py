"""The test server's Files and Batches endpoints (the OpenAI Batch API, as the SDK uses it).

Upload, file content, create / retrieve / list / cancel batch. Each request line is
answered from the same reply script as chat completions, with per-line faults and
scripted batch outcomes (completed, expired, cancelled, failed).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conflicteval.testing.chat import ChatCompletionsServer
from conflicteval.testing.faults import Fault
from conflicteval.testing.http_plumbing import LoggedRequest, _error_body


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
class CreateHold:
    """Hold the next ``count`` batch creations until :attr:`release` is set (a slow create).

    The server has received such a create (``arrived`` is set) but makes its batch only
    once released, as a provider that queues creations: a client that looks in the
    batch list meanwhile finds nothing.
    """

    count: int = 1
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    async def wait(self) -> None:
        """Wait here when this creation is held (in the server's loop, not blocking it)."""
        if self.count <= 0:
            return
        self.count -= 1
        self.arrived.set()
        await asyncio.to_thread(self.release.wait, 120)


class FilesAndBatchesServer(ChatCompletionsServer):
    """The Files and Batches endpoints on top of the chat completions they answer from."""

    create_hold: CreateHold | None = None
    """Set to hold batch creations (see :class:`CreateHold`)."""

    batch_outcomes: list[BatchOutcome]
    line_faults: Mapping[str, Fault] | Callable[[str, dict[str, Any]], Fault | None] | None
    files: dict[str, dict[str, Any]]
    batches: dict[str, dict[str, Any]]
    batch_lines_answered: int
    create_faults: list[int]
    output_garbage: list[str]

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
        refused = self.refusal(body)
        if refused is not None:  # the real API's 400 for a request it refuses, per line
            row.update(
                response={"status_code": 400, "request_id": f"req_{n}", "body": refused},
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
