"""The ConflictBench builder: determinism, "other" documents, schema, claim writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.conflictbench import (
    PAPER_TABLE1,
    BenchDocument,
    BenchItem,
    LLMClaimWriter,
    assemble,
    build_conflictbench,
    load,
    read_items,
)
from conflicteval.errors import DataError
from conflicteval.models import get_model


def _synthetic_source(n: int) -> list[BenchItem]:
    """n AmbigDocs-like items; items 2k and 2k+1 share a group (same ambiguous name)."""
    items = []
    for i in range(n):
        docs = [
            BenchDocument(id=f"d{i}-0", text=f"entity {i} fact A", gold="SUPPORTS"),
            BenchDocument(id=f"d{i}-1", text=f"entity {i} fact B", gold="CONTRADICTS"),
        ]
        items.append(
            BenchItem(
                id=f"ambigdocs:{i}",
                source="ambigdocs",
                question=f"question {i}?",
                claim=f"claim {i}",
                documents=docs,
                conflict=True,
                group=f"ambigdocs:g{i // 2}",
            )
        )
    return items


def test_assemble_is_deterministic_and_other_docs_are_foreign() -> None:
    loaded = _synthetic_source(40)
    a = assemble("ambigdocs", loaded, seed=7)
    b = assemble("ambigdocs", loaded, seed=7)
    c = assemble("ambigdocs", loaded, seed=8)
    dump = lambda part: [it.model_dump() for it in part[0] + part[1]]  # noqa: E731
    assert dump(a) == dump(b)
    assert dump(a) != dump(c)
    conf, noconf, notes = a
    assert notes == []
    # paper proportion for AmbigDocs: 291 / 651 of 40 records -> 18 conflict
    assert (len(conf), len(noconf)) == (round(40 * 291 / 651), 40 - round(40 * 291 / 651))
    by_id = {it.id: it for it in loaded}
    used = [it.id.rsplit(":", 1)[0] for it in conf + noconf]
    assert len(used) == len(set(used)) == 40  # each record used once
    for it in noconf:
        src = by_id[it.id.removesuffix(":noconf")]
        own_ids = {d.id for d in src.documents}
        same_group_ids = {d.id for o in loaded if o.group == src.group for d in o.documents}
        golds = sorted(d.gold for d in it.documents)
        assert golds == ["IRRELEVANT", "IRRELEVANT", "SUPPORTS"]
        support = [d for d in it.documents if d.gold == "SUPPORTS"]
        assert [d.id for d in support] == [src.documents[0].id]
        for d in it.documents:
            if d.gold == "IRRELEVANT":
                assert d.id not in own_ids
                assert d.id not in same_group_ids  # never the same ambiguous name
                assert by_id[d.meta["drawn_from"]].group != src.group
        assert it.kind == "no-conflict" and it.conflict is False
    for it in conf:
        assert it.documents == by_id[it.id.removesuffix(":conf")].documents  # kept as they are


def test_assemble_explicit_sizes_and_shortfall() -> None:
    loaded = _synthetic_source(10)
    conf, noconf, notes = assemble("ambigdocs", loaded, seed=1, sizes=(3, 20))
    assert len(conf) == 3 and len(noconf) == 7
    assert notes == ["ambigdocs: 7 of 20 no-conflict items available"]


def test_build_from_files_writes_valid_jsonl(
    tmp_path: Path, cqa_jsonl: Path, ambig_json: Path, contraqa_current: Path, macnoise_json: Path
) -> None:
    out = tmp_path / "bench.jsonl"
    specs = [
        ("conflictingqa", cqa_jsonl),
        ("ambigdocs", ambig_json),
        ("contraqa", contraqa_current),
        ("macnoise", macnoise_json, {"level": "35"}),
    ]
    result = build_conflictbench(specs, output=out, seed=3)
    again = build_conflictbench(specs, output=tmp_path / "again.jsonl", seed=3)
    assert out.read_bytes() == (tmp_path / "again.jsonl").read_bytes()
    assert result.counts == again.counts
    items = read_items(out)  # validates every line against the unified schema
    assert len(items) == len(result.items) == sum(c + n for c, n in result.counts.values())
    # ConflictingQA keeps its own labels: 1 conflicting query, 2 one-sided ones
    assert result.counts["conflictingqa"] == (1, 2)
    cqa_noconf = [it for it in items if it.source == "conflictingqa" and not it.conflict]
    assert all(it.id.endswith(":noconf") and it.kind == "no-conflict" for it in cqa_noconf)
    for it in items:
        assert it.conflict == (it.kind == "conflict")
        assert it.id.endswith(":conf" if it.conflict else ":noconf")
    # ContraQA no-conflict items draw only real paragraphs of other articles
    for it in items:
        if it.source == "contraqa" and not it.conflict:
            others = [d for d in it.documents if d.gold == "IRRELEVANT"]
            assert not any(d.synthetic or d.id.endswith("-FAKE") for d in others)
    table = result.table()
    assert "| ConflictingQA | 1 | 2 | 3 | 355 | 79 | 434 |" in table
    assert "| Overall |" in table and "2,293" in table


def test_read_items_rejects_inconsistent_record(tmp_path: Path, ambig_json: Path) -> None:
    item = next(iter(load("ambigdocs", ambig_json)))
    data = json.loads(item.model_dump_json())
    data["conflict"] = False
    path = tmp_path / "bad.jsonl"
    path.write_text(item.model_dump_json() + "\n" + json.dumps(data) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_items(path)
    assert err.value.row == 2 and "disagrees" in str(err.value)


def test_llm_claim_writer_through_model_layer(tmp_path: Path, macnoise_json: Path) -> None:
    def reply(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        if "Declaration" in prompt or "declaration" in prompt:
            return "Claim: Thomas Jefferson wrote the Declaration of Independence."
        return '"Barack Obama wrote Dreams from My Father, published in 1995."'

    model = get_model("scripted", replies=reply)
    writer = LLMClaimWriter(model)
    result = build_conflictbench(
        [("macnoise", macnoise_json, {"level": "35"})],
        seed=0,
        claim_writer=writer,
        checkpoint=tmp_path / "claims.jsonl",
    )
    claims = {it.id: it.claim for it in result.items}
    assert "Barack Obama wrote Dreams from My Father, published in 1995." in claims.values()
    assert "Thomas Jefferson wrote the Declaration of Independence." in claims.values()
    assert all(it.claim_method.startswith("llm:") for it in result.items)
    assert result.claim_failures == [] and result.usage.calls == len(result.items)
    prompt = model.provider.requests[0].messages[-1]["content"]
    assert "Answer: " in prompt and "Question: " in prompt
    # resume: a second build with the same checkpoint makes no call
    model2 = get_model("scripted", replies=[])
    again = build_conflictbench(
        [("macnoise", macnoise_json, {"level": "35"})],
        seed=0,
        claim_writer=LLMClaimWriter(model2),
        checkpoint=tmp_path / "claims.jsonl",
    )
    assert [it.claim for it in again.items] == [it.claim for it in result.items]
    assert model2.provider.requests == []


def test_an_edited_item_gets_its_claim_written_again_on_resume(
    tmp_path: Path, macnoise_json: Path
) -> None:
    """A written claim is tied to its request (question, answer): after one item's answer
    changes, a resumed build writes that claim again and keeps the others without a call."""
    import asyncio

    from conflicteval.conflictbench.builder import write_claims

    def reply(messages: list[dict[str, str]]) -> str:
        answer = messages[-1]["content"].split("Answer: ")[-1].splitlines()[0]
        return f"The answer is {answer}."

    items = build_conflictbench([("macnoise", macnoise_json, {"level": "35"})], seed=0).items
    ckpt = tmp_path / "claims.jsonl"
    model = get_model("scripted", replies=reply)
    asyncio.run(write_claims(items, LLMClaimWriter(model), checkpoint=ckpt))
    assert len(model.provider.requests) == len(items) >= 2
    edited = [items[0].model_copy(update={"answer": "Someone Else"}), *items[1:]]
    again = get_model("scripted", replies=reply)
    out, failed, _ = asyncio.run(write_claims(edited, LLMClaimWriter(again), checkpoint=ckpt))
    assert len(again.provider.requests) == 1 and failed == []
    assert out[0].claim == "The answer is Someone Else."


def test_claim_writer_failure_is_counted_and_template_kept(macnoise_json: Path) -> None:
    model = get_model("scripted", replies=["   \n"])
    result = build_conflictbench(
        [("macnoise", macnoise_json, {"level": "35"})],
        sizes={"macnoise-nq": (1, 0)},
        claim_writer=LLMClaimWriter(model),
    )
    assert len(result.items) == 1
    assert result.claim_failures == [result.items[0].id]
    assert result.items[0].claim_method == "template"
    assert result.items[0].meta["claim_error"]
    assert "1 failures" in result.summary()


def test_paper_table1_totals() -> None:
    assert sum(c for c, _ in PAPER_TABLE1.values()) == 1280
    assert sum(n for _, n in PAPER_TABLE1.values()) == 1013


def test_load_with_claim_writer(macnoise_json: Path) -> None:
    model = get_model("scripted", replies=["Claim: Barack Obama wrote it.", "Jefferson wrote it."])
    items = list(load("macnoise", macnoise_json, claim_writer=LLMClaimWriter(model)))
    assert [it.claim for it in items] == ["Barack Obama wrote it.", "Jefferson wrote it."]
    assert all(it.claim_method == "llm:scripted/scripted" for it in items)
    prompt = model.provider.requests[0].messages[-1]["content"]
    assert "Question: Whose book dreams from my father was published in 1995?" in prompt
    assert "Answer: Barack Obama" in prompt
