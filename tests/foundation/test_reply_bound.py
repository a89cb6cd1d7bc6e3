"""The reply size bound holds on every path, once decoded: gzip bombs and endless bodies.

Served by the project's test server; the bound is made small here (1 MiB) so that the
test's memory stays small. The assertions are on the error, never on timing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import ModelError, get_model
from conflicteval.cache import open_cache
from conflicteval.models import http11
from conflicteval.models.http11_reply import HTTPError, decode
from conflicteval.models.http_transport import read_completion
from conflicteval.testing import Fault, OpenAICompatServer

BOUND = 1 << 20
PATHS = {  # transport, HTTP client
    "builtin": ("http", "builtin"),
    "httpx": ("http", "httpx"),
    "sdk": ("sdk", None),
}


@pytest.fixture(autouse=True)
def small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http11, "MAX_BODY_BYTES", BOUND)


def _model(server: OpenAICompatServer, path: str, **options: Any) -> Any:
    transport, client = PATHS[path]
    opts: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": "test-key",
        "cache": False,
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "timeout": 60.0,
        "max_attempts": 2,
        "transport": transport,
    }
    if client is not None:
        opts["http_client"] = client
    opts.update(options)
    return get_model("openai/test-model", **opts)


BOMBS = {
    "gzip-bomb": Fault.gzip_bomb(16 * BOUND),
    "stacked-gzip": Fault.gzip_bomb(64 * BOUND, layers=2),
    "endless-chunked": Fault.endless_chunked(),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_a_reply_over_the_bound_is_a_model_error_naming_it(path: str, bomb: str) -> None:
    with OpenAICompatServer(["fine"], faults=[BOMBS[bomb]] * 2) as srv:
        model = _model(srv, path)
        with pytest.raises(ModelError) as caught:
            model.generate_sync("q")
    assert f"larger than {BOUND} bytes" in str(caught.value)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_redirected_request_is_bounded_too(path: str) -> None:
    with OpenAICompatServer(["fine"], faults=[Fault.endless_chunked()] * 4) as target:
        moved = {"Location": f"{target.base_url}/chat/completions"}
        with OpenAICompatServer(faults=[Fault.raw(b"", status=307, headers=moved)] * 4) as srv:
            model = _model(srv, path)
            with pytest.raises(ModelError) as caught:
                model.generate_sync("q")
    assert f"larger than {BOUND} bytes" in str(caught.value)


@pytest.mark.timeout(120)
def test_a_reply_over_the_bound_is_not_cached(tmp_path: Path) -> None:
    cache = open_cache(tmp_path / "cache")
    with OpenAICompatServer(["fine"], faults=[Fault.gzip_bomb(16 * BOUND)] * 2) as srv:
        model = _model(srv, "builtin", cache=cache)
        with pytest.raises(ModelError):
            model.generate_sync("q")
        assert model.generate_sync("q").text == "fine"  # asked again: nothing was stored
        assert len(srv.completions()) == 3


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_gzip_reply_within_the_bound_reads_as_before(path: str) -> None:
    import gzip

    body = {
        "choices": [{"message": {"content": "zipped"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    coded = gzip.compress(gzip.compress(json.dumps(body).encode()))
    fault = Fault.raw(coded, headers={"Content-Encoding": "gzip, gzip"})
    with OpenAICompatServer(faults=[fault]) as srv:
        assert _model(srv, path).generate_sync("q").text == "zipped"


def test_the_decoder_stops_one_step_past_the_bound() -> None:
    import gzip

    bomb = gzip.compress(b"\0" * (8 * BOUND))
    with pytest.raises(HTTPError, match=f"larger than {BOUND} bytes"):
        decode(bomb, "gzip", BOUND)
    assert decode(gzip.compress(b"x" * BOUND), "gzip", BOUND) == b"x" * BOUND
    with pytest.raises(HTTPError, match="truncated"):
        decode(gzip.compress(b"abc" * 1000)[:-12], "gzip", BOUND)


@pytest.mark.parametrize(
    "body",
    [
        b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 1e400}}',
        b'{"choices": [{"message": {"content": "x"}}], "usage": {"completion_tokens": -3}}',
        b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "7"}}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["1e400", "negative", "text", "nested"],
)
def test_reply_fields_that_escaped_the_classification_are_malformed(body: bytes) -> None:
    from conflicteval.models.base import ProviderError

    with pytest.raises(ProviderError) as caught:
        read_completion(body)
    assert caught.value.retryable and str(caught.value).startswith("malformed response")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ["builtin", "sdk"])
@pytest.mark.parametrize("usage", ['{"prompt_tokens": 1e400}', '{"prompt_tokens": -5}'])
def test_a_reply_with_impossible_usage_is_a_classified_model_error(path: str, usage: str) -> None:
    body = '{"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}], "usage": '
    fault = Fault.raw((body + usage + "}").encode())
    with OpenAICompatServer(["fine"], faults=[fault]) as srv:
        model = _model(srv, path)
        # retried as a malformed body is: the second attempt is answered
        assert model.generate_sync("q").text == "fine"
        assert model.usage.prompt_tokens >= 0
        assert len(srv.completions()) == 2


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_body_of_deeply_nested_arrays_is_retried_as_malformed(path: str) -> None:
    fault = Fault.raw(b"[" * 100_000 + b"]" * 100_000)
    with OpenAICompatServer(["fine"], faults=[fault]) as srv:
        assert _model(srv, path).generate_sync("q").text == "fine"
        assert len(srv.completions()) == 2
