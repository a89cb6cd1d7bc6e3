"""A dry run counts the calls the real run makes, for every model-calling workflow.

A dry run is the command itself under the Count answerer, so it cannot drift from
what the command sends. Against the project's test server, for each workflow:

(a) on a cold cache, the dry run counts exactly the calls of the first stage: the same
    calls a batch export of the same command records (one code path: the requests the
    model layer builds), and the real run then sends every one of them (the server's
    request log); the dry run writes no file and sends nothing;
(b) after the real run, a dry run counts exactly the calls the real run made (sent, or
    served by the cache during the run), all of them cached.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.files import read_requests
from conflicteval.cli import main
from conflicteval.models.ledger import track_calls
from conflicteval.testing import OpenAICompatServer

WC_CSV = "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv"
FEVEROUS_S = "feverous/feverous_s_dev_first5.json"


def reply(body: dict[str, Any]) -> str:
    """One model for every workflow: a readable reply to each prompt the library sends."""
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Instruction: Break down"):
        return "Claims:\n1. The canal opened in 1847.\n2. It is 38 km long."
    if prompt.startswith("Document-Claim Conflict Detection"):
        doc = prompt.split("\nDocument to evaluate against\n", 1)[-1]
        answer = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")[len(doc) % 3]
        return json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": answer})
    if "labels" in json.dumps(body.get("response_format", "")):
        n = len(re.findall(r"^\s*\[?(\d+)[\].:]", prompt, flags=re.M)) or 1
        return json.dumps({"labels": [{"index": k, "answer": "SUPPORTS"} for k in range(1, n + 1)]})
    if prompt.startswith("You are an agent reading a document"):
        return "Answer: 1847. Explanation: the document says so."
    if prompt.startswith("You are an aggregator"):
        return 'All Correct Answers: ["1847"]. Explanation: the agents agree.'
    if "All Correct Answers" in prompt:
        return 'All Correct Answers: ["1847"]. Explanation: x.'
    if prompt.startswith("You are an expert in retrieval question answering."):
        return "unknown"
    if "(A)" in prompt:
        return "(A)"
    if "comment:" in prompt:
        return "explanation: it names both answers.\nfinal label: Correct\ncomment: none"
    # a reply of its own to each prompt: no two later calls (e.g. the judge's) are the same
    return f"One source says 1847; however, another source says 1851 ({len(prompt)})."


# ------------------------------------------------------------------ inputs


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


DOCS = [
    {"id": "a", "text": "The canal opened in 1847 and is 38 km long."},
    {"id": "b", "text": "The canal opened in 1851; it is 38 km long."},
]


def _score_items(tmp: Path) -> Path:
    return _jsonl(
        tmp / "items.jsonl",
        [
            {
                "id": "r1",
                "response": "The canal opened in 1847. It is 38 km long.",
                "documents": DOCS,
            },
            {"id": "r2", "response": "Boats pass 14 locks. It opened in 1851.", "documents": DOCS},
        ],
    )


def _cqa(tmp: Path) -> Path:
    rows = []
    for q, (topic, yes, no) in enumerate(
        [
            ("Is tea healthy?", "Tea is healthy for most adults.", "Tea harms sleep."),
            ("Is running good?", "Running helps the heart.", "Running hurts knees."),
        ]
    ):
        for k, (text, stance) in enumerate([(yes, "yes"), (no, "no")]):
            rows.append(
                {
                    "category": "health",
                    "search_query": topic,
                    "search_engine_input": topic,
                    "search_type": "yes_statement",
                    "url": f"https://q{q}.example/{k}",
                    "title": f"Page {q}-{k}",
                    "text_raw": "RAW.",
                    "text_window": text,
                    "stance": stance,
                }
            )
    return _jsonl(tmp / "cqa.jsonl", rows)


def _bench_items(tmp: Path) -> Path:
    out = tmp / "bench.jsonl"
    assert (
        main(
            ["conflictbench", "build", "--source", f"conflictingqa={_cqa(tmp)}", "--out", str(out)]
        )
        == 0
    )
    return out


def _ramdocs(tmp: Path) -> Path:
    rows = [
        {
            "question": f"When did canal {k} open?",
            "documents": [
                {"text": f"Canal {k} opened in {1840 + k}.", "type": "correct", "answer": "x"},
                {"text": f"Canal {k} opened in {1850 + k}.", "type": "misinfo", "answer": "y"},
            ],
            "disambig_entity": [f"Canal {k}"],
            "gold_answers": [str(1840 + k)],
            "wrong_answers": [str(1850 + k)],
        }
        for k in range(2)
    ]
    return _jsonl(tmp / "ramdocs.jsonl", rows)


def _truthfulqa(tmp: Path) -> list[str]:
    questions = tmp / "tqa.csv"
    with questions.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Type", "Category", "Question", "Best Answer", "Best Incorrect Answer",
                    "Correct Answers", "Incorrect Answers", "Source"])  # fmt: skip
        for k, q in enumerate(["Do ostriches hide their heads?", "Do bulls hate red?"]):
            w.writerow(["Adversarial", "Myths", q, "No", "Yes", "No", "Yes", f"https://e/{k}"])
    docs = _jsonl(
        tmp / "tqa-docs.jsonl",
        [{"index": k, "documents": [f"Document {k}: it is a myth."]} for k in range(2)],
    )
    return ["--questions", str(questions), "--documents", str(docs)]


# ------------------------------------------------------------------ the workflows

Setup = Callable[[Path, Path, str], list[str]]
"""(tmp dir, shared data dir, base url) -> the command line (without --out's own checks)."""


def _model(url: str, spec: str = "openai/m") -> list[str]:
    return ["--model", spec, "--base-url", url]


def _wc_generate(tmp: Path, data: Path, url: str) -> list[str]:
    _need(data / WC_CSV)
    return ["wikicontradict", "generate", "--data", str(data / WC_CSV), "--templates", "1,5",
            "--limit", "2", "--out", str(tmp / "run"), *_model(url, "openai/t")]  # fmt: skip


def _wc_judge(tmp: Path, data: Path, url: str) -> list[str]:
    generate = _wc_generate(tmp, data, url)
    assert main([*generate, "--quiet"]) == 0  # the run to judge (its calls not compared)
    return ["wikicontradict", "judge", "--run", str(tmp / "run"), "--judge", "openai/j",
            "--base-url", url]  # fmt: skip


def _wc_calibrate(tmp: Path, data: Path, url: str) -> list[str]:
    label = {"instance_id": "x", "template": "5", "model": "m", "question": "Q?",
             "answers": ["a", "b"], "response": "a", "human_label": "correct"}  # fmt: skip
    labels = _jsonl(tmp / "labels.jsonl", [label])
    return ["wikicontradict", "calibrate", "--labels", str(labels), "--judge", "openai/j",
            "--base-url", url]  # fmt: skip


def _score(decomposer: str, labeler: str) -> Setup:
    def setup(tmp: Path, data: Path, url: str) -> list[str]:
        return ["score", "--input", str(_score_items(tmp)), "--out", str(tmp / "o"),
                "--decomposer", decomposer, "--labeler", labeler, *_model(url)]  # fmt: skip

    return setup


def _cb_build(tmp: Path, data: Path, url: str) -> list[str]:
    return ["conflictbench", "build", "--source", f"conflictingqa={_cqa(tmp)}",
            "--out", str(tmp / "built.jsonl"), *_model(url)]  # fmt: skip


def _cb_detect(tmp: Path, data: Path, url: str) -> list[str]:
    return ["conflictbench", "detect", "--items", str(_bench_items(tmp)), "--labeler", "llm",
            "--out", str(tmp / "det"), *_model(url)]  # fmt: skip


def _cb_reports(tmp: Path, data: Path, url: str) -> list[str]:
    return ["reports", "--items", str(_bench_items(tmp)), "--model", "big=openai/big",
            "--base-url", url, "--settings", "rag", "--out", str(tmp / "rep")]  # fmt: skip


def _cb_regenerate(tmp: Path, data: Path, url: str) -> list[str]:
    return ["regenerate", *_truthfulqa(tmp), "--mode", "choice", "--out", str(tmp / "rg"),
            *_model(url)]  # fmt: skip


def _feverous(tmp: Path, data: Path, url: str) -> list[str]:
    _need(data / FEVEROUS_S)
    return ["feverous", "verify", "--claims", str(data / FEVEROUS_S), "--labeler", "openai/test",
            "--base-url", url, "--limit", "3", "--out", str(tmp / "fv")]  # fmt: skip


def _ramdocs_run(method: str) -> Setup:
    def setup(tmp: Path, data: Path, url: str) -> list[str]:
        return ["ramdocs", "run", "--data", str(_ramdocs(tmp)), "--method", method,
                "--out", str(tmp / method), *_model(url)]  # fmt: skip

    return setup


def _faitheval(method: str) -> Setup:
    def setup(tmp: Path, data: Path, url: str) -> list[str]:
        pa = pytest.importorskip("pyarrow", reason="FaithEval reads parquet (extra: pandas)")
        import pyarrow.parquet as pq

        rows = [
            {"qid": "q1", "question": "When did the canal open?",
             "context": "Document: The canal opened in 1847.\nDocument: It opened in 1851.",
             "answers": ["1847", "1851"]},
            {"qid": "q2", "question": "How long is the canal?",
             "context": "The canal is 38 km long.", "answers": ["38 km"]},
        ]  # fmt: skip
        path = tmp / "fe.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
        return ["faitheval", "run", "--task", "inconsistent", "--method", method,
                "--data", str(path), "--out", str(tmp / "fe"), *_model(url)]  # fmt: skip

    return setup


def _bench(tmp: Path, data: Path, url: str) -> list[str]:
    return ["bench", "labeler", "--gold", "ramdocs", "--data", str(_ramdocs(tmp)),
            "--labeler", "llm", "--out", str(tmp / "bench"), *_model(url)]  # fmt: skip


WORKFLOWS: dict[str, Setup] = {
    "wikicontradict-generate": _wc_generate,
    "wikicontradict-judge": _wc_judge,
    "wikicontradict-calibrate": _wc_calibrate,
    "score-llm": _score("sentence", "llm"),
    "score-llm-per-document": _score("sentence", "llm-per-document"),
    "score-llm-per-claim": _score("sentence", "llm-per-claim"),
    "score-llm-decomposer": _score("llm", "llm"),
    "conflictbench-build": _cb_build,
    "conflictbench-detect": _cb_detect,
    "reports": _cb_reports,
    "regenerate": _cb_regenerate,
    "feverous-verify": _feverous,
    "ramdocs-no-rag": _ramdocs_run("no-rag"),
    "ramdocs-rag": _ramdocs_run("rag"),
    "ramdocs-madam": _ramdocs_run("madam"),
    "faitheval-rag": _faitheval("rag"),
    "faitheval-madam": _faitheval("madam"),
    "bench-labeler": _bench,
}


def _need(path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"{path.name} not in the shared sample data")


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` (the cache aside) with its size and modification time."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and "cache" not in p.relative_to(root).parts
    }


def _elsewhere(argv: list[str], tmp: Path) -> list[str]:
    """``argv`` writing its outputs elsewhere (a batch export run must not leave records the
    real run would resume)."""
    out = list(argv)
    for opt in ("--out", "--output"):
        if opt in out:
            i = out.index(opt) + 1
            out[i] = str(tmp / "export-out" / Path(out[i]).name)
    if out[:2] == ["wikicontradict", "judge"]:
        out += ["--output", str(tmp / "export-out" / "judgements.jsonl")]
    return out


def _takes_quiet(argv: list[str]) -> bool:
    return argv[0] not in ("score", "conflictbench") and argv[:2] != ["wikicontradict", "calibrate"]


def _dry(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The dry run's counts of ``argv`` (every model's summed) and its text."""
    capsys.readouterr()
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    counts = re.findall(r"^dry run for \S+: (\d+) model calls, (\d+) already cached", out, re.M)
    return {
        "calls": sum(int(c) for c, _ in counts),
        "cached": sum(int(k) for _, k in counts),
        "text": out,
    }


@pytest.mark.parametrize("name", list(WORKFLOWS))
def test_a_dry_run_counts_the_calls_the_real_run_makes(
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    data = request.getfixturevalue("shared_data") if name.startswith(("wiki", "fev")) else tmp_path
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with OpenAICompatServer(reply) as srv:
        argv = WORKFLOWS[name](tmp_path, data, srv.base_url)
        before_files = _files(tmp_path)
        sent_before = len(srv.completions())

        # (a) cold: the dry run counts the first stage, sends nothing and writes nothing
        cold = _dry(argv, capsys)
        assert len(srv.completions()) == sent_before
        assert _files(tmp_path) == before_files
        assert cold["calls"] > 0 and cold["cached"] == 0
        # the same calls a batch export records (the model layer's requests) ...
        req = tmp_path / "export" / "requests.jsonl"
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "export-cache"))
        assert main([*_elsewhere(argv, tmp_path), "--batch-export", str(req)]) == 3
        exported = list(read_requests(req))
        assert cold["calls"] == len(exported)
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))

        # ... which the real run then sends, every one
        with track_calls() as ledger:
            main([*argv, "--quiet"] if _takes_quiet(argv) else argv)
        sent = [r.body for r in srv.completions()[sent_before:]]
        bodies = {json.dumps(b, sort_keys=True) for b in sent}
        assert all(json.dumps(e["body"], sort_keys=True) in bodies for e in exported)
        made = sum(m.online.calls + m.cached.calls for m in ledger.models.values())
        assert sum(m.online.calls for m in ledger.models.values()) == len(sent)

        # (b) warm: every call of the real run, all served by the cache, nothing sent
        capsys.readouterr()
        warm = _dry(argv, capsys)
        assert warm["calls"] == made and warm["cached"] == made
        assert len(srv.completions()) == sent_before + len(sent)
        if made > cold["calls"]:  # later stages waited on replies: the cold count said so
            assert "at least" in cold["text"]
