"""How one item of a batch ends: run it, catch its failure, and make its checkpoint line.

Shared by the runner and the item executors (local asyncio, Ray actors), below both: an
item's function raises, times out, waits for a batch result or returns; :func:`run_item`
turns each into a :class:`~conflicteval.runs.checkpoint.Record`, and :func:`finish_record`
into the line a resumed run reads back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from conflicteval.errors import ModelError, ParseFailure, PendingCall
from conflicteval.models.core import usage_scope
from conflicteval.runs.checkpoint import Record

log = logging.getLogger("conflicteval.runner")

T = TypeVar("T")

__all__ = ["Emit", "ItemTimeout", "finish_record", "run_item"]

Emit = Callable[[Record, str], None]
"""Called by an item executor with each finished record and its checkpoint line."""


class ItemTimeout(Exception):
    """An item ran past its ``item_timeout`` (recorded as a ``model_error``)."""


async def run_item(fn: Callable[[T], Awaitable[Any]], item_id: str, item: T) -> Record:
    """Run ``fn`` on one item and say how it ended; never raises for the item's failure.

    The record carries the usage of every model call the item made and what each replied.
    """
    scope = usage_scope()
    with scope as usage:
        try:
            result = await fn(item)
            rec = Record(id=item_id, status="ok", result=result, usage=usage)
        except ItemTimeout as exc:
            log.warning("item %s: %s", item_id, exc)
            rec = Record(id=item_id, status="model_error", error=str(exc), usage=usage)
        except ParseFailure as exc:
            rec = Record(
                id=item_id, status="parse_error", error=exc.reason, raw=exc.raw, usage=usage
            )
        except ModelError as exc:
            rec = Record(id=item_id, status="model_error", error=str(exc), usage=usage)
        except PendingCall as exc:  # batch export: done in a later round, not a failure
            rec = Record(id=item_id, status="pending", error=str(exc), usage=usage)
        except asyncio.CancelledError as exc:
            cancelling = getattr(asyncio.current_task(), "cancelling", None)
            if cancelling is None or cancelling():
                raise  # the batch itself is cancelled (on 3.10 it cannot be told apart)
            # raised inside the item (a helper task it awaited was cancelled)
            log.warning("item %s raised CancelledError", item_id)
            rec = Record(
                id=item_id,
                status="model_error",
                error=f"CancelledError: {exc}".rstrip(": "),
                usage=usage,
            )
        except Exception as exc:
            log.warning("item %s raised %s: %s", item_id, type(exc).__name__, exc)
            rec = Record(
                id=item_id,
                status="model_error",
                error=f"{type(exc).__name__}: {exc}",
                usage=usage,
            )
    calls = scope.calls
    if calls.replies:
        rec.calls = calls.kept_replies()
        rec.more_calls = calls.more_calls
    return rec


def finish_record(rec: Record) -> tuple[Record, str]:
    """The record as its checkpoint line, and as a resumed run reads that line back.

    A result that is not JSON-serialisable ends the item ``model_error``. A
    pydantic result becomes its dict, a tuple a list: fresh and resumed runs
    give the same results.
    """
    try:
        line = rec.model_dump_json()
    except (TypeError, ValueError) as exc:
        rec = Record(
            id=rec.id,
            status="model_error",
            error=f"result is not JSON-serialisable: {exc}",
            usage=rec.usage,
            calls=rec.calls,
            more_calls=rec.more_calls,
        )
        line = rec.model_dump_json()
    else:
        rec = Record.model_validate_json(line)
    return rec, line
