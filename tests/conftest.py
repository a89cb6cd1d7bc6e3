"""Shared fixtures: the real data beside the checkout and the local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# Third-party evaluation harnesses (optional extras ragas and deepeval) stay offline in tests:
# no usage telemetry, no .env loading, no "inspect the run" prompt. Set before they are imported.
os.environ["RAGAS_DO_NOT_TRACK"] = "true"
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ["DEEPEVAL_DISABLE_DOTENV"] = "1"
os.environ["DEEPEVAL_NO_INSPECT_PROMPT"] = "1"
os.environ.pop("CONFIDENT_API_KEY", None)


def shared_data_dir() -> Path:
    """Where the real public sample files live (``../shared/data`` beside the checkout)."""
    env = os.environ.get("CONFLICTEVAL_SHARED_DATA")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ``../shared/data``; skips the test when the real data is not beside the checkout."""
    path = shared_data_dir()
    if not path.is_dir():
        pytest.skip(f"real sample data not found at {path} (../shared/data beside the checkout)")
    return path


@pytest.fixture()
def openai_server() -> Iterator[object]:
    """A fresh local OpenAI-compatible HTTP server on 127.0.0.1 (see conflicteval.testing)."""
    from conflicteval.testing import OpenAICompatServer

    with OpenAICompatServer() as server:
        yield server


@pytest.fixture()
def score_replies() -> Any:
    """A made-up model for ``score --decomposer llm --labeler llm``: every response breaks down
    into the same two claims (one holding markup, which a report must show as text), and every
    claim-document pair is labelled SUPPORTS."""

    def reply(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        if prompt.startswith("Instruction: Break down"):
            return "Claims:\n1. The canal opened in 1847.\n2. It is <b>38 km</b> long."
        return json.dumps(
            {"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS"}
        )

    return reply


@pytest.fixture()
def resumed_index() -> Iterator[Any]:
    """Make a run's index of ids, those with a line in a checkpoint resumed from it."""
    from conflicteval.runs.runindex import RunIndex

    made: list[RunIndex] = []

    def make(checkpoint: Path, ids: list[str]) -> RunIndex:
        index = RunIndex()
        made.append(index)
        index.add_items(ids, str, None)
        index.scan_checkpoint(checkpoint)
        index.resume(retry_failed=False)
        return index

    yield make
    for index in made:
        index.close()


@pytest.fixture(autouse=True)
def _isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets its own default cache directory; no test touches the user's cache."""
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    # No test fetches a dataset from the internet: the registry works offline (and its own
    # tests switch it back on against a local stand-in server), in a data dir of the test's own.
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path_factory.mktemp("datasets")))
    # Only the library's own switch: huggingface_hub reads HF_HUB_OFFLINE once, at import, so
    # setting it here would leave it offline for the rest of the session whenever a test
    # happened to import it first (the registry reads both switches at every call).
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.mktemp("hf")))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _no_endpoint_known_to_answer() -> None:
    """Every test starts with no (base URL, model) known to have answered.

    The model layer remembers, for the life of the process, which endpoints have answered
    (a 404 or a refused connection from one that never has is fatal: a wrong --base-url or
    --model). A test's local server may get a port an earlier test's server used, so that
    memory would otherwise make the same fault fatal in one order of tests and not in another.
    """
    from conflicteval.models import endpoint

    endpoint._answered.clear()


_SIGINT_BEFORE = pytest.StashKey[Any]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Note the SIGINT handler a test starts with (see :func:`pytest_runtest_teardown`)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        item.stash[_SIGINT_BEFORE] = signal.getsignal(signal.SIGINT)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """A test that leaves its own SIGINT handler behind is named, and the one before restored.

    A library a test drives (an event loop runner, a harness's async backend) can install a
    SIGINT handler of its own; left in place, it would turn a later test's Ctrl-C into
    something else than the ``KeyboardInterrupt`` a terminal user gets. The handler compared
    with is the one the test started with, not Python's default: a run started in the
    background by a non-interactive shell inherits SIGINT ignored (``SIG_IGN``, as POSIX
    shells start background commands), which no test left behind.
    """
    import signal
    import threading
    import warnings

    yield
    if threading.current_thread() is not threading.main_thread():
        return
    before = item.stash.get(_SIGINT_BEFORE, signal.default_int_handler)
    handler = signal.getsignal(signal.SIGINT)
    if handler is not before:
        signal.signal(signal.SIGINT, before)
        warnings.warn(f"{item.nodeid} left a SIGINT handler behind: {handler!r}", stacklevel=1)
