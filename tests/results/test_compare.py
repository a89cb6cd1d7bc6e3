"""Paired comparison: exact McNemar on a hand-made table, Holm on hand values, compare()."""

from __future__ import annotations

import json

import pytest

from conflicteval.cli.app import main
from conflicteval.errors import ConflictEvalError
from conflicteval.results import compare
from conflicteval.results.build import build_summary, counts_of, item_record, mean_metric, write_run
from conflicteval.results.contract import DataInput
from conflicteval.results.paired import holm, mcnemar_exact, permutation_p


def test_exact_mcnemar_on_a_hand_made_table() -> None:
    # 2x2 table: both right 10, A only 1, B only 6, both wrong 3. Discordant n = 7, k = 1:
    # P(X <= 1) = (C(7,0) + C(7,1)) / 2**7 = 8 / 128; two-sided p = 16 / 128 = 0.125
    assert mcnemar_exact(1, 6) == pytest.approx(16 / 128)
    # b = 0, c = 5: 2 * 1/32 = 0.0625; no discordant pair: 1.0; balanced: capped at 1
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(3, 3) == 1.0


def test_holm_on_hand_values() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3 * 0.01, 2 * 0.03, max(0.06, 1 * 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, None, 0.6]) == [pytest.approx(1.0), None, pytest.approx(1.0)]


def test_permutation_test_is_exact_for_few_items() -> None:
    # all 4 differences positive: only the all-plus and all-minus patterns reach |mean| -> 2/16
    assert permutation_p([1.0, 1.0, 1.0, 1.0]) == pytest.approx(2 / 16)
    assert permutation_p([1.0, -1.0]) == pytest.approx(1.0)


def _run(tmp_path, name: str, outcomes: dict[str, int], scores: dict[str, float], sha: str = "ab"):
    out = tmp_path / name
    items = [
        item_record(i, "ok", values={"correct": outcomes[i], "score": scores[i]}) for i in outcomes
    ]
    metrics = [
        mean_metric("correct", "correct", list(outcomes.values()), "items", binary=True),
        mean_metric("score", "score", list(scores.values()), "items"),
    ]
    summary = build_summary(
        "wikicontradict",
        counts=counts_of({"ok": len(outcomes)}),
        metrics=metrics,
        data=[DataInput(name="d", sha256=sha * 32)],
    )
    write_run(out, summary, items)
    return out


def test_compare_two_runs_paired(tmp_path, capsys) -> None:
    ids = [f"q{i}" for i in range(20)]
    # the hand-made table: 10 both right, 1 A only, 6 B only, 3 both wrong
    a_out = [1] * 10 + [1] + [0] * 6 + [0] * 3
    b_out = [1] * 10 + [0] + [1] * 6 + [0] * 3
    a = _run(tmp_path, "a", dict(zip(ids, a_out, strict=True)), {i: 0.5 for i in ids})
    b = _run(tmp_path, "b", dict(zip(ids, b_out, strict=True)), {i: 0.5 for i in ids} | {"q0": 0.6})
    result = compare(a, b)
    assert result.shared == 20 and not result.warnings
    correct = result.metrics[0]
    assert correct.test == "exact McNemar" and correct.p == pytest.approx(0.125)
    assert correct.discordant == [1, 6] and correct.diff == pytest.approx(5 / 20)
    assert correct.a == pytest.approx(11 / 20) and correct.b == pytest.approx(16 / 20)
    assert correct.p_holm == pytest.approx(min(1.0, 2 * 0.125)) and correct.verdict == "tied"
    assert result.metrics[1].test.startswith("paired permutation")
    assert main(["compare", str(a), str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metrics"][0]["p"] == pytest.approx(0.125) and data["shared"] == 20
    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "20 items shared" in text and "exact McNemar: tied" in text
    table = [ln for ln in text.splitlines() if str(tmp_path) not in ln]  # A = / B = paths
    assert max(len(ln) for ln in table) <= 100 and "|" not in text
    assert main(["compare", str(a), str(b), "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "| metric | n | A | B | B - A [95% CI] | p | p_holm | test / verdict |" in wide


def test_compare_gives_a_verdict_when_the_difference_is_clear(tmp_path) -> None:
    ids = [f"q{i}" for i in range(30)]
    a = _run(tmp_path, "a", {i: 0 for i in ids}, {i: 0.1 for i in ids})
    b = _run(tmp_path, "b", {i: 1 for i in ids}, {i: 0.1 for i in ids})
    row = compare(a, b).metrics[0]
    assert row.p == pytest.approx(2 / 2**30) and row.verdict == "B higher"


def test_compare_refuses_different_data_in_one_line(tmp_path, capsys) -> None:
    a = _run(tmp_path, "a", {"x": 1}, {"x": 1.0}, sha="ab")
    b = _run(tmp_path, "b", {"x": 1}, {"x": 1.0}, sha="cd")
    with pytest.raises(ConflictEvalError, match="different data"):
        compare(a, b)
    assert compare(a, b, allow_different_data=True).warnings[0].startswith("the runs read")
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different data" in err
