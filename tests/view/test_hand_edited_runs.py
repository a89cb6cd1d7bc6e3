"""A run's files edited by hand: one ``error:`` line naming the file and record, exit 2.

A checkpoint line whose JSON is valid but whose result is not what the command wrote
(a number where a list was, text where a number was, a missing key) used to reach the
code that reads the result back and end in a traceback, or in a bare message such as
"could not convert string to float" that named no file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .runs import bench_items, detect_run, feverous_run, score_run, wikicontradict_run

FEVEROUS_S = "feverous/feverous_s_dev_first5.json"
WC_CSV = "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv"


def _edit_first(path: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    """Apply ``edit`` to the first line's record; return the record's id."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[0])
    edit(record)
    lines[0] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return str(record.get("id"))


def _set_result(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        record["result"][key] = value

    return edit


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        record[key] = value

    return edit


def _view(run: Path, tmp: Path) -> list[str]:
    return ["view", str(run), "-o", str(tmp / "report.html")]


# (name, make the run, file edited, edit, command given the run and a scratch directory)
CASES: list[tuple[str, str, str, Callable[[dict[str, Any]], None], Any]] = [
    ("score-view-labels", "score", "checkpoint.jsonl", _set_result("labels", 5), _view),
    ("score-view-cs_c", "score", "checkpoint.jsonl", _set_result("cs_c", "zz"), _view),
    ("score-view-aggregate", "score", "checkpoint.jsonl", _set_result("aggregate", "x"), _view),
    (
        "score-resume-cs_c",
        "score",
        "checkpoint.jsonl",
        _set_result("cs_c", [1]),
        lambda run, tmp: ["score", "--input", str(tmp / "cs_items.jsonl"), "--out", str(run)],
    ),
    ("detect-view-labels", "detect", "checkpoint.jsonl", _set_result("labels", 5), _view),
    (
        "detect-report-labels",
        "detect",
        "checkpoint.jsonl",
        _set_result("labels", 5),
        lambda run, tmp: ["conflictbench", "report", "--run", str(run)],
    ),
    (
        "detect-report-source",
        "detect",
        "checkpoint.jsonl",
        _set_result("source", None),
        lambda run, tmp: ["conflictbench", "report", "--run", str(run)],
    ),
    ("feverous-view-records", "feverous", "records.jsonl", _set("pair_labels", 5), _view),
    (
        "feverous-resume-calls",
        "feverous",
        "checkpoint.jsonl",
        _set_result("pair_labels", 5),
        lambda run, tmp: [
            *("feverous", "verify", "--claims", str(tmp / "claims.json")),
            *("--labeler", "lexical", "--out", str(run), "--quiet"),
        ],
    ),
    (
        "wc-report-response",
        "wikicontradict",
        "generations.jsonl",
        _set_result("response", 5),
        lambda run, tmp: ["wikicontradict", "report", "--run", str(run)],
    ),
    (
        "wc-report-label",
        "wikicontradict",
        "judgements.jsonl",
        _set_result("label", 5),
        lambda run, tmp: ["wikicontradict", "report", "--run", str(run)],
    ),
]


def _make_run(kind: str, tmp: Path, shared_data: Path) -> Path:
    if kind == "score":
        return score_run(tmp)
    if kind == "detect":
        return detect_run(tmp)
    if kind == "feverous":
        claims = tmp / "claims.json"
        claims.write_bytes((shared_data / FEVEROUS_S).read_bytes())
        return feverous_run(tmp, claims)
    with OpenAICompatServer() as server:
        return wikicontradict_run(tmp, shared_data / WC_CSV, server)


@pytest.mark.parametrize(
    ("kind", "name", "edit", "argv"),
    [pytest.param(k, n, e, a, id=c) for c, k, n, e, a in CASES],
)
def test_a_hand_edited_record_is_one_line_naming_file_and_record(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shared_data: Path,
    kind: str,
    name: str,
    edit: Callable[[dict[str, Any]], None],
    argv: Callable[[Path, Path], list[str]],
) -> None:
    run = _make_run(kind, tmp_path, shared_data)
    record_id = _edit_first(run / name, edit)
    row = "1" if name == "records.jsonl" else record_id  # records.jsonl: named by its line
    capsys.readouterr()
    code = main(argv(run, tmp_path))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert f"{run / name}, row {row}" in errors[0], errors[0]
    assert "edited by hand" in errors[0] or "field" in errors[0], errors[0]


def test_bench_compare_names_a_hand_edited_record_and_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = bench_items(tmp_path / "bench.jsonl")
    argv = ["bench", "labeler", "--gold", "conflictbench", "--data", str(items)]
    out = tmp_path / "bench"
    assert main([*argv, "--labeler", "lexical", "--out", str(out), "--no-save"]) in (0, 1)
    records = out / "records.jsonl"
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    records.write_text("[1, 2]\n" + "".join(lines[1:]), encoding="utf-8")
    capsys.readouterr()
    assert main(["bench", "compare", str(out), str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{records}, row 1" in err, err
    data = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    data["accuracy_ci"] = 5
    (out / "bench.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["bench", "compare", str(out / "bench.json")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{out / 'bench.json'}, field 'accuracy_ci'" in err, err


def test_a_data_record_edited_out_of_shape_is_rewritten(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    (run / "data.json").write_text(json.dumps({"files": 5}), encoding="utf-8")
    argv = ["score", "--input", str(tmp_path / "cs_items.jsonl"), "--out", str(run), "--quiet"]
    assert main(argv) in (0, 1)
    files = json.loads((run / "data.json").read_text(encoding="utf-8"))["files"]
    assert [Path(f["path"]).name for f in files] == ["cs_items.jsonl"]
