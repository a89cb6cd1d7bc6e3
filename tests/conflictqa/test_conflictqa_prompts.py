"""The prompts are byte-identical to the original code's.

The ``_original_*`` functions below are the string-building lines of ``code/prompt_preparation.py``
in github.com/OSU-NLP-Group/LLM-Knowledge-Conflict at commit
595e02b6fedfdb03316b763e5036da93ffb12fbf, copied with only the field names mapped to the
release's (``conflict_evidence`` -> ``counter_memory``, ``first_pred_ans`` ->
``memory_answer``, ``contrary_claim`` -> ``counter_answer``) and the shuffles left out.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conflicteval.conflictqa import build, elicitation_prompt, load_conflictqa
from conflicteval.conflictqa.data import ConflictItem
from conflicteval.conflictqa.experiments import Sides, release_sides


def _original_zeroshot_strategyqa(question: str, model_name: str) -> str:
    # build_zeroshot_prompt_strategyQA
    if "gpt-4" in model_name:
        prompt_text = (
            """In the first paragraph, you are expected to answer the question "True" or "False". And in the second paragraph, you should give the evidence.\n\nQ:"""  # noqa: E501
            + question
            + "\n"
            + "A:"
        )
    else:
        prompt_text = (
            """The first paragaph answers the question "True" or "False" and the second paragraph gives the reason.\n\nQ:"""  # noqa: E501
            + question
            + "\n"
            + "A:"
        )
    return prompt_text


def _original_zeroshot_popqa(question: str, model_name: str) -> str:
    # build_zeroshot_prompt_popQA
    if "gpt-4" in model_name:
        prompt_text = (
            "In the first paragraph, you are expected to answer the question. And in the second paragraph, you should give the evidence.\n\nQ:"  # noqa: E501
            + question
            + "\n"
            + "A:"
        )
    else:
        prompt_text = (
            "The first paragraph answers the question and the second paragraph gives the reason.\n\nQ:"  # noqa: E501
            + question
            + "\n"
            + "A:"
        )
    return prompt_text


def _original_single_strategyqa(unit: dict, mode: str, evidence_order: str) -> str:
    # build_zeroshot_prompt_strategyQA_with_singleSource_evidence
    question = unit["question"]
    conflict_evidence = unit["counter_memory"]
    parametric_evidence = unit["parametric_memory"]
    if mode == "implicit":
        evidence = conflict_evidence
        dynamic_prompt = " and your knowledge"
    elif mode == "explicit":
        if evidence_order == "conf_para":
            evidence = "\n1. " + conflict_evidence + "\n2. " + parametric_evidence
        elif evidence_order == "para_conf":
            evidence = "\n1. " + parametric_evidence + "\n2. " + conflict_evidence
        dynamic_prompt = ""
    prompt_text = (
        """According to the given information"""
        + dynamic_prompt
        + """, choose the best choice from the following options.\n\nInformation: """
        + evidence
        + "\n\nQuestion: "
        + question
        + "\n\nOptions:\nA: True.\nB: False.\nC: Uncertain.\n\nAnswer: "
    )
    return prompt_text


def _original_single_popqa(unit: dict, mode: str, evidence_order: str, option_order: str) -> str:
    # build_zeroshot_prompt_popQA_with_singleSource_evidence
    question = unit["question"]
    conflict_evidence = unit["counter_memory"]
    parametric_evidence = unit["parametric_memory"]
    first_pred = unit["memory_answer"]
    contrary_claim = unit["counter_answer"]
    if mode == "implicit":
        evidence = conflict_evidence
        dynamic_prompt = " and your knowledge"
        option = "Options:\nA: " + first_pred + "\nB: " + contrary_claim + "\nC: Uncertain."
    elif mode == "explicit":
        if evidence_order == "conf_para":
            evidence = "\n1. " + conflict_evidence + "\n2. " + parametric_evidence
        elif evidence_order == "para_conf":
            evidence = "\n1. " + parametric_evidence + "\n2. " + conflict_evidence
        dynamic_prompt = ""
        if option_order == "para_conf":
            option = "Options:\nA: " + first_pred + "\nB: " + contrary_claim + "\nC: Uncertain."
        elif option_order == "conf_para":
            option = "Options:\nA: " + contrary_claim + "\nB: " + first_pred + "\nC: Uncertain."
    prompt_text = (
        """According to the given information"""
        + dynamic_prompt
        + """, choose the best choice from the following options.\n\nInformation: """
        + evidence
        + "\n\nQuestion: "
        + question
        + "\n\n"
        + option
        + "\n\nAnswer: "
    )
    return prompt_text


def _original_multi_strategyqa(question: str, tmp_evidence: list[str]) -> str:
    # build_zeroshot_prompt_strategyQA_with_multiSource_evidence, after its shuffle
    option = "Options:\nA: True" + "\nB: False" + "\nC: Uncertain."
    if len(tmp_evidence) == 3:
        evidence = "\n1. " + tmp_evidence[0] + "\n2. " + tmp_evidence[1] + "\n3. " + tmp_evidence[2]
    else:
        evidence = (
            "\n1. "
            + tmp_evidence[0]
            + "\n2. "
            + tmp_evidence[1]
            + "\n3. "
            + tmp_evidence[2]
            + "\n4. "
            + tmp_evidence[3]
        )
    dynamic_prompt = ""
    prompt_text = (
        """According to the given information"""
        + dynamic_prompt
        + """, choose the best choice from the following options.\n\nInformation: """
        + evidence
        + "\n\nQuestion: "
        + question
        + "\n\n"
        + option
        + "\n\nAnswer: "
    )
    return prompt_text


ITEM = ConflictItem(
    id="7",
    question="Is the sky green?",
    popularity=3,
    ground_truth=("False",),
    memory_answer="The sky is not green.",
    parametric_memory="The sky looks blue because of Rayleigh scattering.",
    counter_answer="The sky is green.",
    counter_memory="A 2021 survey found the sky green.",
    parametric_memory_aligned_evidence="Photographs show a blue sky.",
    counter_memory_aligned_evidence="Painters often paint it green.",
)


def _unit(item: ConflictItem) -> dict:
    return {k: getattr(item, k) for k in item.__dataclass_fields__}


@pytest.mark.parametrize("model_name", ["gpt-4-0613", "gpt-3.5-turbo-0301"])
def test_elicitation_prompts_equal_the_originals(model_name: str) -> None:
    gpt4 = "gpt-4" in model_name
    q = ITEM.question
    assert elicitation_prompt(q, "strategyqa", gpt4) == _original_zeroshot_strategyqa(q, model_name)
    assert elicitation_prompt(q, "popqa", gpt4) == _original_zeroshot_popqa(q, model_name)


def _items(shared_data: Path) -> list[ConflictItem]:
    return load_conflictqa(
        shared_data / "conflictqa" / "conflictQA-strategyQA-chatgpt_first30.json"
    )


def test_single_source_strategyqa_prompts_equal_the_originals(shared_data: Path) -> None:
    checked = 0
    for item in [ITEM, *_items(shared_data)]:
        sides = release_sides(item, "strategyqa")
        if sides is None:
            continue
        unit = _unit(item)
        got = {
            e: build(item, "strategyqa", sides, e)["prompt"]
            for e in ("counter", "memory-counter", "counter-memory")
        }
        assert got["counter"] == _original_single_strategyqa(unit, "implicit", "random")
        assert got["memory-counter"] == _original_single_strategyqa(unit, "explicit", "para_conf")
        assert got["counter-memory"] == _original_single_strategyqa(unit, "explicit", "conf_para")
        checked += 1
    assert checked == 30  # 29 of the sample's 30 have a readable polarity, plus ITEM


def test_single_source_popqa_prompts_equal_the_originals() -> None:
    sides = release_sides(ITEM, "popqa")
    assert sides is not None
    unit = _unit(ITEM)
    assert build(ITEM, "popqa", sides, "counter")["prompt"] == _original_single_popqa(
        unit, "implicit", "random", "conf_para"
    )
    assert build(ITEM, "popqa", sides, "memory-counter")["prompt"] == _original_single_popqa(
        unit, "explicit", "para_conf", "conf_para"
    )
    assert build(ITEM, "popqa", sides, "counter-memory")["prompt"] == _original_single_popqa(
        unit, "explicit", "conf_para", "conf_para"
    )


@pytest.mark.parametrize("exp", ["2m1c", "1m2c", "2m2c"])
def test_multi_source_strategyqa_prompts_equal_the_originals(exp: str) -> None:
    sides = release_sides(ITEM, "strategyqa")
    assert isinstance(sides, Sides)
    memory = [ITEM.parametric_memory, ITEM.parametric_memory_aligned_evidence]
    counter = [ITEM.counter_memory, ITEM.counter_memory_aligned_evidence]
    rng = random.Random(f"0:{ITEM.id}:{exp}")  # the library's seeded draw, replayed
    pieces = {
        "2m1c": lambda: memory + rng.sample(counter, 1),
        "1m2c": lambda: counter + rng.sample(memory, 1),
        "2m2c": lambda: counter + memory,
    }[exp]()
    rng.shuffle(pieces)
    built = build(ITEM, "strategyqa", sides, exp)
    assert built["prompt"] == _original_multi_strategyqa(ITEM.question, pieces)
    # the same seed gives the same prompt; another seed may order the pieces otherwise
    assert build(ITEM, "strategyqa", sides, exp)["prompt"] == built["prompt"]


def test_option_roles_follow_the_memory_answer() -> None:
    sides = release_sides(ITEM, "strategyqa")  # "The sky is not green." is the False claim
    assert sides is not None and sides.memory_label == "False"
    roles = build(ITEM, "strategyqa", sides, "counter")["roles"]
    assert roles == {"A": "counter", "B": "memory", "C": "uncertain"}
    pop = build(ITEM, "popqa", release_sides(ITEM, "popqa"), "memory-counter")  # type: ignore[arg-type]
    assert pop["roles"] == {"A": "counter", "B": "memory", "C": "uncertain"}
    assert pop["options"]["A"] == ITEM.counter_answer
