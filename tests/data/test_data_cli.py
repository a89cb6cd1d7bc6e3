"""``conflicteval data list|fetch`` and ``--data`` made optional on the commands."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.testing.fileserver import FileServer

pytest.importorskip("huggingface_hub")

REPO = "ibm-research/Wikipedia_contradict_benchmark"
FILE = "WikiContradict_dataset_v1_rag_qa.csv"


def _reply(request: dict[str, object]) -> str:
    return "an answer"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    return tmp_path


def test_list_shows_every_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("wikicontradict", "truthfulqa", "ambigdocs", "contraqa-corpus", "feverous-dev"):
        assert name in out
    assert "manual download" in out and "not cached" in out
    assert main(["data", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"conflictingqa", "macnoise", "feverous-wikidb"}


def test_fetch_ahead_of_time_then_offline_use(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = b"Type,Category,Question,Best Answer,Correct Answers,Incorrect Answers,Source\n"
    with FileServer({"/sylinrl/TruthfulQA/main/TruthfulQA.csv": body}) as srv:
        monkeypatch.setenv("CONFLICTEVAL_DATA_MIRROR", srv.base_url)
        assert main(["data", "fetch", "truthfulqa", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "data: truthfulqa" in out and hashlib.sha256(body).hexdigest()[:12] in out
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    assert main(["data", "fetch", "truthfulqa"]) == 0  # served from the cache
    assert main(["data", "list"]) == 0
    assert "cached: " in " ".join(capsys.readouterr().out.split())  # a long line wraps


def test_fetch_errors_are_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["data", "fetch", "wikicontradict"]) == 2
    err = capsys.readouterr().err
    assert "conflicteval data fetch wikicontradict" in err and "Traceback" not in err
    assert main(["data", "fetch", "nope"]) == 2
    assert "unknown dataset 'nope'" in capsys.readouterr().err


def test_command_without_data_offline_and_uncached_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["wikicontradict", "stats"]) == 2
    err = capsys.readouterr().err
    assert "'wikicontradict' is not available" in err and "--data PATH" in err
    assert "Traceback" not in err


def test_command_without_data_fetches_the_pinned_file_and_records_it(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    shared_data: Path,
    tmp_path: Path,
) -> None:
    copy = (shared_data / "wikicontradict" / FILE).read_bytes()
    digest = hashlib.sha256(copy).hexdigest()
    out_dir = tmp_path / "run"
    with FileServer(hub={(REPO, FILE): copy}) as srv, OpenAICompatServer(replies=_reply) as llm:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        # The project's copy is not the official file: refused, with both hashes.
        assert main(["wikicontradict", "stats"]) == 2
        err = capsys.readouterr().err
        assert "does not match its pinned checksum" in err and digest in err
        # Allowed explicitly, it is used, and the run records exactly which bytes it read.
        args = ["wikicontradict", "generate", "--allow-checksum-mismatch", "--quiet"]
        args += ["--model", "openai/test", "--base-url", llm.base_url, "--templates", "1"]
        args += ["--limit", "2", "--out", str(out_dir)]
        assert main(args) == 0
    err = capsys.readouterr().err
    assert f"data: wikicontradict @ c20e361f985e (sha256 {digest[:12]}" in err
    record = json.loads((out_dir / "data.json").read_text())
    (entry,) = record["files"]
    assert entry["name"] == "wikicontradict" and entry["sha256"] == digest
    assert entry["verified"] == "mismatch allowed"
    assert entry["revision"] == "c20e361f985ed480a659b35d98b49f2311fcd174"


def test_a_users_own_file_is_used_as_given_and_its_hash_recorded(
    capsys: pytest.CaptureFixture[str], shared_data: Path, tmp_path: Path
) -> None:
    wc_csv = shared_data / "wikicontradict" / FILE
    out_dir = tmp_path / "run"
    args = ["wikicontradict", "generate", "--data", str(wc_csv), "--quiet"]
    args += ["--templates", "1", "--limit", "1", "--out", str(out_dir)]
    with OpenAICompatServer(replies=_reply) as llm:
        assert main([*args, "--model", "openai/test", "--base-url", llm.base_url]) == 0
    (entry,) = json.loads((out_dir / "data.json").read_text())["files"]
    assert entry["name"] is None and entry["path"] == str(wc_csv)
    assert entry["sha256"] == hashlib.sha256(wc_csv.read_bytes()).hexdigest()
    assert "user file" in capsys.readouterr().err


def test_list_says_why_each_unpinned_entry_is_unpinned(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from conflicteval.data.registry import REGISTRY

    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    unpinned = [e for e in REGISTRY if not e.pinned]
    assert {e.name for e in unpinned} >= {"ambigdocs", "ambigdocs-dev", "macnoise", "truthfulqa"}
    blocks: dict[str, list[str]] = {}
    for line in out.splitlines():
        if not line.startswith(" "):
            blocks[line.split("  —  ", 1)[0]] = []
        else:
            blocks[list(blocks)[-1]].append(line)
    for entry in unpinned:
        assert entry.note, entry.name
        block = " ".join(" ".join(blocks[entry.name]).split())  # lines over 100 columns wrap
        assert f"note: {' '.join(entry.note.split())}" in block, entry.name
    assert "no commit or checksum is published" not in out
    assert any("Git LFS hashes" in line for line in blocks["ambigdocs"])
    macnoise = next(e for e in REGISTRY if e.name == "macnoise")
    assert "TriviaQA Apache-2.0" not in macnoise.licence
    assert "states no licence for the data" in macnoise.licence
    pinned = {e.name for e in REGISTRY if e.pinned}
    conflictqa = {n for n in pinned if n.startswith("conflictqa-strategyqa-")}
    assert len(conflictqa) == 8  # the StrategyQA files' bytes were read and hashed
    assert pinned - conflictqa == {
        "wikicontradict",
        "contraqa-corpus",
        "contraqa-queries",
        "ramdocs",
    }
    assert main(["data", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["ambigdocs"]["pinned"] is False and rows["wikicontradict"]["pinned"] is True
