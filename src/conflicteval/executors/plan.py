"""A model call as data, and the observers that account for calls or export them.

A :class:`CallRequest` is one call a workflow needs: the exact JSON body the
online path would send (the provider builds it with the same code it sends
with) and its cache key, which is also its ``custom_id`` in a batch file. An
executor answers requests by filling the response cache under those keys; the
workflow then runs again and replays every answer from the cache, so a
workflow never knows which executor ran.

:class:`CallLedger` counts the calls of a run per model (sent online, served
from the cache, served by a batch import) with their tokens and estimated
cost. :class:`BatchExport` is a ledger that, in addition, turns every cache
miss into a recorded request and a :class:`~conflicteval.errors.PendingCall`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval import pricing
from conflicteval.errors import ConflictEvalError, PendingCall
from conflicteval.models.base import ProviderRequest
from conflicteval.models.observe import observe_calls
from conflicteval.types import Usage

if TYPE_CHECKING:
    from conflicteval.executors.batchfile import ExportResult
    from conflicteval.models.core import Model

CHAT_URL = "/v1/chat/completions"


@dataclass(frozen=True)
class CallRequest:
    """One model call as data.

    Attributes:
        custom_id: The call's cache key (sha256 hex): where its answer is stored.
        model: The model's spec name (``openai/gpt-4o-mini``), the cache's model column.
        body: The chat completions request body, exactly as the online path sends it.
        url: The endpoint path of the request.
    """

    custom_id: str
    model: str
    body: dict[str, Any]
    url: str = CHAT_URL

    def to_line(self) -> dict[str, Any]:
        """The OpenAI Batch API (and ``vllm run-batch``) input line."""
        return {"custom_id": self.custom_id, "method": "POST", "url": self.url, "body": self.body}


def call_request(model: Model, key: str, request: ProviderRequest) -> CallRequest:
    """The :class:`CallRequest` of one call of ``model`` (built by its provider).

    Raises:
        ConflictEvalError: The provider cannot write its requests as data.
    """
    build = getattr(model.provider, "request_body", None)
    if build is None:
        raise ConflictEvalError(
            f"{model.name}: this provider cannot write batch requests "
            "(batch files are for OpenAI-compatible models, 'openai/<model>')"
        )
    return CallRequest(custom_id=key, model=model.name, body=build(request))


@dataclass
class ModelCalls:
    """One model's calls in a run, by how they were answered."""

    online: Usage = field(default_factory=Usage)
    cached: Usage = field(default_factory=Usage)
    batch: Usage = field(default_factory=Usage)
    exported: int = 0


class CallLedger:
    """Counts every model call made inside ``with ledger:``, per model, with cost.

    Args:
        batch_ids: Cache keys known to have been answered by a batch (from
            export manifests); a cache hit on one counts as served by batch.
    """

    def __init__(self, batch_ids: Iterable[str] = ()) -> None:
        self.batch_ids = set(batch_ids)
        self.models: dict[str, ModelCalls] = {}
        self._lock = threading.Lock()
        self._scope: observe_calls | None = None

    # -- the observer protocol ---------------------------------------------
    def _entry(self, model: Model) -> ModelCalls:
        entry = self.models.get(model.name)
        if entry is None:
            entry = self.models.setdefault(model.name, ModelCalls())
        return entry

    def on_cached(self, model: Model, key: str, usage: Usage) -> None:
        """Count a cache hit (as a batch answer when its key came from a batch)."""
        with self._lock:
            entry = self._entry(model)
            (entry.batch if key in self.batch_ids else entry.cached).add(usage)

    def on_missing(self, model: Model, key: str | None, request: ProviderRequest) -> None:
        """A ledger lets every call through."""

    def on_called(self, model: Model, key: str | None, usage: Usage) -> None:
        """Count a call the server answered."""
        with self._lock:
            self._entry(model).online.add(usage)

    # -- scope --------------------------------------------------------------
    def __enter__(self) -> CallLedger:
        self._scope = observe_calls(self)
        self._scope.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._scope is not None:
            self._scope.__exit__(exc_type, exc, tb)
            self._scope = None

    # -- reporting ------------------------------------------------------------
    def cost_lines(self) -> list[str]:
        """Per model: calls online / by batch / from cache, tokens and estimated cost."""
        lines: list[str] = []
        priced = False
        for name, entry in sorted(self.models.items()):
            parts = []
            price = pricing.lookup(name)
            for label, usage, batch in (
                ("online", entry.online, False),
                ("by batch", entry.batch, True),
            ):
                if not usage.calls:
                    continue
                text = (
                    f"{usage.calls} {label} ({usage.prompt_tokens} prompt + "
                    f"{usage.completion_tokens} completion tokens"
                )
                if price is not None:
                    priced = True
                    cost = price.cost(usage.prompt_tokens, usage.completion_tokens, batch=batch)
                    text += f", est. {pricing.format_usd(cost)}"
                    if batch:
                        online = price.cost(usage.prompt_tokens, usage.completion_tokens)
                        text += f" at batch rates; {pricing.format_usd(online)} online"
                parts.append(text + ")")
            if entry.cached.calls:
                parts.append(f"{entry.cached.calls} from cache (no cost)")
            if entry.exported:
                parts.append(f"{entry.exported} exported for batch")
            if not parts:
                continue
            lines.append(f"{name}: " + "; ".join(parts))
            if price is None and (entry.online.calls or entry.batch.calls or entry.exported):
                lines.append(f"note: {pricing.missing_note(name)}")
        if priced:
            lines.append(f"cost: {pricing.source_note()}")
        return lines


class BatchExport(CallLedger):
    """Batch export mode: cache misses become batch requests instead of calls.

    Inside ``with BatchExport(path) as exp:`` every model call the cache cannot
    answer is recorded (once per ``custom_id``) and raises
    :class:`~conflicteval.errors.PendingCall`; the runner counts the item as
    pending. Each request line is written as it is made (an
    :class:`~conflicteval.executors.batchwriter.ExportWriter`: split by the
    Batch API's limits, one model per file); on leaving the block the files
    take their names and the manifest is written beside them; :attr:`result`
    says what was written.

    Args:
        path: The request file (JSONL). Larger exports are written as numbered
            files beside it (``requests.001.jsonl``, ...).
        max_requests: Requests per file (the Batch API's limit: 50,000).
        max_bytes: Bytes per file (the Batch API's limit: 200 MB).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_requests: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        from conflicteval.executors import batchfile

        self.path = Path(path)
        super().__init__(batchfile.known_ids(self.path))
        self.max_requests = max_requests or batchfile.MAX_REQUESTS
        self.max_bytes = max_bytes or batchfile.MAX_BYTES
        # each request line goes to disk as it is made (memory flat in the requests)
        self.writer = batchfile.ExportWriter(
            self.path, max_requests=self.max_requests, max_bytes=self.max_bytes
        )
        self.problem: str | None = None
        self.result: ExportResult | None = None

    def on_missing(self, model: Model, key: str | None, request: ProviderRequest) -> None:
        """Record the request and stop the call with :class:`PendingCall`."""
        if key is None:
            self.problem = (
                f"{model.name} has no response cache, so batch results could not be replayed; "
                "run without --no-cache (cache=False) to export batch requests"
            )
            raise PendingCall("-", model.name)
        with self._lock:
            if key not in self.writer:
                try:
                    self.writer.add(call_request(model, key, request))
                except ConflictEvalError as exc:
                    # not an item's failure (which the checkpoint would keep): the export's
                    self.problem = str(exc)
                    raise PendingCall(key, model.name) from None
                self._entry(model).exported += 1
        raise PendingCall(key, model.name)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        super().__exit__(exc_type, exc, tb)
        if exc_type is None or (isinstance(exc_type, type) and issubclass(exc_type, PendingCall)):
            self.write()
        else:
            self.writer.abort()

    def write(self) -> ExportResult:
        """Name the written request files and write the manifest; done on leaving the block."""
        if self.problem is not None:
            self.writer.abort()
            raise ConflictEvalError(self.problem)
        self.result = self.writer.close()
        return self.result


def batch_export(
    path: str | os.PathLike[str],
    *,
    max_requests: int | None = None,
    max_bytes: int | None = None,
) -> BatchExport:
    """Run workflows inside ``with batch_export("requests.jsonl") as exp:`` to export their calls.

    Calls the cache answers are replayed as usual; every other call is written
    to the request file and its item left pending. Import the results with
    :func:`conflicteval.executors.batchfile.import_results` and run again.
    """
    return BatchExport(path, max_requests=max_requests, max_bytes=max_bytes)


def track_calls(batch_ids: Iterable[str] = ()) -> CallLedger:
    """``with track_calls() as ledger:`` counts calls per model; ``ledger.cost_lines()``."""
    return CallLedger(batch_ids)
