"""ConflictBench sources and TruthfulQA by name: fetched from the registry when no path is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing.fileserver import FileServer

pytest.importorskip("huggingface_hub")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    return tmp_path


def test_convert_ambigdocs_without_a_path_fetches_the_test_split(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ambig_records: list[dict[str, object]],
    tmp_path: Path,
) -> None:
    body = json.dumps(ambig_records).encode()
    out = tmp_path / "items.jsonl"
    with FileServer(hub={("yoonsanglee/AmbigDocs", "test.json"): body}) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        assert main(["conflictbench", "convert", "ambigdocs", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "data: ambigdocs @ main (sha256" in err and "first use" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(ambig_records)


def test_manual_sources_print_where_to_download(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "x.jsonl"
    assert main(["conflictbench", "convert", "conflictingqa", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Google Drive" in err and "Traceback" not in err
    assert not out.exists()


def test_regenerate_without_questions_offline_names_the_ways_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("")
    code = main(
        [
            "regenerate",
            "--documents",
            str(docs),
            "--model",
            "scripted",
            "--out",
            str(tmp_path / "r"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "'truthfulqa' is not available" in err
    assert "with --questions PATH" in err and "--data" not in err  # regenerate has no --data


def test_build_without_a_source_path_offline_names_its_own_option(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    out = tmp_path / "bench.jsonl"
    assert main(["conflictbench", "build", "--source", "ambigdocs", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'ambigdocs' is not available" in err and "Traceback" not in err
    assert "--source ambigdocs=PATH" in err and "--data" not in err
    assert main(["conflictbench", "convert", "ambigdocs", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "PATH (the argument after the source)" in err and "--data" not in err
    assert "Hugging Face cache" in err and str(tmp_path / "data") not in err  # where hub files go
