"""Hand-edited batch files (manifest, ``batch run``'s state, result lines): one error line
naming the file, the line (or job) and the field, exit status 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.importer import parse_result
from conflicteval.cli import main

GOOD_ENTRY = {
    "custom_id": "c" * 64,
    "model": "openai/test-model",
    "request_model": "test-model",
    "file": "requests.jsonl",
    "round": 1,
}


def _entry(**changes: Any) -> bytes:
    row = {**GOOD_ENTRY, **changes}
    return (json.dumps({k: v for k, v in row.items() if v is not KeyError}) + "\n").encode()


def _result_line() -> str:
    body = {
        "model": "test-model",
        "choices": [{"message": {"content": "a reply"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
    row = {"custom_id": GOOD_ENTRY["custom_id"], "response": {"status_code": 200, "body": body}}
    return json.dumps(row) + "\n"


MANIFESTS = {
    "nested-too-deep": (b"[" * 100_000 + b"]" * 100_000 + b"\n", None),
    "custom_id-a-list": (_entry(custom_id=[1]), "custom_id"),
    "custom_id-null": (_entry(custom_id=None), "custom_id"),
    "custom_id-missing": (_entry(custom_id=KeyError), "custom_id"),
    "model-an-object": (_entry(model={}), "model"),
    "file-a-number": (_entry(file=3), "file"),
    "round-a-fraction": (_entry(round=1.5), "round"),
    "round-true": (_entry(round=True), "round"),
    "round-text": (_entry(round="1"), "round"),
    "request_model-a-number": (_entry(request_model=5), "request_model"),
}


def _one_error(capsys: pytest.CaptureFixture[str], code: int, *named: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    for text in named:
        assert text in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("command", ["import", "status"])
@pytest.mark.parametrize("damage", list(MANIFESTS))
def test_a_hand_edited_manifest_is_one_error_line_naming_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, damage: str
) -> None:
    content, field = MANIFESTS[damage]
    req = tmp_path / "requests.jsonl"
    manifest = tmp_path / "requests.manifest.jsonl"
    manifest.write_bytes(content)
    results = tmp_path / "results.jsonl"
    results.write_text(_result_line(), encoding="utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    if command == "import":
        code = main(["batch", "import", str(results), "--export", str(req), *cache])
    else:
        code = main(["batch", "status", "--export", str(req), *cache])
    where = [f"{manifest}, row 1"] + ([f"field '{field}'"] if field else [])
    _one_error(capsys, code, *where)


def test_a_good_manifest_still_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    req = tmp_path / "requests.jsonl"
    (tmp_path / "requests.manifest.jsonl").write_bytes(_entry() + _entry(request_model=None))
    results = tmp_path / "results.jsonl"
    results.write_text(_result_line(), encoding="utf-8")
    argv = ["batch", "import", str(results), "--export", str(req)]
    assert main([*argv, "--cache-dir", str(tmp_path / "cache")]) == 0
    assert "1 replies cached" in capsys.readouterr().out


@pytest.mark.parametrize("content", [b"", b"\n\n", _entry()[:30]], ids=["empty", "blank", "torn"])
def test_a_manifest_without_entries_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    req = tmp_path / "requests.jsonl"
    manifest = tmp_path / "requests.manifest.jsonl"
    manifest.write_bytes(content)
    results = tmp_path / "results.jsonl"
    results.write_text(_result_line(), encoding="utf-8")
    argv = ["batch", "import", str(results), "--export", str(req)]
    code = main([*argv, "--cache-dir", str(tmp_path / "cache")])
    _one_error(capsys, code, str(manifest))


JOB = {"file": "requests.jsonl", "round": 1, "id": "batch_1", "status": "in_progress"}

STATES = {
    "file-a-number": ({**JOB, "file": 5}, "file"),
    "file-a-path": ({**JOB, "file": "../elsewhere.jsonl"}, "file"),
    "file-missing": ({k: v for k, v in JOB.items() if k != "file"}, "file"),
    "round-text": ({**JOB, "round": "x"}, "round"),
    "round-true": ({**JOB, "round": True}, "round"),
    "completed-text": ({**JOB, "completed": "x"}, "completed"),
    "imported-a-number": ({**JOB, "imported": 1}, "imported"),
    "errors-of-numbers": ({**JOB, "errors": [1]}, "errors"),
    "unknown-field": ({**JOB, "zzz": 1}, "zzz"),
    "job-a-list": ([1], None),
}


@pytest.mark.parametrize("damage", list(STATES))
def test_a_hand_edited_batch_state_is_one_error_line_naming_job_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    job, field = STATES[damage]
    req = tmp_path / "requests.jsonl"
    (tmp_path / "requests.manifest.jsonl").write_bytes(_entry())
    state = tmp_path / "requests.batches.json"
    state.write_text(json.dumps({"export": str(req), "jobs": [job]}), encoding="utf-8")
    code = main(["batch", "status", "--export", str(req), "--cache-dir", str(tmp_path / "c")])
    _one_error(capsys, code, f"{state}, row job 1", *([f"field '{field}'"] if field else []))


def test_a_good_batch_state_still_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    req = tmp_path / "requests.jsonl"
    (tmp_path / "requests.manifest.jsonl").write_bytes(_entry())
    state = tmp_path / "requests.batches.json"
    job = {**JOB, "input_file_id": None, "errors": ["e: m"], "imported": False, "completed": 0}
    state.write_text(json.dumps({"export": str(req), "jobs": [job]}), encoding="utf-8")
    assert main(["batch", "status", "--export", str(req), "--cache-dir", str(tmp_path / "c")]) == 0
    assert "batch batch_1 (round 1, requests.jsonl): in_progress" in capsys.readouterr().out


@pytest.mark.parametrize("status", ["200", None, [], {}, True, 200.0])
def test_a_status_code_of_the_wrong_type_fails_with_that_reason(status: Any) -> None:
    body = json.loads(_result_line())["response"]["body"]
    row = {"custom_id": "x", "response": {"status_code": status, "body": body}}
    parsed = parse_result(row, (Path("results.jsonl"), 1))
    assert parsed.value is None
    assert parsed.reason is not None and "status_code is not a number" in parsed.reason


def test_a_result_directory_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results.jsonl"
    folder.mkdir()
    code = main(["batch", "import", str(folder), "--export", str(tmp_path / "requests.jsonl")])
    assert "a directory" in _one_error(capsys, code, str(folder))
