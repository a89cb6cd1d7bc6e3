"""Messages and structured replies: normalising messages, response schemas, parsing
and validating a JSON reply (and the re-ask sent when it fails)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from conflicteval.jsonparse import check_schema, extract_json
from conflicteval.models.schemas import class_schema
from conflicteval.types import CUT_OFF, Completion, Message

REASK_TEMPLATE = (
    "Your previous reply could not be used: {error}. "
    "Reply again with only one JSON object that follows the requested format."
)


def _schema_of(
    schema: dict[str, Any] | type[BaseModel] | None,
) -> tuple[dict[str, Any] | None, type[BaseModel] | None, str]:
    if schema is None:
        return None, None, "response"
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return class_schema(schema), schema, schema.__name__
    if isinstance(schema, dict):
        return schema, None, str(schema.get("title") or "response")
    raise TypeError("response_schema must be a JSON-schema dict or a pydantic model class")


def _normalise_messages(messages: Sequence[Message] | str) -> list[Message]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    out: list[Message] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise ValueError(f"message {i} must be a mapping with 'role' and 'content'")
        out.append({"role": str(m["role"]), "content": str(m["content"])})
    return out


def _parse_structured(
    text: str, schema: dict[str, Any], schema_model: type[BaseModel] | None
) -> tuple[Any, str | None]:
    """Extract and validate; returns (value, None) or (None, reason)."""
    want: type = list if schema.get("type") == "array" else dict
    try:
        value = extract_json(text, want=want)
    except ValueError as exc:
        return None, str(exc)
    if schema_model is not None:
        try:
            return schema_model.model_validate(value), None
        except ValidationError as exc:
            return None, "schema validation failed: " + "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
            )
    problems = check_schema(value, schema)
    if problems:
        return None, "schema validation failed: " + "; ".join(problems[:5])
    return value, None


def dumps_messages(messages: Sequence[Message]) -> str:
    """Messages as canonical JSON (used by dry runs for token estimates)."""
    return json.dumps(list(messages), ensure_ascii=False)


def reask_messages(messages: list[Message], reply: str, error: str) -> list[Message]:
    """The conversation that asks once more after a reply that did not parse."""
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": REASK_TEMPLATE.format(error=error)},
    ]


def after_reask(
    first: Completion, error: str, second: Completion, schema: Any, schema_model: Any
) -> Completion:
    """The re-asked reply, parsed (a cut-off reply is no answer), with both calls' usage;
    a parse failure names both errors."""
    parsed: Any = None
    error2: str | None = CUT_OFF
    if not second.truncated:
        parsed, error2 = _parse_structured(second.text, schema, schema_model)
    usage = first.usage + second.usage
    if error2 is None:
        second.parsed = parsed
        second.usage = usage
        return second
    return Completion(
        text=second.text,
        finish_reason=second.finish_reason,
        usage=usage,
        cached=first.cached and second.cached,
        model=second.model,
        parse_error=f"{error2} (after one re-ask; first reply: {error})",
    )
