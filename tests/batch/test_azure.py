"""Azure OpenAI: ``azure/<deployment>`` online and through Azure's Batch routes.

Against :class:`~conflicteval.testing.azure.AzureOpenAIServer`, which answers only
Azure's routes (``/openai/deployments/<name>/chat/completions``, ``/openai/files``,
``/openai/batches``), only with ``api-version`` and the ``api-key`` header, and applies
the request rules of each deployment's model (here a reasoning model).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model
from conflicteval.cli import main
from conflicteval.errors import ModelError, UsageError
from conflicteval.models.azure_provider import DEFAULT_API_VERSION
from conflicteval.testing.azure import AzureOpenAIServer

KEY = "azure-test-key"
DOCS = [
    {"id": "a", "text": "DOC-A The canal opened in 1847."},
    {"id": "b", "text": "DOC-B The canal opened in 1851."},
]


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    claim = prompt.split("\nClaim to evaluate\n", 1)[-1].split("\nDocument to evaluate", 1)[0]
    answer = (
        "SUPPORTS" if "1847" in prompt.split("Document to evaluate against")[-1] else "CONTRADICTS"
    )
    return json.dumps(
        {"claim": claim.strip(), "document_snippet": "s", "reasoning": "r", "answer": answer}
    )


@pytest.fixture()
def azure_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_VERSION", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    items = tmp_path / "items.jsonl"
    rows = [{"id": "r1", "response": "The canal opened in 1847.", "documents": DOCS}]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return items


def _score(endpoint: str, items: Path, out: Path, *extra: str) -> list[str]:
    return ["score", "--input", str(items), "--out", str(out), "--decomposer", "sentence",
            "--labeler", "llm", "--model", "azure/gpt-5-mini", "--base-url", endpoint,
            *extra]  # fmt: skip


def test_an_azure_deployment_is_called_on_its_route_with_api_version_and_api_key(
    tmp_path: Path, azure_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with AzureOpenAIServer(replies=reply) as srv:
        assert main(_score(srv.endpoint, azure_env, tmp_path / "out")) == 0
        sent = srv.completions()
        paths = [p for m, p in srv.azure_paths]
        headers = [r.headers for r in sent]
    assert len(sent) == 2 and all(r.status == 200 for r in sent)
    assert all(
        p == f"/openai/deployments/gpt-5-mini/chat/completions?api-version={DEFAULT_API_VERSION}"
        for p in paths
    )
    assert all(h.get("api-key") == KEY and "authorization" not in h for h in headers)
    # the deployment is a reasoning model: its decoding, not the protocol's
    assert all("max_completion_tokens" in r.body and "temperature" not in r.body for r in sent)
    score = json.loads((tmp_path / "out" / "scores.jsonl").read_text().splitlines()[0])
    assert score["status"] == "ok"


def test_the_azure_test_server_refuses_what_azure_refuses(azure_env: Path) -> None:
    with AzureOpenAIServer(replies=reply) as srv:
        wrong_key = get_model(
            "azure/gpt-5-mini", base_url=srv.endpoint, api_key="nope", cache=False
        )
        with pytest.raises(ModelError, match="HTTP 401"):
            wrong_key.generate_sync("x")
        missing = get_model("azure/nowhere", base_url=srv.endpoint, cache=False)
        # the error's code (openai 1.x shows it) or its message (openai 3.x shows only that)
        not_found = r"DeploymentNotFound|deployment for this resource does not exist"
        with pytest.raises(ModelError, match=not_found):
            missing.generate_sync("x")
    with pytest.raises(UsageError, match="AZURE_OPENAI_ENDPOINT"):
        get_model("azure/gpt-5-mini")


def test_azure_batch_run_goes_through_openai_batches_with_its_own_line_url(
    tmp_path: Path,
    azure_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
    with AzureOpenAIServer(replies=reply) as srv:
        assert main(_score(srv.endpoint, azure_env, tmp_path / "online")) == 0
        online = (tmp_path / "online" / "scores.jsonl").read_text()

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        export = tmp_path / "batch" / "requests.jsonl"
        before = len(srv.completions())
        status = main(["batch", "run", "--base-url", srv.endpoint, "--poll-interval", "0.001",
                       "--export", str(export), "--",
                       *_score(srv.endpoint, azure_env, tmp_path / "bat")])  # fmt: skip
        assert status == 0
        assert len(srv.completions()) == before  # no online call
        capsys.readouterr()
        refresh = ["batch", "status", "--refresh", "--azure", "--base-url", srv.endpoint,
                   "--export", str(export)]  # fmt: skip
        assert main(refresh) == 0
        assert "batch_1" in capsys.readouterr().out
        paths = [p for m, p in srv.azure_paths[2:]]
        uploads = [f["content"] for f in srv.files.values() if f["purpose"] == "batch"]
    lines = [json.loads(x) for up in uploads for x in up.decode().splitlines() if x.strip()]
    assert lines and all(line["url"] == "/chat/completions" for line in lines)
    assert all(line["body"]["model"] == "gpt-5-mini" for line in lines)
    assert any(p.startswith("/openai/files?api-version=") for p in paths)
    assert any(p.startswith("/openai/batches?api-version=") for p in paths)
    bat = (tmp_path / "bat" / "scores.jsonl").read_text()
    strip = lambda text: [  # noqa: E731
        {k: v for k, v in json.loads(x).items() if k not in ("usage", "cached")}
        for x in text.splitlines()
    ]
    assert strip(bat) == strip(online)
