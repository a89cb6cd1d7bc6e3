"""Report benchmarking (§5) end to end against the local OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conflicteval.conflictbench import BenchDocument, BenchItem
from conflicteval.conflictbench.report_benchmark import (
    main_entity_heuristic,
    report_prompt,
    run_reports,
    select_report_items,
    summarize_reports,
)
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.models import get_model
from conflicteval.testing import Fault

SEED_TABLE8 = (
    "Instruction: Write a report about {main_entity} given the following documents. "
    "Make your report concise and not longer than 3 paragraphs.\nDocuments:\n{Documents}"
)

REPORTS = {
    # model -> setting marker -> report
    "big": {
        "rag": "Infinite scrolling is good. It keeps users engaged.",
        "balanced": "Some sources say infinite scrolling is good while others disagree.",
        "super": "Infinite scrolling is good.",
    },
    "nano": {
        "rag": "It keeps users engaged.",
        "balanced": "Some sources say infinite scrolling is good while others disagree.",
        "super": "unused: this call fails",
    },
}


def _setting(prompt: str) -> str:
    if "careful and balanced reporting assistant" in prompt:
        return "super"
    if "Please be cautious and hedge accordingly" in prompt:
        return "balanced"
    assert prompt.startswith("Instruction: Write a report about ")
    return "rag"


def _rule(claim: str, doc: str) -> str:
    c, d = claim.lower(), doc.lower()
    if c.startswith("some sources"):
        return "SUPPORTS" if "scrolling" in d else "IRRELEVANT"
    if "is good" in c:
        if "is good" in d:
            return "SUPPORTS"
        return "CONTRADICTS" if "is bad" in d else "IRRELEVANT"
    if "engaged" in c:
        return "SUPPORTS" if "engag" in d else "IRRELEVANT"
    return "IRRELEVANT"


def _items() -> list[BenchItem]:
    docs = [
        BenchDocument(
            id="d1",
            title="Pro",
            text="Scrolling is good and keeps people engaged.",
            gold="SUPPORTS",
        ),
        BenchDocument(
            id="d2", title="Con", text="Scrolling is bad for navigation.", gold="CONTRADICTS"
        ),
        BenchDocument(id="d3", text="Cats sleep a lot.", gold="IRRELEVANT"),
    ]
    q = "Is infinite scrolling a good web design technique?"
    return [
        BenchItem(
            id="conflictingqa:a:conf",
            source="conflictingqa",
            question=q,
            claim="c",
            documents=docs,
            conflict=True,
            kind="conflict",
        ),
        BenchItem(
            id="conflictingqa:b:conf",
            source="conflictingqa",
            question=q,
            claim="c",
            documents=docs,
            conflict=True,
            kind="conflict",
            meta={"main_entity": "infinite scroll UX"},
        ),
    ]


def test_main_entity_heuristic() -> None:
    assert main_entity_heuristic("Is infinite scrolling a good web design technique?") == (
        "infinite scrolling"
    )
    assert main_entity_heuristic("Does the moon have an atmosphere?") == "moon"
    assert main_entity_heuristic("Can cats truly understand human emotions?") == "cats"
    assert main_entity_heuristic("Coffee?") == "Coffee"


def test_report_prompt_is_table8_verbatim() -> None:
    docs = [d.to_document() for d in _items()[0].documents]
    text = report_prompt("rag", "infinite scrolling", docs)
    head = SEED_TABLE8.split("{Documents}")[0].replace("{main_entity}", "infinite scrolling")
    assert text.startswith(head)
    assert "Document 1: Pro\nScrolling is good" in text
    assert text.endswith("Document 3:\nCats sleep a lot.")
    with pytest.raises(ValueError):
        report_prompt("rag-extreme", "x", docs)


def test_select_report_items_is_seeded() -> None:
    items = _items() * 1
    more = [
        it.model_copy(update={"id": f"conflictingqa:{i}:conf"}) for i, it in enumerate(items * 5)
    ]
    a = select_report_items(more, n=3, seed=1)
    assert [it.id for it in a] == [it.id for it in select_report_items(more, n=3, seed=1)]
    assert len(a) == 3 and all(it.conflict for it in a)


def test_reports_end_to_end_table3(openai_server: Any, tmp_path: Path, scripted: Any) -> None:
    def reply(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if scripted.is_label_prompt(prompt):
            return scripted.label_reply(prompt, _rule)
        if scripted.is_decompose_prompt(prompt):
            return scripted.decompose_reply(prompt)
        if prompt.startswith("What is the main entity"):
            return "infinite scrolling"
        name = body["model"]
        return REPORTS[name][_setting(prompt)]

    def faults(n: int, body: dict[str, Any]) -> Fault | None:
        prompt = body["messages"][-1]["content"]
        if body["model"] == "nano" and "careful and balanced reporting" in prompt:
            return Fault.status_code(400)
        return None

    openai_server.set_replies(reply)
    openai_server.set_faults(faults)
    opts = {"base_url": openai_server.base_url, "api_key": "k", "max_attempts": 2}
    models = {"big": get_model("openai/big", **opts), "nano": get_model("openai/nano", **opts)}
    judge = get_model("openai/judge", **opts)
    scorer = ConflictScorer(LLMDecomposer(judge), LLMLabeler(judge))
    ckpt = tmp_path / "reports.jsonl"
    run = run_reports(_items(), models, scorer, entity_model=judge, checkpoint=ckpt)

    rows = {(r.model, r.setting): r for r in run.rows}
    assert [(r.model, r.setting) for r in run.rows] == [
        ("big", "rag"),
        ("big", "balanced"),
        ("big", "super_balanced"),
        ("nano", "rag"),
        ("nano", "balanced"),
        ("nano", "super_balanced"),
    ]
    assert (rows["big", "rag"].cs_c, rows["big", "rag"].cs_r) == (0.5, 0.25)
    assert (rows["big", "balanced"].cs_c, rows["big", "balanced"].cs_r) == (0.0, 0.0)
    assert (rows["big", "super_balanced"].cs_c, rows["big", "super_balanced"].cs_r) == (1.0, 0.5)
    assert (rows["nano", "rag"].cs_c, rows["nano", "rag"].cs_r) == (0.0, 0.0)
    failed = rows["nano", "super_balanced"]
    assert (failed.cs_c, failed.cs_r, failed.failed, failed.reports) == (None, None, 2, 2)
    assert all(r.reports == 2 for r in run.rows)
    assert run.batch.counts == {"ok": 10, "parse_error": 0, "model_error": 2, "total": 12}

    table = run.table()
    assert (
        "| big / RAG | 0.5000 | [0.5000, 0.5000] | 0.2500 | [0.2500, 0.2500] "
        "| 2 | 2 | 0 | 0 | 0 | 0 |" in table
    )
    assert "| nano / RAG (Super-Balanced) | – | – | – | – | 2 | 0 | 0 | 0 | 2 | 0 |" in table

    # the main entity: the model's answer for item a, the item's own meta for item b
    prompts = [r.prompt for r in openai_server.completions()]
    assert any(
        p.startswith("Instruction: Write a report about infinite scrolling given") for p in prompts
    )
    assert any(
        p.startswith("Instruction: Write a report about infinite scroll UX given") for p in prompts
    )
    assert sum(p.startswith("What is the main entity") for p in prompts) == 1
    assert run.usage.calls > 0 and "model errors" in run.summary()

    # resume: finished reports make no call; the two failed ones are kept as failed
    before = len(openai_server.completions())
    again = run_reports(_items(), models, scorer, entity_model=judge, checkpoint=ckpt)
    assert openai_server.completions()[before:] == []  # the entity call is cached too
    assert [r.model_dump() for r in again.rows] == [r.model_dump() for r in run.rows]

    # a report is tied to the documents it was written from: after item b's third document
    # changes, its six reports are written again and item a's six are resumed
    items = _items()
    docs = [*items[1].documents[:2], BenchDocument(id="d3", text="Cats scroll.", gold="IRRELEVANT")]
    items[1] = items[1].model_copy(update={"documents": docs})
    edited = run_reports(items, models, scorer, entity_model=judge, checkpoint=ckpt)
    assert (edited.batch.resumed, edited.batch.changed) == (6, 6)
    assert "6 recomputed because their inputs changed" in edited.summary()


def test_summarize_reports_counts_undefined_and_unscored() -> None:
    rows = summarize_reports(
        [
            ("m", "rag", "ok", {"cs_c": 0.5, "cs_r": None, "n_failed_pairs": 1}),
            ("m", "rag", "ok", {"cs_c": 1.0, "cs_r": 0.5, "n_failed_pairs": 0}),
            ("m", "rag", "ok", {"cs_c": None, "cs_r": None, "score_error": "no claims"}),
            ("m", "rag", "model_error", None),
        ]
    )
    (row,) = rows
    assert row.cs_c == pytest.approx(0.75) and row.cs_r == pytest.approx(0.5)
    assert (row.reports, row.scored, row.cs_r_undefined, row.score_errors, row.failed) == (
        4,
        2,
        1,
        1,
        1,
    )
    assert row.failed_pairs == 1
    # each mean with the bootstrap interval of the reports it is over (seeded, 1,000 resamples)
    from conflicteval.stats import bootstrap_ci

    assert row.cs_c_ci == list(bootstrap_ci([0.5, 1.0]))
    assert row.cs_r_ci == [0.5, 0.5]  # one report with a CS-R
    empty = summarize_reports([("m", "rag", "model_error", None)])[0]
    assert (empty.cs_c, empty.cs_c_ci, empty.cs_r, empty.cs_r_ci) == (None, None, None, None)
