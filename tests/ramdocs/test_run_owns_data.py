"""A run directory belongs to one data file: its sha256 is in the run's identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.view import load_run

from .test_ramdocs_run import RECORDS


class _Killed(Exception):
    """Stands for a kill between the batch and the run's closing writes."""


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _run(srv: OpenAICompatServer, data: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "ramdocs",
            "run",
            "--method",
            "rag",
            "--data",
            str(data),
            "--out",
            str(out),
            "--model",
            "openai/test-model",
            "--base-url",
            srv.base_url,
            "--quiet",
            *extra,
        ]
    )


def _data_files(run: Path) -> list[str]:
    record = json.loads((run / "data.json").read_text(encoding="utf-8"))
    return [Path(f["path"]).name for f in record["files"]]


def test_a_run_from_another_data_file_is_refused_unless_restarted(
    tmp_path: Path, reply_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _write(tmp_path / "big.jsonl", RECORDS)
    small = _write(tmp_path / "small.jsonl", RECORDS[1:])
    run = tmp_path / "run"
    with OpenAICompatServer(reply_fn) as srv:
        assert _run(srv, big, run) == 0
        capsys.readouterr()
        assert _run(srv, small, run) == 2  # the old code kept both files' answers
        err = capsys.readouterr().err
        assert "data_sha256" in err and "--restart" in err
        assert _data_files(run) == ["big.jsonl"]  # a refused run records nothing
        assert main(["ramdocs", "report", "--run", str(run), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["questions"] == 2
        assert _run(srv, small, run, "--restart") == 0
    capsys.readouterr()
    assert main(["ramdocs", "report", "--run", str(run), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["questions"] == 1 and rep["note"] is None
    assert _data_files(run) == ["small.jsonl"]
    shown = [value for what, value in load_run(run).provenance if what == "data"]
    assert len(shown) == 1 and "small.jsonl" in shown[0]


def test_an_interrupted_restart_still_names_its_own_data_file(
    tmp_path: Path, reply_fn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run is killed after its identity is recorded: data.json names the new file."""
    import conflicteval.ramdocs.run as ramdocs_run

    big = _write(tmp_path / "big.jsonl", RECORDS)
    small = _write(tmp_path / "small.jsonl", RECORDS[1:])
    run = tmp_path / "run"
    with OpenAICompatServer(reply_fn) as srv:
        assert _run(srv, big, run) == 0

        def interrupted(*args: Any, **kwargs: Any) -> Any:
            raise _Killed  # killed after its batch, before run.json is written

        monkeypatch.setattr(ramdocs_run, "write_json", interrupted)
        with pytest.raises(_Killed):
            _run(srv, small, run, "--restart")
        monkeypatch.undo()
        assert _data_files(run) == ["small.jsonl"]
        assert _run(srv, big, run) == 2  # and the directory now belongs to the small file
