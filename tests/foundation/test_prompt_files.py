"""The shipped prompt files are read in one place, exactly as stored."""

from __future__ import annotations

from importlib import resources

import pytest

from conflicteval.prompt_files import prompt_text

SHIPPED = sorted(
    p.name for p in resources.files("conflicteval").joinpath("prompts").iterdir() if p.is_file()
)


@pytest.mark.parametrize("name", SHIPPED)
def test_prompt_text_is_the_file_as_stored_with_newline_line_ends(name: str) -> None:
    raw = resources.files("conflicteval").joinpath("prompts").joinpath(name).read_bytes()
    assert b"\r" not in raw  # so text-mode and byte-exact readers agree
    assert prompt_text(name) == raw.decode("utf-8")


def test_a_missing_prompt_file_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        prompt_text("no_such_prompt.txt")
