"""Fingerprints: short hashes of prompt texts and of an item's inputs.

:func:`text_version` names a prompt text (an edited prompt is another identity);
:func:`input_fingerprint` names what one item was made from, stored in its
checkpoint record so an item whose inputs changed is computed again on resume
(see :mod:`conflicteval.runs.identity` for the identity of a whole run).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

__all__ = ["input_fingerprint", "text_version"]


def text_version(text: str) -> str:
    """A short fingerprint of a prompt text (so an edited prompt is another identity)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def input_fingerprint(inputs: Any) -> str:
    """A fingerprint of one item's inputs: SHA-256 (first 32 hex digits) of their canonical JSON.

    Args:
        inputs: JSON-able values; pydantic models are taken as their JSON
            dump, tuples and sets as lists. Key order does not matter.

    Raises:
        TypeError: A value that has no JSON form.
    """
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (tuple, set, frozenset)):
        values = list(value)
        return sorted(values, key=repr) if isinstance(value, (set, frozenset)) else values
    raise TypeError(f"an item input of type {type(value).__name__} has no JSON form")
