"""The results model of a batch: :class:`BatchResult` (records, counts, usage, report).

Every item of a batch ends as one :class:`~conflicteval.runs.checkpoint.Record`;
a :class:`BatchResult` holds them in input order (in memory, or read back from the
checkpoint one at a time: :class:`~conflicteval.runs.lazyrecords.CheckpointRecords`)
with the counts per status, the usage of the run's model calls, the closing text every
command prints and the flat pandas table.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from conflicteval.runs.checkpoint import Record
from conflicteval.types import Usage

__all__ = ["BatchResult", "Record"]


class BatchResult(BaseModel):
    """All records of a batch, in input order, with counts and usage.

    ``records`` is a list, or with ``run_batch(..., keep_records=False)`` a
    :class:`~conflicteval.runs.lazyrecords.CheckpointRecords`: a read-only sequence
    in input order that reads the records from the checkpoint when asked, so a
    run's memory does not grow with its items. Its counts and total usage are
    then tallied while the run goes (``status_counts``, ``all_usage``).
    """

    records: list[Record]
    resumed: int = 0
    resumed_failed: int = 0
    """Failed items kept from the checkpoint as they were (``retry_failed`` runs them again)."""
    changed: int = 0
    """Items computed again because their inputs changed since the checkpoint recorded them."""
    usage: Usage = Field(default_factory=Usage)
    """Usage of the model calls made by this run (items resumed from a checkpoint excluded)."""
    executor: str = "local"
    """The executor that computed this run's items (``local``, ``ray``, ...)."""

    status_counts: dict[str, int] | None = Field(default=None, exclude=True, repr=False)
    """Items per status tallied during the run (None: counted from ``records``)."""
    all_usage: Usage | None = Field(default=None, exclude=True, repr=False)
    """Usage of every record tallied during the run (None: summed from ``records``)."""

    @field_validator("records", mode="wrap")
    @classmethod
    def _lazy_records(cls, value: Any, handler: Any) -> Any:
        from conflicteval.runs.lazyrecords import CheckpointRecords

        if isinstance(value, CheckpointRecords):
            return value  # kept lazy: validating would read every record
        return handler(value)

    @property
    def total_usage(self) -> Usage:
        """Usage of every record, those resumed from the checkpoint included."""
        if self.all_usage is not None:
            return self.all_usage.model_copy(deep=True)
        total = Usage()
        for rec in self.records:
            total.add(rec.usage)
        return total

    @property
    def counts(self) -> dict[str, int]:
        """Items per status, plus ``total`` (``pending`` only when some are)."""
        counts = {"ok": 0, "parse_error": 0, "model_error": 0, "pending": 0}
        if self.status_counts is not None:
            counts.update(self.status_counts)
        else:
            for r in self.records:
                counts[r.status] += 1
        if not counts["pending"]:  # only batch export leaves items pending
            del counts["pending"]
        counts["total"] = len(self.records)
        return counts

    @property
    def ok(self) -> list[Record]:
        """The records that ended ``ok``."""
        return [r for r in self.records if r.status == "ok"]

    @property
    def failed(self) -> list[Record]:
        """The records that did not end ``ok``."""
        return [r for r in self.records if r.status != "ok"]

    def summary(self) -> str:
        """One line: counts per status, resumed items, calls (cut-off replies), tokens sent
        and replayed from the cache, and the estimated cost (see
        :func:`conflicteval.pricing.cost_text`)."""
        from conflicteval.pricing import cost_text

        c = self.counts
        u = self.usage
        n = c.get("pending", 0)
        pending = f", {n} pending" if n else ""  # waiting for batch results
        return (
            f"{c['total']} items: {c['ok']} ok, {c['parse_error']} parse errors, "
            f"{c['model_error']} model errors{pending} ({self.resumed} resumed from checkpoint"
            f"{self._changed_note()}); "
            f"this run: {u.calls} model calls ({u.cached_calls} from cache{u.truncated_note()}), "
            f"{u.tokens_text()}; {cost_text(u)}; executor {self.executor}"
        )

    def _changed_note(self, sep: str = ",") -> str:
        if not self.changed:
            return ""
        return f"{sep} {self.changed} recomputed because their inputs changed"

    def failure_reasons(self, limit: int = 5) -> list[tuple[str, int, str]]:
        """The most common failure reasons: ``[(reason, count, example id), ...]``.

        Failures are the records with status ``parse_error`` or ``model_error``.

        Reasons are grouped by status and the error text with numbers and
        quoted parts masked, so "item 3 ..." and "item 7 ..." count together.
        """
        groups: dict[str, tuple[Record, list[int]]] = {}  # key -> (first record, [count])
        for rec in self.records:  # one record at a time: only the first of each reason is kept
            if rec.status in ("parse_error", "model_error"):
                _, count = groups.setdefault(_reason_key(rec), (rec, [0]))
                count[0] += 1
        ranked = sorted(groups.values(), key=lambda group: -group[1][0])[:limit]
        return [(_reason_text(first), count[0], first.id) for first, count in ranked]

    def report(self, what: str = "items", *, limit: int = 5, calls: bool = True) -> str:
        """The closing lines every command prints: counts, top failure reasons, usage.

        Args:
            what: What the items are ("claims", "responses", ...).
            limit: How many failure reasons to show.
            calls: Include the "this run: N model calls, tokens" line (False for a
                command that calls no model, e.g. a report of finished results).
        """
        c = self.counts
        failed = c["parse_error"] + c["model_error"]
        parts = [f"{c['ok']} ok", f"{failed} failed"]
        if failed:
            parts[-1] += f" ({c['parse_error']} parse errors, {c['model_error']} model errors)"
        known = ("ok", "parse_error", "model_error", "total")
        parts += [f"{n} {status}" for status, n in c.items() if status not in known and n]
        lines = [f"{c['total']} {what}: " + ", ".join(parts)]
        if self.resumed:
            lines[0] += f"; {self.resumed} resumed from the checkpoint"
        lines[0] += self._changed_note(";")
        for reason, n, example in self.failure_reasons(limit):
            lines.append(f"  {n} x {reason}  (e.g. {example})")
        if self.resumed_failed:
            n = self.resumed_failed
            lines.append(
                f"  {n} failed item{'s' if n != 1 else ''} from the checkpoint not run again: "
                f"add --retry-failed to retry {'them' if n != 1 else 'it'}"
            )
        u = self.usage
        if calls:
            lines.append(
                f"this run: {u.calls} model calls ({u.cached_calls} from cache"
                f"{u.truncated_note()}), {u.tokens_text()}"
            )
            if self.executor != "local":
                lines[-1] += f"; executor {self.executor}"
            lines += [f"decoding differs from the protocol: {line}" for line in u.decoding]
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """The records as a pandas DataFrame (needs the ``pandas`` extra)."""
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        rows = []
        for r in self.records:
            row: dict[str, Any] = {"id": r.id, "status": r.status, "error": r.error}
            if isinstance(r.result, dict):
                row.update({k: v for k, v in r.result.items() if k not in row})
            else:
                row["result"] = r.result
            row["prompt_tokens"] = r.usage.prompt_tokens
            row["completion_tokens"] = r.usage.completion_tokens
            row["cached_calls"] = r.usage.cached_calls
            row["cost_usd"] = r.usage.cost_usd
            row["truncated"] = r.usage.truncated
            rows.append(row)
        return pd.DataFrame(rows)


def _reason_key(rec: Record) -> str:
    import re

    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", rec.error or "no reason given")
    return rec.status + ": " + re.sub(r"\d+", "N", text)[:160]


def _reason_text(rec: Record) -> str:
    text = " ".join((rec.error or "no reason given").split())
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{rec.status}: {text}"
