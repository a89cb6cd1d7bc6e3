"""The two paper prompts verbatim, slot filling, and the offline decomposers."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.conflictscore import SentenceDecomposer, WholeResponse, prompts, split_sentences
from conflicteval.conflictscore.labelers import LLMLabeler, pair_prompt
from conflicteval.models import get_model
from conflicteval.types import Document


def _between(lines: list[str], start: str, end_prefix: str) -> list[str]:
    i = lines.index(start)
    j = next(k for k in range(i, len(lines)) if lines[k].startswith(end_prefix))
    block = lines[i:j]
    while block and not block[-1].strip():
        block.pop()
    return block


def test_table6_prompt_is_verbatim(seed_file: Path) -> None:
    lines = seed_file.read_text(encoding="utf-8").splitlines()
    block = _between(
        lines, "Instruction: Break down the following report into individual claims.", "Table 6:"
    )
    assert prompts.load_prompt(prompts.DECOMPOSE) == "\n".join(block)


TABLE7_HEADINGS = {
    "Document-Claim Conflict Detection",
    "Claim to evaluate",
    "Document to evaluate against",
    "Output format",
}


def test_table7_prompt_is_the_papers_text_byte_for_byte(seed_file: Path) -> None:
    lines = seed_file.read_text(encoding="utf-8").splitlines()
    block = _between(lines, "Document-Claim Conflict Detection", "Table 7:")
    text = prompts.load_prompt(prompts.LABEL)
    assert text == "\n".join(block)
    assert not any(line.startswith("#") for line in text.splitlines())
    assert text.count("{claim}") == 2 and text.count("{document}") == 1
    assert "**SUPPORTS** –" in text and "claim’s asserted attributes" in text
    # The prompt sent by default is that text, plain heading lines included.
    sent = pair_prompt("C", Document(id="d", text="D"))
    assert sent == prompts.fill(text, claim="C", document="D")
    assert "\n\nClaim to evaluate\n\nC\n\nDocument to evaluate against\n\nD\n\n" in sent


def test_table7_heading_option_differs_only_by_four_marks(seed_file: Path) -> None:
    lines = seed_file.read_text(encoding="utf-8").splitlines()
    block = _between(lines, "Document-Claim Conflict Detection", "Table 7:")
    expected = "\n".join(f"# {line}" if line in TABLE7_HEADINGS else line for line in block)
    assert prompts.load_prompt(prompts.LABEL_HEADINGS) == expected
    doc = Document(id="d", text="D")
    assert "\n# Claim to evaluate\n" in pair_prompt("C", doc, headings=True)
    labeler = LLMLabeler(get_model("scripted", replies=[]), headings=True)
    assert labeler.prompt("C", doc) == pair_prompt("C", doc, headings=True)
    plain = LLMLabeler(get_model("scripted", replies=[]))
    assert plain.prompt("C", doc) == pair_prompt("C", doc)
    assert labeler.identity()["prompt"] != plain.identity()["prompt"]


def test_fill_is_one_pass_and_keeps_json_braces() -> None:
    template = prompts.load_prompt(prompts.LABEL)
    claim = 'A claim quoting {document} and {"answer": 1}'
    text = prompts.fill(template, claim=claim, document="DOC {claim} TEXT")
    assert text.count(claim) == 2
    assert "DOC {claim} TEXT" in text
    assert '"document_snippet": "<the most relevant snippet' in text
    with pytest.raises(KeyError):
        prompts.fill("no slots here", claim="x")


def test_batched_prompts_have_their_slots() -> None:
    per_doc = prompts.load_prompt(prompts.LABEL_CLAIMS_PER_DOCUMENT)
    per_claim = prompts.load_prompt(prompts.LABEL_DOCUMENTS_PER_CLAIM)
    for text, slots in (
        (per_doc, ("{document}", "{claims}", "{n}")),
        (per_claim, ("{claim}", "{documents}", "{n}")),
    ):
        for slot in slots:
            assert slot in text
        assert '"index"' in text and "<SUPPORTS|CONTRADICTS|IRRELEVANT>" in text


SENTENCE_CASES = [
    (
        'Dr. Smith paid $3.50 for it. He said "Stop." Then he left! Did he? Yes.',
        ["Dr. Smith paid $3.50 for it.", 'He said "Stop."', "Then he left!", "Did he?", "Yes."],
    ),
    (
        "J. K. Rowling lived in the U.S. in 1997. The cat sat. It slept... Then it woke.",
        [
            "J. K. Rowling lived in the U.S. in 1997.",
            "The cat sat.",
            "It slept...",
            "Then it woke.",
        ],
    ),
    (
        "Version 2.0 costs approx. 3.5 million, e.g. for No. 5. Mr. X (b. 1950) agreed.",
        ["Version 2.0 costs approx. 3.5 million, e.g. for No. 5.", "Mr. X (b. 1950) agreed."],
    ),
    (
        "Points:\n- first point. second bit\n- Second point\n\n1. One.\n2) Two. Three.",
        ["Points:", "first point. second bit", "Second point", "One.", "Two.", "Three."],
    ),
    ("“Is it true?” she asked. Nobody knew.", ["“Is it true?” she asked.", "Nobody knew."]),
    # known blind spot: a sentence ending in an abbreviation ("Feb.") is not split
    (
        "It grew by 4.5% in Jan. 2020 and fell in Feb. It then rose.",
        ["It grew by 4.5% in Jan. 2020 and fell in Feb. It then rose."],
    ),
]


@pytest.mark.parametrize(("text", "expected"), SENTENCE_CASES)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_sentence_decomposer_and_whole_response() -> None:
    dec = SentenceDecomposer().decompose_sync("The canal opened in 1847. It is 38 km long.")
    assert dec.claims == ["The canal opened in 1847.", "It is 38 km long."]
    assert dec.calls == 0 and dec.error is None
    assert SentenceDecomposer(min_words=3).decompose_sync("Yes. It is long.").claims == [
        "It is long."
    ]
    empty = SentenceDecomposer().decompose_sync("  \n ")
    assert empty.claims == [] and empty.error
    whole = WholeResponse().decompose_sync("  One. Two.  ")
    assert whole.claims == ["One. Two."]
    assert WholeResponse().decompose_sync("").error == "empty response"
