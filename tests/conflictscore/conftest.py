"""Helpers for the ConflictScore tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def seed_file(shared_data: Path) -> Path:
    """The ConflictScore paper seed beside the checkout (``../shared/seeds``)."""
    path = shared_data.parent / "seeds" / "003_a25baeb50c40d0e6.txt"
    if not path.is_file():
        pytest.skip(f"seed 003_a25baeb50c40d0e6.txt not found at {path}")
    return path
