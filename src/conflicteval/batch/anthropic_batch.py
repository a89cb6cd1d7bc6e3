"""Rounds against Anthropic's Message Batches API, beside the OpenAI Batch API.

A request file exported for an ``anthropic/<model>`` holds Message Batches lines
(``{"custom_id", "params"}``). :class:`BatchRunner` (this module's, a subclass of
the OpenAI one) sends such a file as one Message Batch (``POST /v1/messages/batches``
with the requests inline: there is no file upload), polls it until its
``processing_status`` is ``ended``, downloads ``results_url`` (JSON Lines) and
imports it with the same import as every result file (same vouching of replies:
``custom_id``, model, duplicates). Files of OpenAI's shape in the same export go to
the OpenAI Batch API as before.

No double billing: the intent (status ``creating`` and the time) is written to the
state file before the batch is asked for. A Message Batch carries no metadata to
find it again, so after a failed creation, or when a killed run resumes a job still
``creating``, the server's batch list is searched for a batch created since the
intent (10 minutes of clock difference allowed) with the job's number of requests
and not already known to the state file: exactly one is adopted; several stop the
run with their ids (cancel the extra ones; nothing is guessed).
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflicteval.batch import files as batchfile
from conflicteval.batch import openai_batch
from conflicteval.batch.state import BatchJob
from conflicteval.errors import ConflictEvalError
from conflicteval.models.anthropic_provider import DEFAULT_BASE_URL, anthropic_headers
from conflicteval.models.http_transport import parse_retry_after

__all__ = ["API", "BatchRunner", "LazyBatchClient", "MessageBatchesClient"]

API = "anthropic"
"""``BatchJob.api`` of a Message Batch."""

_SKEW = datetime.timedelta(minutes=10)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _when(text: Any) -> datetime.datetime | None:
    try:
        when = datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=datetime.timezone.utc)


class MessageBatchesClient:
    """The Message Batches endpoints over HTTP (httpx, a core dependency).

    Args:
        base_url: API root; default ``$ANTHROPIC_BASE_URL`` or Anthropic's.
        api_key: Default ``$ANTHROPIC_API_KEY`` (a placeholder for another base URL).

    Raises:
        ConflictEvalError: No key for Anthropic's own API.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        attempts: int = 4,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.attempts = attempts
        self.sleep = sleep
        self.base_url = (
            base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key and self.base_url == DEFAULT_BASE_URL:
            raise ConflictEvalError(
                "Anthropic's Message Batches API needs a key: set ANTHROPIC_API_KEY (or give "
                "the batch command's own --base-url URL for a proxy or test server)"
            )
        import httpx

        self._http = httpx.Client(headers=anthropic_headers(key or "no-key"), timeout=600.0)

    def _call(self, method: str, url: str, body: Any = None) -> Any:
        """One request; a GET (retrieve, list, results: nothing billed) is tried again on a
        lost connection, 429 or 5xx (529 overloaded), after the server's ``retry-after``."""
        for attempt in range(1, self.attempts + 1):
            try:
                return self._once(method, url, body)
            except MessageBatchesError as exc:
                again = exc.status is None or exc.status == 429 or exc.status >= 500
                if method != "GET" or not again or attempt == self.attempts:
                    raise
                wait = exc.retry_after if exc.retry_after is not None else 2.0**attempt
                self.sleep(min(wait, 60.0))
        raise AssertionError("unreachable")  # pragma: no cover

    def _once(self, method: str, url: str, body: Any) -> Any:
        import httpx

        try:
            resp = self._http.request(method, url, json=body)
        except httpx.HTTPError as exc:
            raise MessageBatchesError(f"{method} {url}: {exc}", status=None) from exc
        if resp.status_code >= 400:
            raise MessageBatchesError(
                f"{method} {url}: HTTP {resp.status_code}: {resp.text[:300]}",
                status=resp.status_code,
                retry_after=parse_retry_after(resp.headers),
            )
        return resp

    def create(self, requests: list[Any]) -> dict[str, Any]:
        """Create a Message Batch of ``requests`` (``custom_id`` + ``params`` each)."""
        return dict(
            self._call("POST", f"{self.base_url}/messages/batches", {"requests": requests}).json()
        )

    def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch ``batch_id``."""
        return dict(self._call("GET", f"{self.base_url}/messages/batches/{batch_id}").json())

    def list(self, pages: int = 10) -> list[dict[str, Any]]:
        """The newest batches (up to ``pages`` pages of 100)."""
        out: list[dict[str, Any]] = []
        after: str | None = None
        for _ in range(pages):
            url = f"{self.base_url}/messages/batches?limit=100"
            page = self._call("GET", url + (f"&after_id={after}" if after else "")).json()
            out += list(page.get("data") or [])
            if not page.get("has_more") or not page.get("last_id"):
                break
            after = page["last_id"]
        return out

    def results(self, url: str) -> bytes:
        """The results file (JSON Lines) at a batch's ``results_url``."""
        return bytes(self._call("GET", url).content)


class MessageBatchesError(ConflictEvalError):
    """A Message Batches call failed (``status``: the HTTP status, None: no reply)."""

    def __init__(
        self, message: str, *, status: int | None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class LazyBatchClient:
    """The clients of ``batch run``, each made on first use: the OpenAI one (``make_client``)
    for OpenAI request files, :attr:`messages` for Message Batches; one ``--base-url``."""

    def __init__(self, base_url: str | None = None, *, azure: bool = False) -> None:
        self.anthropic_base_url = base_url
        self.azure = azure  # the OpenAI-format client is Azure's (``make_client(azure=)``)
        self._openai: Any = None
        self._messages: MessageBatchesClient | None = None

    @property
    def messages(self) -> MessageBatchesClient:
        """The Message Batches client."""
        if self._messages is None:
            self._messages = MessageBatchesClient(self.anthropic_base_url)
        return self._messages

    def __getattr__(self, name: str) -> Any:  # files, batches, with_options: the OpenAI client's
        if name.startswith("_"):
            raise AttributeError(name)
        if self._openai is None:
            self._openai = openai_batch.make_client(self.anthropic_base_url, azure=self.azure)
        return getattr(self._openai, name)


def _is_message_batch_file(path: Path) -> bool:
    for line in batchfile.read_requests(path):
        return "params" in line and "body" not in line
    return False


class BatchRunner(openai_batch.BatchRunner):
    """:class:`~conflicteval.batch.openai_batch.BatchRunner` that also drives Message Batches.

    ``client`` is a :class:`LazyBatchClient` (or an OpenAI client, with Message
    Batches from ``$ANTHROPIC_BASE_URL`` / ``$ANTHROPIC_API_KEY``).
    """

    _messages: MessageBatchesClient | None = None

    @property
    def messages(self) -> MessageBatchesClient:
        """The Message Batches client."""
        found = getattr(self.client, "messages", None)
        if isinstance(found, MessageBatchesClient):
            return found
        if self._messages is None:
            self._messages = MessageBatchesClient()
        return self._messages

    def _create(self, job: BatchJob, path: Path) -> None:
        if job.api != API and not (path.exists() and _is_message_batch_file(path)):
            super()._create(job, path)
            return
        resumed = job.api == API and job.status == "creating"
        job.api = API
        if not job.intent_at:
            job.intent_at = _now().isoformat()
        job.status = "creating"  # the intent, on disk before the call
        self.state.save(self.export)
        batch = (
            self._existing_message_batch(job) if resumed else None
        ) or self._create_message_batch(job, path)
        job.id = str(batch["id"])
        job.status = str(batch.get("processing_status", "in_progress"))
        self.state.save(self.export)
        self._say(
            f"batch run: round {job.round}: submitted {job.file} ({job.requests} requests, "
            f"{job.model}) as Message Batch {job.id}"
        )

    def _existing_message_batch(self, job: BatchJob) -> dict[str, Any] | None:
        """The one batch created since the job's intent with its number of requests, if any."""
        since = _when(job.intent_at)
        known = {j.id for j in self.state.jobs if j.id}
        found = []
        for batch in self.messages.list():
            created = _when(batch.get("created_at"))
            total = sum(int(v or 0) for v in (batch.get("request_counts") or {}).values())
            if batch.get("id") in known or created is None or since is None:
                continue
            if created >= since - _SKEW and total == job.requests:
                found.append(batch)
        if len(found) > 1:
            ids = ", ".join(str(b.get("id")) for b in found)
            raise ConflictEvalError(
                f"batch run: {job.file} (round {job.round}) may have been created more than "
                f"once ({ids}); cancel the extra batches, then run 'batch run' again"
            )
        if found:
            self._say(f"batch run: {job.file} (round {job.round}) is already {found[0]['id']}")
            return found[0]
        return None

    def _create_message_batch(self, job: BatchJob, path: Path, attempts: int = 3) -> dict[str, Any]:
        requests = list(batchfile.read_requests(path))
        for attempt in range(1, attempts + 1):
            try:
                return self.messages.create(requests)
            except MessageBatchesError as exc:
                found = self._existing_message_batch(job)  # it may exist all the same
                if found is not None:
                    return found
                if attempt == attempts or (
                    exc.status is not None and exc.status < 500 and exc.status != 429
                ):
                    raise ConflictEvalError(
                        f"batch run: creating the Message Batch for {job.file} failed: {exc}"
                    ) from exc
                self.sleep(self.poll_interval * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def poll(self, job: BatchJob) -> None:
        """Retrieve a Message Batch until it has ended (an OpenAI batch: as before)."""
        if job.api != API:
            super().poll(job)
            return
        wait = self.poll_interval
        start = time.monotonic()
        while True:
            batch = self.messages.retrieve(str(job.id))
            read_message_batch_status(job, batch)
            self.state.save(self.export)
            elapsed = int(time.monotonic() - start)
            self._say(
                f"Message Batch {job.id} ({job.file}): {job.status}, {job.completed}/"
                f"{job.requests} succeeded, {job.failed} not, {elapsed // 60}m{elapsed % 60:02d}s"
            )
            if job.status == "ended":
                return
            self.sleep(wait)
            wait = min(wait * self.backoff, self.max_poll_interval)

    def collect(self, job: BatchJob) -> int:
        """Download an ended Message Batch's results and import them."""
        if job.api != API:
            return super().collect(job)
        folder = batchfile.results_dir(self.export)
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        if job.output_file_id:  # the results_url
            target = batchfile.result_file(self.export, str(job.id), "output")
            openai_batch._write_bytes_atomically(target, self.messages.results(job.output_file_id))
            files.append(target)
        if job.errors:
            self._say(
                f"Message Batch {job.id}: {'; '.join(job.errors)}: importing what succeeded; "
                "what is missing is exported again"
            )
        usable: bool = self._import(job, files).usable
        return usable


def read_message_batch_status(job: BatchJob, batch: dict[str, Any]) -> None:
    """Copy a retrieved Message Batch's status, counts and ``results_url`` to ``job``."""
    job.status = str(batch.get("processing_status", job.status))
    counts = batch.get("request_counts") or {}
    job.completed = int(counts.get("succeeded", 0) or 0)
    job.failed = sum(int(counts.get(k, 0) or 0) for k in ("errored", "canceled", "expired"))
    job.requests = (
        job.completed + job.failed + int(counts.get("processing", 0) or 0) or job.requests
    )
    job.output_file_id = batch.get("results_url") or None
    job.errors = [f"{counts[k]} {k}" for k in ("errored", "canceled", "expired") if counts.get(k)]
