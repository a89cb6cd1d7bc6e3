"""A reply naming two labels fails on every reading path: the structured (validated) path of
the pair labeler, the batched labelers' validated path and their lenient entry reader."""

from __future__ import annotations

import json

import pytest

from conflicteval.conflictscore import parse_indexed_labels
from conflicteval.conflictscore.batched_labelers import BatchReply, per_document_labels_from_reply
from conflicteval.conflictscore.pair_labeler import PairReply, pair_label_from_reply
from conflicteval.jsonparse import PairsDict, iter_json_spans

DUPLICATE = (
    '{"document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS", "answer": "CONTRADICTS"}'
)


def test_json_objects_keep_every_duplicate_key_when_asked() -> None:
    [(obj, _, _)] = list(iter_json_spans(DUPLICATE, dict, keep_pairs=True))
    assert isinstance(obj, PairsDict)
    assert obj["answer"] == "CONTRADICTS"  # still a dict: json keeps the last
    assert [v for k, v in obj.pairs if k == "answer"] == ["SUPPORTS", "CONTRADICTS"]
    assert json.loads(json.dumps(obj)) == {
        "document_snippet": "s",
        "reasoning": "r",
        "answer": "CONTRADICTS",
    }


@pytest.mark.parametrize(
    "reply",
    [
        DUPLICATE,
        '{"document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS", "Answer": "IRRELEVANT"}',
        '{"document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS", "label": "CONTRADICTS"}',
        '{"document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS"}\nWait, no: CONTRADICTS.',
    ],
)
def test_a_validated_reply_naming_two_labels_is_a_failed_pair(reply: str) -> None:
    parsed = PairReply.model_validate(json.loads(reply.split("\n")[0]))
    assert parsed.answer in ("SUPPORTS", "CONTRADICTS")  # validation alone sees one label
    pair = pair_label_from_reply(0, 0, reply, parsed=parsed)
    assert pair.label is None and pair.error and pair.raw == reply


def test_a_validated_reply_with_one_label_keeps_it() -> None:
    reply = '{"document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS"}'
    pair = pair_label_from_reply(0, 0, reply, parsed=PairReply.model_validate_json(reply))
    assert (pair.label, pair.snippet, pair.reasoning) == ("SUPPORTS", "s", "r")


BATCH = (
    '{"labels": [{"index": 1, "answer": "SUPPORTS", "answer": "CONTRADICTS"}, '
    '{"index": 2, "answer": "IRRELEVANT", "label": "SUPPORTS"}, '
    '{"index": 3, "answer": "IRRELEVANT", "Answer": "irrelevant"}]}'
)


def test_batched_entries_naming_two_labels_fail_only_their_pair() -> None:
    result = parse_indexed_labels(BATCH, 3)
    assert result.labels[0].label is None and "disagree" in str(result.labels[0].problem)
    assert result.labels[1].label is None and "disagree" in str(result.labels[1].problem)
    assert result.labels[2].label == "IRRELEVANT"
    parsed = BatchReply.model_validate_json(BATCH)  # the validated form keeps one answer each
    pairs = per_document_labels_from_reply(0, 3, BATCH, parsed=parsed)
    assert [p.label for p in pairs] == [None, None, "IRRELEVANT"]
