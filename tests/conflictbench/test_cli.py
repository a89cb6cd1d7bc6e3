"""The conflictbench, reports and regenerate commands, run through conflicteval.cli.main."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.conflictbench import read_items


def test_convert_build_detect_report(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cqa_rows: list[dict[str, Any]],
    ambig_json: Path,
    macnoise_json: Path,
) -> None:
    pd = pytest.importorskip("pandas")
    pkl = tmp_path / "data.pkl"
    pd.DataFrame(cqa_rows).to_pickle(pkl)
    rows = tmp_path / "cqa_rows.jsonl"
    assert (
        main(["conflictbench", "convert", "conflictingqa", str(pkl), "--rows", "--out", str(rows)])
        == 2
    )  # refused without --allow-pickle
    assert "allow_pickle" in capsys.readouterr().err
    assert (
        main(
            [
                "conflictbench",
                "convert",
                "conflictingqa",
                str(pkl),
                "--rows",
                "--allow-pickle",
                "--out",
                str(rows),
            ]
        )
        == 0
    )
    assert len(rows.read_text(encoding="utf-8").splitlines()) == len(cqa_rows)

    items_file = tmp_path / "ambig_items.jsonl"
    assert (
        main(["conflictbench", "convert", "ambigdocs", str(ambig_json), "--out", str(items_file)])
        == 0
    )
    assert [it.id for it in read_items(items_file)] == [
        "ambigdocs:17",
        "ambigdocs:q-18",
        "ambigdocs:q-19",
    ]

    bench = tmp_path / "bench.jsonl"
    code = main(
        [
            "conflictbench",
            "build",
            "--source",
            f"conflictingqa={rows}",
            "--source",
            f"ambigdocs={ambig_json}",
            "--source",
            f"macnoise={macnoise_json}",
            "--out",
            str(bench),
            "--seed",
            "1",
            "--wide",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| ConflictingQA | 1 | 2 | 3 | 355 | 79 | 434 |" in out
    built = read_items(bench)
    assert {it.source for it in built} == {"conflictingqa", "ambigdocs", "macnoise-nq"}

    det = tmp_path / "detect"
    detect = ["conflictbench", "detect", "--items", str(bench), "--out", str(det)]
    assert main([*detect, "--wide"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| Category | Prec |") and "| Overall |" in out
    assert "labeler lexical" in out and "failed" in out
    assert out.count("this run:") == 1 and "items: " in out  # counts once, closing lines
    metrics = json.loads((det / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["overall"]["n_items"] == len(built)
    assert (det / "table2.md").read_text(encoding="utf-8").strip() in out

    assert (
        main(["conflictbench", "report", "--run", str(det), "--items", str(bench), "--json"]) == 0
    )
    again = json.loads(capsys.readouterr().out)
    assert again == metrics
    # the old spelling (--out naming the directory the report reads) still works, and warns
    assert (
        main(["conflictbench", "report", "--out", str(det), "--items", str(bench), "--json"]) == 0
    )
    old = capsys.readouterr()
    assert json.loads(old.out) == metrics
    assert old.err.splitlines()[0] == "warning: --out is deprecated; use --run"
    assert old.err.splitlines()[1].startswith("took ")  # the command's elapsed time, last
    assert main(["conflictbench", "report", "--run", str(tmp_path / "nowhere")]) == 2


def test_bad_source_argument(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["conflictbench", "build", "--source", "ambigdocs=", "--out", str(tmp_path / "x.jsonl")]
        )
        == 2
    )
    assert "NAME=PATH" in capsys.readouterr().err


def test_detect_dry_run_makes_no_call(
    tmp_path: Path, openai_server: Any, capsys: pytest.CaptureFixture[str], ambig_json: Path
) -> None:
    bench = tmp_path / "bench.jsonl"
    assert (
        main(["conflictbench", "build", "--source", f"ambigdocs={ambig_json}", "--out", str(bench)])
        == 0
    )
    capsys.readouterr()
    items = read_items(bench)
    pairs = sum(len(it.documents) for it in items)
    code = main(
        [
            "conflictbench",
            "detect",
            "--items",
            str(bench),
            "--out",
            str(tmp_path / "d"),
            "--model",
            "openai/m",
            "--base-url",
            openai_server.base_url,
            "--dry-run",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert f"{pairs} model calls" in out
    assert openai_server.completions() == []
    assert not (tmp_path / "d").exists()


def test_build_with_claim_model_dry_run_and_real(
    tmp_path: Path,
    openai_server: Any,
    capsys: pytest.CaptureFixture[str],
    macnoise_json: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    openai_server.set_replies(["Barack Obama wrote Dreams from My Father."])
    args = [
        "conflictbench",
        "build",
        "--source",
        f"macnoise={macnoise_json}",
        "--out",
        str(tmp_path / "b.jsonl"),
        "--model",
        "openai/m",
        "--base-url",
        openai_server.base_url,
    ]
    assert main([*args, "--dry-run"]) == 0
    assert "2 model calls" in capsys.readouterr().out
    assert openai_server.completions() == []
    assert main([*args, "--checkpoint", str(tmp_path / "claims.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "0 failures" in out and "2 model calls" in out
    assert {it.claim for it in read_items(tmp_path / "b.jsonl")} == {
        "Barack Obama wrote Dreams from My Father."
    }


def test_reports_and_regenerate_commands(
    tmp_path: Path,
    openai_server: Any,
    capsys: pytest.CaptureFixture[str],
    cqa_jsonl: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    openai_server.set_replies(["Infinite scrolling is good. It keeps users engaged."])
    bench = tmp_path / "bench.jsonl"
    assert (
        main(
            [
                "conflictbench",
                "build",
                "--source",
                f"conflictingqa={cqa_jsonl}",
                "--out",
                str(bench),
            ]
        )
        == 0
    )
    capsys.readouterr()
    base = ["--base-url", openai_server.base_url]
    rep = [
        "reports",
        "--items",
        str(bench),
        "--model",
        "big=openai/big",
        "--settings",
        "rag",
        "--out",
        str(tmp_path / "rep"),
        *base,
    ]
    assert main([*rep, "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "dry run: reports: 1 item" in text and openai_server.completions() == []
    assert "dry run for openai/big: 1 model calls" in text
    assert not (tmp_path / "rep").exists()  # a dry run writes nothing
    assert main([*rep, "--wide"]) == 0  # offline scorer: sentence decomposer + lexical labeler
    out = capsys.readouterr().out
    assert "| big / RAG |" in out and "1 reports: 1 ok, 0 failed" in out
    assert out.count("this run:") == 1  # the counts and usage once, in the closing lines
    assert (tmp_path / "rep" / "table3.md").is_file()

    questions = tmp_path / "tqa.csv"
    with questions.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "Type",
                "Category",
                "Question",
                "Best Answer",
                "Best Incorrect Answer",
                "Correct Answers",
                "Incorrect Answers",
                "Source",
            ]
        )
        w.writerow(
            [
                "Adversarial",
                "Misconceptions",
                "Do ostriches hide their heads?",
                "No, they do not",
                "Yes, they bury their heads",
                "No, they do not",
                "Yes, they bury their heads",
                "https://example.org",
            ]
        )
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        json.dumps({"index": 0, "documents": ["Ostriches do not bury heads."]}) + "\n",
        encoding="utf-8",
    )
    openai_server.set_replies(["(A)"])
    regen = [
        "regenerate",
        "--questions",
        str(questions),
        "--documents",
        str(docs),
        "--model",
        "openai/m",
        "--mode",
        "choice",
        "--out",
        str(tmp_path / "rg"),
        *base,
    ]
    assert main([*regen, "--dry-run"]) == 0
    text = capsys.readouterr().out  # the item's first call waits: later ones are not counted
    assert "1 model calls" in text and "at least" in text and not (tmp_path / "rg").exists()
    assert main([*regen, "--wide"]) == 0
    out = capsys.readouterr().out
    assert "Binary choice (Table 5)" in out and "| Control-RAG |" in out
    assert "failed items: free 0, choice 0" in out and out.count("this run:") == 1
    summary = json.loads((tmp_path / "rg" / "summary.json").read_text(encoding="utf-8"))
    assert summary["choice"][0]["n"] == 1


@pytest.mark.parametrize("command", [["conflictbench", "detect"], ["reports"]])
def test_an_empty_items_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """Figures of no item would read as a run that went well (and "no item qualifies" would
    point at the options): the empty file is named instead."""
    empty = tmp_path / "bench.jsonl"
    empty.write_text("", encoding="utf-8")
    argv = [*command, "--items", str(empty), "--out", str(tmp_path / "out")]
    if command == ["reports"]:
        argv += ["--model", "openai/m", "--scorer-model", "openai/m"]
        argv += ["--base-url", "http://127.0.0.1:9/v1"]  # never called
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bench.jsonl" in err[0] and "no items (an empty file)" in err[0]


def test_detect_exits_1_when_an_item_is_undetermined(
    tmp_path: Path, openai_server: Any, capsys: pytest.CaptureFixture[str], ambig_json: Path
) -> None:
    """A pair that failed might have been the conflict: the item is not scored, and the exit
    code says so (0 means every item was scored)."""
    bench = tmp_path / "bench.jsonl"
    build = ["conflictbench", "build", "--source", f"ambigdocs={ambig_json}", "--out", str(bench)]
    assert main(build) == 0
    detect = ["conflictbench", "detect", "--items", str(bench), "--model", "openai/m"]
    detect += ["--base-url", openai_server.base_url, "--quiet", "--no-cache"]
    answer = '{"answer": "IRRELEVANT", "document_snippet": "x", "reasoning": "y"}'
    openai_server.set_replies(lambda body: answer)
    assert main([*detect, "--out", str(tmp_path / "ok")]) == 0
    bad = read_items(bench)[0].documents[0].text[:60]

    def one_bad_pair(body: dict[str, Any]) -> str:  # one document's pair fails, the rest support
        asked = " ".join(str(m.get("content")) for m in body["messages"])  # re-asks too
        return "no label here" if bad in asked else answer.replace("IRRELEVANT", "SUPPORTS")

    openai_server.set_replies(one_bad_pair)
    capsys.readouterr()
    assert main([*detect, "--out", str(tmp_path / "undetermined")]) == 1
    out = capsys.readouterr().out
    assert "3 items, 3 failed or undetermined" in out and "3 items: 3 ok" in out
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    report = ["conflictbench", "report", "--run", str(tmp_path / "ok"), "--items", str(empty)]
    assert main(report) == 2
    assert "no items (an empty file)" in capsys.readouterr().err


def test_detect_prints_an_interval_for_every_accuracy_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ambig_json: Path
) -> None:
    bench = tmp_path / "bench.jsonl"
    assert main(["conflictbench", "build", "--source", f"ambigdocs={ambig_json}", "--out",
                 str(bench)]) == 0  # fmt: skip
    capsys.readouterr()
    detect = ["conflictbench", "detect", "--items", str(bench), "--out", str(tmp_path / "d")]
    assert main([*detect, "--quiet", "--wide"]) in (0, 1)
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if "Prec 95% CI" in line)
    for column in ("Acc 95% CI", "Acc_conf 95% CI", "Acc_noConf 95% CI", "RelAcc 95% CI"):
        assert f"| {column} |" in head
    overall = [line for line in out.splitlines() if line.startswith("| Overall |")][-1]
    assert overall.count("|") == head.count("|")
