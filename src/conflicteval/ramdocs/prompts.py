"""The prompts of MADAM-RAG and of the Table 1 baselines, as package data.

Verbatim (byte for byte, typos included: they are the protocol) from ``run_madam_rag.py`` of
github.com/HanNight/RAMDocs at commit d44454c9ebb0bf513d8236a03decc9fb58704cad (MIT licence,
Copyright (c) 2025 Han Wang), the bodies of the three f-strings there:

* ``ramdocs_madam_agent.txt``: ``agent_response`` without history (round 1);
* ``ramdocs_madam_agent_history.txt``: ``agent_response`` with the other agents' responses
  (rounds 2 and 3);
* ``ramdocs_madam_aggregator.txt``: ``aggregate_responses`` (with the Michael Jordan example).

The files keep the f-string source (``{query}``, ``{{}}``); :func:`render_fstring` fills them as
Python evaluated the f-string, so ``{{}}`` reaches the model as ``{}``.

The repository ships no baseline script, and the prompt of the paper's prompt-based RAG
baseline could not be recovered. ``ramdocs_rag.txt`` and ``ramdocs_no_rag.txt`` are this
library's choice (not verbatim): the aggregator's own instruction and output format ("All
Correct Answers: [...]"), over all documents at once (``rag``) or the question alone
(``no-rag``), so that every method's answer is read and scored the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from conflicteval.fingerprint import text_version
from conflicteval.prompt_files import named_prompt

AGENT = "ramdocs_madam_agent"
AGENT_HISTORY = "ramdocs_madam_agent_history"
AGGREGATOR = "ramdocs_madam_aggregator"
RAG = "ramdocs_rag"
NO_RAG = "ramdocs_no_rag"

load_prompt = named_prompt
"""The text of ``prompts/<name>.txt`` exactly as stored (no newline added or removed)."""

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")


def render_fstring(template: str, values: Mapping[str, str]) -> str:
    """Fill an f-string body as Python would: ``{{``/``}}`` become braces, ``{name}`` a value.

    Raises:
        KeyError: A field the template names has no value.
    """

    def repl(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        return values[match.group(1)]

    return _FIELD.sub(repl, template)


def prompt_version(*names: str) -> str:
    """A short hash of the named prompt files (part of cache keys and run identities)."""
    return text_version("\n\0".join(load_prompt(n) for n in names))


def agent_prompt(question: str, document: str, history: str = "") -> str:
    """An agent's prompt: the round-1 form, or with the other agents' responses.

    As ``agent_response`` does, an empty ``history`` selects the round-1 form.
    """
    if history:
        return render_fstring(
            load_prompt(AGENT_HISTORY),
            {"query": question, "document": document, "history": history},
        )
    return render_fstring(load_prompt(AGENT), {"query": question, "document": document})


def history_for(outputs: Sequence[str], agent: int) -> str:
    """The other agents' previous responses, as ``multi_agent_debate`` joins them.

    ``Agent j+1: <response>`` lines, for every agent but ``agent`` (0-based), in order.
    """
    return "\n".join(f"Agent {j + 1}: {outputs[j]}" for j in range(len(outputs)) if j != agent)


def aggregator_prompt(question: str, responses: Sequence[str]) -> str:
    """The aggregator's prompt over the agents' responses (``Agent i+1: <response>`` lines)."""
    joined = "\n".join(f"Agent {i + 1}: {r}" for i, r in enumerate(responses))
    return render_fstring(load_prompt(AGGREGATOR), {"query": question, "joined": joined})


def rag_prompt(question: str, documents: Sequence[str]) -> str:
    """The prompt-based RAG baseline: every document in one prompt (this library's wording)."""
    docs = "\n".join(f"Document {i + 1}: {d}" for i, d in enumerate(documents))
    return render_fstring(load_prompt(RAG), {"query": question, "documents": docs})


def no_rag_prompt(question: str) -> str:
    """The No-RAG baseline: the question alone (this library's wording)."""
    return render_fstring(load_prompt(NO_RAG), {"query": question})
