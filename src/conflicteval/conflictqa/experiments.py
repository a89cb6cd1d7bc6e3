"""The paper's experiments as prompts with their option roles.

Single-source (the default, ``build_zeroshot_prompt_*_with_singleSource_evidence``):

* ``counter``: the counter-memory evidence alone (``mode='implicit'``: "... information and
  your knowledge ...");
* ``memory-counter``: the memory evidence, then the counter-memory (``mode='explicit'``,
  ``evidence_order='para_conf'``);
* ``counter-memory``: the same two the other way round (``evidence_order='conf_para'``).

Multi-source (by option, ``build_zeroshot_prompt_*_with_multiSource_evidence``), over the memory
side (the memory evidence and ``parametric_memory_aligned_evidence``) and the counter side
(``counter_memory`` and ``counter_memory_aligned_evidence``): ``2m1c`` (both memory pieces and
one counter piece, the original's ``2t1f`` with memory as the "true" side), ``1m2c``
(``2f1t``) and ``2m2c`` (``2t2f``); the pieces are shuffled as there. The original draws with
the unseeded ``random`` module; here each item's draw is seeded by ``(seed, item id,
experiment)``, so a run is reproducible.

PopQA's options are the two claims: ``implicit`` lists the memory claim first (A) as the
original; the explicit and multi-source prompts list the counter claim first, the original's
default ``option_order='conf_para'``. StrategyQA's options are ``True``/``False``/``Uncertain``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from conflicteval.conflictqa import prompts
from conflicteval.conflictqa.answers import claim_polarity
from conflicteval.conflictqa.data import ConflictItem
from conflicteval.conflictqa.names import MULTI, SINGLE

EXPERIMENTS: tuple[str, ...] = SINGLE + MULTI
ROLES: tuple[str, ...] = ("memory", "counter", "uncertain")


@dataclass(frozen=True)
class Sides:
    """One model's memory and the counter-memory against it, for one question.

    Attributes:
        memory_label: StrategyQA: ``"True"``/``"False"``, the memory answer; PopQA: None.
        memory_claim: The memory answer as a claim.
        counter_claim: The counter answer as a claim.
        memory_evidence: Evidence for the memory answer (the model's own).
        counter_evidence: The counter-memory.
        memory_extra: More evidence for the memory answer (multi-source).
        counter_extra: More evidence for the counter answer (multi-source).
    """

    memory_label: str | None
    memory_claim: str
    counter_claim: str
    memory_evidence: str
    counter_evidence: str
    memory_extra: str
    counter_extra: str


def release_sides(item: ConflictItem, dataset: str) -> Sides | None:
    """The release LLM's memory as the file holds it; None when a StrategyQA claim's polarity
    cannot be read (:func:`~conflicteval.conflictqa.answers.claim_polarity`)."""
    label = None
    if dataset == "strategyqa":
        label = claim_polarity(item.memory_answer, item.counter_answer)
        if label is None:
            return None
    return Sides(
        label,
        item.memory_answer,
        item.counter_answer,
        item.parametric_memory,
        item.counter_memory,
        item.parametric_memory_aligned_evidence,
        item.counter_memory_aligned_evidence,
    )


def elicited_sides(item: ConflictItem, answer: str, evidence: str) -> Sides | None:
    """A new model's StrategyQA memory (its answer and its own evidence) against the file's
    evidence for the other answer.

    The file's memory answer has polarity P (read from its claims). When the model answers P,
    the counter-memory is the file's ``counter_memory``; when it answers not-P, the evidence for
    the other answer is the file's ``parametric_memory`` (evidence an LLM wrote for not-P), and
    the claims and aligned evidence swap with it. None when P cannot be read.
    """
    release = release_sides(item, "strategyqa")
    if release is None:
        return None
    if answer == release.memory_label:
        return Sides(
            answer,
            item.memory_answer,
            item.counter_answer,
            evidence,
            item.counter_memory,
            item.parametric_memory_aligned_evidence,
            item.counter_memory_aligned_evidence,
        )
    return Sides(
        answer,
        item.counter_answer,
        item.memory_answer,
        evidence,
        item.parametric_memory,
        item.counter_memory_aligned_evidence,
        item.parametric_memory_aligned_evidence,
    )


def _strategyqa_roles(sides: Sides) -> dict[str, str]:
    memory_true = sides.memory_label == "True"
    return {
        "A": "memory" if memory_true else "counter",
        "B": "counter" if memory_true else "memory",
        "C": "uncertain",
    }


def _evidence(exp: str, sides: Sides, rng: random.Random) -> list[str]:
    memory = [sides.memory_evidence, sides.memory_extra]
    counter = [sides.counter_evidence, sides.counter_extra]
    if exp == "counter":
        return [sides.counter_evidence]
    if exp == "memory-counter":
        return [sides.memory_evidence, sides.counter_evidence]
    if exp == "counter-memory":
        return [sides.counter_evidence, sides.memory_evidence]
    if exp == "2m1c":
        pieces = memory + rng.sample(counter, 1)
    elif exp == "1m2c":
        pieces = counter + rng.sample(memory, 1)
    elif exp == "2m2c":
        pieces = counter + memory
    else:
        raise ValueError(f"unknown experiment {exp!r} (known: {', '.join(EXPERIMENTS)})")
    rng.shuffle(pieces)
    return pieces


def build(
    item: ConflictItem, dataset: str, sides: Sides, exp: str, seed: int = 0
) -> dict[str, Any]:
    """One experiment's prompt for one question: ``{"prompt", "options", "roles"}``.

    ``options`` maps each letter to its text and ``roles`` each letter to ``memory``,
    ``counter`` or ``uncertain``.

    Raises:
        ValueError: Unknown experiment or dataset.
    """
    rng = random.Random(f"{seed}:{item.id}:{exp}")
    pieces = _evidence(exp, sides, rng)
    implicit = exp == "counter"
    evidence = pieces[0] if implicit else prompts.numbered(pieces)
    if dataset == "strategyqa":
        options = {"A": "True", "B": "False", "C": "Uncertain"}
        text = (
            prompts.STRATEGYQA_MULTI_OPTIONS if exp in MULTI else prompts.STRATEGYQA_SINGLE_OPTIONS
        )
        roles = _strategyqa_roles(sides)
    elif dataset == "popqa":
        first, second = (
            (sides.memory_claim, sides.counter_claim)
            if implicit
            else (sides.counter_claim, sides.memory_claim)
        )
        options = {"A": first, "B": second, "C": "Uncertain"}
        text = prompts.popqa_options(first, second)
        roles = (
            {"A": "memory", "B": "counter", "C": "uncertain"}
            if implicit
            else {"A": "counter", "B": "memory", "C": "uncertain"}
        )
    else:
        raise ValueError(f"unknown dataset {dataset!r}")
    prompt = prompts.choice_prompt(item.question, evidence, text, with_knowledge=implicit)
    return {"prompt": prompt, "options": options, "roles": roles}
