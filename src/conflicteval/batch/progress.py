"""Whether batch rounds make progress, and what to say when they do not.

A server that refuses a request shape (llama.cpp answers the JSON-schema
``response_format`` of exported label requests with HTTP 500 in the result file)
fails the same requests the same way every round; re-exporting them would loop until
``--max-rounds``. :class:`RoundFailures` keeps an order-independent digest of a
round's failed (request, reason) pairs, so two rounds can be compared in constant
memory; :func:`stalled_line` words the one line that stops the rounds, naming the
commonest error and, when the failing requests carry a ``response_format``, the
option that avoids it (``--plain-json``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from conflicteval._atomic import atomic_write_text

__all__ = ["RoundFailures", "carries_schema", "failure_digest", "stalled_line"]

PLAIN_JSON_HINT = (
    "these requests carry a JSON-schema response_format, which some servers (llama.cpp) "
    "refuse: run the command with --plain-json (the JSON asked for in the prompt only)"
)


def failure_digest(custom_id: str, reason: str) -> int:
    """A 64-bit digest of one failed request and its reason (summed over a round)."""
    raw = hashlib.sha256(f"{custom_id}\0{reason}".encode()).digest()
    return int.from_bytes(raw[:8], "big")


@dataclass
class RoundFailures:
    """The failed lines of one round: count, reasons and a digest of (request, reason)."""

    count: int = 0
    digest: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, count: int, digest: int, reasons: dict[str, int]) -> None:
        """Add an import's failures (its ``n_failed``, ``failure_digest`` and ``failed``)."""
        self.count += count
        self.digest = (self.digest + digest) % (1 << 64)
        for reason, n in reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n

    def same_as(self, other: RoundFailures | None) -> bool:
        """Whether this round failed the same requests in the same way as ``other``."""
        return (
            other is not None
            and self.count > 0
            and (self.count, self.digest)
            == (
                other.count,
                other.digest,
            )
        )

    def commonest(self) -> str:
        """The reason most lines failed with (empty when none failed)."""
        return max(self.reasons.items(), key=lambda kv: kv[1])[0] if self.reasons else ""


def carries_schema(files: Iterable[Path]) -> bool:
    """Whether any request line of these request files sends a ``response_format``."""
    for path in files:
        try:
            with path.open("r", encoding="utf-8") as fh:
                for line in fh:
                    if '"response_format"' not in line:
                        continue
                    try:
                        body = json.loads(line).get("body")
                    except (ValueError, AttributeError):
                        continue
                    if isinstance(body, dict) and "response_format" in body:
                        return True
        except OSError:
            continue
    return False


def stalled_line(
    failures: RoundFailures, *, repeated: bool, schema: bool, command: str = "batch run"
) -> str:
    """The one line stopping the rounds: what failed, and what to change."""
    reason = failures.commonest()
    if repeated:
        what = (
            f"the last round made no progress ({failures.count} request(s) failed the same way "
            "as in the round before"
        )
    else:
        what = "the last round brought no usable reply; stopping (" + (
            f"{failures.count} failed" if failures.count else "see the failures above"
        )
    if reason:
        what += f": {reason[:160]}"
    what += ")"
    refused_shape = reason.startswith("HTTP ") or "response_format" in reason
    if schema and refused_shape:
        hint = PLAIN_JSON_HINT
    elif command == "batch run":
        hint = "run 'conflicteval batch run' again to retry"
    else:
        hint = "asking again the same way will not help"
    stop = "stopping; " if repeated and command == "batch run" else ""
    return f"{command}: {what}; {stop}{hint}"


def _export_of(manifest: Path) -> Path:
    """The request file a manifest (or a request file given as one) belongs to."""
    name = manifest.name
    if name.endswith(".manifest.jsonl"):
        return manifest.with_name(name[: -len(".manifest.jsonl")] + ".jsonl")
    return manifest


def import_stalled(
    manifests: Iterable[str | Path], count: int, digest: int, reasons: dict[str, int]
) -> str | None:
    """After ``batch import``: the line saying the import made no progress, else None.

    The failures of each import are remembered beside the first manifest
    (``<stem>.import-failures.json``); an import failing the same requests the same way
    as the one before (the manual round loop, ``vllm run-batch`` or llama.cpp and
    ``batch import``) gets one line naming the error and what to change.
    """
    from conflicteval.batch.manifest import latest_round

    exports = [_export_of(Path(m)) for m in manifests]
    if not exports:
        return None
    memo = exports[0].with_name(exports[0].name.rsplit(".", 1)[0] + ".import-failures.json")
    now = RoundFailures(count, digest, dict(reasons))
    before: RoundFailures | None = None
    try:
        seen = json.loads(memo.read_text(encoding="utf-8"))
        before = RoundFailures(int(seen["count"]), int(seen["digest"]))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        atomic_write_text(memo, json.dumps({"count": count, "digest": digest}))
    except OSError:
        pass
    if not now.same_as(before):
        return None
    files = [f for e in exports for f in latest_round(e)[1]]
    return stalled_line(
        now, repeated=True, schema=carries_schema(files), command="batch import"
    ).replace("the last round", "this import", 1)
