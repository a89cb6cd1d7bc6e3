"""Templates 1–5 and 5.1–5.4: exact texts, answers, swaps, refusals, overrides, versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.wikicontradict import (
    TEMPLATE_NAMES,
    MissingRevisedPassages,
    TemplateSet,
    WikiContradictInstance,
    default_templates,
    render,
)

RAG = "Provide a short answer for the following question based on the given context."
T5 = (
    "Provide a short answer for the following question based on the given context. Carefully "
    "investigate the given context and provide a concise response that reflects the "
    "comprehensive view of the context, even if the answer contains contradictory information "
    "reflecting the heterogeneous nature of the context."
)
ASK = (
    "Does the above provided context contain conflicting information that could result in "
    "different answers to the question {q}? Provide a short answer followed by a concise "
    "explanation."
)
Q1 = (
    "Which of the following are present in Nymphaea nouchali var. caerulea: apomorphine, "
    "aporphine, or neither?"
)
P1 = "Apomorphine is said to be main psychoactive compound present."
P2 = (
    "Like other species in the genus, Nymphaea nouchali var. caerulea contains the psychoactive "
    "alkaloid aporphine (not to be confused with apomorphine, a metabolic product of aporphine)."
)
R1 = "Some sources once named apomorphine as the main psychoactive compound."
R2 = "The plant contains the alkaloid aporphine."


@pytest.fixture()
def inst1(by_id: dict[str, WikiContradictInstance]) -> WikiContradictInstance:
    return by_id["1"].model_copy(update={"revised_passage_1": R1, "revised_passage_2": R2})


EXPECTED = {
    "1": (
        "Provide a short answer for the following question based on your internal knowledge.\n"
        f"Question: {Q1}",
        ["Apomorphine", "Aporphine"],
    ),
    "2": (f"{RAG}\nQuestion: {Q1}\nContext: {P1}", ["Apomorphine"]),
    "3": (f"{RAG}\nQuestion: {Q1}\nContext: {P2}", ["Aporphine"]),
    "4": (f"{RAG}\nQuestion: {Q1}\nContext: {P1}\n{P2}", ["Apomorphine", "Aporphine"]),
    "5": (f"{T5}\nQuestion: {Q1}\nContext: {P1}\n{P2}", ["Apomorphine", "Aporphine"]),
    "5.1": (f"{T5}\nQuestion: {Q1}\nContext: {P2}\n{P1}", ["Apomorphine", "Aporphine"]),
    "5.2": (f"Context: {P1}\n{P2}\n\n" + ASK.format(q=Q1), ["Apomorphine", "Aporphine"]),
    "5.3": (f"{T5}\nQuestion: {Q1}\nContext: {R1}\n{R2}", ["Apomorphine", "Aporphine"]),
    "5.4": (f"Context: {R1}\n{R2}\n\n" + ASK.format(q=Q1), ["Apomorphine", "Aporphine"]),
}


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_every_template_renders_the_reference_text(
    name: str, inst1: WikiContradictInstance
) -> None:
    r = render(inst1, name)
    text, answers = EXPECTED[name]
    assert r.prompt == text
    assert r.answers == answers
    assert r.template == name and r.instance_id == "1"
    assert r.messages == [{"role": "system", "content": ""}, {"role": "user", "content": text}]


def test_5_1_swaps_the_passages(inst1: WikiContradictInstance) -> None:
    five, swapped = render(inst1, "5").prompt, render(inst1, "5.1").prompt
    assert five.index(P1) < five.index(P2)
    assert swapped.index(P2) < swapped.index(P1)
    assert five.replace(f"{P1}\n{P2}", "") == swapped.replace(f"{P2}\n{P1}", "")


def test_same_passage_instance_shows_one_copy(by_id: dict[str, WikiContradictInstance]) -> None:
    same = next(i for i in by_id.values() if i.same_passage and i.passage_1 == i.passage_2)
    prompt = render(same, "4").prompt
    assert prompt.endswith("Context: " + same.passage_1)
    assert prompt.count(same.passage_1) == 1


@pytest.mark.parametrize("name", ["5.3", "5.4"])
def test_revised_templates_refuse_without_revised_passages(
    name: str, by_id: dict[str, WikiContradictInstance]
) -> None:
    with pytest.raises(MissingRevisedPassages, match=rf"template {name} needs revised.*instance 1"):
        render(by_id["1"], name)
    half = by_id["1"].model_copy(update={"revised_passage_1": R1})
    with pytest.raises(MissingRevisedPassages):
        render(half, name)


def test_template_sources_say_verbatim_or_reconstruction() -> None:
    tset = default_templates()
    # Templates 1-5 are in the paper's Figure 3 only (an image): all five are
    # reconstructions, template 5 included, though its instruction sentences are
    # those the supplement prints for 5.1 (template 5 with the passages swapped).
    for name in ("1", "2", "3", "4", "5"):
        assert tset[name].source.startswith("reconstruction")
    assert "5.1" in tset["5"].source
    five, five_one = tset["5"].text, tset["5.1"].text
    assert five.split("\nQuestion:")[0] == five_one.split("\nQuestion:")[0]
    for name in ("5.1", "5.2", "5.3", "5.4"):
        assert tset[name].source.startswith("verbatim")


def test_versions_are_stable_and_change_with_the_text(inst1: WikiContradictInstance) -> None:
    tset = default_templates()
    assert len({tset[n].version for n in TEMPLATE_NAMES}) == len(TEMPLATE_NAMES)
    assert TemplateSet.default()["5"].version == tset["5"].version
    custom = tset.override({"5": "Answer briefly.\nQ: {question}\nC: {context}"})
    assert custom["5"].version != tset["5"].version
    assert custom["4"].text == tset["4"].text
    r = render(inst1, "5", custom)
    assert r.prompt == f"Answer briefly.\nQ: {Q1}\nC: {P1}\n{P2}"
    assert r.template_version == custom["5"].version
    assert custom["5"].source == "user override"


def test_template_file_override_and_errors(tmp_path: Path, inst1: WikiContradictInstance) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        json.dumps({"templates": {"5": {"text": "Q={question}", "answers": "answer_2"}}}),
        encoding="utf-8",
    )
    tset = TemplateSet.from_file(path)
    r = render(inst1, "5", tset)
    assert (r.prompt, r.answers) == (f"Q={Q1}", ["Aporphine"])
    path.write_text(json.dumps({"4": "Q={Question}"}), encoding="utf-8")
    with pytest.raises(DataError, match=r"unknown placeholder \{Question\}"):
        TemplateSet.from_file(path)
    with pytest.raises(KeyError, match="unknown template '6'"):
        render(inst1, "6")


def test_braces_inside_instance_text_are_left_alone(inst1: WikiContradictInstance) -> None:
    odd = inst1.model_copy(update={"question": "What is {context} here?"})
    assert render(odd, "1").prompt.endswith("Question: What is {context} here?")
