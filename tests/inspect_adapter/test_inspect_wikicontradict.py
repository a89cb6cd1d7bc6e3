"""The wikicontradict task and judge inside the real inspect_ai.eval(), against the library."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample

from conflicteval import get_model
from conflicteval.data import DatasetUnavailable
from conflicteval.errors import ConflictEvalError
from conflicteval.inspect import wikicontradict, wikicontradict_judge
from conflicteval.runner import read_checkpoint
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
        else:  # the library's judge found no verdict: Inspect leaves the sample unscored
            assert record.status == "parse_error"
            assert isinstance(score.value, float) and math.isnan(score.value)
            assert score.metadata["unscored_reason"] == "grader_failed"
            # Inspect versions with a Score.reason field read it from there
            assert getattr(score, "reason", "grader_failed") == "grader_failed"
            assert "evaluation" in (score.explanation or "")
            assert score.metadata["raw"] == record.raw
            seen["unscored"] += 1
    # the scripted replies cover every outcome
    assert seen["unscored"] >= 1 and len(seen) >= 3, seen
    if template == "2":  # single-answer template: "partially correct" is reported as correct
        assert "partially correct" not in seen

    # the metrics are the library's Table 2 shares over the graded samples
    [result] = log.results.scores
    assert result.unscored_samples == seen["unscored"]
    rows = [
        LabelledRow(
            model="m",
            template=template,
            instance_id=s.id,
            contradiction_type=s.metadata["contradiction_type"],
            label=s.scores["wikicontradict_judge"].value,
        )
        for s in log.samples
        if isinstance(s.scores["wikicontradict_judge"].value, str)
    ]
    report = report_from_rows(rows)
    for subset, prefix in (("all", ""), ("explicit", "explicit_"), ("implicit", "implicit_")):
        cell = report.cell("m", template, subset)
        for verdict in ("correct", "partially correct", "incorrect"):
            key = prefix + verdict.replace(" ", "_")
            if cell.n:
                assert result.metrics[key].value == pytest.approx(cell.count(verdict) / cell.n)
            if cell.n > 1:  # the standard error of the share, as Inspect's stderr() has it
                share = cell.count(verdict) / cell.n
                expected = (share * (1 - share) / (cell.n - 1)) ** 0.5
                assert result.metrics[key + "_stderr"].value == pytest.approx(expected)

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
