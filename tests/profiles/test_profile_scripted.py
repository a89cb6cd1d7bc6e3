"""The small suite on the shared data, run by scripted models of known behaviour: every cell's
value computed by hand here and matched exactly; resuming makes no call; a dry run sends
nothing; two models are compared cell by cell; what has no data is on the card as not run."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

import conflicteval as ce
from conflicteval.cli.app import main
from conflicteval.profiles import export_profile, read_profile

from .scripted import FEVEROUS_S, RAMDOCS, WIKICONTRADICT, chat_calls, data_args

BENCHES = ["wikicontradict", "ramdocs.no_rag", "ramdocs.rag", "ramdocs.madam", "feverous_s"]
BENCHES += ["conflictqa.strategyqa", "conflictscore.ramdocs.madam", "conflictscore.wikicontradict"]


def _wc_expected(shared: Path, ids: list[str], behaviour: str) -> dict[str, float]:
    """WikiContradict shares (%) over templates 1-5 of the selected instances, by hand.

    ``gold`` gives both answers with a conflict cue: correct under every template (the
    lexical judge's rules for 1, 4, 5: both answers and a conflict cue; for 2 and 3: the
    passage's answer found). ``first`` gives answer 1 alone: partially correct under 1, 4
    and 5, correct under 2 (passage 1's answer), incorrect under 3 (passage 2's) — except
    instance 19, whose two answers are the same sentence but for the names ("The manager(s)
    of St Eunan's GAA in 2017 was/were ..."), where the lexical judge finds answer 2 in
    answer 1: both answers without a cue (incorrect) under 1, 4, 5 and correct under 3.
    """
    n = len(ids) * 5
    if behaviour == "gold":
        return {"correct": 100.0, "partially_correct": 0.0, "incorrect": 0.0}
    with (shared / WIKICONTRADICT).open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["question_ID"]: r for r in csv.DictReader(fh)}
    assert "19" in ids and "same sentence" and rows["19"]["answer1"].startswith("The manager")
    special = 1  # instance 19
    plain = len(ids) - special
    counts = {
        "correct": plain * 1 + special * 2,  # t2; for 19 also t3
        "partially_correct": plain * 3,  # t1, t4, t5
        "incorrect": plain * 1 + special * 3,  # t3; for 19 t1, t4, t5
    }
    return {k: 100.0 * v / n for k, v in counts.items()}


def _ramdocs_expected(shared: Path, behaviour: str) -> float:
    """Exact match (%) on the 30 RAMDocs questions: ``gold`` lists every gold answer (all
    right); ``first`` repeats the first document's answer, right exactly when that document
    is a ``correct`` one (its answer is the gold answer; a noise document's is 'unknown')."""
    rows = [json.loads(line) for line in (shared / RAMDOCS).read_text().splitlines()]
    if behaviour == "gold":
        return 100.0
    right = sum(1 for r in rows if r["documents"][0]["type"] == "correct")
    return 100.0 * right / len(rows)


def _feverous_expected(shared: Path, behaviour: str) -> dict[str, float]:
    """Label accuracy and macro-F1 over the 5 claims (2 supports, 3 refutes): ``gold`` labels
    each right (1, 1); ``first`` says SUPPORTS to every claim: accuracy 2/5; F1 of supports
    2·(2/5)·1 / (2/5 + 1) = 4/7, of refutes 0, macro 2/7."""
    claims = json.loads((shared / FEVEROUS_S).read_text())
    supports = sum(1 for c in claims if c["label"] == "supports")
    assert (supports, len(claims)) == (2, 5)
    if behaviour == "gold":
        return {"label_accuracy": 1.0, "macro_f1": 1.0}
    p = supports / len(claims)
    return {"label_accuracy": p, "macro_f1": (2 * p * 1 / (p + 1) + 0.0) / 2}


def _cs_c_direct(shared: Path, behaviour: str) -> float:
    """Mean CS-C of the scripted MADAM-RAG outputs, scored directly (sentence + lexical)."""
    scorer = ce.ConflictScorer()
    values = []
    for line in (shared / RAMDOCS).read_text().splitlines():
        rec = json.loads(line)
        answers = rec["gold_answers"] if behaviour == "gold" else [rec["documents"][0]["answer"]]
        joined = ", ".join(answers)
        output = (
            f"Answer: {joined}. Explanation: scripted.\n"
            f"All Correct Answers: [{joined}]. Explanation: scripted."
        )
        docs = [d["text"] for d in rec["documents"] if d["text"].strip()]
        cs_c = scorer.score(output, docs).cs_c
        if cs_c is not None:
            values.append(cs_c)
    return sum(values) / len(values)


@pytest.mark.parametrize("behaviour", ["gold", "first"])
def test_scripted_model_card_matches_hand_computed_values(
    shared_data: Path, scripted_server: Any, tmp_path: Path, behaviour: str
) -> None:
    server, _ = scripted_server(behaviour)
    out = tmp_path / "card"
    card = ce.profile(
        "openai/gpt-4o-mini",
        out,
        data=data_args(shared_data),
        base_url=server.base_url,
        benchmarks=BENCHES,
    )
    assert card.kind == "profile" and card.schema_ == "conflicteval.run/1"
    ids = read_profile(out)["selections"]["wikicontradict"]["ids"]
    assert len(ids) == 100
    wc = _wc_expected(shared_data, ids, behaviour)
    for share, value in wc.items():
        m = card.metric(f"wikicontradict.share.{share}")
        assert m is not None and m.n == 500
        assert m.value == pytest.approx(value, abs=1e-9)
    em = _ramdocs_expected(shared_data, behaviour)
    for method in ("no_rag", "rag", "madam"):
        m = card.metric(f"ramdocs.{method}.exact_match")
        assert m is not None and m.n == 30 and m.value == pytest.approx(em, abs=1e-9)
        assert "Table 1, GPT-4o-mini" in m.published  # the paper's values travel with the cell
    for metric, value in _feverous_expected(shared_data, behaviour).items():
        m = card.metric(f"feverous_s.{metric}")
        assert m is not None and m.n == 5 and m.value == pytest.approx(value, abs=1e-9)
    # ConflictQA: the memory is always "True" and option A is "True.": every reply read is the
    # memory answer (gold), or "Uncertain." (first); n is every question scored
    scored = ce.load_run(out / "openai--gpt-4o-mini/conflictqa.strategyqa").summary.counts.scored
    assert scored > 0
    for e in ("counter", "memory-counter", "counter-memory"):
        mr = card.metric(f"conflictqa.strategyqa.memorization_ratio.{e}")
        share = {
            o: card.metric(f"conflictqa.strategyqa.share.{o}.{e}") for o in ("memory", "uncertain")
        }
        assert mr is not None and share["memory"] is not None and share["uncertain"] is not None
        if behaviour == "gold":
            assert (mr.value, mr.n, share["memory"].value) == (1.0, scored, 1.0)
        else:
            assert (mr.value, mr.n, share["uncertain"].value) == (None, 0, 1.0)
        assert share["memory"].n == scored
    # ConflictScore of the model's own MADAM-RAG answers: the answer it is known to give
    # (scripted), scored against its question's documents by the scorer itself (the lexical
    # labeler's labels are the instrument's, not computed by hand here)
    cs = card.metric("conflictscore.ramdocs.madam.cs_c_mean")
    assert cs is not None and cs.n == 30
    assert cs.value == pytest.approx(_cs_c_direct(shared_data, behaviour), abs=1e-12)
    # the card's money is the sum of every command's contract: each call the server answered
    assert card.cost.sent.calls == chat_calls(server) > 0
    cells = read_profile(out)["cells"]
    assert all(c["costs"] for c in cells)  # WikiContradict: its generation's and its judge's
    assert len(next(c for c in cells if c["benchmark"] == "wikicontradict")["costs"]) == 2
    judge = [i for i in card.instruments if i.role == "judge"]
    assert judge and judge[0].name == "lexical" and judge[0].status == "unmeasured"
    assert ce.load_run(out).summary.metric("ramdocs.madam.exact_match") is not None


def test_rerun_makes_no_call_and_dry_run_sends_nothing(
    shared_data: Path, scripted_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, _ = scripted_server("gold")
    out, dry = tmp_path / "card", tmp_path / "dry"
    common = ["profile", "--model", "openai/gpt-4o-mini", "--base-url", server.base_url]
    common += ["--quiet", "--benchmark", "ramdocs.rag", "--benchmark", "ramdocs.madam"]
    for name, path in data_args(shared_data).items():
        common += ["--data", f"{name}={path}"]
    argv = [*common, "--out", str(out)]
    assert main([*common, "--out", str(dry), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert chat_calls(server) == 0 and not dry.exists()
    rag = next(ln for ln in printed.splitlines() if " ramdocs.rag " in ln).split()
    assert rag[2:4] == ["30", "30"]  # one call per question, none cached
    assert "nothing was sent" in " ".join(printed.split())  # the total's line, wrapped
    assert main(argv) == 0
    first = chat_calls(server)
    assert first > 30
    card_1 = json.loads((out / "summary.json").read_text())
    assert main(argv) == 0  # resumed: every item is in its checkpoint
    assert chat_calls(server) == first
    card_2 = json.loads((out / "summary.json").read_text())
    assert [m["value"] for m in card_2["metrics"]] == [m["value"] for m in card_1["metrics"]]
    assert card_2["cost"]["sent"]["calls"] == card_1["cost"]["sent"]["calls"] == first  # summed


def test_max_usd_stops_before_the_cap(
    shared_data: Path, scripted_server: Any, tmp_path: Path
) -> None:
    server, _ = scripted_server("gold")
    out = tmp_path / "card"
    card = ce.profile(
        "openai/gpt-4o-mini",
        out,
        data=data_args(shared_data),
        base_url=server.base_url,
        benchmarks=["ramdocs.no_rag", "ramdocs.rag"],
        max_usd=0.000001,
    )
    assert chat_calls(server) == 0
    cells = card.model_extra["profile"]["cells"]  # type: ignore[index]
    assert [c["status"] for c in cells] == ["not run", "not run"]
    assert "--max-usd" in cells[0]["reason"]
    assert card.counts.not_scored == {"not run: stopped": 2}


def test_two_models_paired_and_absent_data_listed(
    shared_data: Path, scripted_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, _ = scripted_server("gold")
    out = tmp_path / "card"
    argv = ["profile", "--model", "openai/gold", "--model", "openai/first"]
    argv += ["--base-url", server.base_url, "--out", str(out), "--quiet"]
    for name, path in data_args(shared_data).items():
        argv += ["--data", f"{name}={path}"]
    for b in (
        "wikicontradict",
        "ramdocs.rag",
        "ambigdocs.rag",
        "clasheval",
        "conflictbench.detect",
        "conflictscore.ramdocs.madam",
    ):
        argv += ["--benchmark", b]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    comparison = json.loads((out / "compare.json").read_text())
    rows = {m["id"]: m for m in comparison["pairs"][0]["metrics"]}
    # RAMDocs: gold right on all 30, first on 29: one discordant pair, exact McNemar p = 1
    em = rows["ramdocs.rag.exact_match"]
    assert em["discordant"] == [1, 0] and em["p"] == 1.0 and em["verdict"] == "tied"
    # WikiContradict correct: gold 500 of 500, first 101: 399 discordant pairs, all for A
    wc = rows["wikicontradict.share.correct"]
    assert wc["discordant"] == [399, 0] and wc["verdict"] == "A higher"
    assert wc["p_holm"] <= len(rows) * 2 * 0.5**399 + 1e-300
    assert "tied" in printed and "A higher" in printed
    card = ce.load_run(out).summary
    assert card.metric("ramdocs.rag.exact_match@openai/first") is not None
    assert card.model_extra["profile"]["comparison"] == comparison  # type: ignore[index]
    cells = {
        (c["model"], c["benchmark"]): c
        for c in card.model_extra["profile"]["cells"]  # type: ignore[index]
    }
    ambig = cells[("openai/gold", "ambigdocs.rag")]
    assert ambig["status"] == "not run" and "ambigdocs" in ambig["reason"]
    assert "conflicteval data fetch ambigdocs" in ambig["provide"]
    assert "conflictbench build" in cells[("openai/gold", "conflictbench.detect")]["provide"]
    assert card.counts.not_scored["not run: data not available"] == 6
    scored_own = cells[("openai/first", "conflictscore.ramdocs.madam")]  # ramdocs.madam not run
    assert scored_own["status"] == "not run"
    assert "no answers of ramdocs.madam" in scored_own["reason"]
    assert card.counts.not_scored["not run: no answers to score"] == 2
    assert "not run" in printed and "provide the data" in printed


def test_export_one_record_per_benchmark_run(
    shared_data: Path, scripted_server: Any, tmp_path: Path
) -> None:
    server, _ = scripted_server("gold")
    out = tmp_path / "card"
    ce.profile(
        "openai/gpt-4o-mini",
        out,
        data=data_args(shared_data),
        base_url=server.base_url,
        benchmarks=["ramdocs.rag", "feverous_s"],
    )
    files = export_profile(out, tmp_path / "eee")
    aggregates = [json.loads(f.read_text()) for f in files if not f.name.endswith(".jsonl")]
    assert len(aggregates) == 2
    ids = {r["metric_config"]["metric_id"] for a in aggregates for r in a["evaluation_results"]}
    assert "conflicteval.ramdocs.exact_match" in ids and "conflicteval.feverous.macro_f1" in ids
    assert all(a["schema_version"] == "0.3.0" for a in aggregates)


def test_batch_export_one_file_then_batch_run(
    shared_data: Path, scripted_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _ = scripted_server("gold")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    out, export = tmp_path / "card", tmp_path / "batch" / "requests.jsonl"
    argv = ["profile", "--model", "openai/gpt-4o-mini", "--base-url", server.base_url]
    argv += ["--out", str(out), "--quiet", "--batch-export", str(export)]
    argv += ["--data", f"ramdocs={shared_data / RAMDOCS}"]
    argv += ["--benchmark", "ramdocs.no_rag", "--benchmark", "ramdocs.rag"]
    assert main(argv) == 3  # every call waits for batch results, in one request file
    assert chat_calls(server) == 0
    assert len(export.read_text().splitlines()) == 60  # both cells' 30 questions
    card = ce.load_run(out).summary
    assert card.counts.pending == 2 and card.status == "partial"
    # the rounds against the (test server's) Batch API until every cell is in
    rounds = ["batch", "run", "--base-url", server.base_url, "--poll-interval", "0.05"]
    assert main([*rounds, "--max-poll-interval", "0.1", "--", *argv]) == 0
    assert chat_calls(server) == 0 and server.batches
    card = ce.load_run(out).summary
    assert card.status == "finished" and card.counts.scored == 2
    m = card.metric("ramdocs.rag.exact_match")
    assert m is not None and m.value == 100.0 and m.n == 30
