"""Re-export of :mod:`conflicteval.execution.itemrun` (the earlier import path)."""

from __future__ import annotations

from conflicteval.execution.itemrun import ItemTimeout, finish_record, run_item

__all__ = ["ItemTimeout", "finish_record", "run_item"]
