"""Re-export of :mod:`conflicteval.execution.checkpoint` (the earlier import path)."""

from __future__ import annotations

from conflicteval.execution.checkpoint import (
    META_SUFFIX,
    Record,
    meta_path,
    read_checkpoint,
    read_identity,
    record_identity,
)

__all__ = [
    "META_SUFFIX",
    "Record",
    "meta_path",
    "read_checkpoint",
    "read_identity",
    "record_identity",
]
