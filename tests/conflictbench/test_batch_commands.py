"""detect, reports and regenerate by batch export/import rounds end as their online runs do."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Document-Claim Conflict Detection"):
        doc = prompt.split("\nDocument to evaluate against\n", 1)[1]
        answer = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")[len(doc) % 3]
        return json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": answer})
    if prompt.startswith("Instruction: Break down"):
        return "Claims:\n1. Infinite scrolling is good.\n2. It keeps users engaged."
    if "(A)" in prompt:
        return "(A)" if len(prompt) % 2 else "(B)"
    return "Infinite scrolling is good. It keeps users engaged."


def _rounds(command: list[str], srv: OpenAICompatServer, tmp_path: Path, name: str) -> list[int]:
    req = tmp_path / f"{name}-requests.jsonl"
    sizes = []
    while (rc := main([*command, "--batch-export", str(req)])) == 3:
        sizes.append(len(req.read_text().splitlines()))
        res = tmp_path / f"{name}-results-{len(sizes)}.jsonl"
        res.write_text(srv.answer_batch_file(req.read_text()))
        assert main(["batch", "import", str(res), "--export", str(req)]) == 0
        assert len(sizes) < 6
    assert rc == 0
    return sizes


def _both(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    srv: OpenAICompatServer,
    command: Callable[[str], list[str]],
    name: str,
) -> list[int]:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / f"{name}-online-cache"))
    assert main(command("online")) == 0
    online_calls = len(srv.completions())
    assert online_calls
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / f"{name}-batch-cache"))
    sizes = _rounds(command("batch"), srv, tmp_path, name)
    assert len(srv.completions()) == online_calls  # the batch rounds made no online call
    return sizes


def test_detect_reports_regenerate_by_batch(
    tmp_path: Path, cqa_jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    with OpenAICompatServer(reply) as srv:
        base = ["--base-url", srv.base_url]

        def detect(run: str) -> list[str]:
            out = str(tmp_path / f"det-{run}")
            return ["conflictbench", "detect", "--items", str(bench), "--limit", "3", "--out", out]

        sizes = _both(
            tmp_path, monkeypatch, srv, lambda r: [*detect(r), "--model", "openai/m", *base], "det"
        )
        assert len(sizes) == 1
        online = json.loads((tmp_path / "det-online" / "metrics.json").read_text())
        batch = json.loads((tmp_path / "det-batch" / "metrics.json").read_text())
        assert batch == online

        def reports(run: str) -> list[str]:
            out = str(tmp_path / f"rep-{run}")
            return [
                "reports",
                "--items",
                str(bench),
                "--model",
                "big=openai/big",
                "--settings",
                "rag",
                "--scorer-model",
                "openai/scorer",
                "--out",
                out,
                *base,
            ]

        sizes = _both(tmp_path, monkeypatch, srv, reports, "rep")
        assert sizes == [1, 1, 6]  # the report; its decomposition; 2 claims x 3 documents
        table = "table3.md"
        assert (tmp_path / "rep-batch" / table).read_text() == (
            tmp_path / "rep-online" / table
        ).read_text()

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
            for q in ("Do ostriches hide their heads?", "Is the moon made of cheese?"):
                w.writerow(["Adversarial", "Misc", q, "No", "Yes", "No", "Yes", "https://e.org"])
        docs = tmp_path / "docs.jsonl"
        docs.write_text(
            "".join(
                json.dumps({"index": i, "documents": [f"Document {i} says no."]}) + "\n"
                for i in range(2)
            )
        )

        def regenerate(run: str) -> list[str]:
            return [
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
                str(tmp_path / f"rg-{run}"),
                *base,
            ]

        assert len(_both(tmp_path, monkeypatch, srv, regenerate, "rg")) == 2  # two stages
        online = json.loads((tmp_path / "rg-online" / "summary.json").read_text())
        batch = json.loads((tmp_path / "rg-batch" / "summary.json").read_text())
        for run_fields in ("started_at", "finished_at", "elapsed_s", "latency", "cost", "data"):
            batch.pop(run_fields), online.pop(run_fields)  # this run's time and calls sent
        assert batch == online
