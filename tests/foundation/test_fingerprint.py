"""Every stored hash comes from one helper, and each is the value earlier releases stored.

The pinned values were computed by the helpers this module replaced (cache keys, schema
keys, prompt text versions, item input fingerprints, labeler store keys, ConflictBench
record ids), so a response cache, a checkpoint, a saved bench measurement or a built
ConflictBench file from an earlier release still matches: a cache hit stays a hit, a
finished item stays finished on resume.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from pydantic import BaseModel

from conflicteval.cache import cache_key
from conflicteval.conflictbench.sources._common import short_hash
from conflicteval.fingerprint import canonical_json, fingerprint, input_fingerprint, text_version
from conflicteval.measurements import labeler_key
from conflicteval.models.schemas import class_schema_text, key_with_schema_text
from conflicteval.types import Document


class Verdict(BaseModel):
    label: str
    confidence: float


COMPONENTS: dict[str, Any] = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "base_url": None,
    "messages": [{"role": "user", "content": "Zürich — 東京 ü"}],
    "temperature": 0.0,
    "max_tokens": 250,
    "seed": 5,
    "response_schema": None,
    "prompt_version": "v1",
    "extra": {},
}
INPUTS = {
    "response": "Café ü",
    "documents": [Document(id="d1", text="Zürich is 東京", title="T"), ("a", "b")],
    "gold": {"b", "a"},
}
IDENTITY = {
    "kind": "llm",
    "model": {
        "model": "openai/gpt-4o-mini",
        "base_url": "https://api.openai.com/v1",
        "prompt_version": None,
    },
    "note": "ü",
}


def test_stored_hashes_are_those_earlier_releases_wrote() -> None:
    assert cache_key(COMPONENTS) == (
        "99e5b0bcd63e1d7521d2ddc588925f8bb87262e77bdd9d35ec8eb58d816f4866"
    )
    with_schema = dict(COMPONENTS, response_schema=json.loads(class_schema_text(Verdict)))
    expected = "7e58f1d984efc682147008723b9b68ce7dc904bd5782ad85bbddf06417e2841b"
    assert key_with_schema_text(with_schema, class_schema_text(Verdict)) == expected
    assert cache_key(with_schema) == expected
    assert text_version("Claim: {claim}\nDocument — ü") == "600d26b2d249"
    assert input_fingerprint(INPUTS) == "ecf8f64fcc22c2712dfaa2a9b56f9f70"
    assert labeler_key(IDENTITY) == "847d1636058135b0"
    assert short_hash("Who wrote Ünïcode?") == "73024ab482ee"


@pytest.mark.parametrize(
    "value",
    [COMPONENTS, IDENTITY, {"b": [1, 2.5, None, True], "a": "ü"}, ["x", {"z": 1, "y": 2}]],
)
def test_one_canonical_json_under_every_hash(value: Any) -> None:
    # the JSON settings each replaced helper used, spelled out
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == text
    assert fingerprint(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert cache_key(value) == fingerprint(value)
    assert fingerprint(value, 16) == fingerprint(value)[:16]
    ascii_text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    assert input_fingerprint(value) == hashlib.sha256(ascii_text.encode()).hexdigest()[:32]


def test_a_value_without_a_json_form_is_refused() -> None:
    with pytest.raises(TypeError, match="object has no JSON form"):
        fingerprint({"x": object()})
