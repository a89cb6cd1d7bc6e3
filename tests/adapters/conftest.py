"""A scripted judge for the harness adapters, and a guard that keeps harnesses off the network.

The judge answers the library's own prompts (Table 6 decomposition, Table 7 labelling):
one claim per sentence; a claim "The <subject> ... <year>" is SUPPORTED by a document that
names the subject with the same year, CONTRADICTED by one with another year, and IRRELEVANT
otherwise. A report containing ``NOCLAIMS`` gets a reply with no claim (a failed sample);
one containing ``BROKEN`` gets a non-retryable provider error.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.models import Model, ProviderError, get_model


def judge(messages: list[Any]) -> str:
    prompt = messages[-1]["content"]
    if "Break down the following report into individual claims" in prompt:
        report = prompt.split("Report: ", 1)[1].split("\n\nPlease identify", 1)[0]
        if "BROKEN" in report:
            raise ProviderError("scripted: this report breaks the model", retryable=False)
        if "NOCLAIMS" in report:
            return "Claims:"
        sentences = [s.strip() for s in report.split(".") if s.strip()]
        return "Claims:\n" + "\n".join(f"- {s}." for s in sentences)
    claim = prompt.split("\nClaim to evaluate\n", 1)[1].split(
        "\nDocument to evaluate against\n", 1
    )[0]
    document = prompt.split("\nDocument to evaluate against\n", 1)[1].split("\nOutput format\n", 1)[
        0
    ]
    subject = claim.split()[1]
    years, doc_years = re.findall(r"\d{4}", claim), re.findall(r"\d{4}", document)
    if subject in document and years and doc_years:
        answer = "SUPPORTS" if years[0] in doc_years else "CONTRADICTS"
    else:
        answer = "IRRELEVANT"
    return json.dumps({"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": answer})


@pytest.fixture()
def scripted_model() -> Callable[[], Model]:
    """A factory of fresh scripted models answering with :func:`judge` (each records its calls)."""
    return lambda: get_model("scripted", replies=judge)


@pytest.fixture()
def reference() -> Callable[[str, list[str]], Any]:
    """The library's own ConflictScorer on the same replies, on a model of its own."""

    def score(response: str, documents: list[str]) -> Any:
        model = get_model("scripted", replies=judge)
        return ConflictScorer(LLMDecomposer(model), LLMLabeler(model)).score(response, documents)

    return score


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Any socket connection to a non-loopback address fails the test (and is recorded)."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else None
        if host is not None:
            try:
                local = ipaddress.ip_address(host).is_loopback
            except ValueError:
                local = host == "localhost"
            if not local:
                attempts.append(address)
                raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield attempts
    assert not attempts, f"network connections attempted: {attempts}"
