"""A resumed ``feverous verify`` labels again exactly the claims whose rendered evidence or
claim text changed (``--keep-links`` included), and resumes the rest (issue 24, item 1)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import feverous as feverous_cli
from conflicteval.errors import ConflictEvalError
from conflicteval.runs import read_checkpoint


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="conflicteval")
    feverous_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ConflictEvalError as exc:  # as conflicteval.cli.main does
        print(f"error: {exc}", file=sys.stderr)
        return 2


def test_verify_labels_again_only_the_claims_whose_inputs_changed(
    s_sample: Path,
    tmp_path: Path,
    capsys: Any,
    keyword_labeler: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feverous_cli, "_make_labeler", lambda args: keyword_labeler)
    out = tmp_path / "out"
    base = ["feverous", "verify", "--model", "kw", "--out", str(out), "--quiet"]
    assert _run([*base, "--claims", str(s_sample)]) in (0, 1)
    assert keyword_labeler.calls == 5
    first = read_checkpoint(out / "checkpoint.jsonl")
    capsys.readouterr()

    # --keep-links changes the prompt of the four claims whose evidence has links
    assert _run([*base, "--claims", str(s_sample), "--keep-links"]) in (0, 1)
    assert keyword_labeler.calls == 5 + 4
    assert "4 recomputed because their inputs changed" in capsys.readouterr().err
    assert any("[[" in d.text for d in keyword_labeler.seen[-1][1])

    # an edited claim text: that claim only (the others resume, links kept as before)
    rows = json.loads(s_sample.read_text(encoding="utf-8"))
    rows[4]["claim"] = rows[4]["claim"] + " (edited)"
    edited = tmp_path / "claims.json"
    edited.write_text(json.dumps(rows), encoding="utf-8")
    assert _run([*base, "--claims", str(edited), "--keep-links"]) in (0, 1)
    assert keyword_labeler.calls == 5 + 4 + 1
    assert keyword_labeler.seen[-1][0] == [rows[4]["claim"]]
    last = read_checkpoint(out / "checkpoint.jsonl")
    assert last[str(rows[4]["id"])].inputs != first[str(rows[4]["id"])].inputs


def test_verify_gold_first_changes_the_inputs_of_claims_with_several_evidence_sets(
    wiki_db_path: Path, tmp_path: Path, capsys: Any, keyword_labeler: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(feverous_cli, "_make_labeler", lambda args: keyword_labeler)
    claims = tmp_path / "c.jsonl"
    rows = [
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
                {"content": ["Alpha Team_sentence_1"], "context": {}},
                {"content": ["Alpha Team_sentence_3"], "context": {}},
            ],
        },
    ]
    claims.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    base = ["feverous", "verify", "--claims", str(claims), "--db", str(wiki_db_path)]
    base += ["--model", "kw", "--out", str(out), "--quiet"]
    assert _run(base) in (0, 1)
    assert keyword_labeler.calls == 2
    capsys.readouterr()
    # the first evidence set only: claim 2 sees other evidence, claim 1 the same
    assert _run([*base, "--evidence", "gold_first"]) in (0, 1)
    assert keyword_labeler.calls == 3 and keyword_labeler.seen[-1][0] == [rows[1]["claim"]]
    assert "1 recomputed because their inputs changed" in capsys.readouterr().err
