"""``conflicteval bench labeler|compare`` and the measured labeler beside CS-C and CS-R."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .helpers import RAMDOCS_SAMPLE, sample

TYPES = ["correct", "misinfo", "noise", "correct", "noise"]


def _ramdocs_file(tmp_path: Path) -> Path:
    rows = [
        {
            "question": f"Who wrote book {k}?",
            "documents": [
                {"text": f"Book {k} doc-{t} number {j}.", "type": t, "answer": "x"}
                for j, t in enumerate(TYPES)
            ],
            "disambig_entity": [f"Book {k}"],
            "gold_answers": ["Ann"],
            "wrong_answers": ["Bob"],
        }
        for k in range(4)
    ]
    path = tmp_path / "ram.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def reply(body: dict[str, Any]) -> str:
    """A Table 7 labeller that is right except on the last noise document (says SUPPORTS)."""
    prompt = str(body["messages"][-1]["content"])
    doc = prompt.split("\nDocument to evaluate against", 1)[1]
    if "doc-correct" in doc or "number 4." in doc:
        answer = "SUPPORTS"
    elif "doc-misinfo" in doc:
        answer = "CONTRADICTS"
    else:
        answer = "IRRELEVANT"
    return json.dumps({"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": answer})


def _bench(srv: OpenAICompatServer, data: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "bench",
            "labeler",
            "--gold",
            "ramdocs",
            "--data",
            str(data),
            "--labeler",
            "llm",
            "--model",
            "openai/test-model",
            "--base-url",
            srv.base_url,
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def test_llm_labeler_json_output_and_saved_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _ramdocs_file(tmp_path)
    with OpenAICompatServer(reply) as srv:
        assert _bench(srv, data, tmp_path / "run", "--json") == 0
        assert len(srv.completions()) == 20
    out = json.loads(capsys.readouterr().out)
    assert (out["n"], out["failed"]) == (20, 0)
    assert out["accuracy"] == pytest.approx(16 / 20)
    assert out["per_class"]["SUPPORTS"]["precision"] == pytest.approx(8 / 12)
    assert out["per_class"]["IRRELEVANT"]["recall"] == pytest.approx(4 / 8)
    assert out["confusion"]["IRRELEVANT"]["SUPPORTS"] == 4
    for key in ("accuracy_ci", "macro_f1_ci"):
        low, high = out[key]
        assert low <= out[key[:-3]] <= high
    assert out["calls"] == 20 and out["prompt_tokens"] > 0
    assert json.loads((tmp_path / "run" / "bench.json").read_text())["n"] == 20
    assert len((tmp_path / "run" / "records.jsonl").read_text().splitlines()) == 4


def test_batch_export_rounds_end_as_the_online_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _ramdocs_file(tmp_path)
    with OpenAICompatServer(reply) as srv:
        assert _bench(srv, data, tmp_path / "online", "--json") == 0
        online = json.loads(capsys.readouterr().out)
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        req = tmp_path / "batch" / "requests.jsonl"
        calls = len(srv.completions())
        assert _bench(srv, data, tmp_path / "bat", "--batch-export", str(req)) == 3
        assert "pairs wait for batch results" in capsys.readouterr().out
        results = tmp_path / "batch" / "results.jsonl"
        results.write_text(srv.answer_batch_file(req.read_text()))
        assert main(["batch", "import", str(results)]) == 0
        capsys.readouterr()
        assert _bench(srv, data, tmp_path / "bat", "--json") == 0
        assert len(srv.completions()) == calls  # no online call in the batch rounds
    batch = json.loads(capsys.readouterr().out)
    for key in ("accuracy", "accuracy_ci", "macro_f1", "macro_f1_ci", "confusion", "n"):
        assert batch[key] == online[key]


def test_compare_puts_runs_side_by_side(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = sample(shared_data, RAMDOCS_SAMPLE)
    args = ["bench", "labeler", "--gold", "ramdocs", "--data", str(data), "--quiet"]
    assert main([*args, "--labeler", "lexical", "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--labeler", "lexical", "--out", str(tmp_path / "b"), "--limit", "10"]) == 0
    capsys.readouterr()
    both = [str(tmp_path / "a"), str(tmp_path / "b" / "bench.json")]
    assert main(["bench", "compare", *both, "--wide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| labeler | model | gold | pairs | failed | accuracy [95% CI]")
    assert lines[2].startswith("| lexical | – | ramdocs | 119 | 0 | 0.3866 [")
    assert lines[3].startswith("| lexical | – | ramdocs | 41 | 0 |")
    # the same labeler on the ten shared questions: paired, no difference at all
    assert "paired on 10 shared items (41 pairs)" in lines[5]
    # no discordant pair: McNemar's p is 1
    assert lines[6] == "  accuracy +0.0000 [+0.0000, +0.0000]: within noise; exact McNemar p = 1"
    assert main(["bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["n"] for r in data["results"]] == [119, 41]
    assert data["paired_differences"][0]["macro_f1"]["difference"] == 0.0
    assert data["paired_differences"][0]["accuracy"]["discordant"] == [0, 0]


def test_score_prints_the_measured_labeler_or_how_to_measure_it(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "text": "The bridge opened in 1901."}) + "\n")
    resp = tmp_path / "resp.txt"
    resp.write_text("The bridge opened in 1901.")
    score = ["score", "--response", str(resp), "--documents", str(docs)]
    main(score)
    out = capsys.readouterr().out
    assert "labeler lexical: unmeasured" in out
    assert "conflicteval bench labeler --gold ramdocs --labeler lexical --out bench-run" in out
    data = sample(shared_data, RAMDOCS_SAMPLE)
    bench = ["bench", "labeler", "--gold", "ramdocs", "--data", str(data), "--labeler", "lexical"]
    assert main([*bench, "--out", str(tmp_path / "b"), "--quiet"]) == 0
    capsys.readouterr()
    main(score)
    out = capsys.readouterr().out
    assert "labeler lexical: measured macro-F1 0.3445 [" in out and "on gold set ramdocs" in out


def test_detect_prints_the_measured_labeler(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.conflictbench import build_conflictbench

    from .helpers import MACNOISE_SAMPLE

    items = tmp_path / "items.jsonl"
    build_conflictbench(
        [("macnoise", sample(shared_data, MACNOISE_SAMPLE), {"level": "25", "variant": "nq"})],
        output=items,
    )
    args = ["conflictbench", "detect", "--items", str(items), "--quiet"]
    main([*args, "--out", str(tmp_path / "d1")])
    out = capsys.readouterr().out
    assert "95% intervals" in out and "labeler lexical: unmeasured" in out
    bench = ["bench", "labeler", "--gold", "conflictbench", "--data", str(items)]
    main([*bench, "--labeler", "lexical", "--out", str(tmp_path / "b"), "--quiet"])
    capsys.readouterr()
    main([*args, "--out", str(tmp_path / "d2")])
    assert "measured macro-F1" in capsys.readouterr().out


def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n')
    rc = main(
        [
            "bench",
            "labeler",
            "--gold",
            "ramdocs",
            "--data",
            str(bad),
            "--labeler",
            "lexical",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "bad.jsonl" in err
    rc = main(
        [
            "bench",
            "labeler",
            "--gold",
            "ramdocs",
            "--data",
            str(bad),
            "--labeler",
            "llm",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2 and "needs --model" in capsys.readouterr().err
    rc = main(["bench", "compare", str(tmp_path)])
    assert rc == 2 and "no bench.json" in capsys.readouterr().err
