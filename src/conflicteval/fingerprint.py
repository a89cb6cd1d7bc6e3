"""Fingerprints: the one canonical JSON and the one hash helper of the library.

Every stored hash is made here: response-cache keys (:func:`conflicteval.cache.cache_key`),
prompt text versions (:func:`text_version`), item input fingerprints in checkpoints
(:func:`input_fingerprint`), the labeler bench's store keys
(:func:`conflicteval.measurements.labeler_key`) and the stable ids of ConflictBench
records without one. :func:`canonical_json` is the one JSON form (sorted keys, no
white space); :func:`fingerprint` is the SHA-256 of it, cut to ``digits`` hex digits.

Two settings stay as the stored hashes were first made, so that existing caches,
checkpoints, saved measurements and built files still match: item input fingerprints
escape non-ASCII characters (``ascii_only=True``), and ConflictBench's record ids are
SHA-1 (``algorithm="sha1"``). A test pins each kind of hash to its stored value.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

__all__ = [
    "canonical_json",
    "fingerprint",
    "input_fingerprint",
    "text_fingerprint",
    "text_version",
]


def canonical_json(value: Any, *, ascii_only: bool = False) -> str:
    """JSON with sorted keys and no white space: the same value gives the same text.

    Pydantic models are taken as their JSON dump, tuples as lists, sets as lists
    in a fixed order; key order does not matter.

    Raises:
        TypeError: A value that has no JSON form.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only, default=_plain
    )


def text_fingerprint(text: str, digits: int = 64, *, algorithm: str = "sha256") -> str:
    """The first ``digits`` hex digits of the hash of ``text``'s UTF-8 bytes."""
    return hashlib.new(algorithm, text.encode("utf-8")).hexdigest()[:digits]


def fingerprint(value: Any, digits: int = 64, *, ascii_only: bool = False) -> str:
    """The first ``digits`` hex digits of the SHA-256 of ``value``'s :func:`canonical_json`."""
    return text_fingerprint(canonical_json(value, ascii_only=ascii_only), digits)


def text_version(text: str) -> str:
    """A short fingerprint of a prompt text (so an edited prompt is another identity)."""
    return text_fingerprint(text, 12)


def input_fingerprint(inputs: Any) -> str:
    """A fingerprint of one item's inputs: SHA-256 (first 32 hex digits) of their canonical JSON.

    Non-ASCII characters are escaped in the JSON hashed, as checkpoints have always stored it.

    Args:
        inputs: JSON-able values; pydantic models are taken as their JSON
            dump, tuples and sets as lists. Key order does not matter.

    Raises:
        TypeError: A value that has no JSON form.
    """
    return fingerprint(inputs, 32, ascii_only=True)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (tuple, set, frozenset)):
        values = list(value)
        return sorted(values, key=repr) if isinstance(value, (set, frozenset)) else values
    raise TypeError(f"a value of type {type(value).__name__} has no JSON form")
