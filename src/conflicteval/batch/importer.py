"""Reading batch result files into the response cache (``batch import``).

A result line (OpenAI's shape)::

    {"id": "batch_req_...", "custom_id": "<cache key>",
     "response": {"status_code": 200, "request_id": "...", "body": {...chat completion...}},
     "error": null}

Older vLLM versions write ``"response"`` as the bare chat completion; both are
read, and so are Anthropic's Message Batches result lines (``custom_id`` and
``result``: see :mod:`~conflicteval.batch.anthropic_results`).

A reply is trusted only when its ``custom_id`` names an exported request
(the manifest), it is the first good reply for that id, the cache does not
answer that request already, and the body names the requested model. A line
that does not say its ``status_code`` (OpenAI's shape), names a ``model`` that is
no string, or has no ``usage`` token counts is a failed line with that reason,
never cached as a good reply.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflicteval._diskindex import IdSet
from conflicteval.batch.anthropic_results import is_message_batch_result, message_of_result
from conflicteval.batch.progress import failure_digest
from conflicteval.batch.requests import ExportedRequests as _Requests
from conflicteval.cache import ResponseCache
from conflicteval.cache_values import stored_value
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.models.anthropic_wire import read_message_json
from conflicteval.models.base import ProviderError, ProviderResponse
from conflicteval.models.completion_body import completion_from_body


@dataclass
class ParsedResult:
    """One result line: a cache value, or the reason it failed."""

    custom_id: str
    value: dict[str, Any] | None = None
    reason: str | None = None
    served_model: str | None = None
    """The ``model`` the result body names (None: it names none)."""


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
    if is_message_batch_result(row):
        return _message_batch_result(custom_id, row)
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
        if "status_code" not in response:  # never read as a 200: the line says nothing of it
            return ParsedResult(custom_id, reason="malformed response: no status_code")
        status = response["status_code"]
        body = response.get("body")
        if isinstance(status, bool) or not isinstance(status, int):
            shown = json.dumps(status)[:20]
            return ParsedResult(
                custom_id, reason=f"malformed response: status_code is not a number ({shown})"
            )
        if status != 200:
            detail = body.get("error") if isinstance(body, dict) else body
            return ParsedResult(custom_id, reason=f"HTTP {status}: {_reason_of_error(detail)}")
        if isinstance(body, str):  # a body sent as text
            try:
                body = json.loads(body)
            except ValueError:
                return ParsedResult(custom_id, reason="malformed response: body is not JSON")
    return _from_body(custom_id, body)


def _from_body(custom_id: str, body: Any) -> ParsedResult:
    """A 200 line's chat-completion body, read by the online reader (completion_from_body).

    The import adds only what the line's envelope decides: an empty reply is a failure
    (online: a failed call), and a ``model`` that is no string could escape the served
    model's check, so it fails the line.
    """
    if body is None:
        return ParsedResult(custom_id, reason="malformed response: no body")
    try:
        reply = completion_from_body(body)
    except ProviderError as exc:
        return ParsedResult(custom_id, reason=str(exc))
    return _checked(custom_id, reply, body.get("model"))


def _checked(custom_id: str, reply: ProviderResponse, served: Any) -> ParsedResult:
    """A reply read from a result line's body, refused when empty or naming no model string."""
    if not reply.text.strip():
        return ParsedResult(
            custom_id, reason=f"empty completion (finish_reason={reply.finish_reason})"
        )
    if served is not None and not isinstance(served, str):  # would escape the model check
        shown = json.dumps(served)[:20]
        return ParsedResult(
            custom_id, reason=f"malformed response: model is not a string ({shown})"
        )
    # exactly the value the online path stores (models/core.py), so replay is identical.
    # A reply cut off by max_tokens is stored too, unlike online (which asks again in a
    # later run): otherwise an export would ask for it again, and get it again, forever.
    return ParsedResult(custom_id, value=stored_value(reply), served_model=served)


def _message_batch_result(custom_id: str, row: dict[str, Any]) -> ParsedResult:
    """A Message Batches (Anthropic) line: its envelope, then the online reader's verdict."""
    message, reason = message_of_result(row["result"])
    if reason is not None:
        return ParsedResult(custom_id, reason=reason)
    try:
        reply = read_message_json(message)
    except ProviderError as exc:
        return ParsedResult(custom_id, reason=str(exc))
    return _checked(custom_id, reply, message.get("model"))


@dataclass
class ImportReport:
    """What an import did (every result line is counted in exactly one way)."""

    files: list[Path] = field(default_factory=list)
    lines: int = 0
    imported: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    failed_examples: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    imported_ids: IdSet = field(default_factory=IdSet)
    """The requests this import stored (a set on disk: memory flat in the requests)."""
    cut_off: int = 0
    """Replies cut off by ``max_tokens`` (``finish_reason`` "length"), stored all the same."""
    bad_lines: list[str] = field(default_factory=list)
    """Lines that are not result lines at all (``file, row N: why``); the rest is imported."""
    duplicates: int = 0
    """Further lines for a ``custom_id`` already answered in these files (first good one wins)."""
    already_cached: int = 0
    """Good replies for requests the cache already answers (kept; not overwritten)."""
    mismatched: dict[str, int] = field(default_factory=dict)
    """``served -> requested`` model name pairs of refused replies, with counts."""
    failure_digest: int = 0
    """Order-independent digest of the failed (request, reason) pairs (rounds compare it)."""

    @property
    def n_failed(self) -> int:
        """Failed lines (not cached; the next export asks for them again)."""
        return sum(self.failed.values())

    @property
    def usable(self) -> int:
        """Requests these files answer that the cache now holds (imported or already there)."""
        return self.imported + self.already_cached

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
        self.bad_lines += other.bad_lines
        self.duplicates += other.duplicates
        self.already_cached += other.already_cached
        for k, v in other.mismatched.items():
            self.mismatched[k] = self.mismatched.get(k, 0) + v
        self.failure_digest = (self.failure_digest + other.failure_digest) % (1 << 64)

    def _fail(self, reason: str, custom_id: str) -> None:
        self.failed[reason] = self.failed.get(reason, 0) + 1
        self.failed_examples.setdefault(reason, custom_id)
        self.failure_digest = (self.failure_digest + failure_digest(custom_id, reason)) % (1 << 64)

    def summary(self) -> str:
        """Human-readable lines: counts, the commonest failure reasons, unknown ids."""
        lines = [
            f"batch import: {self.lines} result lines from {len(self.files)} file"
            f"{'s' if len(self.files) != 1 else ''}: {self.imported} replies cached, "
            f"{self.n_failed} failed, {len(self.unknown)} unknown"
            + (f", {len(self.bad_lines)} unreadable" if self.bad_lines else "")
            + (f", {self.duplicates} duplicate" if self.duplicates else "")
            + (f", {self.already_cached} already cached" if self.already_cached else "")
            + (f", {sum(self.mismatched.values())} from another model" if self.mismatched else "")
        ]
        for reason, n in sorted(self.failed.items(), key=lambda kv: -kv[1])[:5]:
            lines.append(f"  {n} failed: {reason[:160]} (e.g. {self.failed_examples[reason][:16]})")
        lines += self._notes()
        return "\n".join(lines)

    def _notes(self) -> list[str]:
        lines = []
        if self.bad_lines:
            lines.append(
                f"  {len(self.bad_lines)} line(s) are not result lines and were skipped "
                "(the other lines were imported): " + "; ".join(self.bad_lines[:3])
            )
        if self.duplicates:
            lines.append(
                f"  {self.duplicates} line(s) repeat a custom_id answered earlier in these files: "
                "the first good reply was kept, the others ignored"
            )
        if self.already_cached:
            lines.append(
                f"  {self.already_cached} reply(ies) answer requests the cache already holds: "
                "the cached replies were kept"
            )
        for pair, n in sorted(self.mismatched.items()):
            served, requested = pair.split(" -> ", 1)
            lines.append(
                f"  {n} reply(ies) refused: the result names model {served!r}, the request asked "
                f"for {requested!r}; if the server serves that model under another name, say so "
                f"with --served-model {served}"
            )
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
        return lines


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise ConflictEvalError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with fh:
        yield from enumerate(fh, start=1)


def _read_line(raw: bytes, path: Path, lineno: int) -> ParsedResult:
    """One result line, parsed. Raises DataError (file and row named) for a line that is none."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, lineno, None, f"not UTF-8 text ({exc.reason})") from exc
    try:
        row = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DataError(path, lineno, None, f"not JSON: {str(exc)[:80]}") from exc
    return parse_result(row, (path, lineno))


def _model_matches(served: str | None, requested: str, accepted: frozenset[str]) -> bool:
    """Whether a reply naming ``served`` answers a request for ``requested``.

    Equal names match, and so does a dated snapshot of the requested name
    (``gpt-4o-mini`` answered by ``gpt-4o-mini-2024-07-18``, as OpenAI reports it, or
    ``claude-sonnet-4-5`` by ``claude-sonnet-4-5-20250929``, as Anthropic reports it);
    a reply naming no model is accepted. ``accepted`` are names the user vouched for.
    """
    if served is None or served == requested or served in accepted:
        return True
    return re.fullmatch(re.escape(requested) + r"-(\d{4}-\d{2}-\d{2}|\d{8})", served) is not None


STORE_BATCH = 2_000
"""Replies written to the cache per SQLite transaction while a file is read."""


def import_results(
    files: Iterable[str | os.PathLike[str]],
    cache: ResponseCache,
    manifests: Iterable[str | os.PathLike[str]],
    *,
    served_models: Iterable[str] = (),
) -> ImportReport:
    """Store the successful replies of batch result files in ``cache``.

    Every line is counted once: cached, failed, unknown id, unreadable (not a
    result line: skipped, the rest is imported), duplicate (a further line for
    an id answered earlier in these files: the first good reply wins), already
    cached (kept, never overwritten) or from another model (the body's
    ``model`` is not the requested one: refused unless named in ``served_models``).

    The files are read line by line and good replies are written to the cache
    as they come, :data:`STORE_BATCH` to a transaction, so memory does not grow
    with the number of lines, nor with the requests: the manifests' requests and
    what the lines said of each (to count every line once) are kept in a scratch
    index on disk.

    Args:
        files: Result files (OpenAI output or error files, or vLLM results).
        cache: The response cache the workflow reads.
        manifests: Manifest files (or request files, whose manifest is used)
            naming every request the library exported.
        served_models: Model names the server reports for the requested models
            (a server started with another ``--served-model-name``).

    Returns:
        The report.

    Raises:
        ConflictEvalError: No manifest lists any request; a result file cannot be
            read; the cache cannot be written (read-only or switched off).
    """
    requests = _Requests(manifests)
    try:
        report = ImportReport()
        store = _Store(report, cache)
        for f in files:
            path = Path(f)
            report.files.append(path)
            _import_file(path, requests, store, frozenset(served_models))
        store.flush()
        for custom_id, reason, answered in requests.failures():
            if answered:
                report.duplicates += 1  # a failed line for a request another line answered
            else:
                report._fail(reason, custom_id)
        store.finish()
    finally:
        requests.close()
    return report


def _import_file(path: Path, requests: _Requests, store: _Store, accepted: frozenset[str]) -> None:
    """Read one result file line by line, counting each line once in ``store.report``."""
    report = store.report
    for lineno, raw in _iter_lines(path):
        if not raw.strip():
            continue
        report.lines += 1
        try:
            parsed = _read_line(raw, path, lineno)
        except DataError as exc:
            report.bad_lines.append(str(exc))
            continue
        entry = requests.get(parsed.custom_id)
        if entry is None:
            report.unknown.append(parsed.custom_id)
        elif entry[2] & _Requests.CHOSEN:
            report.duplicates += 1
        elif parsed.value is None:
            if entry[2] & _Requests.FAILED:
                report.duplicates += 1
            else:
                requests.fail(parsed.custom_id, parsed.reason or "failed")
        elif not _model_matches(parsed.served_model, entry[1], accepted):
            pair = f"{parsed.served_model} -> {entry[1]}"
            report.mismatched[pair] = report.mismatched.get(pair, 0) + 1
        else:
            requests.mark(parsed.custom_id, _Requests.CHOSEN)
            store.add(parsed.custom_id, entry[0], parsed.value)


class _Store:
    """Writes chosen replies to the cache in transactions of :data:`STORE_BATCH`.

    A request the cache already answers keeps its reply (counted as already
    cached). A cache that cannot be written stores nothing, and the import then
    fails naming how many replies could not be stored.
    """

    def __init__(self, report: ImportReport, cache: ResponseCache) -> None:
        self.report = report
        self.cache = cache
        self.rows: list[tuple[str, str, dict[str, Any]]] = []
        self.refused = 0  # replies the cache could not take

    def add(self, custom_id: str, model: str, value: dict[str, Any]) -> None:
        self.rows.append((custom_id, model, value))
        if len(self.rows) >= STORE_BATCH:
            self.flush()

    def flush(self) -> None:
        report, cache = self.report, self.cache
        rows = []
        for custom_id, model, value in self.rows:
            if cache.peek(custom_id) is not None:
                report.already_cached += 1
                continue
            rows.append((custom_id, model, value))
        self.rows = []
        if not rows:
            return
        stored = cache.put_many(rows) if cache.mode == "read-write" and not self.refused else 0
        if stored == 0:
            self.refused += len(rows)
            return
        report.imported_ids.update(custom_id for custom_id, _, _ in rows)
        for _, _, value in rows:
            report.cut_off += value["finish_reason"] == "length"
        report.imported += stored

    def finish(self) -> None:
        if self.refused:
            cache = self.cache
            state = cache.mode if cache.mode != "read-write" else "not writable"
            if self.report.imported:  # a cache that failed part-way (a full disk)
                what = f"{self.refused} of the replies could not be stored"
            else:
                what = f"none of the {self.refused} replies could be stored"
            raise ConflictEvalError(
                f"{cache.path}: the response cache is {state}; {what} (give a writable --cache-dir)"
            )


def find_manifests(files: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every manifest in the folders of ``files`` (used when no ``--export`` is given)."""
    found: list[Path] = []
    for f in files:
        for m in sorted(Path(f).resolve().parent.glob("*.manifest.jsonl")):
            if m not in found:
                found.append(m)
    return found
