"""The full LLM path (LLMDecomposer + LLM labelers) against the local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.conflictscore import (
    ConflictScorer,
    LLMDecomposer,
    LLMLabeler,
    PerClaimLLMLabeler,
    PerDocumentLLMLabeler,
    ScoreResult,
    prompts,
)
from conflicteval.models import get_model
from conflicteval.testing import Fault

S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"

CLAIMS = ["The canal opened in 1847.", "Boats pass 14 locks.", "The canal is 38 km long."]
DOCS = [
    {"id": "A", "title": "History", "text": "DOC-A The canal opened in 1847 and is 38 km long."},
    {"id": "B", "title": "Guide", "text": "DOC-B The canal opened in 1851; it is 38 km long."},
    "DOC-C Boats pass 14 locks.",
]
TRUTH = {  # (claim index, document marker) -> label
    (0, "A"): S,
    (0, "B"): C,
    (0, "C"): IRR,
    (1, "A"): IRR,
    (1, "B"): IRR,
    (1, "C"): S,
    (2, "A"): S,
    (2, "B"): S,
    (2, "C"): IRR,
}
RESPONSE = "The canal opened in 1847. Boats pass 14 locks. The canal is 38 km long."


def _doc_marker(text: str) -> str:
    match = re.search(r"DOC-([ABC])", text)
    assert match, text
    return match.group(1)


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def _numbered(block: str) -> list[str]:
    return [
        m.group(1).strip() for m in re.finditer(r"\[\d+\] (.*?)(?=\n\n\[\d+\] |\Z)", block, re.S)
    ]


class Script:
    """Replies of a well-behaved labelling model, with hooks to break single pairs."""

    def __init__(self) -> None:
        self.decomposition = "Claims:\n" + "\n".join(f"{k}. {c}" for k, c in enumerate(CLAIMS, 1))
        self.override: dict[tuple[int, str], str] = {}
        self.per_document_edit: dict[str, Any] = {}
        self.per_claim_edit: dict[int, Any] = {}

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][0]["content"]
        if prompt.startswith("Instruction: Break down the following report"):
            return self.decomposition
        if prompt.startswith("Document-Claim Conflict Detection"):
            claim = _between(prompt, "\nClaim to evaluate\n", "\nDocument to evaluate against\n")
            doc = _between(prompt, "\nDocument to evaluate against\n", "\nOutput format\n")
            key = (CLAIMS.index(claim), _doc_marker(doc))
            if key in self.override:
                return self.override[key]
            return json.dumps(
                {
                    "claim": claim,
                    "document_snippet": f"snippet {key[1]}",
                    "reasoning": f"why {key}",
                    "answer": TRUTH[key],
                }
            )
        if prompt.startswith("# Claims-Document Conflict Detection"):
            doc = _doc_marker(
                _between(prompt, "# Document to evaluate against", "# Claims to evaluate")
            )
            claims = _numbered(
                prompt.split("numbered 1 to", 1)[1].split("\n", 1)[1].split("# Output format")[0]
            )
            entries = [
                {
                    "index": k + 1,
                    "document_snippet": f"s{doc}",
                    "reasoning": "r",
                    "answer": TRUTH[(CLAIMS.index(c), doc)],
                }
                for k, c in enumerate(claims)
            ]
            edit = self.per_document_edit.get(doc)
            return json.dumps({"labels": edit(entries) if edit else entries})
        if prompt.startswith("# Claim-Documents Conflict Detection"):
            claim = _between(prompt, "# Claim to evaluate", "# Documents to evaluate against")
            block = (
                prompt.split("numbered 1 to", 1)[1].split("\n", 1)[1].split("# Output format")[0]
            )
            i = CLAIMS.index(claim)
            entries = [
                {"index": k + 1, "answer": TRUTH[(i, _doc_marker(d))]}
                for k, d in enumerate(_numbered(block))
            ]
            edit = self.per_claim_edit.get(i)
            return (
                "Here you go:\n```json\n"
                + json.dumps({"labels": edit(entries) if edit else entries})
                + "\n```"
            )
        raise AssertionError(f"unexpected prompt: {prompt[:80]}")


@pytest.fixture()
def script(openai_server: Any) -> Script:
    s = Script()
    openai_server.set_replies(s)
    return s


def _model(server: Any) -> Any:
    return get_model(
        "openai/test-model",
        base_url=server.base_url,
        api_key="test-key",
        cache=False,
        max_attempts=2,
        backoff_initial=0.01,
        backoff_max=0.05,
    )


def _check_scores(result: ScoreResult) -> None:
    assert result.claims == CLAIMS
    assert result.document_ids == ["A", "B", "2"]
    assert result.cs_c == pytest.approx(1 / 3)
    assert result.cs_r == pytest.approx(0.5 / 3)
    agg = result.aggregate
    assert agg is not None and agg.supporting[0] == [0] and agg.contradicting[0] == [1]


def test_pairwise_llm_path_makes_one_request_per_pair(openai_server: Any, script: Script) -> None:
    model = _model(openai_server)
    scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
    result = scorer.score(RESPONSE, DOCS)
    requests = openai_server.completions()
    assert len(requests) == 1 + 3 * 3
    assert result.calls == 10 and result.usage.calls == 10
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    _check_scores(result)
    assert [[p.label for p in row] for row in result.labels] == [
        [TRUTH[(i, d)] for d in "ABC"] for i in range(3)
    ]
    pair = result.labels[0][1]
    assert (pair.snippet, pair.reasoning) == ("snippet B", "why (0, 'B')")
    first = requests[0].body
    assert first["messages"][0]["content"] == prompts.fill(
        prompts.load_prompt(prompts.DECOMPOSE), report=RESPONSE
    )
    label_body = requests[1].body
    schema = label_body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["answer"]["enum"] == [S, C, IRR]
    # Table 7 as the paper prints it: plain heading lines, no "# " marks.
    assert "\n\nClaim to evaluate\n\n" in label_body["messages"][0]["content"]
    assert "#" not in label_body["messages"][0]["content"]
    assert "History\n\nDOC-A" in "".join(r.body["messages"][0]["content"] for r in requests)


def test_pairwise_failures_fail_only_their_pair(openai_server: Any, script: Script) -> None:
    script.override[(2, "C")] = "I cannot decide about this one."

    def fault(n: int, body: dict[str, Any]) -> Fault | None:
        content = body["messages"][0]["content"]
        if (
            "Boats pass 14 locks." in content.split("Document to evaluate against")[0]
            and "DOC-A" in content
        ):
            return Fault.status_code(400)
        return None

    openai_server.set_faults(fault)
    model = _model(openai_server)
    result = ConflictScorer(LLMDecomposer(model), LLMLabeler(model)).score(RESPONSE, DOCS)
    failed = result.labels[1][0]
    assert failed.label is None and failed.error and failed.error.startswith("model error")
    unparsable = result.labels[2][2]
    assert unparsable.label is None and unparsable.raw == "I cannot decide about this one."
    # 1 decomposition + 9 pairs + 1 re-ask of the unparsable reply
    assert len(openai_server.completions()) == 11
    assert result.calls == 11
    assert result.n_failed_pairs == 2
    assert result.aggregate is not None and result.aggregate.n_failed_pairs == 2
    assert result.cs_c == pytest.approx(1 / 3)  # failed pairs are left out, not IRRELEVANT


def test_per_document_variant_one_call_per_document(openai_server: Any, script: Script) -> None:
    model = _model(openai_server)
    scorer = ConflictScorer(LLMDecomposer(model), PerDocumentLLMLabeler(model))
    result = scorer.score(RESPONSE, DOCS)
    assert len(openai_server.completions()) == 1 + 3
    assert result.calls == 4
    _check_scores(result)
    assert result.labels[0][1].snippet == "sB"
    schema = openai_server.completions()[1].body["response_format"]["json_schema"]["schema"]
    assert "labels" in schema["properties"]


def test_per_document_missing_index_fails_that_pair_only(
    openai_server: Any, script: Script
) -> None:
    script.per_document_edit["B"] = lambda entries: [e for e in entries if e["index"] != 2]
    model = _model(openai_server)
    result = ConflictScorer(LLMDecomposer(model), PerDocumentLLMLabeler(model)).score(
        RESPONSE, DOCS
    )
    assert len(openai_server.completions()) == 4  # no re-ask for a missing index
    assert result.labels[1][1].label is None
    assert "no entry for index 2" in (result.labels[1][1].error or "")
    assert result.labels[1][1].raw is not None
    assert result.n_failed_pairs == 1
    assert result.labels[0][1].label == C and result.labels[2][1].label == S
    assert result.cs_c == pytest.approx(1 / 3)


def test_per_claim_variant_extra_and_duplicate_indices(openai_server: Any, script: Script) -> None:
    def edit(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [*entries, {"index": 4, "answer": S}, {"index": 2, "answer": C}]

    script.per_claim_edit[2] = edit
    model = _model(openai_server)
    result = ConflictScorer(LLMDecomposer(model), PerClaimLLMLabeler(model)).score(RESPONSE, DOCS)
    assert len(openai_server.completions()) == 1 + 3
    assert result.calls == 4
    row = result.labels[2]
    assert [row[0].label, row[1].label, row[2].label] == [S, None, IRR]
    assert "conflicting entries for index 2" in (row[1].error or "")
    assert [p.label for p in result.labels[0]] == [S, C, IRR]
    assert result.cs_c == pytest.approx(1 / 3)


def test_unstructured_mode_sends_no_response_format(openai_server: Any, script: Script) -> None:
    model = _model(openai_server)
    labeler = LLMLabeler(model, structured=False)
    result = labeler.label_sync(CLAIMS[:1], DOCS[:2])
    assert result.labels == [[S, C]]
    assert all("response_format" not in r.body for r in openai_server.completions())


def test_empty_decomposition_is_a_recorded_failure(
    openai_server: Any, script: Script, tmp_path: Path
) -> None:
    script.decomposition = "Claims:\n\n"
    model = _model(openai_server)
    scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
    result = scorer.score(RESPONSE, DOCS)
    assert result.error == "no claims in the decomposition reply"
    assert result.cs_c is None and result.raw == "Claims:\n\n"
    batch = scorer.score_many(
        [{"id": "x", "response": RESPONSE, "documents": DOCS}], checkpoint=tmp_path / "c.jsonl"
    )
    assert batch.counts["parse_error"] == 1
    assert batch.records[0].raw == "Claims:\n\n"
    assert len(openai_server.completions()) == 2  # no labelling without claims


def test_score_many_resumes_without_repeating_requests(
    openai_server: Any, script: Script, tmp_path: Path
) -> None:
    model = _model(openai_server)
    scorer = ConflictScorer(LLMDecomposer(model), PerDocumentLLMLabeler(model))
    items = [{"id": f"r{k}", "response": RESPONSE, "documents": DOCS} for k in range(3)]
    ckpt = tmp_path / "run" / "checkpoint.jsonl"
    first = scorer.score_many(items[:2], checkpoint=ckpt, concurrency=2)
    assert first.counts == {"ok": 2, "parse_error": 0, "model_error": 0, "total": 2}
    assert len(openai_server.completions()) == 2 * 4
    assert first.usage.calls == 8
    second = scorer.score_many(items, checkpoint=ckpt, concurrency=2)
    assert second.resumed == 2
    assert len(openai_server.completions()) == 3 * 4  # only the new item was sent
    assert [r.result for r in second.records[:2]] == [r.result for r in first.records]
    again = scorer.score_many(items, checkpoint=ckpt)
    assert again.resumed == 3 and len(openai_server.completions()) == 12
    restored = ScoreResult.model_validate(again.records[2].result)
    _check_scores(restored)
    assert restored.labels[0][1].snippet == "sB"


def test_dry_run_counts_without_calling(openai_server: Any, script: Script) -> None:
    model = _model(openai_server)
    items = [{"id": "a", "response": RESPONSE, "documents": DOCS}]
    from conflicteval.conflictscore import SentenceDecomposer
    from conflicteval.models.answerers import Count, answer_with

    def dry(scorer: ConflictScorer) -> Count:
        with answer_with(Count()) as count:  # the scoring itself, its calls counted
            result = scorer.score_many(items, progress=False)
        assert result.counts.get("pending", 0) == (1 if count.pending else 0)
        return count

    llm = dry(ConflictScorer(LLMDecomposer(model), LLMLabeler(model))).report()
    assert llm.calls == 1  # the labelling waits on the decomposition's reply: at least
    assert any("at least" in note for note in llm.notes)
    exact = dry(ConflictScorer(SentenceDecomposer(), LLMLabeler(model))).report()
    assert exact.calls == 9 and exact.prompt_tokens > 0
    per_doc = dry(ConflictScorer(SentenceDecomposer(), PerDocumentLLMLabeler(model))).report()
    assert per_doc.calls == 3
    assert dry(ConflictScorer()).reports() == []
    assert openai_server.completions() == []


@pytest.mark.parametrize("plain", [False, True])
def test_cli_plain_json_sends_the_prompt_only(
    openai_server: Any, script: Script, tmp_path: Path, capsys: Any, plain: bool
) -> None:
    from conflicteval.cli import main

    script.decomposition = "Claims: The canal opened in 1847."
    response = tmp_path / "response.txt"
    response.write_text("The canal opened in 1847.", encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in DOCS[:2]), encoding="utf-8")
    args = ["score", "--response", str(response), "--documents", str(docs)]
    args += ["--model", "openai/test-model", "--base-url", openai_server.base_url, "--json"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "k")
        mp.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
        assert main([*args, "--plain-json"] if plain else args) == 0
    labelling = [r for r in openai_server.completions() if "Claim to evaluate" in r.prompt]
    assert len(labelling) == 2
    assert all(("response_format" in r.body) is not plain for r in labelling)
    out = json.loads(capsys.readouterr().out)
    assert out["cs_c"] == 1.0
