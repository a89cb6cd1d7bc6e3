"""Writing one export round line by line: :class:`ExportWriter`.

Each request line goes to disk the moment it is added, so an export's memory
does not grow with its number of requests (the ids already written, to write
each once, are kept in a scratch index on disk: :class:`conflicteval._diskindex.IdSet`).
Lines are grouped by model (the body's ``model``) and split into files by the
Batch API's limits (lines and bytes per file) as they come, exactly as a whole
round split at once would be.

Until :meth:`ExportWriter.close` every file is a hidden temporary file beside
the export; closing names them (one file at ``path`` when the round fits in
one file for one model, else ``<stem>.001.jsonl``, ... in model order), removes
the previous round's request files and rewrites the manifest with this round's
entries added (temporary file + rename). A round that fails or is abandoned
(:meth:`ExportWriter.abort`) leaves the files and manifest of the previous
round as they were.
"""

from __future__ import annotations

import json
import os
import uuid
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from conflicteval._atomic import atomic_open
from conflicteval._diskindex import IdSet
from conflicteval.batch.manifest import (
    _part_path,
    _stale_parts,
    copy_manifest,
    iter_manifest,
    manifest_path,
)
from conflicteval.errors import ConflictEvalError

if TYPE_CHECKING:
    from conflicteval.models.call import CallRequest

MAX_REQUESTS = 50_000
"""Requests per batch input file (OpenAI Batch API limit)."""

MAX_BYTES = 200_000_000
"""Bytes per batch input file (OpenAI Batch API limit: 200 MB)."""

_BUFFER = 1 << 20


_LINE = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(..., ensure_ascii=False)`` without building an encoder per line."""


def encode_request(request: CallRequest) -> bytes:
    """One request line, as written to a request file (UTF-8 JSON and a newline)."""
    return (_LINE.encode(request.to_line()) + "\n").encode("utf-8")


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


@dataclass
class _Part:
    """One request file being written (a temporary file until the round is closed)."""

    model: str
    model_index: int
    tmp: Path
    fh: IO[bytes] | None
    entries: Path
    """Its manifest entries (the file named on closing), one per line."""
    efh: IO[str] | None
    lines: int = 0
    bytes: int = 0


@dataclass
class _Round:
    """The parts of a round, in the order a whole round would be split in."""

    parts: list[_Part] = field(default_factory=list)
    open: dict[str, _Part] = field(default_factory=dict)
    models: dict[str, int] = field(default_factory=dict)


class ExportWriter:
    """One export round, written request by request.

    ``add(request)`` appends the request's line to its model's current file (a
    new file once the line would pass ``max_requests`` lines or ``max_bytes``
    bytes) and its manifest entry to a temporary manifest; ``close()`` names the
    files and writes the manifest; ``abort()`` throws the round away. A request
    whose ``custom_id`` was added before is not written again.

    Args:
        path: The request file (JSONL); larger rounds are numbered files beside it.
        max_requests: Requests per file (the Batch API's limit: 50,000).
        max_bytes: Bytes per file (the Batch API's limit: 200 MB).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_requests: int = MAX_REQUESTS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.path = Path(path)
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.ids = IdSet()  # on disk: memory flat in the requests
        self._round = _Round()
        self._tag = f"{os.getpid()}.{uuid.uuid4().hex[:8]}"
        self.result: ExportResult | None = None

    def __contains__(self, custom_id: object) -> bool:
        return custom_id in self.ids

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, request: CallRequest) -> bool:
        """Write ``request``'s line now; False (nothing written) when its id was added before.

        Raises:
            ConflictEvalError: The line alone is larger than a file may be, or the
                writer is closed.
        """
        if self.result is not None:
            raise ConflictEvalError(f"{self.path}: this export round is closed")
        if not self.ids.insert(request.custom_id):  # noted at once: one look-up, not two
            return False
        try:
            self._write(request)
        except BaseException:
            self.ids.discard(request.custom_id)  # not written: not exported
            raise
        return True

    def _write(self, request: CallRequest) -> None:
        """Write the request's line to its model's file, and its manifest entry."""
        line = encode_request(request)
        if len(line) > self.max_bytes:
            raise ConflictEvalError(
                f"one request is {len(line)} bytes, more than a batch file may hold "
                f"({self.max_bytes} bytes)"
            )
        model = str(request.body.get("model", request.model))
        part = self._part_for(model, len(line))
        assert part.fh is not None
        part.fh.write(line)
        part.lines += 1
        part.bytes += len(line)
        self._note(request, part)

    def _part_for(self, model: str, size: int) -> _Part:
        rnd = self._round
        part = rnd.open.get(model)
        if part is not None and (
            part.lines >= self.max_requests or part.bytes + size > self.max_bytes
        ):
            self._finish_part(part)
            part = None
        if part is None:
            if not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            index = rnd.models.setdefault(model, len(rnd.models))
            tmp = self.path.with_name(f".{self.path.name}.{self._tag}.{len(rnd.parts)}.tmp")
            entries = tmp.with_suffix(".manifest.tmp")
            part = _Part(model, index, tmp, tmp.open("xb", buffering=_BUFFER), entries, None)
            part.efh = entries.open("x", encoding="utf-8", buffering=_BUFFER)
            rnd.parts.append(part)
            rnd.open[model] = part
        return part

    def _note(self, request: CallRequest, part: _Part) -> None:
        """The request's manifest entry, without its file (named on closing)."""
        # json.dumps of {"custom_id", "model", "request_model"}, without its closing brace
        dumps = json.dumps
        head = (
            f'{{"custom_id": {dumps(request.custom_id)}, "model": {dumps(request.model)}, '
            f'"request_model": {dumps(str(request.body.get("model", "")))}'
        )
        assert part.efh is not None
        part.efh.write(head + "\n")

    def _finish_part(self, part: _Part) -> None:
        if part.fh is not None:
            part.fh.flush()
            os.fsync(part.fh.fileno())
            part.fh.close()
            part.fh = None
        if part.efh is not None:
            part.efh.close()
            part.efh = None
        if self._round.open.get(part.model) is part:
            del self._round.open[part.model]

    def close(self) -> ExportResult:
        """Finish the round: name the files, remove the previous round's, write the manifest."""
        if self.result is not None:
            return self.result
        try:
            for part in list(self._round.parts):
                self._finish_part(part)
            for stale in _stale_parts(self.path):
                stale.unlink()
            if not self.ids:
                self.result = ExportResult(path=self.path, round=0, requests=0)
                return self.result
            mpath = manifest_path(self.path)
            round_no = max((e.round for e in iter_manifest(mpath)), default=0) + 1
            # the order a whole round is split in: by model (first seen first), then in turn
            order = sorted(
                range(len(self._round.parts)), key=lambda i: self._round.parts[i].model_index
            )
            names: dict[int, Path] = {}
            for number, i in enumerate(order, start=1):
                names[i] = self.path if len(order) == 1 else _part_path(self.path, number)
            result = ExportResult(path=self.path, round=round_no, requests=len(self.ids))
            for i in order:
                part = self._round.parts[i]
                os.replace(part.tmp, names[i])  # each written whole and fsynced
                result.files.append(ExportFile(names[i], part.model, part.lines, part.bytes))
            self._write_manifest(mpath, [(self._round.parts[i], names[i]) for i in order], round_no)
            self.result = result
            return result
        finally:
            self._discard()

    def _write_manifest(self, mpath: Path, parts: list[tuple[_Part, Path]], round_no: int) -> None:
        """The old manifest's entries, then this round's, file by file."""
        tail = f', "round": {round_no}}}\n'
        with atomic_open(mpath) as out:
            copy_manifest(mpath, out)
            for part, name in parts:
                named = f', "file": {json.dumps(name.name)}{tail}'
                with part.entries.open("r", encoding="utf-8") as fh:
                    for head in fh:
                        out.write(head[:-1] + named)

    def abort(self) -> None:
        """Throw the round away: the previous round's files and manifest stay as they were."""
        for part in self._round.parts:
            for fh in (part.fh, part.efh):
                if fh is not None:
                    fh.close()
            part.fh = part.efh = None
        self._discard()

    def _discard(self) -> None:
        for part in self._round.parts:
            for tmp in (part.tmp, part.entries):
                with suppress(OSError):
                    tmp.unlink()
        self._round = _Round()
