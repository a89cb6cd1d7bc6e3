"""``batch run``'s state file (``<stem>.batches.json`` beside the request file).

Every batch ``batch run`` created is written here as soon as it exists, so a killed run
resumes polling the same batches. The file is read back field by field: a state edited by
hand (a job that is not an object, a round that is not a number, an unknown field) is a
:class:`~conflicteval.errors.DataError` naming the file, the job and the field.
"""

from __future__ import annotations

import json
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_write_text
from conflicteval.batch import files as batchfile
from conflicteval.errors import DataError
from conflicteval.readers import require_field

__all__ = ["BatchJob", "BatchState"]


@dataclass
class BatchJob:
    """One submitted request file."""

    file: str
    round: int
    model: str = ""
    requests: int = 0
    input_file_id: str | None = None
    id: str | None = None
    status: str = "new"
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    imported: bool = False
    imported_replies: int = 0
    errors: list[str] = field(default_factory=list)
    sha256: str = ""
    """sha256 of the request file's bytes (sent as metadata, to find the batch again)."""
    api: str = ""
    """The batch API: "" for OpenAI's Batch API, ``anthropic`` for Message Batches."""
    intent_at: str = ""
    """When a Message Batch was first asked for (ISO 8601, UTC): to find it again."""


@dataclass
class BatchState:
    """``batch run``'s state: every batch it created, for resuming and ``batch status``."""

    export: str
    jobs: list[BatchJob] = field(default_factory=list)

    @classmethod
    def load(cls, export: Path) -> BatchState:
        """Read the state beside ``export`` (a fresh state when there is none)."""
        path = batchfile.state_path(export)
        if not path.exists():
            return cls(export=str(export))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deep
            raise DataError(path, None, None, f"not a batch state file: {exc}") from None
        if not isinstance(data, dict):
            raise DataError(path, None, None, "not a batch state file: not a JSON object")
        export_name = require_field(path, None, data, "export", str)
        jobs = require_field(path, None, data, "jobs", list)
        return cls(export=export_name, jobs=[_job(j, path, n) for n, j in enumerate(jobs, 1)])

    def save(self, export: Path) -> None:
        """Write the state atomically."""
        atomic_write_text(  # fsynced: a killed run must find every batch it created
            batchfile.state_path(export),
            json.dumps({"export": self.export, "jobs": [asdict(j) for j in self.jobs]}, indent=1),
        )

    def active(self) -> list[BatchJob]:
        """Jobs whose results are not imported yet."""
        return [j for j in self.jobs if not j.imported]


def _field_kinds() -> dict[str, tuple[type, ...]]:
    """The types each field of :class:`BatchJob` may hold, read from its annotations
    (``str | None`` gives ``(str, NoneType)``, ``list[str]`` gives ``(list,)``)."""
    kinds: dict[str, tuple[type, ...]] = {}
    for name, hint in typing.get_type_hints(BatchJob).items():
        origin = typing.get_origin(hint)
        if origin is None:
            kinds[name] = (hint,)
        elif origin is list:
            kinds[name] = (list,)
        else:  # a union such as str | None
            kinds[name] = typing.get_args(hint)
    return kinds


_JOB_FIELDS = _field_kinds()
"""The type of every field of a :class:`BatchJob` as the state file holds it."""


_KIND_NAMES = {str: "a string", int: "a whole number", bool: "true or false", list: "a list"}


def _job(entry: Any, path: Path, number: int) -> BatchJob:
    """One job of a state file; a DataError naming the file, job and field if it is none."""
    row = f"job {number}"
    if not isinstance(entry, dict):
        raise DataError(path, row, None, "not a JSON object")
    for name, value in entry.items():
        kinds = _JOB_FIELDS.get(name)
        if kinds is None:
            raise DataError(path, row, name, "not a field of a batch job")
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise DataError(path, row, name, f"not {_KIND_NAMES[kinds[0]]}")
    for name in ("file", "round"):
        if name not in entry:
            raise DataError(path, row, name, "missing")
    if entry["file"] in ("", ".", "..") or Path(entry["file"]).name != entry["file"]:
        raise DataError(path, row, "file", "not the name of a request file beside the export")
    if not all(isinstance(e, str) for e in entry.get("errors", [])):
        raise DataError(path, row, "errors", "not a list of strings")
    return BatchJob(**entry)
