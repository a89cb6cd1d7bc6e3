"""Telling a dead endpoint from a passing failure: a bad base URL, a server not there, a model
the server does not know; and what an endpoint was seen to refuse (a JSON-schema
``response_format``: :func:`note_schema_refused`).

A connection refused, a host name that does not resolve or an HTTP 404 on the
very first calls to an endpoint will not get better by retrying call after
call: the server is not running, ``--base-url`` is wrong, or the model name
is. The model layer asks :func:`dead_endpoint` about a failed call; while no
call to that (base URL, model) has been answered in this process, such a
failure is not retried and stops the batch (like a refused API key) with one
line that says what to check. Once the endpoint has answered, the same
failures count as passing (a server restarting) and are retried as before.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "base_url_problem",
    "dead_endpoint",
    "learned_schema_refusal",
    "note_answered",
    "note_schema_refused",
    "remember_schema_refused",
    "schema_refused",
    "unlisted_model",
]

SCHEMA_REFUSED = (
    "%s refused the JSON schema (response_format): no call to %s sends one again; JSON is "
    "read from the reply's text (--plain-json asks for that from the start)"
)
"""The one line said when an endpoint first refuses a schema (model name, base URL)."""

_answered: set[tuple[str, str]] = set()
_no_schema: set[str] = set()
_lock = threading.Lock()


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an OpenAI-compatible server's base URL (None: it can be)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    if not parts.hostname:
        return "no host name"
    if port == 0:
        return "port 0"
    return None


def note_answered(base_url: str, model: str) -> None:
    """Record that ``(base_url, model)`` answered a call: later failures there are passing."""
    key = (base_url, model)
    if key not in _answered:
        with _lock:
            _answered.add(key)


def note_schema_refused(base_url: str, cache: Any = None) -> bool:
    """Record that the server at ``base_url`` refuses a JSON-schema ``response_format``.

    Structured output is a capability of the endpoint: once refused, no request to it
    (online, or written to a batch file) carries a schema again in this process, nor in
    later runs using the same response ``cache`` (kept in its directory, see
    :data:`ENDPOINTS_FILE`). Returns True the first time (the caller says so, once).
    """
    with _lock:
        first = base_url not in _no_schema
        _no_schema.add(base_url)
    if first and getattr(cache, "directory", None) is not None:
        remember_schema_refused(cache.directory, base_url)
    return first


ENDPOINTS_FILE = "endpoints.json"
"""The file in the response cache's directory where what an endpoint refused is kept, so a
later run (a batch export, which calls nothing) knows it too: ``{base_url: {"json_schema":
false}}``."""


def remember_schema_refused(directory: Any, base_url: str) -> None:
    """Keep ``base_url``'s refusal of JSON schemas in ``directory`` (never fails a call)."""
    from pathlib import Path

    from conflicteval._atomic import write_json

    path = Path(directory) / ENDPOINTS_FILE
    known = _read_endpoints(path)
    if known.get(base_url, {}).get("json_schema") is False:
        return
    known.setdefault(base_url, {})["json_schema"] = False
    try:
        write_json(path, known, indent=1, sort_keys=True)
    except OSError:
        pass


def learned_schema_refusal(cache: Any, base_url: str) -> bool:
    """Whether an earlier run kept ``base_url``'s refusal of JSON schemas beside the response
    ``cache`` (None: no cache, False); if so, this process knows it from now on."""
    from pathlib import Path

    directory = getattr(cache, "directory", None)
    if directory is None:
        return False
    known = _read_endpoints(Path(directory) / ENDPOINTS_FILE)
    refused = known.get(base_url, {}).get("json_schema") is False
    if refused:
        with _lock:
            _no_schema.add(base_url)
    return refused


def _read_endpoints(path: Any) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def schema_refused(base_url: str) -> bool:
    """Whether the server at ``base_url`` was seen refusing a JSON-schema ``response_format``."""
    return base_url in _no_schema


_listings: dict[str, list[str] | None] = {}


def served_models(base_url: str, api_key: str, timeout: float = 5.0) -> list[str] | None:
    """The model ids ``GET {base_url}/models`` lists (None: no readable answer); asked once
    per base URL and process."""
    if base_url in _listings:
        return _listings[base_url]
    import json
    import urllib.request

    request = urllib.request.Request(
        f"{base_url}/models", headers={"Authorization": f"Bearer {api_key}"}
    )
    ids: list[str] | None = None
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            data = json.loads(resp.read())
        rows = data.get("data") if isinstance(data, dict) else None
        if isinstance(rows, list):
            ids = [str(r["id"]) for r in rows if isinstance(r, dict) and r.get("id")]
    except (OSError, ValueError):  # no listing: nothing to say
        ids = None
    with _lock:
        _listings[base_url] = ids
    return ids


def unlisted_model(base_url: str, model: str, api_key: str) -> str | None:
    """One line when the server at ``base_url`` lists models and ``model`` is not one of
    them (many local servers answer any name with the one model they serve)."""
    ids = served_models(base_url, api_key)
    if not ids or model in ids:
        return None
    shown = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
    return (
        f"model {model!r} is not among the models {base_url} lists ({shown}); many local "
        "servers answer any name with the model they serve: check --model"
    )


def dead_endpoint(base_url: str, model: str, error: BaseException) -> str | None:
    """One line saying what to check, when ``error`` shows the endpoint is not usable.

    Only before ``(base_url, model)`` has answered any call in this process;
    afterwards (and for any other failure) None.
    """
    if (base_url, model) in _answered:
        return None
    kind = _kind(error)
    if kind == "refused":
        return (
            f"connection refused at {base_url}: is the server running there? "
            "Check --base-url (base_url=...)"
        )
    if kind == "dns":
        return f"host of {base_url} not found (DNS lookup failed): check --base-url (base_url=...)"
    if kind == "not_found":
        return (
            f"HTTP 404 from {base_url} for model {model!r}: check the model name (--model) and "
            "that --base-url is the server's API root (often ending in /v1)"
        )
    return None


def _kind(error: BaseException) -> str | None:
    if getattr(error, "status", None) == 404:
        return "not_found"
    seen: set[int] = set()
    current: Any = error
    while current is not None and id(current) not in seen:  # the exception and its causes
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "refused"
        if isinstance(current, socket.gaierror):
            return "dns"
        text = str(current)
        if "Connection refused" in text or "[Errno 111]" in text:
            return "refused"
        if any(s in text for s in _DNS_TEXTS):
            return "dns"
        current = current.__cause__ or current.__context__
    return None


_DNS_TEXTS = (
    "Name or service not known",
    "nodename nor servname provided",
    "Temporary failure in name resolution",
    "getaddrinfo failed",
    "No address associated with hostname",
)
