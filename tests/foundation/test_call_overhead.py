"""Per-call shortcuts of the model layer give exactly what the long way gives."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from conflicteval import get_model
from conflicteval.cache import cache_key
from conflicteval.models.schemas import class_schema, class_schema_text, key_with_schema_text
from conflicteval.types import Usage


class Counted(BaseModel):
    answer: str
    built: ClassVar[int] = 0

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        cls.built += 1
        return super().model_json_schema(*args, **kwargs)


def test_a_class_schema_is_built_once_however_many_calls(tmp_path: Any) -> None:
    model = get_model("scripted", replies=lambda msgs: '{"answer": "x"}', cache=tmp_path)
    for i in range(5):
        out = model.generate_sync(f"q{i % 2}", response_schema=Counted)
        assert out.parsed == Counted(answer="x")
    assert Counted.built == 1
    assert class_schema(Counted) is class_schema(Counted)
    assert model.usage.calls == 5 and model.usage.cached_calls == 3


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"top_k": 3, "stop": ["\n"], "nested": {"response_schema": 1, "seed": [1, 2]}},
    ],
)
@pytest.mark.parametrize("prompt", ["plain", 'ünï "quoted" \\ {"seed": 5}, "z":'])
def test_the_spliced_cache_key_equals_the_canonical_one(prompt: str, extra: dict[str, Any]) -> None:
    model = get_model("openai/m", base_url="http://127.0.0.1:9/v1", api_key="k", cache=False)
    for settings in ({}, {"temperature": None, "seed": None, "prompt_version": "v2"}):
        components = model.key_components(prompt, response_schema=Counted, **settings, **extra)
        assert key_with_schema_text(components, class_schema_text(Counted)) == cache_key(components)


def test_a_cached_structured_call_hits_the_entry_the_canonical_key_names(tmp_path: Any) -> None:
    model = get_model("scripted", replies=['{"answer": "y"}'], cache=tmp_path)
    model.generate_sync("q", response_schema=Counted, top_p=0.5)
    key = model.cache_key("q", response_schema=Counted, top_p=0.5)
    assert model.cache is not None and model.cache.contains(key)


def test_usage_add_sums_every_field_and_marks_them_set() -> None:
    total = Usage()
    total.add(Usage(prompt_tokens=3, completion_tokens=2, calls=1, cached_calls=1, truncated=1))
    total.add(Usage(prompt_tokens=4, calls=1))
    assert total == Usage(
        prompt_tokens=7, completion_tokens=2, calls=2, cached_calls=1, truncated=1
    )
    assert total.model_dump(exclude_unset=True) == total.model_dump()
    assert (total + Usage(calls=1)).calls == 3 and total.calls == 2
