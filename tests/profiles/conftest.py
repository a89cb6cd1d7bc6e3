"""The ``scripted_server`` fixture: a test server answering as a scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .scripted import Scripted


@pytest.fixture()
def scripted_server(shared_data: Path) -> Iterator[Any]:
    """Start a test server answering as a scripted model: ``scripted_server("gold")``."""
    from conflicteval.testing import OpenAICompatServer

    servers: list[Any] = []

    def start(behaviour: str) -> tuple[Any, Scripted]:
        model = Scripted(behaviour, shared_data)
        server = OpenAICompatServer(model)
        server.__enter__()
        servers.append(server)
        return server, model

    yield start
    for server in servers:
        server.__exit__(None, None, None)
