"""Loading the ConflictBench prompt files and filling their ``{slot}`` placeholders."""

from __future__ import annotations

import re
from functools import cache

from conflicteval.prompt_files import prompt_text

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@cache
def load_prompt(name: str) -> str:
    """The text of ``conflicteval/prompts/<name>.txt`` (trailing newline removed)."""
    return prompt_text(f"{name}.txt").rstrip("\n")


def render(template: str, **slots: str) -> str:
    """Replace each ``{name}`` slot with its value in one pass.

    Not :meth:`str.format`: braces inside documents or answers are never
    interpreted, values are never re-scanned, and unknown slots are left as they are.
    """

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        return slots[name] if name in slots else match.group(0)

    return _SLOT.sub(sub, template)
