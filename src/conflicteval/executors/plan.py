"""Old home of the call ledger and batch export; the names stay importable from here.

:mod:`conflicteval.models.call` (calls as data), :mod:`conflicteval.executors.ledger`
(the cost ledger) and :mod:`conflicteval.executors.export` (batch export).
"""

from __future__ import annotations

from conflicteval.executors.export import BatchExport, batch_export
from conflicteval.executors.ledger import CallLedger, ModelCalls, track_calls
from conflicteval.models.call import CHAT_URL, CallRequest, call_request

__all__ = [
    "CHAT_URL",
    "BatchExport",
    "CallLedger",
    "CallRequest",
    "ModelCalls",
    "batch_export",
    "call_request",
    "track_calls",
]
