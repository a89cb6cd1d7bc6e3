"""The three methods of Table 1 as workflows on the model layer: ``no-rag``, ``rag``, ``madam``.

Every call is one user message, greedy (temperature 0), at most 128 new tokens, as
``call_llm`` in ``run_madam_rag.py`` (``max_new_tokens=128``, ``do_sample=False``); the reply
is stripped as there. The seed sent is 42 (the script's ``set_seed(42)``; greedy decoding does
not use it). The baselines use the same budget (the paper's is not recorded here).

MADAM-RAG (:func:`madam`) follows ``multi_agent_debate``: round 1, one agent per document
answers from its document alone and the aggregator reads all responses; in each further round
(up to ``rounds``) every agent sees the other agents' previous responses; after a round whose
every agent's normalized answer is unchanged (two-way containment) the debate stops and the
*previous* round's aggregation is final, without aggregating the stopping round. Calls per
question with N documents: ``N + 1`` for round 1, then ``N + 1`` per further round, less one
in the round that stops: ``3N + 3`` with no early stop, ``2N + 1`` when round 2 stops it.
With one round the original leaves no final aggregation (None); here round 1's is final.

The calls of a round are made concurrently (they are independent; with greedy decoding the
order does not change a reply), and the aggregation of round t runs beside the agents of round
t + 1, which need only round t's responses. In batch-export mode a call the cache cannot answer
ends the question as pending once every call started beside it has been recorded; the next
round replays the answered calls from the cache and goes one step further.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from conflicteval.errors import PendingCall
from conflicteval.models.core import Model
from conflicteval.ramdocs import prompts
from conflicteval.ramdocs.answers import agent_answer, agent_explanation, answers_unchanged
from conflicteval.ramdocs.names import DEFAULT_ROUNDS, METHODS

Method = Literal["no-rag", "rag", "madam"]

MAX_NEW_TOKENS = 128
SETTINGS: dict[str, Any] = {"temperature": 0.0, "max_tokens": MAX_NEW_TOKENS, "seed": 42}
"""Decoding of every call: greedy, 128 new tokens (``run_madam_rag.py``'s ``call_llm``)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Question:
    """What a method needs of one benchmark item.

    Attributes:
        id: The item id.
        question: The question.
        documents: The document texts (one MADAM-RAG agent each).
        rag_prompt: The whole prompt of the ``rag`` method.
        no_rag_prompt: The whole prompt of the ``no-rag`` method.
        meta: What scoring needs (gold and wrong answers, ...), copied into the result.
    """

    id: str
    question: str
    documents: tuple[str, ...]
    rag_prompt: str
    no_rag_prompt: str
    meta: dict[str, Any] = field(default_factory=dict)


async def gather_all(calls: Sequence[Awaitable[T]]) -> list[T]:
    """Await every call; then raise the first failure, or a pending call, if any.

    Unlike a plain ``asyncio.gather``, a call waiting for a batch result does not leave its
    siblings unrecorded: every call of the step is started and finished (or recorded as
    pending) before the step ends. A failure wins over a pending call (the item fails either way).
    """
    results = await asyncio.gather(*calls, return_exceptions=True)
    pending: PendingCall | None = None
    for r in results:
        if isinstance(r, PendingCall):
            pending = pending or r
        elif isinstance(r, BaseException):
            raise r
    if pending is not None:
        raise pending
    return list(results)  # type: ignore[arg-type]


async def call(model: Model, prompt: str, version: str) -> str:
    """One greedy call with 128 new tokens; the stripped reply (``call_llm``)."""
    out = await model.generate(prompt, prompt_version=version, **SETTINGS)
    return out.text.strip()


Ask = Callable[[str, str], Awaitable[str]]
"""One call: ``ask(prompt, prompt_version) -> stripped reply`` (the model layer's, or Inspect's)."""


def _agents(
    ask: Ask, question: str, documents: Sequence[str], previous: Sequence[str] | None
) -> list[Awaitable[str]]:
    calls = []
    for i, doc in enumerate(documents):
        history = prompts.history_for(previous, i) if previous else ""
        # a lone agent has no other agents: as in the original, its prompt is round 1's
        version = prompts.prompt_version(prompts.AGENT_HISTORY if history else prompts.AGENT)
        calls.append(ask(prompts.agent_prompt(question, doc, history), version))
    return calls


async def _aggregate(ask: Ask, question: str, responses: Sequence[str]) -> str:
    version = prompts.prompt_version(prompts.AGGREGATOR)
    return await ask(prompts.aggregator_prompt(question, responses), version)


def _round(responses: Sequence[str]) -> dict[str, Any]:
    return {
        "responses": list(responses),
        "answers": [agent_answer(r) for r in responses],
        "explanations": [agent_explanation(r) for r in responses],
        "aggregation": None,
    }


async def debate(
    ask: Ask, question: str, documents: Sequence[str], *, rounds: int = DEFAULT_ROUNDS
) -> dict[str, Any]:
    """MADAM-RAG on one question, with calls made by ``ask`` (see :func:`madam`)."""
    if not documents:
        raise ValueError("MADAM-RAG needs at least one document")
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    outputs = await gather_all(_agents(ask, question, documents, None))
    records = [_round(outputs)]
    pending_aggregation = _aggregate(ask, question, outputs)
    for _ in range(1, rounds):
        agents = _agents(ask, question, documents, outputs)
        *new, aggregation = await gather_all([*agents, pending_aggregation])
        records[-1]["aggregation"] = aggregation
        current = _round(new)
        records.append(current)
        outputs = new
        if answers_unchanged(records[-2]["answers"], current["answers"]):
            return {"output": aggregation, "rounds": records, "stopped_early": True}
        pending_aggregation = _aggregate(ask, question, outputs)
    final = await pending_aggregation
    records[-1]["aggregation"] = final
    return {"output": final, "rounds": records, "stopped_early": False}


async def madam(
    model: Model, question: str, documents: Sequence[str], *, rounds: int = DEFAULT_ROUNDS
) -> dict[str, Any]:
    """MADAM-RAG on one question.

    Returns:
        ``{"output": final aggregation, "rounds": [{"responses", "answers", "explanations",
        "aggregation"}, ...], "stopped_early": bool}``; ``aggregation`` is None for a round
        that stopped the debate (it is not aggregated).

    Raises:
        ValueError: No documents, or ``rounds`` below 1.
        PendingCall: In batch-export mode, calls wait for batch results.
    """

    async def ask(prompt: str, version: str) -> str:
        return await call(model, prompt, version)

    return await debate(ask, question, documents, rounds=rounds)


async def answer(
    method: str, model: Model, item: Question, *, rounds: int = DEFAULT_ROUNDS
) -> dict[str, Any]:
    """Run one method on one item: ``{"output": ..., **trace, "question": ..., **item.meta}``.

    Raises:
        ValueError: Unknown method.
    """
    if method == "madam":
        result = await madam(model, item.question, item.documents, rounds=rounds)
    elif method == "rag":
        result = {"output": await call(model, item.rag_prompt, _version(item, "rag"))}
    elif method == "no-rag":
        result = {"output": await call(model, item.no_rag_prompt, _version(item, "no-rag"))}
    else:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    # the question's text is kept with its answer, so a report or the viewer shows it
    # without the data file (the record's input fingerprint already covers it)
    return {**result, "question": item.question, **item.meta}


def _version(item: Question, method: str) -> str:
    return str(item.meta.get("prompt_versions", {}).get(method, ""))


def call_count(n_documents: int, rounds: int, stopped_after: int | None = None) -> int:
    """Calls MADAM-RAG makes for one question: ``(N + 1)`` per round, less one when a round
    (``stopped_after``, 2-based) stops the debate before its aggregation."""
    if stopped_after is None:
        return rounds * (n_documents + 1)
    return stopped_after * (n_documents + 1) - 1
