"""Batch files: writing request files, reading result files into the response cache.

The format is the OpenAI Batch API's, which ``vllm run-batch`` reads and writes
too. A request line::

    {"custom_id": "<cache key>", "method": "POST", "url": "/v1/chat/completions",
     "body": {...the exact online request body...}}

A result line (OpenAI's shape)::

    {"id": "batch_req_...", "custom_id": "<cache key>",
     "response": {"status_code": 200, "request_id": "...", "body": {...chat completion...}},
     "error": null}

Older vLLM versions write ``"response"`` as the bare chat completion; both are
read. Next to every request file lives its manifest (``<stem>.manifest.jsonl``,
one line per exported request: ``custom_id``, ``model``, ``request_model``,
``file``, ``round``), which tells an import which ids the library asked for and
for which model. The manifest and paths live in
:mod:`~conflicteval.batch.manifest`, the import in
:mod:`~conflicteval.batch.importer`; both are re-exported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.batch.importer import (
    ImportReport,
    ParsedResult,
    find_manifests,
    import_results,
    parse_result,
)
from conflicteval.batch.manifest import (
    ManifestEntry,
    iter_manifest,
    known_ids,
    latest_round,
    manifest_path,
    read_manifest,
    result_file,
    results_dir,
    state_path,
)
from conflicteval.batch.writer import (
    MAX_BYTES,
    MAX_REQUESTS,
    ExportFile,
    ExportResult,
    ExportWriter,
    encode_request,
)
from conflicteval.errors import ConflictEvalError, DataError

if TYPE_CHECKING:
    from conflicteval.models.call import CallRequest

__all__ = [
    "MAX_BYTES",
    "MAX_REQUESTS",
    "ExportFile",
    "ExportResult",
    "ExportWriter",
    "ImportReport",
    "ManifestEntry",
    "ParsedResult",
    "find_manifests",
    "import_results",
    "iter_manifest",
    "known_ids",
    "latest_round",
    "manifest_path",
    "parse_result",
    "read_manifest",
    "read_requests",
    "result_file",
    "results_dir",
    "split_requests",
    "state_path",
    "write_requests",
]

# --------------------------------------------------------------------------- export


_encode = encode_request


def split_requests(
    requests: Sequence[CallRequest], *, max_requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES
) -> list[tuple[str, list[bytes], list[CallRequest]]]:
    """Group requests by model (the body's ``model``) and split by count and size limits."""
    by_model: dict[str, list[tuple[bytes, CallRequest]]] = {}
    for req in requests:
        by_model.setdefault(str(req.body.get("model", req.model)), []).append((_encode(req), req))
    chunks: list[tuple[str, list[bytes], list[CallRequest]]] = []
    for model, rows in by_model.items():
        lines: list[bytes] = []
        reqs: list[CallRequest] = []
        size = 0
        for line, req in rows:
            if len(line) > max_bytes:
                raise ConflictEvalError(
                    f"one request is {len(line)} bytes, more than a batch file may hold "
                    f"({max_bytes} bytes)"
                )
            if lines and (len(lines) >= max_requests or size + len(line) > max_bytes):
                chunks.append((model, lines, reqs))
                lines, reqs, size = [], [], 0
            lines.append(line)
            reqs.append(req)
            size += len(line)
        if lines:
            chunks.append((model, lines, reqs))
    return chunks


def write_requests(
    path: str | os.PathLike[str],
    requests: Iterable[CallRequest],
    *,
    max_requests: int = MAX_REQUESTS,
    max_bytes: int = MAX_BYTES,
) -> ExportResult:
    """Write one export round: request files (atomically) and manifest entries.

    One file is written at ``path`` when everything fits in one file for one
    model, else numbered files beside it. Request files of the previous round
    are removed, so the files on disk are always exactly what is still
    missing; the manifest keeps every round's ids. The requests are written one
    at a time as they come (an :class:`ExportWriter`), so ``requests`` may be a
    generator: memory does not grow with their number.
    """
    writer = ExportWriter(path, max_requests=max_requests, max_bytes=max_bytes)
    try:
        for request in requests:
            writer.add(request)
    except BaseException:
        writer.abort()
        raise
    return writer.close()


def read_requests(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The request lines of a request file (for tests, ``batch status`` and tools)."""
    p = Path(path)
    with p.open("r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError as exc:
                    raise DataError(p, lineno, None, f"not JSON: {exc}") from exc
