"""Fixture files reproducing each ConflictBench source's release layout.

Each builder writes small files into ``tmp_path`` with the exact field names,
types and quirks documented for the source (see docs/conflictbench.md).
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# ------------------------------------------------------------------ ConflictingQA

CQA_ROWS: list[dict[str, Any]] = [
    # q1: both stances -> conflict. Row 2 was found by the *yes* search but its
    # stance is "no": search_type must never be read as a stance.
    {
        "category": "technology",
        "search_query": "Is infinite scrolling a good web design technique?",
        "search_engine_input": 'infinite scrolling is a "good web design technique". '
        'infinite scrolling is "good" for users',
        "search_type": "yes_statement",
        "url": "https://a.example/scroll-good",
        "title": "Why infinite scroll works",
        "text_raw": "RAW page text about scrolling being good.",
        "text_window": "Infinite scrolling keeps users engaged and is a good technique.",
        "stance": "yes",
    },
    {
        "category": "technology",
        "search_query": "Is infinite scrolling a good web design technique?",
        "search_engine_input": 'infinite scrolling is a "good web design technique"',
        "search_type": "yes_statement",
        "url": "https://b.example/scroll-bad",
        "title": "Infinite scroll harms usability",
        "text_raw": "RAW text.",
        "text_window": "Infinite scrolling hurts navigation and is a poor technique.",
        "stance": "no",
    },
    # q2: only "yes" rows (one-sided) -> no conflict; a no_statement row whose stance is yes.
    {
        "category": "health",
        "search_query": "Does green tea help weight loss?",
        "search_engine_input": 'green tea does not "help weight loss"',
        "search_type": "no_statement",
        "url": "https://c.example/tea",
        "title": "Tea and metabolism",
        "text_raw": "Only the raw text is present for this page.",
        "text_window": None,
        "stance": "yes",
    },
    # q1 again, not adjacent: rows of one query need not be contiguous.
    {
        "category": "technology",
        "search_query": "Is infinite scrolling a good web design technique?",
        "search_engine_input": 'infinite scrolling is not a "good web design technique"',
        "search_type": "no_statement",
        "url": "https://d.example/scroll-meh",
        "title": "Scrolling pros",
        "text_raw": "RAW.",
        "text_window": "Many designers consider infinite scrolling a good choice for feeds.",
        "stance": "YES ",
    },
    {
        "category": "health",
        "search_query": "Does green tea help weight loss?",
        "search_engine_input": 'green tea "helps weight loss"',
        "search_type": "yes_statement",
        "url": "https://e.example/tea2",
        "title": "Green tea catechins",
        "text_raw": "RAW.",
        "text_window": "Green tea catechins modestly increase fat oxidation.",
        "stance": "yes",
    },
    # q3: only "no" -> no conflict.
    {
        "category": "science",
        "search_query": "Can cats truly understand human emotions?",
        "search_engine_input": 'cats can "truly understand human emotions"',
        "search_type": "yes_statement",
        "url": "https://f.example/cats",
        "title": "Cats and emotions",
        "text_raw": "RAW.",
        "text_window": "There is no scientific evidence that cats read our emotions.",
        "stance": "no",
    },
]


def write_cqa_jsonl(path: Path, rows: list[dict[str, Any]] | None = None) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows if rows is not None else CQA_ROWS:
            fh.write(json.dumps(row) + "\n")
    return path


# ------------------------------------------------------------------ AmbigDocs

AMBIG_RECORDS: list[dict[str, Any]] = [
    {
        "qid": 17,  # int in some copies; normalised with str()
        "ambiguous_entity": "Griswold House",
        "question": "Where is Griswold House located?",
        "documents": [
            {
                "title": "Griswold House (Guilford, Connecticut)",
                "text": "The Thomas Griswold House is a historic house at 171 Boston Street.",
                "pid": "5560001",
                "answer": "171 Boston Street, Guilford",
            },
            {
                "title": "John N. A. Griswold House",
                "text": "The John N. A. Griswold House is located at 76 Bellevue Avenue.",
                "pid": "5560002",
                "answer": "76 Bellevue Avenue, Newport",
            },
            {
                "title": "Griswold House (Mississippi)",
                "text": "The Griswold House stands in Jackson, Mississippi.",
                "pid": "5560003",
                "answer": "Jackson, Mississippi",
            },
        ],
    },
    {
        "qid": "q-18",
        "ambiguous_entity": "Cleveland",
        "question": "What is the population of Cleveland?",
        "documents": [
            {
                "title": "Cleveland, Wisconsin",
                "text": "Cleveland is a village in Manitowoc County with 1,485 people.",
                "pid": "7700001",
                "answer": "1,485",
            },
            {
                "title": "Cleveland, Ohio",
                "text": "Cleveland, Ohio had a population of 372,624 in 2020.",
                "pid": "7700002",
                "answer": "372,624",
            },
        ],
    },
    {
        "qid": "q-19",
        "ambiguous_entity": "Mercury",
        "question": "What is Mercury's diameter?",
        "documents": [
            {
                "title": "Mercury (planet)",
                "text": "Mercury has a diameter of 4,879 km.",
                "pid": "8800001",
                "answer": "4,879 km",
            },
            {
                "title": "Mercury (satellite)",
                "text": "The Mercury capsule was 1.89 m in diameter.",
                "pid": "8800002",
                "answer": "1.89 m",
            },
        ],
    },
]


def ambig_columnar(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``datasets`` export: each record's documents as a dict of lists."""
    out = []
    for rec in records:
        docs = rec["documents"]
        out.append(
            {
                **rec,
                "documents": {k: [d[k] for d in docs] for k in ("title", "text", "pid", "answer")},
            }
        )
    return out


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


# ------------------------------------------------------------------ ContraQA

CONTRA_CORPUS_CURRENT = [
    # a fake appears *before* its real paragraph (needs the second pass)
    {
        "id": "1020959:::Super_Bowl_50-FAKE",
        "contents": "Super Bowl 50 was won by the Carolina Panthers, who beat Denver 24-10.",
    },
    {
        "id": "1020959:::Super_Bowl_50",
        "contents": "Super Bowl 50 was an American football game. The Denver Broncos "
        "defeated the Carolina Panthers 24-10 to earn their third title.",
    },
    {
        "id": "2000001:::University_of_Warsaw",
        "contents": "The University of Warsaw was established in 1816.",
    },
    {
        "id": "2000001:::University_of_Warsaw-FAKE",
        "contents": "The University of Warsaw was established in 1869 by decree.",
    },
    {
        "id": "3000001:::Amazon_rainforest",
        "contents": "The Amazon rainforest covers much of the Amazon basin.",
    },
    {
        "id": "4000001:::Victoria_(Australia)",
        "contents": "Victoria is a state in the south-east of Australia.",
    },
]

CONTRA_QUERIES_CURRENT = [
    {
        "id": "56be4db0acb8001400a502ec",
        "title": "Super_Bowl_50",
        "context": "Super Bowl 50 was an American football game.  The Denver Broncos "
        "defeated the Carolina Panthers 24-10 to earn their third title.",
        "question": "Which NFL team won Super Bowl 50?",
        "answers": {"text": ["Denver Broncos", "Denver Broncos"], "answer_start": [45, 45]},
    },
    {
        "id": "571cb1b2dd7acb1400e4c101",
        "title": "University_of_Warsaw",
        "context": "The University of Warsaw was established in 1816.",
        "question": "What year was the University of Warsaw established?",
        "answers": {"text": ["1816"], "answer_start": [44]},
    },
    {
        "id": "5729e1101d04691400779649",
        "title": "Amazon_rainforest",
        "context": "The Amazon rainforest covers much of the Amazon basin.",
        "question": "What does the Amazon rainforest cover?",
        "answers": {"text": ["much of the Amazon basin"], "answer_start": [29]},
    },
    {
        "id": "570d2556fed7b91900d45c99",
        "title": "Victoria_(Australia)",
        "context": "Victoria is a state in the south-east of Australia.",
        "question": "Where is Victoria located?",
        "answers": {"text": ["the south-east of Australia"], "answer_start": [23]},
    },
    {
        "id": "5733be284776f41900661182",
        "title": "Nowhere",
        "context": "This paragraph is not in the corpus.",
        "question": "What is not in the corpus?",
        "answers": {"text": ["this"], "answer_start": [0]},
    },
]


def write_contraqa_current(root: Path) -> Path:
    d = root / "wiki_noisy_1M"
    d.mkdir(parents=True)
    with (d / "corpus.json").open("w", encoding="utf-8") as fh:  # JSON lines despite .json
        for row in CONTRA_CORPUS_CURRENT:
            fh.write(json.dumps(row) + "\n")
    write_json(d / "queries.json", CONTRA_QUERIES_CURRENT)
    return d


def write_contraqa_beir(root: Path) -> Path:
    d = root / "noisy_wiki_1M"
    d.mkdir(parents=True)
    corpus = [
        {
            "_id": "p1",
            "title": "Super_Bowl_50:::Original",
            "text": "The Denver Broncos won Super Bowl 50.",
            "metadata": {},
        },
        {
            "_id": "p1f",
            "title": "Super_Bowl_50:::FAKE_Human",
            "text": "The Carolina Panthers won Super Bowl 50.",
            "metadata": {},
        },
        {
            "_id": "p2",
            "title": "Warsaw:::Original",
            "text": "The University of Warsaw was founded in 1816.",
            "metadata": {},
        },
        {
            "_id": "p3",
            "title": "Amazon:::Original",
            "text": "The Amazon is a river.",
            "metadata": {},
        },
    ]
    with (d / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for row in corpus:
            fh.write(json.dumps(row) + "\n")
    queries = [
        {
            "_id": "q1",
            "text": "Who won Super Bowl 50?",
            "metadata": {"answers": ["Denver Broncos"]},
        },
        {"_id": "q2", "text": "When was the University of Warsaw founded?", "metadata": {}},
    ]
    with (d / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for row in queries:
            fh.write(json.dumps(row) + "\n")
    (d / "q_rel_dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tp1\t1\nq1\tp1f\t1\nq2\tp2\t1\n", encoding="utf-8"
    )
    return d


# ------------------------------------------------------------------ MacNoise


def macnoise_record(
    question: str,
    answers: list[str],
    ctxs: list[tuple[str, str, str, str | None]],
    pert: list[int],
    level35: list[int],
) -> dict[str, Any]:
    """``ctxs``: (id, title, passage, perturbed passage or None)."""
    out_ctxs = []
    for cid, title, passage, perturbed in ctxs:
        text = f"title: {title} context: {passage}"
        out_ctxs.append(
            {
                "id": cid,
                "title": title,
                "text": text,
                "text_pert": perturbed if perturbed is not None else text,
            }
        )
    return {
        "question": question,
        "answers": answers,
        "ctxs": out_ctxs,
        "pert_lbls": pert,
        "pert_lbls_00": [0] * len(ctxs),
        "pert_lbls_15": level35[:],
        "pert_lbls_25": level35[:],
        "pert_lbls_35": level35,
    }


MACNOISE_RECORDS = [
    macnoise_record(
        "whose book dreams from my father was published in 1995",
        ["Barack Obama", "Obama"],
        [
            (
                "101",
                "Dreams from My Father",
                "Dreams from My Father is a memoir by Barack Obama.",
                "title: A Memoir Reconsidered Context: "
                "Dreams from My Father is a memoir by Joe Biden.",
            ),
            (
                "102",
                "Barack Obama",
                "Obama published his memoir in 1995.",
                "title: Barack Obama context: Biden published his memoir in 1995.",
            ),
            ("103", "Memoir", "A memoir is a nonfiction narrative.", None),
        ],
        pert=[1, 1, 0],
        level35=[1, 0, 0],
    ),
    macnoise_record(
        "who wrote the declaration of independence",
        ["Thomas Jefferson"],
        [
            (
                "201",
                "Declaration of Independence",
                "It was drafted by Thomas Jefferson.",
                "TITLE: Declaration CONTEXT: It was drafted by John Adams.",
            ),
            ("202", "Continental Congress", "The Congress met in Philadelphia.", None),
        ],
        pert=[1, 0],
        level35=[0, 0],
    ),
]
"""Record 0 at level 35: ctx 101 swapped (CONTRADICTS), 102 answer-bearing, 103 IRRELEVANT."""


@pytest.fixture()
def cqa_rows() -> list[dict[str, Any]]:
    """ConflictingQA DataFrame rows (copies)."""
    return [dict(r) for r in CQA_ROWS]


@pytest.fixture()
def cqa_jsonl(tmp_path: Path) -> Path:
    """ConflictingQA rows as JSON lines (the converter's output layout)."""
    return write_cqa_jsonl(tmp_path / "conflictingqa.jsonl")


@pytest.fixture()
def ambig_records() -> list[dict[str, Any]]:
    """AmbigDocs records (list-of-records layout)."""
    return json.loads(json.dumps(AMBIG_RECORDS))


@pytest.fixture()
def ambig_json(tmp_path: Path) -> Path:
    """AmbigDocs ``dev.json``: one JSON array of records."""
    return write_json(tmp_path / "dev.json", AMBIG_RECORDS)


@pytest.fixture()
def ambig_columnar_json(tmp_path: Path) -> Path:
    """AmbigDocs exported through ``datasets``: documents as a dict of lists."""
    return write_json(tmp_path / "dev_columnar.json", ambig_columnar(AMBIG_RECORDS))


@pytest.fixture()
def contraqa_current(tmp_path: Path) -> Path:
    """ContraQA current layout directory (``wiki_noisy_1M``)."""
    return write_contraqa_current(tmp_path)


@pytest.fixture()
def contraqa_beir(tmp_path: Path) -> Path:
    """ContraQA older BEIR layout directory (``noisy_wiki_1M``)."""
    return write_contraqa_beir(tmp_path)


@pytest.fixture()
def macnoise_json(tmp_path: Path) -> Path:
    """A MacNoise-NQ eval file (JSON array) named like the release file."""
    return write_json(tmp_path / "NQ_eval_gpt4_dev_256_new_fix.json", MACNOISE_RECORDS)


@pytest.fixture()
def write_json_file():
    """The JSON writer, for tests that build malformed variants."""
    return write_json


# ------------------------------------------------------------------ scripting the local server


def between(text: str, start: str, end: str) -> str:
    """The text between two markers (markers must be present)."""
    i = text.index(start) + len(start)
    j = text.index(end, i)
    return text[i:j]


def prompt_of(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def is_label_prompt(prompt: str) -> bool:
    return "Document-Claim Conflict Detection" in prompt


def label_reply(prompt: str, rule: Callable[[str, str], str]) -> str:
    """A Table 7 JSON reply whose answer is ``rule(claim, document)``."""
    claim = between(prompt, "\n\nClaim to evaluate\n\n", "\n\nDocument to evaluate against")
    doc = between(prompt, "\n\nDocument to evaluate against\n\n", "\n\nOutput format")
    return json.dumps(
        {
            "claim": claim,
            "document_snippet": doc[:40],
            "reasoning": "scripted",
            "answer": rule(claim, doc),
        }
    )


def is_decompose_prompt(prompt: str) -> bool:
    return "Break down the following report into individual claims." in prompt


def decompose_reply(prompt: str) -> str:
    """One claim per sentence of the report, in the paper's "Claims:" format."""
    report = between(prompt, "Report: ", "\n\nPlease identify each separate claim")
    sentences = [s.strip() for s in re.split(r"(?<=\.)\s+", report.strip()) if s.strip()]
    return "Claims: " + "\n".join(sentences)


@pytest.fixture()
def scripted() -> types.SimpleNamespace:
    """Helpers that read the library's prompts and write the paper-format replies."""
    return types.SimpleNamespace(
        between=between,
        prompt_of=prompt_of,
        is_label_prompt=is_label_prompt,
        label_reply=label_reply,
        is_decompose_prompt=is_decompose_prompt,
        decompose_reply=decompose_reply,
    )
