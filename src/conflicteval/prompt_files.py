"""The files shipped in ``conflicteval/prompts/``: prompts, templates and published tables.

Every area reads its prompt files through :func:`prompt_text`, so where they live and how
they are decoded is said once. The files are UTF-8 with ``\\n`` line ends (a test checks
it), and are returned exactly as stored: what a caller strips is its own choice.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["named_prompt", "prompt_text"]


def prompt_text(file_name: str) -> str:
    """The text of ``conflicteval/prompts/<file_name>``, exactly as stored."""
    path = resources.files("conflicteval").joinpath("prompts").joinpath(file_name)
    return path.read_bytes().decode("utf-8")


@cache
def named_prompt(name: str) -> str:
    """The text of the prompt ``name`` (``prompts/<name>.txt``), exactly as stored; read once."""
    return prompt_text(f"{name}.txt")
