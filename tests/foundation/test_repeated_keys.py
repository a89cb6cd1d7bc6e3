"""A JSON reply that gives one key two values is not one answer: never read as its last value."""

from __future__ import annotations

import pytest

from conflicteval import LLMLabeler, get_model
from conflicteval.jsonparse import RepeatedKey, extract_json
from conflicteval.testing import OpenAICompatServer
from conflicteval.types import Document


@pytest.mark.parametrize(
    ("reply", "key"),
    [
        ('{"answer": "A", "answer": "B"}', "answer"),
        ('```json\n{"answer": "A", "answer": "B"}\n```', "answer"),
        ('Here: {"label": {"x": 1, "x": 2}} done', "x"),
        ('{"ok": 1, "ok": true}', "ok"),  # equal in Python, not the same JSON value
    ],
)
def test_a_key_given_two_values_fails_the_reply(reply: str, key: str) -> None:
    with pytest.raises(RepeatedKey) as caught:
        extract_json(reply)
    assert caught.value.key == key and key in str(caught.value)
    assert isinstance(caught.value, ValueError)  # what the model layer reports and re-asks on


def test_a_key_repeated_with_the_same_value_is_one_answer() -> None:
    assert extract_json('{"answer": "A", "answer": "A"}') == {"answer": "A"}


def test_a_readable_candidate_before_a_conflicting_one_is_read() -> None:
    assert extract_json('{"answer": "A"} and later {"b": 1, "b": 2}') == {"answer": "A"}


def test_the_model_layer_asks_again_instead_of_taking_the_last_value() -> None:
    schema = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
    replies = ['{"label": "SUPPORTS", "label": "CONTRADICTS"}', '{"label": "CONTRADICTS"}']
    with OpenAICompatServer(replies=replies) as server:
        model = get_model("openai/test", base_url=server.base_url, api_key="x", cache=False)
        out = model.generate_sync("q", response_schema=schema)
        assert out.parsed == {"label": "CONTRADICTS"}
        reqs = server.completions()
        assert len(reqs) == 2
        assert "'label' two different values" in (reqs[1].body or {})["messages"][-1]["content"]


def test_the_structured_labeller_never_takes_the_last_of_two_answers() -> None:
    twice = '{"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS", '
    twice += '"answer": "CONTRADICTS"}'
    with OpenAICompatServer(replies=[twice]) as server:  # the same reply to the re-ask
        model = get_model("openai/test", base_url=server.base_url, api_key="x", cache=False)
        result = LLMLabeler(model).label_sync(["c"], [Document(id="d", text="some text")])
        pair = result.pairs[0][0]
        assert pair.label is None and pair.error and "two different values" in pair.error
        assert len(server.completions()) == 2  # asked once more, as for any unusable reply
