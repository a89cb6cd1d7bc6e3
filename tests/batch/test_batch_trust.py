"""Batch replies are vouched for: duplicates, other models, bad lines, bad usage, torn files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.export import batch_export
from conflicteval.batch.files import (
    import_results,
    manifest_path,
    read_manifest,
    result_file,
    results_dir,
)
from conflicteval.cache import ResponseCache, open_cache
from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.runs import run_batch_sync
from conflicteval.testing import OpenAICompatServer

from .test_batch_files import _echo, _export_three, _items, _work


def _results(srv: OpenAICompatServer, req: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in srv.answer_batch_file(req.read_text()).splitlines()]


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_a_duplicate_custom_id_keeps_the_first_good_reply_and_is_counted(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows = _results(srv, req)
        later = json.loads(json.dumps(rows[0]))
        later["response"]["body"]["choices"][0]["message"]["content"] = "a later, other reply"
        failed = {"custom_id": ids[1], "response": None, "error": {"code": "x", "message": "y"}}
        out = _write(tmp_path / "out.jsonl", [failed, *rows, later])
        report = import_results([out], open_cache(), [req])
    assert report.lines == 5
    assert (report.imported, report.duplicates, report.n_failed) == (3, 2, 0)
    assert "2 duplicate" in report.summary() and "first good reply was kept" in report.summary()
    kept = open_cache().get(ids[0])
    assert kept is not None and kept["text"] != "a later, other reply"


def test_a_later_import_never_overwrites_a_cached_reply(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows = _results(srv, req)
        first = import_results([_write(tmp_path / "a.jsonl", rows)], open_cache(), [req])
        rows[0]["response"]["body"]["choices"][0]["message"]["content"] = "replaced?"
        second = import_results([_write(tmp_path / "b.jsonl", rows)], open_cache(), [req])
    assert first.imported == 3 and (second.imported, second.already_cached) == (0, 3)
    assert open_cache().get(ids[0])["text"] != "replaced?"  # type: ignore[index]


def test_a_reply_from_another_model_is_refused_unless_the_served_name_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows = _results(srv, req)
    assert {r["response"]["body"]["model"] for r in rows} == {"test-model"}
    for r in rows:
        r["response"]["body"]["model"] = "wrong-model"
    out = _write(tmp_path / "out.jsonl", rows)
    assert main(["batch", "import", str(out), "--export", str(req)]) == 1
    text = capsys.readouterr().out
    assert "0 replies cached" in text and "3 from another model" in text
    assert "--served-model wrong-model" in text
    assert not any(open_cache().contains(i) for i in ids)
    ok = ["batch", "import", str(out), "--export", str(req), "--served-model", "wrong-model"]
    assert main(ok) == 0
    assert "3 replies cached" in capsys.readouterr().out
    # a dated snapshot of the requested name is the same model (OpenAI reports those)
    assert read_manifest(manifest_path(req))[0].request_model == "test-model"
    for r in rows:
        r["response"]["body"]["model"] = "test-model-2024-07-18"
    dated = import_results(
        [_write(tmp_path / "d.jsonl", rows)], ResponseCache(tmp_path / "c2"), [req]
    )
    assert dated.imported == 3 and not dated.mismatched


def test_bad_lines_are_skipped_counted_and_shown_and_the_good_ones_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows: list[Any] = _results(srv, req)
    out = tmp_path / "out.jsonl"
    _write(out, [rows[0], "{not json", rows[1], '["a list"]', rows[2]])
    with out.open("ab") as fh:
        fh.write(b'{"custom_id": "\xff\xfe"}\n')
    assert main(["batch", "import", str(out), "--export", str(req)]) == 0
    text = capsys.readouterr().out
    assert "3 replies cached" in text and "3 unreadable" in text
    assert "out.jsonl, row 2: not JSON" in text
    assert all(open_cache().contains(i) for i in ids)


@pytest.mark.parametrize(
    ("usage", "finish", "reason"),
    [
        ([1, 2], "stop", "usage is not an object"),
        ({"prompt_tokens": 1e400, "completion_tokens": 2}, "stop", "usage.prompt_tokens"),
        ({"prompt_tokens": -5, "completion_tokens": 2}, "stop", "usage.prompt_tokens"),
        ({"prompt_tokens": 3, "completion_tokens": "many"}, "stop", "usage.completion_tokens"),
        ({"prompt_tokens": 3, "completion_tokens": True}, "stop", "usage.completion_tokens"),
        ({"prompt_tokens": 3, "completion_tokens": 2}, {"why": "x"}, "finish_reason"),
    ],
)
def test_poisoned_usage_fails_its_line_without_a_traceback(
    tmp_path: Path, usage: Any, finish: Any, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows = _results(srv, req)
    rows[0]["response"]["body"]["usage"] = usage
    rows[0]["response"]["body"]["choices"][0]["finish_reason"] = finish
    text = json.dumps(rows[0]).replace('"prompt_tokens": Infinity', '"prompt_tokens": 1e400')
    out = _write(tmp_path / "out.jsonl", [text, *rows[1:]])
    assert main(["batch", "import", str(out), "--export", str(req)]) == 0
    summary = capsys.readouterr().out
    assert "2 replies cached, 1 failed" in summary and reason in summary
    assert not open_cache().contains(ids[0])


def test_a_poisoned_cached_value_is_a_miss_and_asked_again(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model, req, ids = _export_three(srv, tmp_path)
        import_results([_write(tmp_path / "o.jsonl", _results(srv, req))], open_cache(), [req])
        cache = open_cache()
        with sqlite3.connect(cache.path) as conn:
            for key, poison in zip(
                ids,
                [
                    {"text": "x", "prompt_tokens": "12", "completion_tokens": 1},
                    {"text": "x", "finish_reason": {"a": 1}},
                    {"text": "x", "prompt_tokens": 1e300},
                ],
                strict=True,
            ):
                conn.execute(
                    "UPDATE responses SET value = ? WHERE key = ?", (json.dumps(poison), key)
                )
        assert all(cache.get(i) is None for i in ids)
        result = run_batch_sync(_work(model), _items(3), progress=False)
        assert result.counts["ok"] == 3 and len(srv.completions()) == 3  # asked again
        assert all(cache.get(i) is not None for i in ids)  # and healed
    cache.put("k", "m", {"text": "t", "prompt_tokens": -1})  # never written
    assert not cache.contains("k")


def test_batch_import_heals_a_damaged_cache_and_refuses_a_read_only_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        out = _write(tmp_path / "o.jsonl", _results(srv, req))
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    cache = ResponseCache(damaged)
    cache.close()
    for part in damaged.iterdir():  # damaged after it was opened: the import finds it so
        part.unlink()
    (damaged / "responses.sqlite3").write_bytes(b"not a database at all" * 100)
    report = import_results([out], cache, [req])
    assert report.imported == 3 and all(cache.get(i) for i in ids)
    assert list(damaged.glob("responses.sqlite3.corrupt-*"))
    ro = ResponseCache(tmp_path / "ro")
    ro.mode = "read-only"
    with pytest.raises(ConflictEvalError, match="read-only; none of the 3 replies"):
        import_results([out], ro, [req])


def test_a_torn_manifest_line_is_tolerated_and_the_manifest_rewritten_whole(
    tmp_path: Path,
) -> None:
    with OpenAICompatServer(_echo) as srv:
        model, req, ids = _export_three(srv, tmp_path)
        mp = manifest_path(req)
        with mp.open("a") as fh:
            fh.write('{"custom_id": "abc", "model": "openai/te')  # disk full mid-line
        assert [e.custom_id for e in read_manifest(mp)] == ids
        rows = _results(srv, req)
        import_results([_write(tmp_path / "o.jsonl", rows[:1])], open_cache(), [req])
        with batch_export(req) as exp:  # the next round rewrites the manifest, torn line gone
            run_batch_sync(_work(model), _items(3), progress=False)
        assert exp.result is not None and exp.result.requests == 2
        assert mp.read_text().endswith("\n") and "openai/te\n" not in mp.read_text()
        assert len(read_manifest(mp)) == 5
        mp.write_text('{"broken\n' + mp.read_text())  # damage in the middle is an error
        with pytest.raises(DataError, match="row 1"):
            read_manifest(mp)


def test_a_server_batch_id_never_escapes_the_results_folder(tmp_path: Path) -> None:
    export = tmp_path / "b" / "requests.jsonl"
    folder = results_dir(export).resolve()
    for hostile in ("../../../x", "/etc/passwd", "a/../../b", "..", "", "batch_1"):
        path = result_file(export, hostile, "output").resolve()
        assert path.parent == folder, hostile
    assert result_file(export, "batch_1", "output").name == "batch_1.output.jsonl"


def test_batch_import_into_an_unusable_cache_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, _ = _export_three(srv, tmp_path)
        out = _write(tmp_path / "o.jsonl", _results(srv, req))
    unusable = "/proc/conflicteval-no-cache-here"  # cannot be created: the cache is off
    code = main(["batch", "import", str(out), "--export", str(req), "--cache-dir", unusable])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "the response cache is off; none of the 3 replies could be stored" in err
