"""Lenient extraction of a JSON value from a model reply, and a small schema check.

Models wrap JSON in code fences, put prose before or after it, or write two
objects. :func:`extract_json` finds the first complete JSON object or array
that parses; it never invents a value.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def _scan_balanced(text: str, start: int) -> str | None:
    """Return the balanced ``{...}``/``[...]`` span starting at ``start``, or None."""
    opener = text[start]
    closer = "}" if opener == "{" else "]"
    depth = 0
    in_string = False
    escape = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1] if ch == closer else None
    return None


def extract_json(text: str, *, want: type = dict) -> Any:
    """Extract the first JSON value of type ``want`` (dict or list) from ``text``.

    Tries, in order: the whole text, the contents of each code fence, then every
    balanced ``{...}`` (or ``[...]``) span from left to right, inside the code
    fences first, then anywhere in the text.

    Raises:
        ValueError: When no complete JSON value of that type is present (for
            example a truncated reply). The message says what was seen.
    """
    fences = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for source in [text.strip(), *fences]:
        try:
            value = json.loads(source)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, want):
            return value
    opener = "{" if want is dict else "["
    for source in [*fences, text]:
        idx = source.find(opener)
        while idx != -1:
            span = _scan_balanced(source, idx)
            if span is not None:
                try:
                    value = json.loads(span)
                except (json.JSONDecodeError, ValueError):
                    pass
                else:
                    if isinstance(value, want):
                        return value
            idx = source.find(opener, idx + 1)
    if opener in text:
        raise ValueError(f"no complete JSON {want.__name__} in reply (truncated or malformed)")
    raise ValueError(f"no JSON {want.__name__} in reply")


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def check_schema(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Check ``value`` against the common subset of JSON Schema.

    Supports ``type`` (one or a list), ``enum``, ``const``, ``required``,
    ``properties``, ``additionalProperties: false``, ``items``, ``minItems`` and
    ``maxItems``. Returns a list of problems (empty when valid).
    """
    problems: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        ok = False
        for name in names:
            types = _TYPES.get(name, (object,))
            if isinstance(value, types) and not (
                name in ("integer", "number") and isinstance(value, bool)
            ):
                ok = True
        if not ok:
            return [f"{path}: expected {'/'.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        problems.append(f"{path}: expected {schema['const']!r}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{path}: missing required key {key!r}")
        props: dict[str, Any] = schema.get("properties", {})
        for key, sub in props.items():
            if key in value:
                problems.extend(check_schema(value[key], sub, f"{path}.{key}"))
        if schema.get("additionalProperties") is False:
            for key in value:
                if key not in props:
                    problems.append(f"{path}: unexpected key {key!r}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                problems.extend(check_schema(item, schema["items"], f"{path}[{i}]"))
    return problems
