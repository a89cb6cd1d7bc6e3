"""The test server refuses what the real Messages API refuses (a refused request fails a test)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from conflicteval.testing.anthropic_server import AnthropicServer

KEY = "sk-ant-test-0123456789"
HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
GOOD = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 10,
    "messages": [{"role": "user", "content": "hi"}],
}


def _post(
    srv: AnthropicServer, body: Any, headers: dict[str, str], path: str = "/messages"
) -> httpx.Response:
    # a generous timeout: httpx's default 5 s is a bound a loaded machine can reach
    return httpx.post(srv.base_url + path, content=json.dumps(body), headers=headers, timeout=120)


@pytest.mark.parametrize(
    ("headers", "status", "words"),
    [
        ({"anthropic-version": "2023-06-01"}, 401, "x-api-key header is required"),
        ({"x-api-key": "other", "anthropic-version": "2023-06-01"}, 401, "invalid x-api-key"),
        ({"x-api-key": KEY}, 400, "anthropic-version: header is required"),
        ({"x-api-key": KEY, "anthropic-version": "2024-99-99"}, 400, "invalid version"),
    ],
)
def test_headers_are_required(headers: dict[str, str], status: int, words: str) -> None:
    with AnthropicServer(api_key=KEY) as srv:
        resp = _post(srv, GOOD, headers)
    assert resp.status_code == status and words in resp.json()["error"]["message"]
    assert resp.json()["type"] == "error"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"max_tokens": None}, "max_tokens: Field required"),
        ({"seed": 5}, "seed: Extra inputs are not permitted"),
        ({"response_format": {"type": "json_object"}}, "response_format: Extra inputs"),
        ({"max_completion_tokens": 5}, "max_completion_tokens: Extra inputs"),
        ({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]},
         "messages.0.role"),
        ({"messages": [{"role": "user", "content": ""}]}, "must be non-empty"),
        ({"temperature": 1.5}, "temperature"),
        ({"tool_choice": {"type": "tool", "name": "x"}}, "is not one of tools"),
        ({"tools": [{"name": "x", "input_schema": {"type": "array"}}]}, "of type 'object'"),
    ],
)  # fmt: skip
def test_bodies_the_api_refuses_are_refused(change: dict[str, Any], words: str) -> None:
    body = {**GOOD, **change}
    body = {k: v for k, v in body.items() if v is not None}
    with AnthropicServer(api_key=KEY) as srv:
        resp = _post(srv, body, HEADERS)
        assert srv.refused()
    assert resp.status_code == 400 and words in resp.json()["error"]["message"]


def test_api_version_2026_10_21_refuses_temperature() -> None:
    with AnthropicServer(api_key=KEY) as srv:
        new = {**HEADERS, "anthropic-version": "2026-10-21"}
        assert _post(srv, {**GOOD, "temperature": 1.0}, new).status_code == 400
        assert _post(srv, GOOD, new).status_code == 200
        assert _post(srv, {**GOOD, "temperature": 0}, HEADERS).status_code == 200


def test_message_batches_creation_is_checked_and_results_need_an_ended_batch() -> None:
    with AnthropicServer(api_key=KEY) as srv:
        bad_id = {"requests": [{"custom_id": "has space", "params": GOOD}]}
        assert _post(srv, bad_id, HEADERS, "/messages/batches").status_code == 400
        twice = {"requests": [{"custom_id": "a", "params": GOOD}] * 2}
        assert "duplicate" in _post(srv, twice, HEADERS, "/messages/batches").text
        body = {"requests": [{"custom_id": "a", "params": GOOD},
                             {"custom_id": "b", "params": {**GOOD, "seed": 1}}]}  # fmt: skip
        batch = _post(srv, body, HEADERS, "/messages/batches").json()
        assert batch["processing_status"] == "in_progress" and batch["results_url"] is None
        url = f"{srv.base_url}/messages/batches/{batch['id']}"
        early = httpx.get(url + "/results", headers=HEADERS)
        assert early.status_code == 400
        httpx.get(url, headers=HEADERS)  # one poll in progress
        ended = httpx.get(url, headers=HEADERS).json()
        assert ended["processing_status"] == "ended"
        assert ended["request_counts"] == {"processing": 0, "succeeded": 1, "errored": 1,
                                           "canceled": 0, "expired": 0}  # fmt: skip
        lines = [
            json.loads(x)
            for x in httpx.get(ended["results_url"], headers=HEADERS).text.splitlines()
        ]
    assert [r["result"]["type"] for r in lines] == ["succeeded", "errored"]
    assert lines[0]["result"]["message"]["type"] == "message"
    assert "seed" in lines[1]["result"]["error"]["error"]["message"]


@pytest.mark.parametrize("error", [KeyError("k"), SystemExit(3)], ids=["key-error", "system-exit"])
def test_a_reply_function_that_raises_is_a_500_api_error_naming_it(error: BaseException) -> None:
    def broken(body: dict[str, Any]) -> str:
        raise error

    with AnthropicServer(broken, api_key=KEY) as srv:
        resp = _post(srv, GOOD, HEADERS)
        again = _post(srv, GOOD, HEADERS)  # the server goes on
    assert resp.status_code == again.status_code == 500
    err = resp.json()["error"]
    assert err["type"] == "api_error" and type(error).__name__ in err["message"]
    assert [r.status for r in srv.messages()] == [500, 500]
