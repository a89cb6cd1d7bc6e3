"""The tracebacks of the last attack are one-line errors naming the file, row and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.jsonio import iter_json_records, parse_json
from conflicteval.runs import read_checkpoint

from .test_bad_input_cli import COMMANDS

# a lone high surrogate escaped in JSON: Python decodes it into a str no file or model can take
LONE = b'[{"id": "a", "text": "caf\\ud800 au lait", "documents": ["x \\udc00"]}]\n'


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "score-response"])
def test_a_lone_surrogate_in_json_input_is_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    name, argv = COMMANDS[command]
    bad = tmp_path / name
    bad.write_bytes(LONE if not name.endswith(".jsonl") else LONE.strip()[1:-1] + b"\n")
    code = main(argv(bad, tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and str(bad) in errors[0], err


def test_the_surrogate_error_names_row_and_field(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "ok", "text": "\\ud83d\\ude00 a pair is fine"}\n' + LONE.decode()[1:-2])
    with pytest.raises(DataError, match=r"items\.jsonl, row 2, field 'text': a lone UTF-16"):
        list(iter_json_records(path))
    assert parse_json('"\\ud83d\\ude00"', None) == "\U0001f600"
    with pytest.raises(DataError, match=r"field '\[0\]\.documents\[0\]'"):
        parse_json('[{"documents": ["\\udc00"]}]', tmp_path / "x.json")


def test_a_non_utf8_byte_inside_a_checkpoint_names_the_file_and_line(tmp_path: Path) -> None:
    good = json.dumps({"id": "a", "status": "ok", "result": {"x": 1}})
    path = tmp_path / "checkpoint.jsonl"
    path.write_bytes(good.encode() + b"\n" + good.encode().replace(b'"a"', b'"\xff"') + b"\n")
    with pytest.raises(ConflictEvalError, match=r"checkpoint\.jsonl: line 2: not a checkpoint"):
        read_checkpoint(path)
    path.write_bytes(good.encode() + b"\n" + good.encode()[:-4] + b"\xe2\x82")  # torn mid-char
    assert list(read_checkpoint(path)) == ["a"]


def test_a_hostile_hub_revision_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("huggingface_hub", reason="the Hub client is a core dependency")
    from conflicteval.data import DatasetFile, fetch
    from conflicteval.testing.fileserver import FileServer

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    entry = DatasetFile(
        name="toy", title="t", kind="hf", repo="org/toy", filename="toy.csv", revision="main",
        sha256=None, licence="MIT", loader="none", note="unpinned for the test",
    )  # fmt: skip
    hub = {("org/toy", "toy.csv"): b"a,b\n"}
    with FileServer(hub=hub, commit="../../../outside") as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        with pytest.raises(
            ConflictEvalError, match=r"'toy': http://127\.0\.0\.1:\d+ \(HF_ENDPOINT"
        ):
            fetch(entry, progress=False)
    assert not (tmp_path / "outside").exists()
