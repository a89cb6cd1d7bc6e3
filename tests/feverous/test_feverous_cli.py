"""The ``feverous`` command: score and verify; prediction files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import feverous as feverous_cli
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.feverous import load_predictions, score_files


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="conflicteval")
    feverous_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ConflictEvalError as exc:  # as conflicteval.cli.main does
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _gold(train_sample: Path) -> list[dict]:
    return [json.loads(line) for line in train_sample.read_text(encoding="utf-8").splitlines()]


def _oracle(gold: list[dict], with_ids: bool = True) -> list[dict]:
    rows = []
    for record in gold:
        row = {
            "predicted_label": record["label"].lower(),
            "predicted_evidence": record["evidence"][0]["content"],
        }
        if with_ids:
            row["id"] = record["id"]
        rows.append(row)
    return rows


# -- score --------------------------------------------------------------------


def test_score_shows_the_published_baseline_with_paper(
    train_sample: Path, tmp_path: Path, capsys: Any
) -> None:
    pred = _jsonl(tmp_path / "pred.jsonl", _oracle(_gold(train_sample)))
    argv = ["feverous", "score", "--pred", str(pred), "--gold", str(train_sample)]
    assert _run(argv) == 0
    assert "published" not in capsys.readouterr().out
    assert _run([*argv, "--paper"]) == 0
    out = capsys.readouterr().out
    assert "official evaluate.py (7,890 claims): strict 0.1951, label_accuracy 0.5868" in out
    assert "paper Table 3: dev score 0.19, evidence recall 0.29; test score 0.18" in out
    assert _run([*argv, "--paper", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["published"]["dev_baseline"]["f1"] == 0.1684


def test_score_by_id_with_header(train_sample: Path, tmp_path: Path, capsys: Any) -> None:
    gold = _gold(train_sample)
    rows = _oracle(gold)
    rows[0]["predicted_label"] = "SUPPORTS"  # wrong (gold REFUTES)
    rows[1]["predicted_evidence"] = rows[1]["predicted_evidence"][:1]  # set not covered
    rows.reverse()  # order does not matter when matching by id
    header = {"predicted_label": "", "predicted_evidence": "", "id": ""}
    pred = _jsonl(tmp_path / "pred.jsonl", [header, *rows])
    assert _run(["feverous", "score", "--pred", str(pred), "--gold", str(train_sample)]) == 0
    out = capsys.readouterr().out
    assert "claims: 10" in out
    assert "strict: 0.8000 [" in out  # each official figure, then its interval
    assert "label_accuracy: 0.9000 [" in out
    assert "recall: 0.9000 [" in out
    per_claim = tmp_path / "per_claim.jsonl"
    assert (
        _run(
            [
                "feverous",
                "score",
                "--pred",
                str(pred),
                "--gold",
                str(train_sample),
                "--json",
                "--per-claim",
                str(per_claim),
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 10 and summary["strict"] == pytest.approx(0.8)
    low, high = summary["strict_ci"]
    assert low <= 0.8 <= high and f"strict: 0.8000 [{low:.4f}, {high:.4f}]" in out
    rows_out = [json.loads(line) for line in per_claim.read_text().splitlines()]
    assert [r["id"] for r in rows_out][:2] == [20067, 55963]
    assert sum(r["strict"] for r in rows_out) == 8


def test_score_by_position_with_triples(train_sample: Path, tmp_path: Path) -> None:
    from conflicteval.feverous import to_triple

    gold = _gold(train_sample)
    rows = _oracle(gold, with_ids=False)
    for row in rows:
        row["predicted_evidence"] = [to_triple(e) for e in row["predicted_evidence"]]
    pred = _jsonl(tmp_path / "pred.jsonl", rows)
    assert score_files(pred, train_sample).as_tuple() == (1.0, 1.0, 1.0, 1.0, 1.0)
    short = _jsonl(tmp_path / "short.jsonl", rows[:9])
    with pytest.raises(DataError, match="9 predictions but 10 gold claims"):
        score_files(short, train_sample)


def test_score_id_mismatches(train_sample: Path, tmp_path: Path) -> None:
    rows = _oracle(_gold(train_sample))
    missing = _jsonl(tmp_path / "missing.jsonl", rows[1:])
    with pytest.raises(DataError, match="1 gold claims have no prediction") as info:
        score_files(missing, train_sample)
    assert info.value.field == "id"
    unknown = _jsonl(tmp_path / "unknown.jsonl", [*rows, {**rows[0], "id": 5}])
    with pytest.raises(DataError, match="no gold claim with id 5") as info:
        score_files(unknown, train_sample)
    assert info.value.row == 11
    dup = _jsonl(tmp_path / "dup.jsonl", [*rows, rows[0]])
    with pytest.raises(DataError, match="duplicate prediction"):
        score_files(dup, train_sample)


def test_score_official_evaluate_layout_without_gold(tmp_path: Path) -> None:
    # evaluate.py's input: the dev file with predictions added, header first.
    header = {
        "id": "",
        "claim": "",
        "label": "",
        "evidence": "",
        "predicted_label": "",
        "predicted_evidence": "",
    }
    rows = [
        {
            "id": 1,
            "claim": "a",
            "label": "SUPPORTS",
            "evidence": [{"content": ["P_sentence_0"], "context": {"P_sentence_0": ["P_title"]}}],
            "predicted_label": "SUPPORTS",
            "predicted_evidence": ["P_sentence_0"],
        },
        {
            "id": 2,
            "claim": "b",
            "label": "REFUTES",
            "evidence": [{"content": ["Q_cell_0_1_1"], "context": {}}],
            "predicted_label": "REFUTES",
            "predicted_evidence": [],
        },
    ]
    pred = _jsonl(tmp_path / "eval.jsonl", [header, *rows])
    assert score_files(pred).as_tuple() == (0.5, 1.0, 1.0, 0.5, pytest.approx(2 / 3))
    broken = _jsonl(tmp_path / "broken.jsonl", [{k: v for k, v in rows[0].items() if k != "label"}])
    with pytest.raises(DataError) as info:
        score_files(broken)
    assert (info.value.row, info.value.field) == (1, "label")


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"predicted_evidence": []}, "predicted_label"),
        ({"predicted_label": "SUPPORTS"}, "predicted_evidence"),
        ({"predicted_label": 1, "predicted_evidence": []}, "predicted_label"),
        (
            {"predicted_label": "SUPPORTS", "predicted_evidence": "P_sentence_0"},
            "predicted_evidence",
        ),
        (
            {"predicted_label": "SUPPORTS", "predicted_evidence": ["P_sentence_0", "nope"]},
            "predicted_evidence[1]",
        ),
    ],
)
def test_prediction_file_errors(tmp_path: Path, row: dict, field: str) -> None:
    good = {"predicted_label": "SUPPORTS", "predicted_evidence": []}
    path = _jsonl(tmp_path / "p.jsonl", [good, row])
    with pytest.raises(DataError) as info:
        load_predictions(path)
    assert (info.value.path, info.value.row, info.value.field) == (str(path), 2, field)


def test_main_reports_data_errors(tmp_path: Path, capsys: Any) -> None:
    from conflicteval.cli import main

    path = _jsonl(tmp_path / "p.jsonl", [{"predicted_label": "SUPPORTS"}])
    assert main(["feverous", "score", "--pred", str(path)]) == 2
    err = capsys.readouterr().err
    assert "p.jsonl" in err and "row 1" in err and "predicted_evidence" in err


# -- verify -------------------------------------------------------------------


def test_verify_feverous_s_with_out_dir(
    s_sample: Path,
    tmp_path: Path,
    capsys: Any,
    keyword_labeler: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    specs: list[tuple[str, str | None]] = []

    def fake(args: argparse.Namespace) -> Any:
        specs.append((args.model, args.base_url))
        return keyword_labeler

    monkeypatch.setattr(feverous_cli, "_make_labeler", fake)
    out = tmp_path / "out"
    code = _run(
        [
            "feverous",
            "verify",
            "--claims",
            str(s_sample),
            "--model",
            "kw",
            "--mode",
            "per_element",
            "--out",
            str(out),
            "--limit",
            "3",
            "--json",
        ]
    )
    assert code == 0
    assert specs == [("kw", None)]
    summary = json.loads(capsys.readouterr().out)
    assert summary["total"] == 3 and summary["pairs"] == 7
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["3385", "7966", "48965"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["mode"] == "per_element"
    assert metrics["metrics"]["n"] == 3
    assert len((out / "checkpoint.jsonl").read_text().splitlines()) == 3
    # A re-run resumes from the checkpoint: no labeler call.
    calls = keyword_labeler.calls
    assert (
        _run(
            [
                "feverous",
                "verify",
                "--claims",
                str(s_sample),
                "--model",
                "kw",
                "--mode",
                "per_element",
                "--out",
                str(out),
                "--limit",
                "3",
            ]
        )
        == 0
    )
    assert keyword_labeler.calls == calls


def test_verify_exit_code_and_a_feverous_s_file_with_bom(
    tmp_path: Path, capsys: Any, keyword_labeler: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feverous_cli, "_make_labeler", lambda args: keyword_labeler)
    records = [
        {"id": 1, "claim": "Alpha was founded in 1901.", "label": "supports",
         "evidence": "Alpha\tAlpha was founded in 1901."},
        {"id": 2, "claim": "Alpha was founded in 1905.", "label": "refutes",
         "evidence": "Alpha\tAlpha was founded in 1901."},
    ]  # fmt: skip
    path = tmp_path / "s.json"
    # A byte-order mark must not hide the JSON array (no --db is needed for FEVEROUS-S).
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(records).encode("utf-8"))
    argv = ["feverous", "verify", "--claims", str(path), "--model", "kw", "--json"]
    assert _run(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["ok"], summary["total"], summary["label_accuracy"]) == (2, 2, 1.0)
    # a resample of two claims may draw one class twice: the other's F1 is then 0
    assert summary["label_accuracy_ci"] == [1.0, 1.0] and summary["macro_f1_ci"] == [0.5, 1.0]
    assert _run(argv[:-1]) == 0  # the text form: each figure, then its interval
    out = capsys.readouterr().out
    assert "label_accuracy: 1.0000 [1.0000, 1.0000]" in out
    assert "macro_f1: 1.0000 [0.5000, 1.0000]" in out
    # A claim left undecided (its only pair failed) makes the exit code 1.
    records[1]["evidence"] = "Alpha\tFAIL this one"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(records).encode("utf-8"))
    assert _run(argv) == 1
    summary = json.loads(capsys.readouterr().out)
    assert (summary["ok"], summary["undecided"], summary["total"]) == (1, 1, 2)


def test_verify_jsonl_needs_db(tmp_path: Path, capsys: Any) -> None:
    claims = _jsonl(
        tmp_path / "c.jsonl", [{"id": 1, "claim": "x", "label": "SUPPORTS", "evidence": []}]
    )
    assert _run(["feverous", "verify", "--claims", str(claims), "--labeler", "lexical"]) == 2
    assert "--db" in capsys.readouterr().err


def test_verify_jsonl_with_db_and_lexical_labeler(
    tmp_path: Path, capsys: Any, wiki_db_path: Path
) -> None:
    pytest.importorskip("conflicteval.conflictscore")
    db = wiki_db_path
    claims = _jsonl(
        tmp_path / "c.jsonl",
        [
            {"evidence": "", "id": "", "claim": "", "label": ""},
            {
                "id": 1,
                "claim": "Alpha Team was founded in 1901.",
                "label": "SUPPORTS",
                "evidence": [{"content": ["Alpha Team_sentence_1"], "context": {}}],
            },
            {
                "id": 2,
                "claim": "Alpha Team folded in 1950.",
                "label": "SUPPORTS",
                "evidence": [
                    {"content": ["Alpha Team_sentence_3", "Alpha Team_sentence_77"], "context": {}}
                ],
            },
        ],
    )
    code = _run(
        [
            "feverous",
            "verify",
            "--claims",
            str(claims),
            "--db",
            str(db),
            "--labeler",
            "lexical",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["total"] == 2 and summary["n"] == 2
    assert summary["ok"] + summary["undecided"] == 2


def test_verify_with_a_model_spec_over_http(
    s_sample: Path, tmp_path: Path, capsys: Any, openai_server: Any
) -> None:
    pytest.importorskip("conflicteval.conflictscore")

    def reply(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        answer = "CONTRADICTS" if "Harrier Shing" in prompt else "SUPPORTS"
        return json.dumps({"answer": answer, "document_snippet": "x", "reasoning": "y"})

    openai_server.set_replies(reply)
    code = _run(
        [
            "feverous",
            "verify",
            "--claims",
            str(s_sample),
            "--model",
            "openai/test",
            "--base-url",
            openai_server.base_url,
            "--limit",
            "2",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] == 2
    assert summary["label_accuracy"] == 1.0  # SUPPORTS, then REFUTES


def test_example_script_runs(train_sample: Path) -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "examples" / "feverous_score.py"
    done = subprocess.run(
        [sys.executable, str(script), str(train_sample)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert "f1 0.7179" in lines[0]
    assert lines[1].startswith("oracle (10 claims): strict 1.0000")
    assert lines[2].startswith("sentences only (10 claims): strict 0.3000")
    assert "macro-F1 1.00" in lines[3]


def test_verify_dry_run_counts_calls_without_requests(
    s_sample: Path, capsys: Any, openai_server: Any
) -> None:
    argv = [
        "feverous",
        "verify",
        "--claims",
        str(s_sample),
        "--model",
        "openai/test",
        "--base-url",
        openai_server.base_url,
        "--limit",
        "3",
        "--dry-run",
        "--json",
    ]
    assert _run(argv) == 0
    [report] = json.loads(capsys.readouterr().out)["reports"]
    assert report["calls"] == 3  # concat mode: one document per claim, one call per pair
    assert report["cached"] == 0 and report["prompt_tokens"] > 0
    assert openai_server.completions() == []
    per_element = [*argv[:-1], "--mode", "per_element", "--json"]
    assert _run(per_element) == 0
    assert json.loads(capsys.readouterr().out)["reports"][0]["calls"] > 3
    assert (
        _run(["feverous", "verify", "--claims", str(s_sample), "--labeler", "lexical", "--dry-run"])
        == 0
    )
    assert "no model calls" in capsys.readouterr().out


def test_verify_without_claims_offline_names_the_claims_option(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    assert _run(["feverous", "verify", "--labeler", "lexical"]) == 2
    err = capsys.readouterr().err
    assert "'feverous-dev' is not available" in err
    assert "with --claims PATH" in err and "--data" not in err  # verify has no --data


def test_verify_of_claims_without_gold_labels_prints_undefined_not_zero(
    tmp_path: Path, capsys: Any, wiki_db_path: Path
) -> None:
    """A test-set file has no gold labels: accuracy and macro-F1 are undefined, said in words."""
    pytest.importorskip("conflicteval.conflictscore")
    claims = _jsonl(
        tmp_path / "c.jsonl",
        [
            {"evidence": "", "id": "", "claim": "", "label": ""},
            {"id": 1, "claim": "Alpha Team was founded in 1901."},
        ],
    )
    argv = ["feverous", "verify", "--claims", str(claims), "--db", str(wiki_db_path)]
    _run([*argv, "--labeler", "lexical"])
    out = capsys.readouterr().out
    assert "label_accuracy: undefined (no claim with a gold label to score)" in out
    assert "macro_f1: undefined" in out and "0.0000" not in out
    assert "_ci" not in out  # an undefined figure has no interval line either
    _run([*argv, "--labeler", "lexical", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 0 and summary["label_accuracy"] is None
    assert summary["label_accuracy_ci"] is None and summary["macro_f1_ci"] is None


def test_score_refuses_an_empty_prediction_or_gold_file(
    train_sample: Path, tmp_path: Path, capsys: Any
) -> None:
    """Zeros computed from no claim would read as a real score: one line naming the file."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert _run(["feverous", "score", "--pred", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "empty.jsonl" in err and "no predictions" in err and "strict" not in err
    pred = _jsonl(tmp_path / "pred.jsonl", _oracle(_gold(train_sample)))
    assert _run(["feverous", "score", "--pred", str(pred), "--gold", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "empty.jsonl" in err and "no gold claims" in err


def test_verify_names_an_empty_claim_file_and_a_json_file_that_is_no_array(
    tmp_path: Path, capsys: Any
) -> None:
    empty = tmp_path / "claims.json"
    empty.write_text("\n", encoding="utf-8")
    assert _run(["feverous", "verify", "--claims", str(empty), "--labeler", "lexical"]) == 2
    err = capsys.readouterr().err
    assert "claims.json" in err and "no claims (an empty file)" in err
    obj = tmp_path / "object.json"
    obj.write_text('{"id": 1}\n', encoding="utf-8")
    assert _run(["feverous", "verify", "--claims", str(obj), "--labeler", "lexical"]) == 2
    err = capsys.readouterr().err
    assert "object.json is not a FEVEROUS-S JSON array" in err and "--db" in err


def test_verify_fails_a_claim_whose_evidence_is_not_in_the_database(
    tmp_path: Path, capsys: Any, wiki_db_path: Path
) -> None:
    """No evidence text because the database lacks every id: the claim fails with the reason,
    never a NOT ENOUGH INFO label made from nothing."""
    pytest.importorskip("conflicteval.conflictscore")
    claims = _jsonl(
        tmp_path / "c.jsonl",
        [
            {
                "id": 1,
                "claim": "Beta Club was founded in 1901.",
                "label": "SUPPORTS",
                "evidence": [{"content": ["Beta Club_sentence_1"], "context": {}}],
            },
        ],
    )
    argv = ["feverous", "verify", "--claims", str(claims), "--db", str(wiki_db_path)]
    assert _run([*argv, "--labeler", "lexical", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] == 0 and summary["model_error"] == 1
    assert summary["label_accuracy"] == 0.0  # counted, and wrong


def test_verify_counts_claims_labelled_on_part_of_their_evidence(
    tmp_path: Path, capsys: Any, wiki_db_path: Path
) -> None:
    pytest.importorskip("conflicteval.conflictscore")
    evidence = ["Alpha Team_sentence_1", "Beta Club_sentence_1"]  # the second is not in the db
    claims = _jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": 1, "claim": "Alpha Team was founded in 1901.", "label": "SUPPORTS",
             "evidence": [{"content": evidence, "context": {}}]},
            {"id": 2, "claim": "Alpha Team was founded in 1901.", "label": "SUPPORTS",
             "evidence": [{"content": evidence[:1], "context": {}}]},
        ],
    )  # fmt: skip
    argv = ["feverous", "verify", "--claims", str(claims), "--db", str(wiki_db_path)]
    _run([*argv, "--labeler", "lexical", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert summary["evidence_missing"] == 1 and summary["total"] == 2
    _run([*argv, "--labeler", "lexical"])
    assert "evidence_missing: 1" in capsys.readouterr().out
