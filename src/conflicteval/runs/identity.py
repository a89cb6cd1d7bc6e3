"""What produced a run: the identity recorded with a checkpoint.

A resumable run (:func:`conflicteval.runs.run_batch`) keeps its finished
items in a checkpoint. Resuming it with another configuration (another model,
endpoint, labeler, prompt or decoding setting) would mix two runs' results
under one name, so the runner records the run's *identity* beside the
checkpoint and compares it on resume.

:func:`describe` turns the parts of a workflow (models, labelers, decomposers,
judges, settings) into plain JSON: a model is its name, base URL and default
prompt version; any object with an ``identity()`` method is what that method
returns; mappings and sequences are described element by element.

The identity covers *how* results are made. *What* they are made from is
covered per item: :func:`conflicteval.fingerprint.input_fingerprint` turns an
item's inputs (response text, documents with titles, gold answers, rendered
prompt) into a short hash that the runner stores in the item's checkpoint
record, so an item whose inputs changed is computed again on resume and only
that item.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

__all__ = ["describe", "diff_identity"]


def describe(obj: Any) -> Any:
    """A JSON-able description of ``obj`` for a run's identity.

    Args:
        obj: A model, a component with ``identity()``, a mapping, a sequence,
            a pydantic model class (a response schema) or a plain value.

    Returns:
        Plain JSON values (dicts, lists, strings, numbers, None).
    """
    from conflicteval.models.core import Model

    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, Model):
        described: dict[str, Any] = {
            "model": obj.name,
            "base_url": obj.provider.base_url,
            "prompt_version": obj.prompt_version,
        }
        decoding = obj.decoding.identity()  # only a model sent other decoding than asked
        if decoding is not None:
            described["decoding"] = decoding
        return described
    method = getattr(obj, "identity", None)
    if callable(method):
        return describe(method())
    if isinstance(obj, Mapping):
        return {str(k): describe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        values = [describe(v) for v in obj]
        return sorted(values, key=repr) if isinstance(obj, (set, frozenset)) else values
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        return obj.__name__
    if isinstance(obj, BaseModel):
        return describe(obj.model_dump(mode="json"))
    return type(obj).__qualname__


def diff_identity(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """The fields in which two identities differ: ``[(dotted name, old, new), ...]``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in list(old) + [k for k in new if k not in old]:
            name = f"{prefix}.{key}" if prefix else str(key)
            if key not in old:
                out.append((name, "(absent)", new[key]))
            elif key not in new:
                out.append((name, old[key], "(absent)"))
            else:
                out.extend(diff_identity(old[key], new[key], name))
        return out
    if old != new:
        return [(prefix or "identity", old, new)]
    return []
