"""What a new user still tripped over, run as a user runs it (a subprocess): a reader that
closes the pipe, costs everywhere tokens go, tokens sent vs replayed from the cache, the
documentation after pip install, "did you mean", and an offline machine told at once."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conflicteval import get_model, pricing
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.testing import OpenAICompatServer

_SKIP = ("build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".git", ".venv*")


def _copy_ignore(directory: str, names: list[str]) -> set[str]:
    """What a copy of the checkout leaves out: caches, builds, and ``./runs`` (run outputs).

    Only the checkout's own ``runs`` folder: ``src/conflicteval/runs`` is a package.
    """
    skipped = set(shutil.ignore_patterns(*_SKIP)(directory, names))
    return skipped | ({"runs"} & set(names) if Path(directory) == REPO else set())


REPO = Path(__file__).resolve().parents[2]
LABELS = json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": "SUPPORTS"})


def env_without_keys(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env.update(extra)
    return env


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conflicteval", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env_without_keys(**env),
    )


def reply(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    prompt = str(messages[-1]["content"])
    if "Break down" in prompt:
        return "Claims:\n1. The canal opened in 1847."
    return LABELS


@pytest.fixture()
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(replies=reply) as s:
        yield s


# ------------------------------------------------------------------ 27.4 a closed pipe


@pytest.mark.parametrize("args", [["demo"], ["cache", "info"], ["docs"]])
def test_a_reader_that_closes_the_pipe_is_not_a_failure(args: list[str]) -> None:
    """`conflicteval demo | head -1`: the reader is gone before the first write."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "conflicteval", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_without_keys(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader went away
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err and "error" not in err


def test_stats_and_render_through_head(shared_data: Path) -> None:
    data = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if not data.exists():
        pytest.skip(f"{data} not found")
    for args in (["stats"], ["render", "--template", "5"]):
        shell = (
            f"set -o pipefail; {sys.executable} -m conflicteval wikicontradict {args[0]} "
            f"--data {data} {' '.join(args[1:])} | head -1"
        )
        out = subprocess.run(
            ["bash", "-c", shell], capture_output=True, text=True, env=env_without_keys()
        )
        assert out.returncode == 0, out.stderr
        assert len(out.stdout.splitlines()) == 1 and "Traceback" not in out.stderr


# ------------------------------------------------------------------ 27.5 / 27.8 / 24.15


def test_demo_with_a_model_prints_its_cost(server: OpenAICompatServer) -> None:
    priced = cli("demo", "--model", "openai/gpt-4o-mini", "--base-url", server.base_url)
    assert priced.returncode == 0, priced.stderr
    cost = [x for x in priced.stdout.splitlines() if x.startswith("cost:")]
    assert len(cost) == 1 and "est. $" in cost[0]
    assert f"list prices, table last checked {pricing.PRICES_AS_OF}" in cost[0]
    assert "openai/gpt-4o-mini: $0.15 prompt + $0.6 completion per 1M tokens" in cost[0]
    unpriced = cli("demo", "--model", "openai/my-local", "--base-url", server.base_url)
    assert "cost: no price known for openai/my-local" in unpriced.stdout


def test_score_summary_json_splits_tokens_and_carries_money(
    tmp_path: Path, server: OpenAICompatServer
) -> None:
    items = tmp_path / "items.jsonl"
    row = {
        "id": "a",
        "response": "The canal opened in 1847.",
        "documents": [{"id": "d", "text": "The canal opened in 1847."}],
    }
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["score", "--input", str(items), "--out", str(out), "--model", "openai/gpt-4o-mini"]
    args += ["--base-url", server.base_url, "--labeler", "llm", "--quiet"]
    first = cli(*args)
    assert first.returncode == 0, first.stderr
    summary = json.loads((out / "summary.json").read_text())
    sent = summary["usage_this_run"]
    assert sent["prompt_tokens"] > 0 and sent["cached_prompt_tokens"] == 0
    assert summary["cost_this_run"]["usd"] > 0
    assert summary["cost_this_run"]["prices_per_million_tokens"] == {
        "openai/gpt-4o-mini": {"prompt": 0.15, "completion": 0.6}
    }
    again = cli(*args, "--restart")  # every call now replayed from the cache
    assert again.returncode == 0, again.stderr
    # the line as printed, with its continuation (a line over 100 columns wraps, indented)
    line = again.stdout.split("this run:", 1)[1].split("\n")[0:2]
    line = " ".join(" ".join(line).split())
    total = sent["prompt_tokens"]
    assert f"0 prompt + 0 completion tokens sent ({total} + " in line
    assert "replayed from the cache" in line
    replayed = json.loads((out / "summary.json").read_text())
    assert replayed["usage_this_run"]["cached_prompt_tokens"] == total
    assert replayed["cost_this_run"]["usd"] == 0


def test_batch_result_summary_has_money(server: OpenAICompatServer, tmp_path: Path) -> None:
    def scorer(name: str) -> ConflictScorer:
        model = get_model(name, base_url=server.base_url, cache=tmp_path / name.replace("/", "_"))
        return ConflictScorer(LLMDecomposer(model), LLMLabeler(model))

    items = [{"id": "a", "response": "The canal opened in 1847.", "documents": ["It did."]}]
    priced = scorer("openai/gpt-4o-mini").score_many(items, progress=False)
    text = priced.summary()
    assert "tokens sent; cost: est. $" in text and "gpt-4o-mini: $0.15 prompt" in text
    assert priced.usage.cost_usd == pytest.approx(
        pricing.estimate(
            "openai/gpt-4o-mini", priced.usage.prompt_tokens, priced.usage.completion_tokens
        )
    )
    unknown = scorer("openai/nobody-prices-this").score_many(items, progress=False)
    assert "cost: no price known for openai/nobody-prices-this" in unknown.summary()
    assert unknown.usage.cost_usd == 0  # and the text says why, never a silent $0


# ------------------------------------------------------------------ 27.10 docs


def test_docs_command_lists_and_prints_the_pages() -> None:
    listing = cli("docs")
    assert listing.returncode == 0 and "wikicontradict" in listing.stdout
    page = cli("docs", "batch")
    assert page.returncode == 0
    assert page.stdout == (REPO / "docs" / "batch.md").read_text(encoding="utf-8")
    wrong = cli("docs", "bach")
    assert wrong.returncode == 2 and "did you mean 'batch'?" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_help_points_at_the_docs_command() -> None:
    out = cli("wikicontradict", "--help")
    assert "conflicteval docs wikicontradict" in out.stdout and "docs/" not in out.stdout


@pytest.mark.slow
def test_docs_are_in_the_wheel_and_readable_from_an_install(tmp_path: Path) -> None:
    """A non-editable install (a built wheel) prints the packaged page, not the checkout's."""
    import zipfile

    source = tmp_path / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=_copy_ignore,
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), source],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = tmp_path.glob("conflicteval-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    pages = sorted(p.name for p in (REPO / "docs").glob("*.md"))
    assert sorted(n.split("/")[-1] for n in names if n.startswith("conflicteval/docs/")) == pages
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(target)  # what pip install puts in site-packages
    out = subprocess.run(
        [sys.executable, "-m", "conflicteval", "docs", "inspect", "--path"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env_without_keys(PYTHONPATH=str(target)),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(target / "conflicteval" / "docs" / "inspect.md")


# ------------------------------------------------------------------ 27.2 names


def test_unknown_dataset_and_provider_name_the_nearest() -> None:
    out = cli("data", "fetch", "wikicontradic")
    assert out.returncode == 2 and "did you mean 'wikicontradict'?" in out.stderr
    out = cli("demo", "--model", "opneai/gpt-4o")
    assert out.returncode == 2 and "did you mean 'openai'?" in out.stderr


# ------------------------------------------------------------------ 27.6 offline


@pytest.fixture()
def silent_host() -> Iterator[str]:
    """A host that accepts connections and never answers (a network that hangs)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


@pytest.mark.parametrize("kind", ["silent", "refused"])
def test_not_cached_without_network_is_said_at_once(
    kind: str, silent_host: str, tmp_path: Path
) -> None:
    endpoint = silent_host if kind == "silent" else "http://127.0.0.1:9"
    env = {"HF_ENDPOINT": endpoint, "CONFLICTEVAL_OFFLINE": "", "HF_HUB_OFFLINE": ""}
    start = time.monotonic()
    baseline = cli("wikicontradict", "stats", **{**env, "CONFLICTEVAL_OFFLINE": "1"})
    startup = time.monotonic() - start  # the same command told it is offline: no network use
    assert baseline.returncode == 2
    start = time.monotonic()
    out = cli("wikicontradict", "stats", **env)
    waited = time.monotonic() - start - startup
    assert out.returncode == 2, out.stderr
    # the probe takes at most 3 s (the Hub client: ~24); the margin absorbs the difference
    # between two start-ups of the command on a loaded machine
    assert waited < 15, (waited, startup)
    assert "working offline" in out.stderr and "there is no network" in out.stderr
    assert "Retrying" not in out.stderr and "Traceback" not in out.stderr
    assert "--data PATH" in out.stderr.strip().splitlines()[-1]
