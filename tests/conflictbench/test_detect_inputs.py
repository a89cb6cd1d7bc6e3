"""A resumed ``conflictbench detect`` labels again exactly the items whose claim, documents or
gold labels changed (issue 24, item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.runs import read_checkpoint


def _items(path: Path, *, doc_text: str = "The canal opened in 1851.", gold: str = "CONTRADICTS"):
    rows = []
    for k in range(3):
        rows.append(
            {
                "id": f"x:{k}",
                "source": "conflictingqa",
                "question": "When did the canal open?",
                "claim": "The canal opened in 1847.",
                "documents": [
                    {"id": "a", "text": "The canal opened in 1847.", "gold": "SUPPORTS"},
                    {
                        "id": "b",
                        "title": "Canal",
                        "text": doc_text if k == 2 else "The canal opened in 1851.",
                        "gold": gold if k == 2 else "CONTRADICTS",
                    },
                ],
                "conflict": k != 2 or gold == "CONTRADICTS",
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "change", [{"doc_text": "The canal opened in 1848."}, {"gold": "IRRELEVANT"}]
)
def test_detect_recomputes_only_the_changed_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any]
) -> None:
    items = _items(tmp_path / "bench.jsonl")
    out = tmp_path / "det"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    assert main(argv) in (0, 1)
    before = read_checkpoint(out / "checkpoint.jsonl")
    capsys.readouterr()
    _items(items, **change)
    assert main(argv) in (0, 1)
    assert "2 resumed from the checkpoint; 1 recomputed because" in capsys.readouterr().out
    after = read_checkpoint(out / "checkpoint.jsonl")
    assert after["x:0"] == before["x:0"] and after["x:1"] == before["x:1"]
    assert after["x:2"].inputs != before["x:2"].inputs
    if "gold" in change:  # the record copies the gold labels: the new ones
        assert after["x:2"].result["gold"] == ["SUPPORTS", "IRRELEVANT"]
        assert after["x:2"].result["gold_conflict"] is False


def test_report_refuses_records_made_from_other_item_contents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path / "bench.jsonl")
    out = tmp_path / "det"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    assert main(argv) in (0, 1)
    report = ["conflictbench", "report", "--run", str(out), "--items", str(items), "--json"]
    assert main(report) == 0
    capsys.readouterr()
    _items(items, gold="IRRELEVANT")  # the file changed after detect
    assert main(report) == 2
    assert "record 'x:2' was made from other contents" in capsys.readouterr().err
    assert main(argv) in (0, 1)  # detect again: the edited item only
    assert main(report) == 0


def _strip_fingerprint(ckpt: Path, item_id: str) -> None:
    lines = ckpt.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        rec = json.loads(line)
        if rec["id"] == item_id:
            rec["inputs"] = None
        out.append(json.dumps(rec))
    ckpt.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_report_with_items_refuses_a_record_it_cannot_tie_to_them(tmp_path: Path) -> None:
    """A record without the fingerprint of what it was made from, or of an item the items
    file no longer has, is not counted as if it were this file's (the runner refuses both)."""
    from conflicteval.conflictbench import outcomes_from_checkpoint, read_items

    items = _items(tmp_path / "bench.jsonl")
    out = tmp_path / "det"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    assert main(argv) in (0, 1)
    ckpt = out / "checkpoint.jsonl"
    assert len(outcomes_from_checkpoint(ckpt, read_items(str(items)))) == 3
    _strip_fingerprint(ckpt, "x:1")
    with pytest.raises(ValueError, match="record 'x:1' carries no fingerprint"):
        outcomes_from_checkpoint(ckpt, read_items(str(items)))
    assert main([*argv, "--adopt-checkpoint"]) in (0, 1)  # taken over: fingerprinted again
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("".join(items.read_text(encoding="utf-8").splitlines(True)[:2]))
    with pytest.raises(ValueError, match="record 'x:2' is of no item in"):
        outcomes_from_checkpoint(ckpt, read_items(str(fewer)))


def test_report_names_the_items_a_run_has_not_reached_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run stopped early: the table covers the items with records, and says how many of the
    file's items it leaves out, never silently fewer."""
    items = _items(tmp_path / "bench.jsonl")
    out = tmp_path / "det"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    assert main(argv) in (0, 1)
    report = ["conflictbench", "report", "--run", str(out), "--items", str(items)]
    capsys.readouterr()
    assert main(report) == 0
    assert "no record" not in capsys.readouterr().err
    ckpt = out / "checkpoint.jsonl"
    lines = ckpt.read_text(encoding="utf-8").splitlines(True)
    kept = [ln for ln in lines if '"id": "x:1"' not in ln and '"id":"x:1"' not in ln]
    assert len(kept) == len(lines) - 1
    ckpt.write_text("".join(kept), encoding="utf-8")  # x:1 never finished
    assert main(report) == 1
    err = capsys.readouterr().err
    assert "1 of 3 items" in err and "have no record" in err and "detect' again" in err
