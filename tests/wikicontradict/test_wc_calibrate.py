"""Human labels (plain files and a tolerant HumanEval reader) and judge calibration."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.models import get_model
from conflicteval.wikicontradict import (
    HumanLabel,
    Judge,
    WikiContradictInstance,
    calibrate,
    load_human_labels,
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_jsonl_and_csv_labels(tmp_path: Path) -> None:
    rows = [
        {
            "instance_id": 3,
            "template": "5",
            "model": "m",
            "response": "r1",
            "human_label": "Partially correct",
            "question": "q?",
            "answers": ["a", "b"],
        },
        {"instance_id": "4", "template": 2, "model": "m", "response": "r2", "human_label": "IC"},
    ]
    path = _write(tmp_path, "l.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    a, b = load_human_labels(path)
    assert (a.instance_id, a.template, a.human_label, a.answers) == (
        "3",
        "5",
        "partially correct",
        ["a", "b"],
    )
    assert (b.template, b.human_label, b.question) == ("2", "incorrect", None)
    csv_path = _write(
        tmp_path,
        "l.csv",
        "instance_id,template,model,response,human_label,question,answers\n"
        '7,4,m,"It is 12, or 15.",partially-correct,How long?,12 km | 15 km\n',
    )
    [c] = load_human_labels(csv_path)
    assert c.answers == ["12 km", "15 km"] and c.human_label == "partially correct"


def test_tolerant_reader_for_a_humaneval_like_json(tmp_path: Path) -> None:
    doc = {
        "version": 1,
        "samples": [
            {
                "question_ID": 12,
                "prompt_template": "Prompt Template 5",
                "LLM": "GPT-4",
                "annotation": {"LLM response": "Either 3 or 2.", "adjudicated label": "Correct"},
            },
            {
                "question_ID": 13,
                "prompt_template": "prompt_template_5.1",
                "LLM": "GPT-4",
                "annotation": {"LLM response": "2.", "adjudicated label": "PC"},
            },
        ],
    }
    path = _write(tmp_path, "WikiContradict_HumanEval_adjudication.json", json.dumps(doc))
    a, b = load_human_labels(path)
    assert (a.instance_id, a.template, a.model, a.response) == (
        "12",
        "5",
        "GPT-4",
        "Either 3 or 2.",
    )
    assert (a.human_label, b.human_label, b.template) == ("correct", "partially correct", "5.1")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"a": [1, 2], "b": "x"}, "cannot read this layout"),
        ([{"id": 1, "text": "no labels here", "score": 3}], "cannot find the human label"),
        ([{"id": 1, "response": "r", "label": "great"}], "unknown label 'great'"),
    ],
)
def test_tolerant_reader_fails_clearly(tmp_path: Path, doc: object, message: str) -> None:
    path = _write(tmp_path, "h.json", json.dumps(doc))
    with pytest.raises(DataError, match=message) as info:
        load_human_labels(path)
    assert str(path) in str(info.value)


def test_calibrate_lexical_on_examples_and_human_labels(
    by_id: dict[str, WikiContradictInstance],
) -> None:
    inst = by_id["1"]
    labels = [
        HumanLabel(
            instance_id="1",
            template="5",
            model="m",
            response="One passage says apomorphine; however, another says aporphine.",
            human_label="correct",
        ),
        HumanLabel(
            instance_id="1",
            template="5",
            model="m",
            response="Aporphine.",
            human_label="partially correct",
        ),
        HumanLabel(
            instance_id="1", template="2", model="m", response="Aporphine.", human_label="correct"
        ),
    ]
    result, batches = asyncio.run(calibrate("lexical", labels, instances=[inst], progress=False))
    assert result.examples.accuracy == 1.0 and result.examples.n == 8
    assert result.human is not None
    # template 2 expects answer 1 (Apomorphine): the lexical judge says incorrect
    assert result.human.n == 3 and result.human.accuracy == pytest.approx(2 / 3)
    assert result.human_by_template["2"].accuracy == 0.0
    assert sum(b.usage.calls for b in batches) == 0
    assert "eight worked examples" in result.to_markdown()
    with pytest.raises(DataError, match="no dataset given"):
        asyncio.run(calibrate("lexical", labels, progress=False))


def test_calibrate_llm_judge_records_failures_without_guessing() -> None:
    replies = ["evaluation: correct"] * 7 + ["I refuse."]
    judge = Judge(get_model("scripted", replies=replies))
    result, [batch] = asyncio.run(calibrate(judge, None, concurrency=1, progress=False))
    assert result.examples.failed == 1 and result.examples.n == 7
    assert result.example_labels[7] is None
    # examples 3, 4, 5 are "correct"
    assert result.examples.accuracy == pytest.approx(3 / 7)
    assert batch.counts["parse_error"] == 1
    assert batch.failed[0].raw == "I refuse."


def test_calibrate_dry_run_counts_every_judge_call_without_calling(
    tmp_path: Path, openai_server: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval._sync import run_sync
    from conflicteval.cli import main
    from conflicteval.models.answerers import Count, answer_with
    from conflicteval.wikicontradict import calibrate

    labels = _write(
        tmp_path,
        "labels.jsonl",
        json.dumps(
            {
                "instance_id": "x",
                "template": "5",
                "model": "m",
                "question": "Q?",
                "answers": ["a", "b"],
                "response": "a",
                "human_label": "partially correct",
            }
        )
        + "\n",
    )
    base_url = openai_server.base_url  # type: ignore[attr-defined]
    argv = [
        "wikicontradict",
        "calibrate",
        "--labels",
        str(labels),
        "--model",
        "openai/j",
        "--base-url",
        base_url,
        "--dry-run",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "9 model calls" in out  # the eight worked examples + one labelled response
    assert openai_server.completions() == []  # type: ignore[attr-defined]
    model = get_model("scripted", replies=[])
    with answer_with(Count()) as count:  # the Python API: the same calibration, counted
        run_sync(calibrate(Judge(model), load_human_labels(labels), progress=False))
    assert count.report().calls == 9 and model.provider.requests == []
    with answer_with(Count()) as count:
        run_sync(calibrate(Judge("lexical"), load_human_labels(labels), progress=False))
    assert count.reports() == []


def test_calibrate_with_data_prints_which_file_it_read(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main

    data = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    argv = ["wikicontradict", "calibrate", "--model", "lexical", "--data", str(data)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"data: {data} (user file, sha256 6212a35e2e74" in err
