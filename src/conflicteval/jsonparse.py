"""Lenient extraction of a JSON value from a model reply, and a small schema check.

Models wrap JSON in code fences, put prose before or after it, or write two
objects. :func:`extract_json` finds the first complete JSON object or array
that parses; it never invents a value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)

MAX_EXAMINED = 500_000
"""Characters of a reply that :func:`extract_json` examines (the rest is ignored).

A model reply is far shorter (250 tokens by default; 32k tokens are about 130k
characters); the bound keeps a runaway or hostile reply from holding the event
loop, on which the parsing runs."""

_PARSE_BUDGET = 4
"""Characters the JSON decoder may read over all candidates, as a multiple of
the examined length: candidates are tried left to right until one parses or
this budget is spent, so the work stays linear in the reply's length."""

_TOKENS = {"{": re.compile(r'\{+|\}+|"'), "[": re.compile(r'\[+|\]+|"')}
_VALUE_START = {
    "{": re.compile(r'\{\s*["}]'),
    "[": re.compile(r'\[\s*(?:[\]"{\[\-0-9]|true|false|null)'),
}
_FIRST_CHARS = {"{": frozenset('"}'), "[": frozenset(']"{[-0123456789tfn')}


def _string_end(text: str, start: int) -> int:
    """Index of the quote closing a JSON string whose body starts at ``start`` (-1: none)."""
    find = text.find
    j = find('"', start)
    while j != -1:
        k = j - 1
        while k >= start and text[k] == "\\":
            k -= 1
        if (j - 1 - k) % 2 == 0:  # an even number of backslashes: the quote is not escaped
            return j
        j = find('"', j + 1)
    return -1


string_end = _string_end
"""Public name of :func:`_string_end` (the parsers of replies use it to read one field)."""


def balanced_spans(text: str, opener: str = "{") -> list[tuple[int, int]]:
    """The balanced ``{...}`` (or ``[...]``) spans of ``text`` that may hold JSON, by start.

    One left-to-right scan with a stack of open brackets, so the cost is linear
    in the length of ``text`` (a span is ``(start, end)``, ``end`` exclusive).
    Inside brackets, JSON strings are skipped (a bracket in a string does not
    count); outside any bracket a quote is prose and ignored. A bracket never
    closed (a truncated reply) leaves only its complete inner spans. Spans
    whose first character cannot begin a JSON value (``{{``, ``{not json}``)
    are left out; whether a span parses is for the JSON decoder to say.
    """
    first_chars = _FIRST_CHARS[opener]
    value_start = _VALUE_START[opener].match
    depth = 0  # open brackets of this kind
    viable: list[tuple[int, int]] = []  # (depth, position) of the openers that may start JSON
    spans: list[tuple[int, int]] = []
    skip_to = 0
    size = len(text)
    # Runs of brackets are taken at once, so a megabyte of "{" is a handful of steps.
    for match in _TOKENS[opener].finditer(text):
        i, j = match.span()
        if i < skip_to:
            continue
        ch = text[i]
        if ch == '"':
            if depth:
                end = _string_end(text, i + 1)
                if end == -1:
                    break  # an unterminated string runs to the end: nothing closes after it
                skip_to = end + 1
        elif ch == opener:
            if opener == "[" and j - i > 1:
                # "[[" may begin an array of arrays: the run's outermost bracket is a
                # candidate too (the ones between are left out, to keep runs cheap)
                viable.append((depth, i))
            depth += j - i
            # only the run's last bracket can be followed by a value's first character
            nxt = text[j] if j < size else ""
            if nxt in first_chars or (nxt.isspace() and value_start(text, j - 1)):
                viable.append((depth - 1, j - 1))
        elif depth:
            closed = min(depth, j - i)
            top = depth - 1  # the depth the run's first closer closes
            depth -= closed
            while viable and viable[-1][0] >= depth:
                level, start = viable.pop()
                spans.append((start, i + (top - level) + 1))
    spans.sort()
    return spans


class PairsDict(dict[str, Any]):
    """A decoded JSON object that also keeps every ``(key, value)`` pair as written.

    ``json`` keeps only the last of duplicate keys (``{"answer": "A", "answer": "B"}`` is
    ``{"answer": "B"}``); a parser that must see every value a reply gives for a key reads
    :attr:`pairs`. Otherwise an ordinary dict (equal to, and serialised as, one).
    """

    pairs: list[tuple[str, Any]]


def _pairs_dict(pairs: list[tuple[str, Any]]) -> PairsDict:
    obj = PairsDict(pairs)
    obj.pairs = pairs
    return obj


_PAIRS_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_dict)


class RepeatedKey(ValueError):
    """A JSON object gives one key two different values: which one the reply means is unknown."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the reply's JSON gives the key {key!r} two different values")
        self.key = key


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object as ``json`` builds it, refusing a key repeated with another value (a key
    repeated with the same value is harmless)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen and (type(seen[key]) is not type(value) or seen[key] != value):
                raise RepeatedKey(key)
            seen[key] = value
    return obj


_ONE_VALUE_DECODER = json.JSONDecoder(object_pairs_hook=_one_value_per_key)


def decode_pairs(text: str) -> Any:
    """``json.loads(text)`` with every object a :class:`PairsDict` (raises ``ValueError``)."""
    return _PAIRS_DECODER.decode(text)


def _decode_span(
    text: str, start: int, end: int, keep_pairs: bool = False, one_value: bool = False
) -> tuple[Any, int]:
    """Decode ``text[start:end]``: (the value or ``_NONE``, characters of work).

    With ``one_value``, an object repeating a key with another value raises
    :class:`RepeatedKey` (it is JSON, but not one reading of it).
    """
    span = text[start:end]  # a copy, so a decoding error counts lines in the span only
    hook = _pairs_dict if keep_pairs else (_one_value_per_key if one_value else None)
    try:
        value = json.loads(span, object_pairs_hook=hook)
    except RepeatedKey:
        raise
    except ValueError as exc:
        pos = exc.pos if isinstance(exc, json.JSONDecodeError) else len(span)
        return _NONE, len(span) + pos
    except RecursionError:  # nested too deeply for the decoder
        return _NONE, 2 * len(span)
    return value, 2 * len(span)


def iter_json_spans(
    text: str,
    want: type = dict,
    *,
    outermost: bool = False,
    budget: list[int] | None = None,
    keep_pairs: bool = False,
    one_value: bool = False,
) -> Iterator[tuple[Any, int, int]]:
    """Yield ``(value, start, end)`` for each balanced span of ``text`` that decodes to a ``want``.

    Spans come left to right (by start); with ``outermost`` a span inside one
    already yielded is skipped. The decoder reads at most ``budget[0]``
    characters over all spans (default: a few times the text's length), so the
    work stays linear even for a hostile reply; ``budget`` is decreased in place. With
    ``keep_pairs`` every object is a :class:`PairsDict` (duplicate keys kept in ``pairs``);
    with ``one_value`` a span whose object repeats a key with another value raises
    :class:`RepeatedKey`.
    """
    if budget is None:
        budget = [_PARSE_BUDGET * max(len(text), 1)]
    last_end = -1
    for start, end in balanced_spans(text, "{" if want is dict else "["):
        if outermost and start < last_end:
            continue
        if budget[0] <= 0:
            return
        value, cost = _decode_span(text, start, end, keep_pairs, one_value)
        budget[0] -= cost
        if value is not _NONE and isinstance(value, want):
            last_end = end
            yield value, start, end


def _first_in_spans(text: str, want: type, budget: list[int]) -> Any:
    """The first balanced span of ``text`` that decodes to a ``want``, or ``_NONE``."""
    for value, _, _ in iter_json_spans(text, want, budget=budget, one_value=True):
        return value
    return _NONE


_NONE = object()


def extract_json(text: str, *, want: type = dict) -> Any:
    """Extract the first JSON value of type ``want`` (dict or list) from ``text``.

    Tries, in order: the whole text, the contents of each code fence, then every
    balanced ``{...}`` (or ``[...]``) span from left to right, inside the code
    fences first, then anywhere in the text.

    The work is linear in the reply's length: spans are found in one scan
    (:func:`balanced_spans`), only the first :data:`MAX_EXAMINED` characters
    are examined, and the decoder reads at most a few times that many
    characters over all candidates before giving up.

    A candidate that gives a key of one of its objects two different values
    (``{"answer": "A", "answer": "B"}``) is not read as the last value (what ``json`` would
    do): the reply fails with :class:`RepeatedKey` when that candidate is reached before one
    that reads.

    Raises:
        ValueError: When no complete JSON value of that type is present (for
            example a truncated reply). The message says what was seen.
        RepeatedKey: A ``ValueError`` too: a candidate repeats a key with another value.
    """
    cut = len(text) > MAX_EXAMINED
    if cut:
        text = text[:MAX_EXAMINED]
    fences = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for source in [text.strip(), *fences]:
        try:
            value = _ONE_VALUE_DECODER.decode(source)
        except RepeatedKey:
            raise
        except (ValueError, RecursionError):
            continue
        if isinstance(value, want):
            return value
    budget = [_PARSE_BUDGET * max(len(text), 1)]
    for source in [*fences, text]:
        value = _first_in_spans(source, want, budget)
        if value is not _NONE:
            return value
    opener = "{" if want is dict else "["
    note = f" (only the first {MAX_EXAMINED} characters were examined)" if cut else ""
    if budget[0] <= 0:
        raise ValueError(
            f"no usable JSON {want.__name__} in reply (too many malformed spans){note}"
        )
    if opener in text:
        raise ValueError(
            f"no complete JSON {want.__name__} in reply (truncated or malformed){note}"
        )
    raise ValueError(f"no JSON {want.__name__} in reply{note}")


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
