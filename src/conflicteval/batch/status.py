"""Where a batch run stands (``conflicteval batch status``): export rounds, batches and how
many of the exported calls the cache answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.batch import files as batchfile
from conflicteval.batch.openai_batch import _read_status
from conflicteval.batch.state import BatchState
from conflicteval.cache import ResponseCache

__all__ = ["status_lines"]


def status_lines(export: Path, cache: ResponseCache | None, client: Any | None = None) -> list[str]:
    """Where a batch run stands: rounds, batches, and how many exported calls are answered."""
    export = Path(export)
    entries = batchfile.read_manifest(batchfile.manifest_path(export))
    state = BatchState.load(export)
    if client is not None:
        for job in state.active():
            if job.id and job.api != "anthropic":  # Message Batches: see 'batch run'
                _read_status(job, client.batches.retrieve(job.id))
    lines = [f"batch export {export}"]
    if not entries:
        lines.append("  nothing exported yet")
        return lines
    ids = {e.custom_id for e in entries}
    rounds = max(e.round for e in entries)
    lines.append(f"  {rounds} export round(s), {len(ids)} distinct requests")
    for r in range(1, rounds + 1):
        n = sum(1 for e in entries if e.round == r)
        lines.append(f"    round {r}: {n} requests")
    if cache is not None:
        answered = sum(1 for i in ids if cache.contains(i))
        lines.append(
            f"  answered in the cache: {answered} of {len(ids)}; missing: {len(ids) - answered}"
        )
    for job in state.jobs:
        where = job.id or job.input_file_id or "not submitted"
        done = "imported" if job.imported else "waiting"
        extra = f"; {job.imported_replies} replies imported" if job.imported else ""
        lines.append(
            f"  batch {where} (round {job.round}, {job.file}): {job.status}, "
            f"{job.completed}/{job.requests} done, {job.failed} failed, {done}{extra}"
        )
    last, files = batchfile.latest_round(export)
    waiting = [f for f in files if f.exists()]
    submitted = {j.file for j in state.jobs if j.round == last}
    unsent = [f.name for f in waiting if f.name not in submitted]
    round_ids = {e.custom_id for e in entries if e.round == last}
    if unsent and cache is not None and all(cache.contains(i) for i in round_ids):
        # answered another way (vllm run-batch, a hand-made result file + batch import)
        lines.append(
            f"  round {last} is answered in the cache (imported): run the command again to continue"
        )
    elif unsent:
        lines.append(
            f"  round {last} files not submitted by 'batch run' and not yet imported: "
            f"{', '.join(unsent)}"
        )
    return lines
