"""Bad input files on the command line: one ``error:`` line naming the file, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main

DEEP = "[" * 100_000 + "]" * 100_000


def _good_docs(d: Path) -> Path:
    path = d / "good_docs.jsonl"
    path.write_text(json.dumps({"id": "d1", "text": "The lake is 12 km long."}) + "\n")
    return path


def _good_response(d: Path) -> Path:
    path = d / "response.txt"
    path.write_text("The lake is 12 km long.\n", encoding="utf-8")
    return path


def _good_pred(d: Path) -> Path:
    path = d / "good_pred.jsonl"
    row = {"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": ["P_sentence_0"]}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


# command builders: (bad file name, argv given the bad path and a scratch directory)
COMMANDS = {
    "score-documents": (
        "docs.jsonl",
        lambda bad, d: ["score", "--response", str(_good_response(d)), "--documents", str(bad)],
    ),
    "score-response": (
        "response.txt",
        lambda bad, d: ["score", "--response", str(bad), "--documents", str(_good_docs(d))],
    ),
    "score-input": (
        "items.jsonl",
        lambda bad, d: ["score", "--input", str(bad), "--out", str(d / "out")],
    ),
    "wikicontradict-stats": (
        "wc.json",
        lambda bad, d: ["wikicontradict", "stats", "--data", str(bad)],
    ),
    "wikicontradict-calibrate": (
        "labels.jsonl",
        lambda bad, d: [
            "wikicontradict",
            "calibrate",
            "--labels",
            str(bad),
            "--model",
            "lexical",
            "--dry-run",
        ],
    ),
    "feverous-score-pred": (
        "pred.jsonl",
        lambda bad, d: ["feverous", "score", "--pred", str(bad)],
    ),
    "feverous-score-gold": (
        "gold.jsonl",
        lambda bad, d: ["feverous", "score", "--pred", str(_good_pred(d)), "--gold", str(bad)],
    ),
    "feverous-verify": (
        "claims.json",  # FEVEROUS-S (a .jsonl claim file also needs --db)
        lambda bad, d: ["feverous", "verify", "--claims", str(bad), "--labeler", "lexical"],
    ),
    "conflictbench-convert": (
        "dev.json",
        lambda bad, d: ["conflictbench", "convert", "ambigdocs", str(bad), "--out", str(d / "o")],
    ),
    "conflictbench-detect": (
        "bench.jsonl",
        lambda bad, d: ["conflictbench", "detect", "--items", str(bad), "--out", str(d / "o")],
    ),
}

DAMAGE = {
    "utf16": '{"id": "a", "text": "caf\u00e9"}\n'.encode("utf-16"),
    "not-utf8": '{"id": "a", "text": "caf\u00e9"}\n'.encode("latin-1"),
    "deep": DEEP.encode(),
    "nan": b'[{"id": "a", "text": NaN}]\n',
}


PAIRS = [
    pytest.param(command, damage, id=f"{command}-{damage}")
    for command in COMMANDS
    for damage in DAMAGE
    # the response is plain text, not JSON: only its encoding is checked
    if not (command == "score-response" and damage in ("deep", "nan"))
]


@pytest.mark.parametrize(("command", "damage"), PAIRS)
def test_cli_reports_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, damage: str
) -> None:
    name, argv = COMMANDS[command]
    bad = tmp_path / name
    bad.write_bytes(DAMAGE[damage])
    code = main(argv(bad, tmp_path))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err  # other lines, if any, are provenance notes ("data: ...")
    assert str(bad) in errors[0]


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("conflictingqa", "search_query,text_window,stance\nq,t,yes,extra\n"),
        ("conflictingqa", "search_query,text_window,stance\nq,t\n"),
    ],
)
def test_cli_csv_row_length_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, text: str
) -> None:
    bad = tmp_path / "rows.csv"
    bad.write_text(text, encoding="utf-8")
    code = main(["conflictbench", "convert", source, str(bad), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"{bad}, row 2" in err
