"""Re-export of :mod:`conflicteval.execution.lazyrecords` (the earlier import path)."""

from __future__ import annotations

from conflicteval.execution.lazyrecords import CheckpointRecords, line_offsets

__all__ = ["CheckpointRecords", "line_offsets"]
