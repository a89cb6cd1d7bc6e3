"""The prompts of the paper's experiments, byte for byte as ``code/prompt_preparation.py`` of
github.com/OSU-NLP-Group/LLM-Knowledge-Conflict builds them, at commit
595e02b6fedfdb03316b763e5036da93ffb12fbf (Apache-2.0). Every literal below is that file's
(typos included: "paragaph" is the protocol), and every function names the one it follows.

The original functions read their own intermediate files, whose fields the release renamed:
``conflict_evidence`` is the release's ``counter_memory``, ``first_pred_ans`` its
``memory_answer``, ``contrary_claim`` its ``counter_answer``, ``ground_truth`` (evidence) and
``evidence_plus`` its two ``*_aligned_evidence`` fields. The functions here take the texts.
"""

from __future__ import annotations

from collections.abc import Sequence

from conflicteval.fingerprint import text_version

# build_zeroshot_prompt_strategyQA: the memory-elicitation prompt ('gpt-4' in the model name)
_ELICIT_STRATEGYQA_GPT4 = (
    """In the first paragraph, you are expected to answer the question "True" or "False". """
    """And in the second paragraph, you should give the evidence.\n\nQ:"""
)
# build_zeroshot_prompt_strategyQA: every other model
_ELICIT_STRATEGYQA = (
    """The first paragaph answers the question "True" or "False" and the second paragraph """
    """gives the reason.\n\nQ:"""
)
# build_zeroshot_prompt_popQA, the same two wordings
_ELICIT_POPQA_GPT4 = (
    "In the first paragraph, you are expected to answer the question. And in the second "
    "paragraph, you should give the evidence.\n\nQ:"
)
_ELICIT_POPQA = (
    "The first paragraph answers the question and the second paragraph gives the reason.\n\nQ:"
)

_HEAD = "According to the given information"
_KNOWLEDGE = " and your knowledge"
_CHOOSE = ", choose the best choice from the following options.\n\nInformation: "

STRATEGYQA_SINGLE_OPTIONS = "Options:\nA: True.\nB: False.\nC: Uncertain."
"""build_zeroshot_prompt_strategyQA_with_singleSource_evidence's options (with periods)."""
STRATEGYQA_MULTI_OPTIONS = "Options:\nA: True" + "\nB: False" + "\nC: Uncertain."
"""build_zeroshot_prompt_strategyQA_with_multiSource_evidence's options (no period after
True and False)."""

SYSTEM = "You are a helpful assistant."
"""The system message of every call (``code/run.py`` passes it to ``prompt_chatgpt``)."""


def elicitation_prompt(question: str, dataset: str, gpt4_wording: bool = False) -> str:
    """The zero-shot prompt that elicits a model's memory (answer, then evidence).

    ``build_zeroshot_prompt_strategyQA`` / ``build_zeroshot_prompt_popQA``: the GPT-4 wording
    when ``'gpt-4' in model_name``, the other one for every other model.

    Raises:
        ValueError: Unknown dataset.
    """
    if dataset == "strategyqa":
        head = _ELICIT_STRATEGYQA_GPT4 if gpt4_wording else _ELICIT_STRATEGYQA
    elif dataset == "popqa":
        head = _ELICIT_POPQA_GPT4 if gpt4_wording else _ELICIT_POPQA
    else:
        raise ValueError(f"unknown dataset {dataset!r}")
    return head + question + "\n" + "A:"


def numbered(evidence: Sequence[str]) -> str:
    """Several pieces of evidence as the original joins them: ``'\\n1. ' + e1 + '\\n2. ' + e2``."""
    return "".join("\n" + str(i + 1) + ". " + e for i, e in enumerate(evidence))


def choice_prompt(question: str, evidence: str, options: str, *, with_knowledge: bool) -> str:
    """The multiple-choice prompt every experiment shares.

    ``with_knowledge`` adds ``" and your knowledge"`` (the ``implicit`` mode: one piece of
    evidence); the ``explicit`` and multi-source modes leave it out.
    """
    dynamic = _KNOWLEDGE if with_knowledge else ""
    return (
        _HEAD
        + dynamic
        + _CHOOSE
        + evidence
        + "\n\nQuestion: "
        + question
        + "\n\n"
        + options
        + "\n\nAnswer: "
    )


def popqa_options(first: str, second: str, *more: str) -> str:
    """PopQA's options: the claims in order, then ``Uncertain.`` (``"Options:\\nA: " + ...``)."""
    letters = "ABCDEF"
    claims = [first, second, *more]
    body = "".join(("\nA: " if i == 0 else f"\n{letters[i]}: ") + c for i, c in enumerate(claims))
    return "Options:" + body + f"\n{letters[len(claims)]}: Uncertain."


def prompt_version() -> str:
    """A short hash of every literal here (part of cache keys and run identities)."""
    return text_version(
        "\n\0".join(
            [
                _ELICIT_STRATEGYQA_GPT4,
                _ELICIT_STRATEGYQA,
                _ELICIT_POPQA_GPT4,
                _ELICIT_POPQA,
                _HEAD,
                _KNOWLEDGE,
                _CHOOSE,
                STRATEGYQA_SINGLE_OPTIONS,
                STRATEGYQA_MULTI_OPTIONS,
                SYSTEM,
            ]
        )
    )
