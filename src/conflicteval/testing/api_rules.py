"""The request rules the real OpenAI API enforces, so the test server refuses what it would.

OpenAI's reasoning models (``o1``, ``o3``, ``o4-mini``, ``gpt-5`` and later) answer
HTTP 400 to a request carrying ``max_tokens`` (they take ``max_completion_tokens``),
a ``temperature`` other than 1, or ``top_p``; chat models refuse ``reasoning_effort``.
The messages, codes and ``param`` fields below are the API's own, as it returns them.
The list of reasoning models is the server's own (by name), independent of the
library's model table, so a test catches the library sending what the API refuses.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["is_reasoning_model", "refusal"]

_REASONING = re.compile(r"^(o1|o3|o4|gpt-5|gpt-6)([-.].*)?$")


def is_reasoning_model(model: str) -> bool:
    """Whether the API treats ``model`` as a reasoning model (``o1``, ``o3-mini``, ``gpt-5``...)."""
    return bool(_REASONING.match(model.rsplit("/", 1)[-1].lower()))


def _error(message: str, param: str, code: str) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def refusal(body: dict[str, Any], model: str | None = None) -> dict[str, Any] | None:
    """The API's 400 error body for a chat completions request it refuses, or None.

    Args:
        body: The request body.
        model: The model the rules are those of (default: ``body["model"]``; an Azure
            deployment's model otherwise).
    """
    name = str(model if model is not None else body.get("model", ""))
    if is_reasoning_model(name):
        if "max_tokens" in body:
            return _error(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "max_tokens",
                "unsupported_parameter",
            )
        temperature = body.get("temperature")
        if temperature is not None and temperature != 1:
            return _error(
                f"Unsupported value: 'temperature' does not support {temperature!r} with this "
                "model. Only the default (1) value is supported.",
                "temperature",
                "unsupported_value",
            )
        if "top_p" in body:
            return _error(
                "Unsupported parameter: 'top_p' is not supported with this model.",
                "top_p",
                "unsupported_parameter",
            )
        return None
    if "reasoning_effort" in body:
        return _error(
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            "reasoning_effort",
            "unsupported_parameter",
        )
    return None
