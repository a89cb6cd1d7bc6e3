"""JSON schemas of pydantic classes, built and encoded once per class.

pydantic rebuilds a class's JSON schema on every ``model_json_schema()`` call;
before this memo that was most of the CPU of a structured call served from the
cache (a ConflictScore re-run). The schema's canonical JSON, as it enters the
cache key, is kept too, so a call does not encode it again.
"""

from __future__ import annotations

import weakref
from typing import Any

from pydantic import BaseModel

from conflicteval.fingerprint import canonical_json, text_fingerprint

__all__ = ["class_schema", "class_schema_text", "key_with_schema_text"]

_class_schemas: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)


def class_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, computed once per class.

    pydantic rebuilds the schema on every call (most of the CPU of a cached
    structured call before this memo). A class's schema does not change once
    the class exists, so the first result is kept (weakly: a class made at run
    time may still be collected). Treat the returned dict as read-only: it is
    shared by every call with this class.
    """
    schema = _class_schemas.get(model)
    if schema is None:
        schema = model.model_json_schema()
        _class_schemas[model] = schema
    return schema


_class_schema_texts: weakref.WeakKeyDictionary[type[BaseModel], str] = weakref.WeakKeyDictionary()


def class_schema_text(model: type[BaseModel]) -> str:
    """The canonical JSON of :func:`class_schema` (as it enters a cache key), computed once."""
    text = _class_schema_texts.get(model)
    if text is None:
        text = canonical_json(class_schema(model))
        _class_schema_texts[model] = text
    return text


def key_with_schema_text(components: dict[str, Any], schema_text: str) -> str:
    """:func:`~conflicteval.cache.cache_key` of ``components``, its schema given as JSON text.

    The canonical JSON of a mapping is its sorted entries joined, so the schema's
    part can be spliced in from :func:`class_schema_text` instead of being encoded
    again on every call: the same text, the same key.
    """
    before = {k: v for k, v in components.items() if k < "response_schema"}
    after = {k: v for k, v in components.items() if k > "response_schema"}
    parts = (canonical_json(before)[1:-1], '"response_schema":' + schema_text)
    text = "{" + ",".join(p for p in (*parts, canonical_json(after)[1:-1]) if p) + "}"
    return text_fingerprint(text)
