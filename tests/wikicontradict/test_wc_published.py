"""The paper's published tables (data file, loader, comparison with measured results, CLI)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError
from conflicteval.fingerprint import input_fingerprint
from conflicteval.wikicontradict import (
    LabelledRow,
    WikiContradictReport,
    compare_to_published,
    comparison_markdown,
    published_table,
    report_from_rows,
)
from conflicteval.wikicontradict.calibrate import CalibrationResult
from conflicteval.wikicontradict.generate import read_generations
from conflicteval.wikicontradict.judge import judge_inputs
from conflicteval.wikicontradict.judge_agreement import agreement
from conflicteval.wikicontradict.judge_template import VERDICTS, Verdict
from conflicteval.wikicontradict.published import (
    compare_calibration,
    match_model,
    model_key,
    published_document,
    published_tables,
)

CLASSES: tuple[Verdict, ...] = VERDICTS


def test_data_file_loads_with_every_table() -> None:
    doc = published_document()
    assert doc["name"] == "wikicontradict_published" and doc["version"]
    assert set(published_tables()) == {
        "table2",
        "appendix_b",
        "table3",
        "table4",
        "table5",
        "kappa",
    }
    sizes = {"table2": 155, "appendix_b": 180, "table3": 44, "table4": 30, "table5": 63}
    for tid, size in sizes.items():
        t = published_table(tid)
        assert t.caption and t.title and t.notes
        # Cited by title, venue and arXiv id, never by a file name a user does not have.
        assert "WikiContradict paper" in t.source and "arXiv:2406.13805" in t.source
        assert ".txt" not in t.source and "seed" not in t.source.lower()
        assert len(t.values) == size
        for r in t.values:
            assert set(r) == set(t.columns)
            assert r["value"] is None or 0.0 <= r["value"] <= 100.0
            if "class" in r and r["class"] is not None:
                assert r["class"] in CLASSES
            if "subset" in r:
                assert r["subset"] in ("all", "explicit", "implicit")
    assert published_table("Table 5").id == "table5"
    assert published_table("appendix B").id == "appendix_b"
    with pytest.raises(ConflictEvalError, match="available"):
        published_table("table9")


def test_reference_spot_values() -> None:
    t5 = published_table("table5")
    assert len(t5.models) == 7 and t5.judge == "Llama-3-70b-inst"
    llama = [t5.value(model="Llama-3-70b-inst", subset="all", label=c) for c in CLASSES]
    assert llama == [45.8, 38.7, 13.8]
    assert t5.value(model="Mistral-7b-inst", subset="all", label="correct") == 50.6
    t3 = published_table("table3")
    assert t3.models == ["Mixtral-8x7b-inst", "Llama-3-70b-inst", "GPT-4", "GPT-4o"]
    for judge, figures in {
        "Llama-3-70b-inst": (85.4, 74.4, 80.4),
        "GPT-4": (86.7, 76.1, 82.5),
    }.items():
        assert (
            t3.value(judge=judge, metric="accuracy"),
            t3.value(judge=judge, metric="macro_f1"),
            t3.value(judge=judge, metric="f1", label="correct"),
        ) == figures
    assert (
        t3.value(judge="GPT-4", metric="precision", label="correct"),
        t3.value(judge="GPT-4", metric="recall", label="correct"),
    ) == (73.4, 94.0)
    t2 = published_table("table2")
    assert t2.value(model="Llama-3-70b-inst", template="5", subset="all", label="correct") == 43.8
    assert t2.value(model="Llama-3-70b-inst", template="4", subset="all", label="correct") == 10.4
    assert t2.value(model="GPT-4", template="3", subset="all", label="correct") == 87.8
    assert t2.select(template="2", subset="explicit") == []  # printed "-": not reported
    assert t2.select(template="3", label="partially correct") == []
    b = published_table("appendix_b")
    assert b.templates == ["5.1", "5.2", "5.3", "5.4"]
    assert b.value(model="GPT-4", template="5.4", subset="all", label="correct") == 43.8
    assert (
        b.value(model="Llama-3-70b-instruct", template="5.2", subset="all", label="correct") == 77.1
    )
    t4 = published_table("table4")
    assert t4.value(model="Mistral-7b-inst", judge="human", label="correct") == 20.8
    assert t4.value(model="Mistral-7b-inst", judge="Llama-3-70b-inst", label="correct") == 39.6
    kappa = published_table("kappa")
    assert sorted(v["value"] for v in kappa.values) == [0.58, 0.67, 0.84, 0.85, 0.88]


def _numbers(lines: list[str]) -> list[float]:
    out = []
    for line in lines:
        if line.strip().startswith("Prompt Template"):
            continue
        tokens = re.split(r"[\s/]+", line.strip())
        out += [float(t) for t in tokens[1:] if re.fullmatch(r"\d+(?:\.\d+)?", t)]
    return out


def _block(lines: list[str], start: str, skip: int, count: int) -> list[str]:
    i = next(n for n, line in enumerate(lines) if line.startswith(start))
    return lines[i + skip : i + skip + count]


def test_values_match_the_seed_text(shared_data: Path) -> None:
    """Every number, in order, is the one printed in the seed (when the seeds are beside us)."""
    seeds = shared_data.parent / "seeds"
    paper_path, supp_path = seeds / "001_357e913c259e2020.txt", seeds / "000_527ce5ee38c008a0.txt"
    if not paper_path.exists() or not supp_path.exists():
        pytest.skip("seeds not found")
    paper = paper_path.read_text(encoding="utf-8").splitlines()
    supp = supp_path.read_text(encoding="utf-8").splitlines()
    blocks = {
        "table2": _block(paper, "Table 2: Human evaluation", 3, 18),
        "table3": _block(paper, "Table 3: Judge LLM results", 3, 4),
        "table4": _block(paper, "Table 4: Comparing human", 3, 5),
        "table5": _block(paper, "Table 5: Llama-3-70b judge", 3, 7),
        "appendix_b": [
            line.replace("partially correct", "partially_correct")
            for line in _block(supp, "Additional Human Evaluation Results", 3, 16)
        ],
    }
    for tid, lines in blocks.items():
        assert [r["value"] for r in published_table(tid).values] == _numbers(lines), tid


def test_model_matching() -> None:
    rows = published_table("table5").models
    assert model_key("meta-llama/Meta-Llama-3-70B-Instruct") == model_key("Llama-3-70b-inst")
    assert match_model("meta-llama/Meta-Llama-3-70B-Instruct", rows) == "Llama-3-70b-inst"
    assert match_model("mistralai/Mistral-7B-Instruct-v0.2", rows) == "Mistral-7b-inst"
    assert match_model("openai/gpt-4-turbo-2024-04-09", rows) == "GPT-4"
    assert match_model("google/flan-ul2", rows) == "Flan-ul2"
    assert match_model("openai/gpt-4o-mini", rows) is None
    assert match_model("openai/gpt-4o", published_table("table3").models) == "GPT-4o"
    assert match_model("x", rows, aliases={"x": "GPT-4"}) == "GPT-4"


def _report() -> WikiContradictReport:
    rows = []
    for i in range(10):
        ctype = "explicit" if i < 6 else "implicit"
        for model in ("meta-llama/Meta-Llama-3-70B-Instruct", "my-model"):
            label = CLASSES[i % 3] if i < 9 else None
            rows.append(
                LabelledRow(
                    model=model,
                    template="5",
                    instance_id=str(i),
                    contradiction_type=ctype,
                    label=label,
                    failure=None if label else "judge",
                )
            )
    return report_from_rows(rows, judge="lexical")


def test_compare_to_published_rows_and_markdown() -> None:
    report = _report()
    rows = compare_to_published(report, "table5")
    llama = [r for r in rows if r.published_model == "Llama-3-70b-inst"]
    assert len(llama) == 9 and all(r.matched for r in llama)
    c_all = next(r for r in llama if (r.subset, r.label) == ("all", "correct"))
    assert (c_all.model, c_all.measured, c_all.published, c_all.measured_n) == (
        "meta-llama/Meta-Llama-3-70B-Instruct",
        30.0,
        45.8,
        10,
    )
    flan = [r for r in rows if r.published_model == "Flan-ul2"]
    assert flan and all(r.model is None and r.measured is None for r in flan)
    mine = [r for r in rows if r.model == "my-model"]
    assert len(mine) == 9 and all(r.published is None for r in mine)

    md = comparison_markdown(rows)
    line = next(x for x in md.splitlines() if "| Llama-3-70b-inst | C |" in x)
    assert "| 30.0 | 45.8 |" in line and "meta-llama/Meta-Llama-3-70B-Instruct" in line
    assert "| – | Flan-ul2 | C | – | 1.2 |" in md
    assert "not in the paper: my-model" in md and "Table 5" in md

    t2 = compare_to_published(report, "table2", aliases={"my-model": "GPT-4"})
    assert {r.template for r in t2} == {"1", "2", "3", "4", "5"}
    gpt = next(
        r
        for r in t2
        if (r.published_model, r.template, r.subset, r.label) == ("GPT-4", "5", "all", "correct")
    )
    assert (gpt.model, gpt.measured, gpt.published) == ("my-model", 30.0, 10.4)
    assert next(r for r in t2 if r.template == "1" and r.matched).measured is None  # not run
    t4md = comparison_markdown(compare_to_published(report, "table4"))
    assert "all (paper, human)" in t4md and "all (paper, Llama-3-70b-inst)" in t4md
    with pytest.raises(ConflictEvalError):
        compare_to_published(report, "table3")


def test_compare_calibration() -> None:
    human = ["correct", "correct", "partially correct", "incorrect"]
    judge = ["correct", "partially correct", "partially correct", "incorrect"]
    rep = agreement(human, judge)
    result = CalibrationResult(
        judge="openai/gpt-4-turbo-2024-04-09",
        examples=rep,
        example_labels=[],
        human=rep,
        human_by_template={"5": rep},
    )
    rows = compare_calibration(result)
    acc = [r for r in rows if r.metric == "accuracy"]
    assert [r.published for r in acc] == [26.2, 85.4, 86.7, 83.3]
    assert all(r.measured == 75.0 and r.measured_n == 4 for r in acc)
    assert {r.published_model for r in rows if r.matched} == {"GPT-4"}
    md = comparison_markdown(rows)
    assert "GPT-4 (paper, matched)" in md
    assert "| Acc | 75.0 | 26.2 | 85.4 | 86.7 | 83.3 |" in md
    assert "| C F | " in md and "82.5" in md
    bare = compare_calibration(CalibrationResult(judge="lexical", examples=rep, example_labels=[]))
    assert all(r.measured is None and not r.matched for r in bare)
    assert "no human labels" in comparison_markdown(bare)


def test_cli_report_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    gens, judgements = [], []
    for i in range(4):
        rid = f"openai/gpt-4-turbo-2024-04-09|t5|{i}"
        result = {
            "model": "openai/gpt-4-turbo-2024-04-09",
            "instance_id": str(i),
            "template": "5",
            "template_version": "v",
            "question": "q?",
            "answers": ["a", "b"],
            "contradiction_type": "explicit",
            "prompt": "p",
        }
        gens.append({"id": rid, "status": "ok", "result": {**result, "response": "a; however b"}})
        label = "correct" if i else "incorrect"
        judgements.append(
            {"id": rid, "status": "ok", "result": {"label": label, "judge": "lexical"}}
        )
    (run / "generations.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in gens), encoding="utf-8"
    )
    # each grade names the response it graded (a report leaves out grades of other responses)
    for row, judgement in zip(read_generations(run), judgements, strict=True):
        judgement["inputs"] = input_fingerprint(judge_inputs(row))
    (run / "judgements.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in judgements), encoding="utf-8"
    )
    argv = ["wikicontradict", "report", "--run", str(run), "--compare", "table5", "--wide"]
    assert main(argv) == 0
    md = capsys.readouterr().out
    assert "### Template 5" in md and "Compared with the paper: table5" in md
    paper_line = next(x for x in md.splitlines() if x.startswith("Paper: "))
    assert "arXiv:2406.13805" in paper_line and "Table 5" in paper_line
    # the paper is cited by title and arXiv id, never by a local text file's name
    assert not re.search(r"\bseed\b(?! 0\))|\d{3}_[0-9a-f]{16}", md.lower()) and ".txt" not in md
    line = next(x for x in md.splitlines() if "| GPT-4 | C |" in x)
    assert "| 75.0 | 15.0 |" in line
    args = ["wikicontradict", "report", "--run", str(run), "--format", "json"]
    assert main([*args, "--compare", "table2"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["cells"] and payload["comparison"]["table"] == "table2"
    assert any(r["matched"] and r["measured"] == 75.0 for r in payload["comparison"]["rows"])
    assert main([*args[:-1], "csv", "--compare", "table5"]) == 2
    assert "--compare" in capsys.readouterr().err


def test_cli_calibrate_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = [
        ("Lake Example is 12 km long; however, another passage says 15 km.", "correct"),
        ("It is 12 km long.", "partially correct"),
        ("It is 40 km long.", "incorrect"),
    ]
    labels.write_text(
        "".join(
            json.dumps(
                {
                    "instance_id": str(n),
                    "template": "5",
                    "model": "m",
                    "response": response,
                    "human_label": label,
                    "question": "How long is Lake Example?",
                    "answers": ["12 km", "15 km"],
                }
            )
            + "\n"
            for n, (response, label) in enumerate(rows)
        ),
        encoding="utf-8",
    )
    args = ["wikicontradict", "calibrate", "--labels", str(labels), "--model", "lexical"]
    assert main([*args, "--quiet", "--compare", "table3", "--wide"]) == 0
    md = capsys.readouterr().out
    assert "## Judge calibration: lexical" in md and "Compared with the paper: table3" in md
    assert "measured: lexical (template 5, n = 3)" in md
    assert "| Acc | 100.0 | 26.2 | 85.4 | 86.7 | 83.3 |" in md
    assert (
        main([*args, "--quiet", "--compare", "table3", "--match", "lexical=GPT-4", "--wide"]) == 0
    )
    assert "GPT-4 (paper, matched)" in capsys.readouterr().out
    assert main([*args, "--quiet", "--json", "--compare", "table3"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["judge"] == "lexical" and len(payload["comparison"]["rows"]) == 44
    assert main([*args, "--quiet", "--compare", "table3", "--match", "oops"]) == 2
