"""The wikicontradict task and judge inside the real inspect_ai.eval(), against the library."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample

from conflicteval import get_model
from conflicteval.adapters.inspect import wikicontradict, wikicontradict_judge
from conflicteval.data import DatasetUnavailable
from conflicteval.errors import ConflictEvalError
from conflicteval.runs import read_checkpoint
from conflicteval.wikicontradict import Judge, generate_sync, load_wikicontradict
from conflicteval.wikicontradict.generate import PAPER_SETTINGS
from conflicteval.wikicontradict.judge import JUDGE_SETTINGS
from conflicteval.wikicontradict.report import (
    LabelledRow,
    report_from_rows,
)

LIMIT = 16

try:  # imported at collection, before the suite's fixtures switch the Hub offline
    import huggingface_hub as HF_HUB
except ImportError:  # pragma: no cover - a core dependency of the registry
    HF_HUB = None


def _library_run(data: Path, template: str, reply: Any, out: Path) -> dict[str, Any]:
    """The library's own runner (generate, then judge) with the scripted model: id -> record."""
    instances = load_wikicontradict(data)[:LIMIT]
    model = get_model("scripted", replies=reply)
    generate_sync(instances, [template], model, out, progress=False)
    Judge(get_model("scripted", replies=reply)).grade_run_sync(out, progress=False)
    gens = read_checkpoint(out / "generations.jsonl")
    judged = read_checkpoint(out / "judgements.jsonl")
    # a judgement's id is its generation's: "<model>|t<template>|<instance id>"
    return {
        "generations": {rec.result["instance_id"]: rec.result for rec in gens.values()},
        "judgements": {key.split("|")[-1]: rec for key, rec in judged.items()},
    }


@pytest.mark.parametrize("template", ["5", "2"])
def test_verdicts_equal_the_library_runner(
    template: str,
    wc_data: Path,
    tmp_path: Path,
    inspect_env: Path,
    mock_model: Any,
    mock_replies: Any,
    scripted_reply: Any,
) -> None:
    [log] = eval(
        wikicontradict(template=template, data=str(wc_data)),
        model=mock_model,
        model_roles={"grader": mock_model},
        limit=LIMIT,
        display="none",
    )
    assert log.status == "success", log.error
    lib = _library_run(wc_data, template, scripted_reply, tmp_path / "lib")

    assert log.samples is not None and len(log.samples) == LIMIT
    seen: Counter[str] = Counter()
    for sample in log.samples:
        gen = lib["generations"][sample.id]
        assert sample.output.completion == gen["response"]
        assert sample.target == gen["answers"]
        assert sample.metadata["contradiction_type"] == gen["contradiction_type"]
        score = sample.scores["wikicontradict_judge"]
        record = lib["judgements"][sample.id]
        if record.status == "ok":
            assert score.value == record.result["label"]
            assert score.metadata["judge_label"] == record.result["judge_label"]
            assert score.explanation == record.result["comment"]
            seen[str(score.value)] += 1
        else:  # the library's judge found no verdict: a failed sample, never a verdict
            assert record.status == "parse_error"
            assert score.value == "failed"
            assert score.metadata["failure"] == "judge"
            assert "evaluation" in (score.explanation or "")
            assert score.metadata["raw"] == record.raw
            seen["failed"] += 1
    # the scripted replies cover every outcome
    assert seen["failed"] >= 1 and len(seen) >= 3, seen
    if template == "2":  # single-answer template: "partially correct" is reported as correct
        assert "partially correct" not in seen

    # the metrics are the library report's shares: failures in the denominator (Table 2/5 layout)
    [result] = log.results.scores
    assert result.unscored_samples == 0
    gens = {s.id: lib["generations"][s.id] for s in log.samples}
    rows = [
        LabelledRow(
            model="m",
            template=template,
            instance_id=s.id,
            contradiction_type=gens[s.id]["contradiction_type"],
            label=lib["judgements"][s.id].result["label"]
            if lib["judgements"][s.id].status == "ok"
            else None,
            failure=None if lib["judgements"][s.id].status == "ok" else "judge",
        )
        for s in log.samples
    ]
    report = report_from_rows(rows)  # the library's report of the library's own run
    checked = 0
    for subset, prefix in (("all", ""), ("explicit", "explicit_"), ("implicit", "implicit_")):
        cell = report.cell("m", template, subset)
        for value in ("correct", "partially correct", "incorrect", "failed"):
            key = prefix + value.replace(" ", "_")
            if cell.n:
                assert result.metrics[key].value == pytest.approx(cell.pct(value) / 100)
                checked += 1
            if cell.n > 1:  # the standard error of the share, as Inspect's stderr() has it
                share = cell.pct(value) / 100
                expected = (share * (1 - share) / (cell.n - 1)) ** 0.5
                assert result.metrics[key + "_stderr"].value == pytest.approx(expected)
    assert checked >= 8
    total = sum(result.metrics[k].value for k in ("correct", "partially_correct", "incorrect"))
    assert total + result.metrics["failed"].value == pytest.approx(1.0)
    assert result.metrics["failed"].value == pytest.approx(seen["failed"] / LIMIT)

    # the paper's decoding for the evaluated model, the judge's settings for the grader
    for prompt, config, n_messages in mock_replies.calls:
        settings = JUDGE_SETTINGS if prompt.startswith("Please evaluate") else PAPER_SETTINGS
        assert (config.temperature, config.max_tokens, config.seed) == (
            settings["temperature"],
            settings["max_tokens"],
            settings["seed"],
        )
        assert n_messages == 2  # the paper's empty system turn, then the prompt


def test_no_data_offline_says_where_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the registry offline (the suite's CONFLICTEVAL_OFFLINE), with nothing cached; the Hub
    # library's own offline switch is left off, as a user's would be
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("CONFLICTEVAL_OFFLINE", "1")
    with pytest.raises(DatasetUnavailable) as info:
        wikicontradict()
    text = str(info.value)
    assert "ibm-research/Wikipedia_contradict_benchmark" in text
    assert "WikiContradict_dataset_v1_rag_qa.csv" in text
    assert "-T data=PATH" in text and "conflicteval data fetch wikicontradict" in text


def test_no_data_fetches_the_pinned_release_by_name(
    wc_data: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if HF_HUB is None:
        pytest.skip("needs huggingface_hub")
    from conflicteval.data import registry
    from conflicteval.testing.fileserver import FileServer

    copy = wc_data.read_bytes()
    digest = hashlib.sha256(copy).hexdigest()
    entry = registry.get_entry("wikicontradict")
    # pin the project's copy so the registry accepts it from the stand-in Hub
    pinned = [
        dataclasses.replace(e, sha256=digest) if e.name == "wikicontradict" else e
        for e in registry.REGISTRY
    ]
    monkeypatch.setattr(registry, "REGISTRY", tuple(pinned))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("CONFLICTEVAL_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    with FileServer(hub={(entry.repo, entry.filename): copy}) as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.base_url)
        task = wikicontradict(template="1")
    assert len(task.dataset) == len(load_wikicontradict(wc_data))
    assert task.metadata is not None
    assert task.metadata["data"]["name"] == "wikicontradict"
    assert task.metadata["data"]["sha256"] == digest


def test_bad_data_file_names_file(tmp_path: Path) -> None:
    bad = tmp_path / "wc.csv"
    bad.write_text("question_ID,question\n1,Why?\n", encoding="utf-8")
    with pytest.raises(ConflictEvalError, match=r"wc\.csv"):
        wikicontradict(data=str(bad))


def test_judge_without_question_names_the_sample(inspect_env: Path, mock_model: Any) -> None:
    task = Task(
        dataset=[Sample(id="no-question", input="What?", target=["A", "B"])],
        scorer=wikicontradict_judge(),
    )
    [log] = eval(task, model=mock_model, display="none")
    assert log.status == "error"
    assert "no-question" in str(log.error) and "question" in str(log.error)


def test_an_empty_response_is_a_failed_generation_in_the_shares(inspect_env: Path) -> None:
    from inspect_ai.model import get_model as inspect_model

    from .conftest import MockReplies, reply_to

    replies = MockReplies(lambda p: "" if "SILENT" in p else reply_to(p))
    model = inspect_model("mockllm/model", custom_outputs=replies, memoize=False)
    meta = {"question": "Who?", "answers": ["A", "B"], "contradiction_type": "explicit"}
    task = Task(
        dataset=[
            Sample(id="silent", input="SILENT question", target=["A", "B"], metadata=meta),
            Sample(id="spoken", input="A question", target=["A", "B"], metadata=meta),
        ],
        scorer=wikicontradict_judge(),
    )
    [log] = eval(task, model=model, display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    scores = {s.id: s.scores["wikicontradict_judge"] for s in log.samples}
    assert scores["silent"].value == "failed"
    assert scores["silent"].metadata["failure"] == "generation"
    [result] = log.results.scores
    assert result.metrics["failed"].value == pytest.approx(0.5)  # of all samples, as the library
    assert result.metrics["explicit_failed"].value == pytest.approx(0.5)
    graded = sum(result.metrics[k].value for k in ("correct", "partially_correct", "incorrect"))
    assert graded == pytest.approx(0.5)
