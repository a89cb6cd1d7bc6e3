"""ConflictScore by batch rounds (decompose, then label) ends as the online run does."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.files import read_requests
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

DOCS = [
    {"id": "a", "text": "DOC-A The canal opened in 1847 and is 38 km long."},
    {"id": "b", "text": "DOC-B The canal opened in 1851; it is 38 km long."},
    {"id": "c", "text": "DOC-C Boats pass 14 locks."},
]
ITEMS = [
    {"id": "r1", "response": "The canal opened in 1847. It is 38 km long.", "documents": DOCS},
    {"id": "r2", "response": "Boats pass 14 locks. The canal opened in 1851.", "documents": DOCS},
]


def reply(body: dict[str, Any]) -> str:
    """A labelling model: claims from the response's sentences, labels by marker and year."""
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Instruction: Break down the following report"):
        report = prompt.rsplit("Report:", 1)[-1] if "Report:" in prompt else prompt
        sentences = re.findall(
            r"(The canal opened in \d+|It is 38 km long|Boats pass 14 locks)", report
        )
        return "Claims:\n" + "\n".join(f"{k}. {s}." for k, s in enumerate(sentences, 1))
    if prompt.startswith("Document-Claim Conflict Detection"):
        claim = prompt.split("\nClaim to evaluate\n", 1)[1].split(
            "\nDocument to evaluate against\n", 1
        )[0]
        doc = prompt.split("\nDocument to evaluate against\n", 1)[1].split("\nOutput format\n")[0]
        year = re.search(r"18\d\d", claim)
        if year and "opened" in doc:
            answer = "SUPPORTS" if year.group(0) in doc else "CONTRADICTS"
        elif ("38 km" in claim and "38 km" in doc) or ("locks" in claim and "locks" in doc):
            answer = "SUPPORTS"
        else:
            answer = "IRRELEVANT"
        return json.dumps(
            {"claim": claim.strip(), "document_snippet": "s", "reasoning": "r", "answer": answer}
        )
    raise AssertionError(prompt[:80])


def _score(srv: OpenAICompatServer, items: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "score",
            "--input",
            str(items),
            "--out",
            str(out),
            "--model",
            "openai/test-model",
            "--base-url",
            srv.base_url,
            *extra,
        ]
    )


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


def test_two_stage_conflictscore_batch_equals_the_online_run(
    tmp_path: Path,
    items: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with OpenAICompatServer(reply) as srv:
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
        assert _score(srv, items, tmp_path / "online") == 0
        online_calls = len(srv.completions())
        assert online_calls == 2 + 2 * 2 * 3  # two decompositions, 2 claims x 3 docs each

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        req = tmp_path / "batch" / "requests.jsonl"
        exported = []
        for _ in range(5):
            capsys.readouterr()
            rc = _score(srv, items, tmp_path / "bat", "--batch-export", str(req))
            out, err = capsys.readouterr()
            if rc == 0:
                break
            assert rc == 3 and "pending" in err and "batch import" in err
            if not exported:  # every item pending: no checkpoint yet, and none is claimed
                assert not (tmp_path / "bat" / "checkpoint.jsonl").exists()
                assert "scores.jsonl" in out and "checkpoint.jsonl" not in out
            exported.append(len(list(read_requests(req))))
            # nothing pending is written to the checkpoint as a failure
            ckpt = tmp_path / "bat" / "checkpoint.jsonl"
            assert not ckpt.exists() or not ckpt.read_text().strip()
            results = tmp_path / "batch" / f"results{len(exported)}.jsonl"
            capsys.readouterr()
            assert main(["batch", "status", "--export", str(req)]) == 0
            assert "not yet imported: requests.jsonl" in capsys.readouterr().out
            results.write_text(srv.answer_batch_file(req.read_text()))
            assert main(["batch", "import", str(results)]) == 0
            capsys.readouterr()
            assert main(["batch", "status", "--export", str(req)]) == 0
            status = capsys.readouterr().out  # imported by hand (vLLM's way), not by batch run
            assert f"round {len(exported)} is answered in the cache" in status
            assert "not yet imported" not in status
        assert exported == [2, 12]  # decompose, then label: two rounds, then complete
        assert "12 by batch" not in err and "14 by batch" in err
        assert len(srv.completions()) == online_calls  # no online call in any batch round

    def rows(run: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in (tmp_path / run / "scores.jsonl").read_text().splitlines()]

    assert rows("bat") == rows("online")
    assert [r["cs_c"] for r in rows("bat")] == [0.5, 0.5]
    online = json.loads((tmp_path / "online" / "summary.json").read_text())
    batch = json.loads((tmp_path / "bat" / "summary.json").read_text())
    for key in ("counts", "mean_cs_c", "mean_cs_r", "failed_pairs"):
        assert batch[key] == online[key]
    for key in ("prompt_tokens", "completion_tokens", "calls"):
        assert batch["usage"][key] == online["usage"][key]
    assert batch["usage"]["cached_calls"] == batch["usage"]["calls"]


def test_batch_export_with_dry_run_writes_nothing(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply) as srv:
        req = tmp_path / "requests.jsonl"
        rc = _score(srv, items, tmp_path / "o", "--dry-run", "--batch-export", str(req))
        assert rc == 0 and not req.exists() and srv.completions() == []
    assert "2 to send" in capsys.readouterr().out


def test_one_response_pending_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    resp = tmp_path / "resp.txt"
    resp.write_text(ITEMS[0]["response"])
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    req = tmp_path / "r.jsonl"
    with OpenAICompatServer(reply) as srv:
        args = ["score", "--response", str(resp), "--documents", str(docs)]
        args += ["--model", "openai/test-model", "--base-url", srv.base_url]
        assert main([*args, "--batch-export", str(req)]) == 3
        assert len(list(read_requests(req))) == 1
        res = tmp_path / "res.jsonl"
        res.write_text(srv.answer_batch_file(req.read_text()))
        assert main(["batch", "import", str(res)]) == 0
        assert main([*args, "--batch-export", str(req)]) == 3
        assert len(list(read_requests(req))) == 6
        res.write_text(srv.answer_batch_file(req.read_text()))
        assert main(["batch", "import", str(res)]) == 0
        capsys.readouterr()
        assert main([*args, "--batch-export", str(req)]) == 0
        assert "CS-C" in capsys.readouterr().out
        assert srv.completions() == []
