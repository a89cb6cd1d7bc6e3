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
:mod:`~conflicteval.executors.batchmanifest`, the import in
:mod:`~conflicteval.executors.batchimport`; both are re-exported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval._atomic import atomic_open
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.executors.batchimport import (
    ImportReport,
    ParsedResult,
    find_manifests,
    import_results,
    parse_result,
)
from conflicteval.executors.batchmanifest import (
    ManifestEntry,
    _append_manifest,
    _part_path,
    _stale_parts,
    known_ids,
    latest_round,
    manifest_path,
    read_manifest,
    result_file,
    results_dir,
    state_path,
)

if TYPE_CHECKING:
    from conflicteval.models.call import CallRequest

__all__ = [
    "MAX_BYTES",
    "MAX_REQUESTS",
    "ExportFile",
    "ExportResult",
    "ImportReport",
    "ManifestEntry",
    "ParsedResult",
    "find_manifests",
    "import_results",
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

MAX_REQUESTS = 50_000
"""Requests per batch input file (OpenAI Batch API limit)."""

MAX_BYTES = 200_000_000
"""Bytes per batch input file (OpenAI Batch API limit: 200 MB)."""


# --------------------------------------------------------------------------- export


@dataclass
class ExportFile:
    """One request file written by an export."""

    path: Path
    model: str
    requests: int
    bytes: int


@dataclass
class ExportResult:
    """What an export wrote."""

    path: Path
    round: int
    requests: int
    files: list[ExportFile] = field(default_factory=list)

    def summary(self) -> str:
        """Human-readable lines."""
        if not self.requests:
            return f"batch export: nothing to export to {self.path}: every call is answered"
        lines = [
            f"batch export (round {self.round}): {self.requests} requests in "
            f"{len(self.files)} file{'s' if len(self.files) != 1 else ''}"
        ]
        for f in self.files:
            lines.append(f"  {f.path} ({f.model}, {f.requests} requests, {f.bytes} bytes)")
        return "\n".join(lines)


def _encode(request: CallRequest) -> bytes:
    return (json.dumps(request.to_line(), ensure_ascii=False) + "\n").encode("utf-8")


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
    requests: Sequence[CallRequest],
    *,
    max_requests: int = MAX_REQUESTS,
    max_bytes: int = MAX_BYTES,
) -> ExportResult:
    """Write one export round: request files (atomically) and manifest entries.

    One file is written at ``path`` when everything fits in one file for one
    model, else numbered files beside it. Request files of the previous round
    are removed first, so the files on disk are always exactly what is still
    missing; the manifest keeps every round's ids.
    """
    export = Path(path)
    export.parent.mkdir(parents=True, exist_ok=True)
    for stale in _stale_parts(export):
        stale.unlink()
    if not requests:
        return ExportResult(path=export, round=0, requests=0)
    round_no = max((e.round for e in read_manifest(manifest_path(export))), default=0) + 1
    result = ExportResult(path=export, round=round_no, requests=len(requests))
    chunks = split_requests(requests, max_requests=max_requests, max_bytes=max_bytes)
    manifest_lines: list[str] = []
    for index, (model, lines, reqs) in enumerate(chunks, start=1):
        target = export if len(chunks) == 1 else _part_path(export, index)
        with atomic_open(target) as fh:  # a request file is whole, or not there
            fh.write(b"".join(lines).decode("utf-8"))
        result.files.append(ExportFile(target, model, len(lines), sum(len(x) for x in lines)))
        manifest_lines.extend(
            json.dumps(
                {
                    "custom_id": r.custom_id,
                    "model": r.model,
                    "request_model": str(r.body.get("model", "")),
                    "file": target.name,
                    "round": round_no,
                }
            )
            + "\n"
            for r in reqs
        )
    _append_manifest(manifest_path(export), manifest_lines)
    return result


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
