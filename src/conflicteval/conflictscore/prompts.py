"""The ConflictScore prompt texts, loaded from package data, and safe slot filling.

The texts live in ``conflicteval/prompts/conflictscore_*.txt``:

* ``conflictscore_decompose.txt`` -- Table 6 of the ConflictScore paper (Liu, Xia,
  Halfaker, Roth, "ConflictScore: Identifying and Measuring How Language Models
  Handle Conflicting Evidence", arXiv:2606.26437; claim decomposition), verbatim.
* ``conflictscore_label.txt`` -- the paper's Table 7 (one claim against one document),
  verbatim as the paper's text prints it: its four heading lines ("Document-Claim
  Conflict Detection", "Claim to evaluate", "Document to evaluate against", "Output
  format") are plain lines. This is the prompt sent by default.
* ``conflictscore_label_headings.txt`` -- an option, not the paper's text: Table 7
  with ``# `` in front of those four lines (markdown headings), chosen with
  ``LLMLabeler(headings=True)`` or ``pair_prompt(..., headings=True)``.
* ``conflictscore_label_claims_per_document.txt`` and
  ``conflictscore_label_documents_per_claim.txt`` -- the project's own batched
  variants (not the paper's), reusing Table 7's label definitions.

Slots are written ``{name}``. They are filled in one pass, so a claim or a
document that itself contains ``{document}`` or JSON braces is inserted as is
and never re-expanded.
"""

from __future__ import annotations

import re
from functools import cache

from conflicteval.prompt_files import named_prompt

DECOMPOSE = "conflictscore_decompose"
LABEL = "conflictscore_label"
LABEL_HEADINGS = "conflictscore_label_headings"
LABEL_CLAIMS_PER_DOCUMENT = "conflictscore_label_claims_per_document"
LABEL_DOCUMENTS_PER_CLAIM = "conflictscore_label_documents_per_claim"

_SLOT = re.compile(r"\{([a-z_]+)\}")


@cache
def load_prompt(name: str) -> str:
    """Return the text of the prompt ``name`` (file name without ``.txt``).

    Trailing whitespace of the file is removed; nothing else is changed.
    """
    return named_prompt(name).rstrip()


def fill(template: str, **slots: str) -> str:
    """Replace each ``{name}`` of ``template`` whose name is in ``slots``, in one pass.

    Unknown ``{...}`` spans (such as the JSON template of Table 7) are left alone.

    Raises:
        KeyError: When a slot given in ``slots`` does not occur in the template.
    """
    parts, names = _split(template)
    missing = [name for name in slots if name not in names and "{" + name + "}" not in template]
    if missing:
        raise KeyError(f"slots not in template: {missing}")
    # parts alternate: text, slot name, text, ...; a slot not given stays as written
    out = list(parts)
    for k in range(1, len(out), 2):
        name = out[k]
        out[k] = slots[name] if name in slots else "{" + name + "}"
    return "".join(out)


@cache
def _split(template: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """``template`` split at its ``{name}`` slots, and the slot names; once per template."""
    parts = tuple(_SLOT.split(template))
    return parts, frozenset(parts[1::2])
