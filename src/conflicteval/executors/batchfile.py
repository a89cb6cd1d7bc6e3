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
one line per exported request: ``custom_id``, ``model``, ``file``, ``round``),
which tells an import which ids the library asked for and for which model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_open
from conflicteval.cache import ResponseCache
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.executors.plan import CallRequest
from conflicteval.models.openai_provider import _content_text

MAX_REQUESTS = 50_000
"""Requests per batch input file (OpenAI Batch API limit)."""

MAX_BYTES = 200_000_000
"""Bytes per batch input file (OpenAI Batch API limit: 200 MB)."""


# --------------------------------------------------------------------------- paths


def manifest_path(export: str | os.PathLike[str]) -> Path:
    """``requests.jsonl`` → ``requests.manifest.jsonl`` (beside it)."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.manifest.jsonl")


def state_path(export: str | os.PathLike[str]) -> Path:
    """``requests.jsonl`` → ``requests.batches.json`` (``batch run``'s state)."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.batches.json")


def results_dir(export: str | os.PathLike[str]) -> Path:
    """Where ``batch run`` keeps downloaded result files: ``requests.results/``."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.results")


def _stem(p: Path) -> str:
    return p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.stem


def _part_path(export: Path, index: int) -> Path:
    return export.with_name(f"{_stem(export)}.{index:03d}.jsonl")


def _stale_parts(export: Path) -> list[Path]:
    stem = _stem(export)
    out = [export] if export.exists() else []
    for p in export.parent.glob(f"{stem}.[0-9][0-9][0-9].jsonl"):
        out.append(p)
    return out


# --------------------------------------------------------------------------- manifest


@dataclass(frozen=True)
class ManifestEntry:
    """One exported request."""

    custom_id: str
    model: str
    file: str
    round: int


def read_manifest(path: str | os.PathLike[str]) -> list[ManifestEntry]:
    """The entries of a manifest file (missing file: none).

    Raises:
        DataError: A line is not a manifest entry (names file and line).
    """
    p = Path(path)
    if not p.exists():
        return []
    entries = []
    with p.open("r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                entries.append(
                    ManifestEntry(
                        str(row["custom_id"]),
                        str(row["model"]),
                        str(row["file"]),
                        int(row["round"]),
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                raise DataError(p, lineno, None, f"not a manifest entry: {exc}") from exc
    return entries


def known_ids(export: str | os.PathLike[str]) -> set[str]:
    """The custom ids ever exported to ``export`` (from its manifest)."""
    return {e.custom_id for e in read_manifest(manifest_path(export))}


def latest_round(export: str | os.PathLike[str]) -> tuple[int, list[Path]]:
    """The last export round of ``export`` and the request files it wrote."""
    entries = read_manifest(manifest_path(export))
    if not entries:
        return 0, []
    last = max(e.round for e in entries)
    names: list[str] = []
    for e in entries:
        if e.round == last and e.file not in names:
            names.append(e.file)
    base = Path(export).parent
    return last, [base / n for n in names]


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
                {"custom_id": r.custom_id, "model": r.model, "file": target.name, "round": round_no}
            )
            + "\n"
            for r in reqs
        )
    with manifest_path(export).open("a", encoding="utf-8") as fh:
        fh.writelines(manifest_lines)
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


# --------------------------------------------------------------------------- import


@dataclass
class ParsedResult:
    """One result line: a cache value, or the reason it failed."""

    custom_id: str
    value: dict[str, Any] | None = None
    reason: str | None = None


def _reason_of_error(error: Any) -> str:
    if isinstance(error, dict):
        code = error.get("code") or error.get("type") or "error"
        message = error.get("message") or ""
        return f"{code}: {message}".rstrip(": ")
    return str(error)


def parse_result(row: Any, where: tuple[Path, int]) -> ParsedResult:
    """Read one result line (OpenAI's shape, or older vLLM's bare completion).

    Raises:
        DataError: The line is not a result line at all (names file and line).
    """
    path, lineno = where
    if not isinstance(row, dict):
        raise DataError(path, lineno, None, "a result line must be a JSON object")
    custom_id = row.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise DataError(path, lineno, "custom_id", "missing or not a string")
    error = row.get("error")
    response = row.get("response")
    if error:
        return ParsedResult(custom_id, reason=_reason_of_error(error))
    if response is None:
        return ParsedResult(custom_id, reason="no response and no error")
    if not isinstance(response, dict):
        raise DataError(path, lineno, "response", "must be an object")
    if "choices" in response and "status_code" not in response:
        body: Any = response  # vLLM's older shape: the bare chat completion
    else:
        status = response.get("status_code", 200)
        body = response.get("body")
        if status != 200:
            detail = body.get("error") if isinstance(body, dict) else body
            return ParsedResult(custom_id, reason=f"HTTP {status}: {_reason_of_error(detail)}")
        if isinstance(body, str):  # a body sent as text
            try:
                body = json.loads(body)
            except ValueError:
                return ParsedResult(custom_id, reason="malformed response: body is not JSON")
    if not isinstance(body, dict):
        return ParsedResult(custom_id, reason="malformed response: no body")
    try:
        choice = body["choices"][0]
        text = _content_text(choice["message"].get("content"))
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return ParsedResult(custom_id, reason="malformed response: no choices")
    if not text.strip():
        return ParsedResult(custom_id, reason=f"empty completion (finish_reason={finish})")
    usage = body.get("usage") or {}
    # exactly the value the online path stores (models/core.py), so replay is identical.
    # A reply cut off by max_tokens is stored too, unlike online (which asks again in a
    # later run): otherwise an export would ask for it again, and get it again, forever.
    value = {
        "text": text,
        "finish_reason": finish,
        "prompt_tokens": int(usage.get("prompt_tokens") or 0),
        "completion_tokens": int(usage.get("completion_tokens") or 0),
    }
    return ParsedResult(custom_id, value=value)


@dataclass
class ImportReport:
    """What an import did."""

    files: list[Path] = field(default_factory=list)
    lines: int = 0
    imported: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    failed_examples: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    imported_ids: set[str] = field(default_factory=set)
    cut_off: int = 0
    """Replies cut off by ``max_tokens`` (``finish_reason`` "length"), stored all the same."""

    @property
    def n_failed(self) -> int:
        """Failed lines (not cached; the next export asks for them again)."""
        return sum(self.failed.values())

    def add(self, other: ImportReport) -> None:
        """Merge another report into this one."""
        self.files += other.files
        self.lines += other.lines
        self.imported += other.imported
        for k, v in other.failed.items():
            self.failed[k] = self.failed.get(k, 0) + v
            self.failed_examples.setdefault(k, other.failed_examples[k])
        self.unknown += other.unknown
        self.imported_ids |= other.imported_ids
        self.cut_off += other.cut_off

    def summary(self) -> str:
        """Human-readable lines: counts, the commonest failure reasons, unknown ids."""
        lines = [
            f"batch import: {self.lines} result lines from {len(self.files)} file"
            f"{'s' if len(self.files) != 1 else ''}: {self.imported} replies cached, "
            f"{self.n_failed} failed, {len(self.unknown)} unknown"
        ]
        for reason, n in sorted(self.failed.items(), key=lambda kv: -kv[1])[:5]:
            lines.append(f"  {n} failed: {reason[:160]} (e.g. {self.failed_examples[reason][:16]})")
        if self.cut_off:
            lines.append(
                f"  {self.cut_off} replies were cut off by max_tokens (finish_reason 'length'); "
                "stored so that the run can finish (the online path does not keep them for "
                "later runs): raise max_tokens to ask again"
            )
        if self.failed:
            lines.append("  failed requests are not cached: the next export asks for them again")
        if self.unknown:
            shown = ", ".join(u[:16] for u in self.unknown[:3])
            lines.append(
                f"  {len(self.unknown)} custom_id(s) match no exported request and were ignored "
                f"(e.g. {shown})"
            )
        return "\n".join(lines)


def _iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        fh = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise ConflictEvalError(f"{path}: cannot read: {exc}") from exc
    with fh:
        try:
            yield from enumerate(fh, start=1)
        except UnicodeDecodeError as exc:
            raise DataError(path, None, None, f"not UTF-8 text: {exc}") from exc


def import_results(
    files: Iterable[str | os.PathLike[str]],
    cache: ResponseCache,
    manifests: Iterable[str | os.PathLike[str]],
) -> ImportReport:
    """Store the successful replies of batch result files in ``cache``.

    Args:
        files: Result files (OpenAI output or error files, or vLLM results).
        cache: The response cache the workflow reads.
        manifests: Manifest files (or request files, whose manifest is used)
            naming every request the library exported.

    Returns:
        The report: replies cached, failed lines with reasons, unknown ids.

    Raises:
        DataError: A line is not JSON or not a result line (file and line named).
        ConflictEvalError: No manifest lists any request.
    """
    models: dict[str, str] = {}
    for m in manifests:
        mp = Path(m)
        if not mp.name.endswith(".manifest.jsonl"):
            mp = manifest_path(mp)
        if not mp.exists():
            raise ConflictEvalError(f"{mp}: no such manifest (the export writes it)")
        for e in read_manifest(mp):
            models[e.custom_id] = e.model
    if not models:
        raise ConflictEvalError("the manifests list no exported request")
    report = ImportReport()
    for f in files:
        path = Path(f)
        report.files.append(path)
        rows: list[tuple[str, str, dict[str, Any]]] = []
        for lineno, line in _iter_lines(path):
            if not line.strip():
                continue
            report.lines += 1
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise DataError(path, lineno, None, f"not JSON: {exc}") from exc
            parsed = parse_result(row, (path, lineno))
            model = models.get(parsed.custom_id)
            if model is None:
                report.unknown.append(parsed.custom_id)
                continue
            if parsed.value is None:
                reason = parsed.reason or "failed"
                report.failed[reason] = report.failed.get(reason, 0) + 1
                report.failed_examples.setdefault(reason, parsed.custom_id)
                continue
            rows.append((parsed.custom_id, model, parsed.value))
            report.imported_ids.add(parsed.custom_id)
            report.cut_off += parsed.value["finish_reason"] == "length"
        cache.put_many(rows)
        report.imported += len(rows)
    return report


def find_manifests(files: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every manifest in the folders of ``files`` (used when no ``--export`` is given)."""
    found: list[Path] = []
    for f in files:
        for m in sorted(Path(f).resolve().parent.glob("*.manifest.jsonl")):
            if m not in found:
                found.append(m)
    return found
