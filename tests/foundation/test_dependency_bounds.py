"""The openai and httpx versions pyproject.toml allows are versions the test suite runs with.

The lean transport promises the SDK's body bytes (docs/models.md); that holds only for the
releases it is tested against, so the lower bounds may not reach below them.
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _lower_bound(name: str) -> tuple[int, ...]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(rf'^\s*"{name}>=([0-9.]+)"', text, re.M)
    assert found, f"pyproject.toml names no lower bound for {name}"
    return tuple(int(p) for p in found.group(1).split("."))


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


@pytest.mark.parametrize(("name", "tested"), [("openai", (1, 109)), ("httpx", (0, 28))])
def test_the_lower_bound_is_a_tested_release(name: str, tested: tuple[int, ...]) -> None:
    bound = _lower_bound(name)
    # not below the oldest release the body-bytes comparison was run with ...
    assert bound >= tested
    # ... and not above what this suite runs with now
    assert _release(version(name))[: len(bound)] >= bound


def test_the_docs_name_the_bounds_they_promise_bytes_for() -> None:
    docs = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    for name in ("openai", "httpx"):
        shown = ".".join(map(str, _lower_bound(name)))
        assert f"`{name}>={shown}`" in docs
