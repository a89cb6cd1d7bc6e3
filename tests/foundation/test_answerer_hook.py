"""The answerer is the model layer's one per-call hook: the core tells it of every cache hit,
every answered call and every retry, once each, and through it the items' usage scopes and the
run's observers (the call ledger) count them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from conflicteval import get_model
from conflicteval.models.answerers import Online, answer_with
from conflicteval.models.ledger import track_calls
from conflicteval.models.usage_scopes import usage_scope
from conflicteval.testing import Fault, OpenAICompatServer


class Told(Online):
    """An online answerer that writes down what the core tells it."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[tuple[str, ...]] = []

    def cached(self, call: Any, usage: Any, reply: Any = None) -> None:
        super().cached(call, usage, reply)
        self.told.append(("cached", call.model, reply[2]))

    def answered(self, call: Any, usage: Any, reply: Any = None) -> None:
        super().answered(call, usage, reply)
        self.told.append(("answered", call.model, reply[2]))

    def attempted(self, model: str, kind: str) -> None:
        super().attempted(model, kind)
        self.told.append(("attempted", model, kind))


def test_every_call_is_told_to_the_answerer_once(tmp_path: Path) -> None:
    told = Told()
    with OpenAICompatServer(replies=lambda body: "yes", faults=[Fault.status_code(500)]) as s:
        model = get_model("openai/m", base_url=s.base_url, api_key="k", cache=tmp_path / "c")
        model.max_retry_time = 60.0
        with answer_with(told), track_calls() as ledger:

            async def item() -> Any:
                with usage_scope() as usage:
                    await model.generate("q1")  # a 500, retried, then answered
                    await model.generate("q1")  # from the cache
                    return usage

            usage = asyncio.run(item())
    assert told.told == [
        ("attempted", "openai/m", "failure"),
        ("attempted", "openai/m", "retry"),
        ("answered", "openai/m", "yes"),
        ("cached", "openai/m", "yes"),
    ]
    # the item's scope and the ledger counted through the same hook
    assert usage.calls == 2 and usage.cached_calls == 1
    calls = ledger.models["openai/m"]
    assert (calls.online.calls, calls.cached.calls, calls.retries) == (1, 1, 1)


def test_a_portable_answerer_carries_the_ledger_and_brings_its_counts_back() -> None:
    with OpenAICompatServer(replies=lambda body: "yes") as s:
        model = get_model("openai/m", base_url=s.base_url, api_key="k", cache=False)
        with track_calls() as ledger:
            copy = Online().portable()  # what an executor sends to another process
        assert len(copy.carried) == 1 and copy.carried[0] is not ledger
        # "elsewhere": no observer active, the copy counts into what it carries
        with answer_with(copy):
            model.generate_sync("q")
        assert ledger.models == {}
        with track_calls() as back:
            Online().absorb(copy)
    assert back.models["openai/m"].online.calls == 1
