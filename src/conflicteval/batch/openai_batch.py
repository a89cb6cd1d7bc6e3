"""Rounds against the OpenAI Batch API: export, upload, create, poll, download, import, repeat.

:class:`BatchRunner` drives one workflow command to completion: it runs the
command in batch export mode; while the command ends with requests pending
(exit status 3), it uploads the request files, creates one batch per file
(24 h window), polls with backoff, downloads the output and error files,
imports them into the response cache and runs the command again. Multi-stage
workflows export their next stage on the next run; the last run is answered
entirely from the cache.

Every batch is written to a state file (``<stem>.batches.json`` beside the
request file) as soon as it exists, so a killed ``batch run`` resumes polling
the same batches instead of paying for them twice. An expired or cancelled
batch's partial output is imported; the next run exports, and the next
round submits, only what is still missing.

A batch is not created twice: ``batch run`` holds a lock on the export for
its whole run (a second ``batch run`` on it stops at once), records its intent
in the state file before asking the server to create a batch, asks without the
SDK's automatic retries, and before every creation (and after a failed one)
looks in the server's batch list for a batch of the same file, round and
content (the metadata it sends) and adopts it instead. A restart that finds a
create in flight keeps looking for :data:`CREATE_GRACE` seconds before it
creates, and then says plainly that a duplicate is possible and how to cancel it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from conflicteval._filelock import lock_exclusive
from conflicteval.batch import files as batchfile
from conflicteval.batch.progress import RoundFailures, carries_schema, stalled_line
from conflicteval.batch.state import BatchJob, BatchState
from conflicteval.cache import ResponseCache
from conflicteval.errors import ConflictEvalError
from conflicteval.exitcodes import EXIT_PENDING
from conflicteval.models.call import CHAT_URL

__all__ = [
    "BatchJob",
    "BatchRunner",
    "BatchState",
    "batch_endpoint",
    "export_lock",
    "make_client",
]

TERMINAL = frozenset({"completed", "expired", "cancelled", "failed"})
COMPLETION_WINDOW = "24h"
CREATE_GRACE = 120.0
"""Seconds a restarted run looks for the batch of a create that was in flight before creating."""


def make_client(
    base_url: str | None = None, api_key: str | None = None, *, azure: bool = False
) -> Any:
    """An ``openai.OpenAI`` client for the Files and Batches endpoints (``azure``: an
    ``openai.AzureOpenAI`` one for an Azure OpenAI resource, whose routes are
    ``/openai/files`` and ``/openai/batches`` with ``api-version`` and the ``api-key`` header).

    Raises:
        ConflictEvalError: No key for OpenAI's API (``OPENAI_API_KEY``) or for Azure
            (``AZURE_OPENAI_API_KEY``), or no Azure resource URL.
    """
    import openai

    if azure:
        from conflicteval.models.azure_provider import (
            MISSING_AZURE_KEY,
            MISSING_ENDPOINT,
            azure_settings,
        )

        endpoint, azure_key, version = azure_settings(base_url, api_key)
        if endpoint is None:
            raise ConflictEvalError(f"batch run: {MISSING_ENDPOINT}")
        if not azure_key:
            raise ConflictEvalError(f"batch run: {MISSING_AZURE_KEY}")
        return openai.AzureOpenAI(
            azure_endpoint=endpoint.removesuffix("/openai"),
            api_key=azure_key,
            api_version=version,
            max_retries=3,
        )
    url = base_url or os.environ.get("OPENAI_BASE_URL")
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        if not url:
            raise ConflictEvalError(
                "the OpenAI Batch API needs a key: set OPENAI_API_KEY (or give the batch "
                "command's own --base-url URL for a compatible server; with 'batch run', "
                "before the '--')"
            )
        key = "no-key"
    return openai.OpenAI(api_key=key, base_url=url, max_retries=3)


def batch_endpoint(client: Any) -> str:
    """The chat completions endpoint a batch of ``client``'s server names (Azure's has no
    ``/v1``: its batch lines carry ``"url": "/chat/completions"``)."""
    import openai

    if isinstance(client, openai.AzureOpenAI):
        from conflicteval.models.azure_provider import AZURE_BATCH_URL

        return AZURE_BATCH_URL
    return CHAT_URL


class BatchRunner:
    """Run a command in rounds until it completes from the cache.

    Args:
        client: An ``openai.OpenAI`` client.
        export: The request file the command exports to (``--batch-export``).
        cache: The response cache the command reads.
        run_command: Runs the command once and returns its exit status.
        poll_interval: First wait between two polls (seconds).
        max_poll_interval: Longest wait between two polls.
        backoff: Factor by which the wait grows after every poll.
        max_rounds: Stop after this many submitted rounds.
        sleep: The sleep function (tests pass a fast one).
        out: Where progress lines go.
        served_models: Model names the server reports for the requested models
            (see :func:`~conflicteval.batch.importer.import_results`).
        create_grace: After a restart whose state shows a create in flight, how long
            (seconds) to keep looking for its batch before creating one.
    """

    def __init__(
        self,
        client: Any,
        export: Path,
        cache: ResponseCache,
        run_command: Callable[[], int],
        *,
        poll_interval: float = 15.0,
        max_poll_interval: float = 300.0,
        backoff: float = 1.5,
        max_rounds: int = 20,
        sleep: Callable[[float], None] = time.sleep,
        out: TextIO | None = None,
        served_models: tuple[str, ...] = (),
        create_grace: float = CREATE_GRACE,
    ) -> None:
        self.client = client
        self.create_grace = create_grace
        self.export = Path(export)
        self.cache = cache
        self.run_command = run_command
        self.poll_interval = poll_interval
        self.max_poll_interval = max_poll_interval
        self.backoff = backoff
        self.max_rounds = max_rounds
        self.sleep = sleep
        self.out = out if out is not None else sys.stderr
        self.served_models = served_models
        self.state = BatchState.load(self.export)
        self.failures = RoundFailures()
        """The failed lines of the round being collected."""
        self._previous: RoundFailures | None = None

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # -- the loop -------------------------------------------------------------
    def run(self) -> int:
        """Rounds until the command ends without pending requests; returns its exit status.

        Raises:
            ConflictEvalError: Another ``batch run`` holds the export's lock.
        """
        with export_lock(self.export):
            self.state = BatchState.load(self.export)  # as the lock holder left it
            return self._rounds()

    def _rounds(self) -> int:
        rounds = 0
        while True:
            active = self.state.active()
            if active:
                self.failures = RoundFailures()
                replies = self.finish(active)
                stalled = self._stalled(replies)
                if stalled:
                    self._say(stalled)
                    return 1
            rc = self.run_command()
            if rc != EXIT_PENDING:
                return rc
            if rounds >= self.max_rounds:
                self._say(f"batch run: still pending after {rounds} rounds; stopping")
                return EXIT_PENDING
            rounds += 1
            if not self.submit():
                self._say("batch run: the command is pending but exported no request file")
                return EXIT_PENDING

    def _stalled(self, replies: int) -> str | None:
        """The line that stops the rounds when the last one made no progress, else None.

        No progress: no usable reply, or the same requests failing the same way as in
        the round before (a server refusing a request shape fails them every round).
        """
        previous, self._previous = self._previous, self.failures
        repeated = self.failures.same_as(previous)
        if replies and not repeated:
            return None
        _, files = batchfile.latest_round(self.export)
        schema = bool(self.failures.count) and carries_schema(files)
        return stalled_line(self.failures, repeated=repeated, schema=schema)

    def submit(self) -> list[BatchJob]:
        """Upload the latest round's request files and create one batch per file."""
        round_no, files = batchfile.latest_round(self.export)
        jobs = []
        for path in files:
            if not path.exists():
                continue
            job = BatchJob(file=path.name, round=round_no, sha256=_file_sha256(path))
            lines = list(batchfile.read_requests(path))
            job.requests = len(lines)
            body = (lines[0].get("body") or lines[0].get("params") or {}) if lines else {}
            job.model = str(body.get("model", ""))  # "params": a Message Batches line
            self.state.jobs.append(job)
            self._create(job, path)
            jobs.append(job)
        return jobs

    def _create(self, job: BatchJob, path: Path) -> None:
        if not job.sha256 and path.exists():
            job.sha256 = _file_sha256(path)
        if job.input_file_id is None:
            with path.open("rb") as fh:
                uploaded = self.client.files.create(file=fh, purpose="batch")
            job.input_file_id = uploaded.id
        # A create an earlier run had in flight (its intent on disk, no batch id) may be one
        # the server has not processed yet: look until it shows, within a grace period.
        in_flight = job.status == "creating"
        job.status = "creating"  # the intent, on disk before the call
        self.state.save(self.export)
        batch = (
            self._existing(job)
            or (self._wait_for_create(job) if in_flight else None)
            or self._create_once(job)
        )
        job.id = batch.id
        job.status = batch.status
        self.state.save(self.export)  # at once: a killed run resumes this batch
        self._say(
            f"batch run: round {job.round}: submitted {job.file} ({job.requests} requests, "
            f"{job.model}) as {job.id}"
        )

    def _metadata(self, job: BatchJob) -> dict[str, str]:
        return {
            "conflicteval_file": job.file,
            "conflicteval_round": str(job.round),
            "conflicteval_sha256": job.sha256,
        }

    def _existing(self, job: BatchJob) -> Any:
        """A batch the server already has for this file, round and content (None: none)."""
        wanted = self._metadata(job)
        try:
            for n, batch in enumerate(self.client.batches.list(limit=100)):
                if n >= 1000:
                    break
                meta = getattr(batch, "metadata", None) or {}
                same = all(meta.get(k) == v for k, v in wanted.items()) or (
                    not meta  # a provider that keeps no metadata: the uploaded file says it
                    and job.input_file_id is not None
                    and getattr(batch, "input_file_id", None) == job.input_file_id
                )
                if same and batch.status != "failed":
                    self._say(f"batch run: {job.file} (round {job.round}) is already {batch.id}")
                    return batch
        except Exception as exc:
            self._say(f"batch run: could not list existing batches ({type(exc).__name__})")
        return None

    def _wait_for_create(self, job: BatchJob) -> Any:
        """Look again for the batch of a create an earlier run had in flight, for a while.

        A provider may process a create after the client that sent it has gone (a queued
        or slow create); creating at once would then bill a second batch. The batch list
        is read again every ``max(1 s, poll interval)`` up to :attr:`create_grace`
        seconds (counted in the waits asked of ``sleep``); the batch is adopted when it
        shows. After that the create goes ahead, with a plain warning that a duplicate is
        possible and how to find and cancel it.
        """
        grace = self.create_grace
        step = max(1.0, min(self.poll_interval, 15.0))
        self._say(
            f"batch run: the last run was creating the batch for {job.file} (round {job.round}) "
            f"when it stopped and the server shows none yet; looking again for up to {grace:g}s "
            "before creating one"
        )
        waited = 0.0
        while waited < grace:
            self.sleep(step)
            waited += step
            found = self._existing(job)
            if found is not None:
                return found
        self._say(
            f"batch run: no batch for {job.file} (round {job.round}) appeared within {grace:g}s; "
            "creating one now. If the earlier create is still processed, there will be TWO "
            "batches for this file and both are billed: look in the provider's batch list for "
            f"metadata conflicteval_file={job.file}, conflicteval_round={job.round} (input file "
            f"{job.input_file_id}) and cancel the one whose id 'conflicteval batch status' does "
            "not show (OpenAI: POST /v1/batches/<id>/cancel, or openai.OpenAI().batches.cancel)"
        )
        return None

    def _create_once(self, job: BatchJob, attempts: int = 3) -> Any:
        """Create the batch without the SDK's retries; after a failure, look before retrying."""
        import openai

        client = self.client.with_options(max_retries=0)
        for attempt in range(1, attempts + 1):
            try:
                return client.batches.create(
                    input_file_id=job.input_file_id,
                    endpoint=batch_endpoint(self.client),
                    completion_window=COMPLETION_WINDOW,
                    metadata=self._metadata(job),
                )
            except (openai.APIStatusError, openai.APIConnectionError) as exc:
                found = self._existing(job)  # the server may have created it all the same
                if found is not None:
                    return found
                if attempt == attempts or (
                    isinstance(exc, openai.APIStatusError) and exc.status_code < 500
                ):
                    raise ConflictEvalError(
                        f"batch run: creating the batch for {job.file} failed: {exc}"
                    ) from exc
                self.sleep(self.poll_interval * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def finish(self, jobs: list[BatchJob]) -> int:
        """Poll ``jobs`` to their end, download and import; returns the usable replies."""
        replies = 0
        for job in jobs:
            if job.id is None:  # uploaded, but the run was killed before the batch existed
                self._create(job, self.export.with_name(job.file))
            self.poll(job)
            replies += self.collect(job)
        return replies

    def poll(self, job: BatchJob) -> None:
        """Retrieve the batch until it ends, with growing waits and a progress line."""
        wait = self.poll_interval
        start = time.monotonic()
        while True:
            batch = self.client.batches.retrieve(job.id)
            self._update(job, batch)
            elapsed = int(time.monotonic() - start)
            self._say(
                f"batch {job.id} ({job.file}): {job.status}, {job.completed}/{job.requests} done, "
                f"{job.failed} failed, {elapsed // 60}m{elapsed % 60:02d}s"
            )
            if job.status in TERMINAL:
                return
            self.sleep(wait)
            wait = min(wait * self.backoff, self.max_poll_interval)

    def _update(self, job: BatchJob, batch: Any) -> None:
        counts = _read_status(job, batch)
        if counts is not None:
            job.requests = int(getattr(counts, "total", 0) or job.requests)
        job.output_file_id = getattr(batch, "output_file_id", None)
        job.error_file_id = getattr(batch, "error_file_id", None)
        errors = getattr(batch, "errors", None)
        data = getattr(errors, "data", None) if errors is not None else None
        if data:
            job.errors = [f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in data]
        self.state.save(self.export)

    def collect(self, job: BatchJob) -> int:
        """Download a finished batch's output and error files and import them."""
        folder = batchfile.results_dir(self.export)
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for kind, file_id in (("output", job.output_file_id), ("errors", job.error_file_id)):
            if not file_id:
                continue
            target = batchfile.result_file(self.export, str(job.id), kind)
            content = self.client.files.content(file_id)
            _write_bytes_atomically(target, content.content)
            files.append(target)
        if job.status == "failed":
            self._say(f"batch {job.id} failed: " + ("; ".join(job.errors) or "no reason given"))
        if job.status in ("expired", "cancelled"):
            self._say(
                f"batch {job.id} {job.status}: importing its partial output; what is missing "
                "is exported again"
            )
        report = self._import(job, files)
        self.failures.add(report.n_failed, report.failure_digest, report.failed)
        return report.usable

    def _import(self, job: BatchJob, files: list[Path]) -> Any:
        """Import a batch's downloaded files into the cache; the job is imported (and saved)."""
        report = batchfile.import_results(
            files,
            self.cache,
            [batchfile.manifest_path(self.export)],
            served_models=self.served_models,
        )
        if files:
            self._say(report.summary())
        job.imported = True
        job.imported_replies = report.imported
        self.state.save(self.export)
        return report


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _write_bytes_atomically(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def export_lock(export: Path) -> Iterator[None]:
    """Hold ``<stem>.lock`` beside ``export`` (an advisory ``flock``) for a ``batch run``.

    Raises:
        ConflictEvalError: Another process (or ``batch run``) holds it.
    """
    path = batchfile.state_path(export).with_suffix(".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+", encoding="utf-8") as fh:  # closing it releases the lock
        lock_exclusive(
            fh.fileno(),
            f"{export}: another 'batch run' is working on this export (lock {path}); "
            "wait for it to finish, or stop it, before starting another",
        )
        yield


def _read_status(job: BatchJob, batch: Any) -> Any:
    """Copy a retrieved batch's status and done/failed counts to ``job``; return its counts."""
    job.status = str(batch.status)
    counts = getattr(batch, "request_counts", None)
    if counts is not None:
        job.completed = int(getattr(counts, "completed", 0) or 0)
        job.failed = int(getattr(counts, "failed", 0) or 0)
    return counts
