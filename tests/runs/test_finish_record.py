"""An item's record as a fresh run hands it on is the record a resumed run reads from its line."""

from __future__ import annotations

import math

from conflicteval.runs.checkpoint import Record
from conflicteval.runs.itemrun import finish_record
from conflicteval.types import CallReply, Usage


def _calls() -> list[CallReply]:
    return [
        CallReply(model="m", reply='{"answer": "SUPPORTS"}', cached=False, latency_s=0.0123),
        CallReply(model="m", reply="x" * 10, left_out=5, cached=True, finish_reason="length"),
        CallReply(model="other", reply="\u0405UPPORTS \U0001f600", latency_s=1 / 3),
    ]


def test_a_record_with_replies_reads_back_as_its_line_does() -> None:
    usage = Usage(prompt_tokens=3, completion_tokens=4, calls=3, cost_usd=0.1 + 0.2)
    usage.models.append("m")
    result = {"pairs": [(1, 2.5, None)], "nan": math.nan, "nested": {"k": ("a", "b")}}
    rec = Record(id="i1", status="ok", result=result, usage=usage, calls=_calls(), more_calls=2)
    fresh, line = finish_record(rec)
    resumed = Record.model_validate_json(line)
    assert fresh == resumed
    assert fresh.model_fields_set == resumed.model_fields_set
    assert fresh.model_dump_json() == line
    assert fresh.result == {"pairs": [[1, 2.5, None]], "nan": None, "nested": {"k": ["a", "b"]}}


def test_a_record_without_replies_reads_back_as_its_line_does() -> None:
    rec = Record(id="i2", status="parse_error", error="no label", raw="maybe")
    fresh, line = finish_record(rec)
    assert fresh == Record.model_validate_json(line)
    assert '"calls":[' not in line


def test_past_the_bound_an_item_keeps_the_first_calls_made_whatever_order_they_replied_in() -> None:
    import random

    from conflicteval.models.usage_scopes import KEPT_CALLS, ItemCalls

    for seed in range(5):
        order = list(range(KEPT_CALLS + 57))
        random.Random(seed).shuffle(order)
        calls = ItemCalls()
        for n in order:
            calls.add(Usage(calls=1), (n, "m", f"reply {n}", False, "stop", None))
        kept = calls.kept_replies()
        assert [c.reply for c in kept] == [f"reply {n}" for n in range(KEPT_CALLS)]
        assert calls.more_calls == 57 and calls.usage.calls == KEPT_CALLS + 57
