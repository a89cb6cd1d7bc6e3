"""The run contract: counts add up, nothing measured is null, the writer and load_run."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from conflicteval.errors import ConflictEvalError
from conflicteval.results import load_run
from conflicteval.results.build import (
    build_summary,
    cost_of,
    counts_of,
    item_record,
    latency_of,
    mean_metric,
    write_run,
)
from conflicteval.results.contract import Counts, Instrument, Metric
from conflicteval.types import Usage


def test_counts_have_one_definition_and_must_add_up() -> None:
    c = counts_of({"ok": 7, "parse_error": 2, "model_error": 1}, {"no claim": 3})
    assert (c.total, c.scored, c.failed, c.not_scored) == (
        10,
        4,
        {"parse": 2, "model": 1},
        {"no claim": 3},
    )
    with pytest.raises(ValidationError, match="do not add up"):
        Counts(total=5, scored=3)


def test_a_metric_of_nothing_is_null_never_zero() -> None:
    m = mean_metric("correct", "correct", [None, None], "judged answers", binary=True)
    assert m.value is None and m.ci is None and m.n == 0 and m.note == "nothing to measure"
    with pytest.raises(ValidationError, match="n = 0"):
        Metric(id="x", name="x", value=0.0, n=0, n_counts="items")
    m = mean_metric(
        "correct", "correct", [True, False, True, True], "judged", binary=True, scale=100
    )
    assert m.value == pytest.approx(75.0) and m.ci is not None and m.items == "binary"


def test_an_instrument_without_accuracy_says_unmeasured() -> None:
    assert Instrument(role="judge", name="lexical").status == "unmeasured"


def test_cost_prices_sent_calls_only_and_names_an_unpriced_model() -> None:
    sent = Usage(prompt_tokens=100, completion_tokens=10, calls=2, cost_usd=0.5, models=["gpt-4o"])
    replayed = Usage(prompt_tokens=40, completion_tokens=4, calls=1, cached_calls=1)
    replayed.cached_prompt_tokens, replayed.cached_completion_tokens = 40, 4
    cost = cost_of([("answering", sent), ("judge", replayed)])
    assert cost.usd == 0.5 and cost.sent.calls == 2 and cost.replayed.calls == 1
    assert cost.replayed.prompt_tokens == 40 and cost.per_model[1].usd == 0.0
    unpriced = Usage(calls=1, prompt_tokens=5, models=["scripted/x"])
    cost = cost_of([("answering", sent), ("judge", unpriced)])
    assert cost.usd is None and cost.unpriced == ["scripted/x"]


def test_latency_quantiles() -> None:
    lat = latency_of([0.1, 0.2, 0.3, 0.4, 1.0])
    assert lat is not None and lat.calls == 5 and lat.p50 == pytest.approx(0.3) and lat.max == 1.0
    assert latency_of(None) is None


def test_written_run_loads_back_flat(tmp_path) -> None:
    pytest.importorskip("pandas")
    items = [
        item_record("a", "ok", values={"correct": True}),
        item_record("b", "ok", values={"correct": False}),
        item_record("c", "parse_error", error="no verdict"),
    ]
    metric = mean_metric("correct", "correct", [True, False], "judged answers", binary=True)
    counts = counts_of({"ok": 2, "parse_error": 1})
    summary = build_summary(
        "wikicontradict", counts=counts, metrics=[metric], started=0.0, extra={"old": 1}
    )
    write_run(tmp_path, summary, items)
    raw = json.loads((tmp_path / "summary.json").read_text())
    assert next(iter(raw)) == "schema" and raw["schema"] == "conflicteval.run/1"
    assert raw["old"] == 1 and raw["status"] == "finished" and raw["elapsed_s"] > 0
    run = load_run(tmp_path)
    assert run.summary.metric("correct").value == 0.5
    frame = run.to_pandas()
    assert list(frame["id"]) == ["a", "b", "c"] and list(frame["correct"][:2]) == [1.0, 0.0]
    assert run.to_pandas("metrics")["n"].tolist() == [2]


def test_load_run_refuses_a_summary_not_in_the_contract(tmp_path) -> None:
    (tmp_path / "summary.json").write_text(json.dumps({"mean_cs_c": 0.1}))
    with pytest.raises(ConflictEvalError, match=r"conflicteval\.run/1"):
        load_run(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConflictEvalError, match="no such file"):
        load_run(empty)
