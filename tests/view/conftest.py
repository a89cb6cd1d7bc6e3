"""Fixtures of the viewer tests: real run directories made by the protocol commands."""

from __future__ import annotations

from pathlib import Path

import pytest

WC_CSV = "WikiContradict_dataset_v1_rag_qa.csv"


@pytest.fixture()
def wc_csv(shared_data: Path) -> Path:
    """The real WikiContradict CSV release in ../shared/data (skips when absent)."""
    path = shared_data / "wikicontradict" / WC_CSV
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture()
def profile(tmp_path: Path) -> Path:
    """A fresh browser profile directory."""
    path = tmp_path / "chromium-profile"
    path.mkdir()
    return path
