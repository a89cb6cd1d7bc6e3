"""ClashEval's metrics on the synthetic file match the values computed by hand here."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from conflicteval.clasheval import load_responses, reproduce_file
from conflicteval.clasheval.matching import same_name, same_time
from conflicteval.clasheval.metrics import balanced


def test_the_columns_are_the_releases(synthetic: Any) -> None:
    assert list(synthetic.records()[0]) == synthetic.COLUMNS and len(synthetic.COLUMNS) == 15


def test_matching_follows_the_notebook() -> None:
    assert same_time("22.52", "22.5")  # digits "225" inside "2252"
    assert same_time("23.10", "22.5")  # 0.385 and 0.375 minutes are within 0.1
    assert not same_time("22.52", "29")
    assert same_time("1:02.5", "62.5")  # the same time, as seconds
    assert same_name("Ulysses S. Grant", "ulysses s grant")
    assert same_name("Grant", "Ulysses S. Grant")  # one word inside the other name
    assert not same_name("Robert Lee", "Ulysses S. Grant")


def test_baseline_figures_by_hand(responses: Path) -> None:
    rep = reproduce_file(responses, "gpt4")
    assert rep["rows"] == 9 and rep["kept_rows"] == 6  # 3 prior-correct, 3 context-correct
    base = rep["methods"]["baseline"]
    # r3 context chosen / prior correct; r4 prior / prior; r8 neither / prior;
    # r0, r5 context / context; r7 both prior and context chosen / context correct
    assert base["table"] == {
        "prior_chosen": {"prior_correct": 1, "context_correct": 1},
        "context_chosen": {"prior_correct": 1, "context_correct": 3},
        "neither_chosen": {"prior_correct": 1, "context_correct": 0},
    }
    assert base["accuracy"]["value"] == pytest.approx(4 / 7)
    assert base["context_bias"]["value"] == pytest.approx(1 / 7)
    assert base["prior_bias"]["value"] == pytest.approx(1 / 7)
    lo, hi = base["accuracy"]["ci"]
    assert lo <= 4 / 7 <= hi and lo < hi
    norm = base["table_normalised"]
    assert norm["context_chosen"]["context_correct"] == pytest.approx(3 / 4)
    assert norm["neither_chosen"]["prior_correct"] == pytest.approx(1 / 3)
    assert rep["published"]["table3"]["baseline"]["accuracy"] == 0.615224


def test_token_probability_correction_by_hand(responses: Path) -> None:
    rep = reproduce_file(responses, "gpt4")
    tp = rep["methods"]["token_prob"]
    # only r3 (and r4, already prior) has a prior more probable than its post answer: r3 now
    # answers with its prior 1900, chosen prior while the prior was correct
    assert tp["table"]["prior_chosen"] == {"prior_correct": 2, "context_correct": 1}
    assert tp["table"]["context_chosen"] == {"prior_correct": 0, "context_correct": 3}
    assert tp["accuracy"]["value"] == pytest.approx(5 / 7)
    assert tp["context_bias"]["value"] == 0.0
    assert rep["methods"]["calibrated"] is not None


def test_accuracy_and_curve_by_hand(responses: Path) -> None:
    rep = reproduce_file(responses, None)
    acc = rep["accuracy"]
    assert acc["years"] == {"without_context": 0.5, "with_correct_context": 1.0}
    assert acc["All"] == {"without_context": 0.25, "with_correct_context": 1.0}
    years = rep["curve"]["years"]
    assert [(p["level"], p["value"]) for p in years] == [("-10", 0.0), ("-5", 1.0), ("10", 1.0)]
    assert rep["curve"]["names"] == [{"level": "slight", "n": 1, "value": 0.0, "ci": [0.0, 0.0]}]
    assert rep["published"]["table3"] is None


def test_balancing_draws_what_pandas_draws(tmp_path: Path, synthetic: Any) -> None:
    pd = pytest.importorskip("pandas")
    rng = random.Random(3)
    rows = []
    for i in range(40):
        r = dict(synthetic.records()[0], question=f"Q{i}", mod_type=rng.choice(["0", "0.5", "2.0"]))
        r["prior_correct"] = rng.choice([0, 1])
        rows.append(r)
    path = synthetic.write_parquet(tmp_path / "r.pqt", rows)
    ours = [r.row for r in balanced(load_responses(path))]
    df = pd.read_parquet(path)
    df["context_correct"] = (df["mod_type"] == "0").astype(int)
    kept = df[(df["prior_correct"] == 1) ^ (df["context_correct"] == 1)]
    a, b = kept[kept["prior_correct"] == 1], kept[kept["context_correct"] == 1]
    n = min(len(a), len(b))
    theirs = list(a.sample(n=n, random_state=1).index) + list(b.sample(n=n, random_state=1).index)
    assert ours == theirs and len(ours) == 2 * n > 0
