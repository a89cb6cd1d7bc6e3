"""Every command that produces a result writes summary.json in the run contract
(``conflicteval.run/1``): each runs on small data here and its summary is validated."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.results import load_run

from .runs import detect_run, feverous_run, regenerate_run, reports_run, score_run


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _ramdocs_data(tmp: Path) -> Path:
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
        for k in range(3)
    ]
    return _jsonl(tmp / "ramdocs.jsonl", rows)


def _model(server: Any) -> list[str]:
    return ["--model", "openai/m", "--base-url", server.base_url, "--quiet"]


def _ramdocs(tmp: Path, server: Any) -> Path:
    server.set_replies(lambda body: "The answer is 1840.")
    out = tmp / "rd"
    argv = ["ramdocs", "run", "--data", str(_ramdocs_data(tmp)), "--method", "rag"]
    assert main([*argv, "--out", str(out), *_model(server)]) in (0, 1)
    return out


def _faitheval(tmp: Path, server: Any) -> Path:
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
    server.set_replies(lambda body: "conflict")
    out = tmp / "fe"
    argv = ["faitheval", "run", "--task", "inconsistent", "--method", "rag", "--data", str(path)]
    assert main([*argv, "--out", str(out), *_model(server)]) in (0, 1)
    return out


def _bench(tmp: Path, server: Any) -> Path:
    out = tmp / "bench"
    argv = ["bench", "labeler", "--gold", "ramdocs", "--data", str(_ramdocs_data(tmp))]
    assert main([*argv, "--labeler", "lexical", "--no-save", "--out", str(out), "--quiet"]) in (
        0,
        1,
    )
    return out


class _Shared:
    """The shared data folder, asked for (and skipped without) only by the kinds using it."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request

    def __truediv__(self, name: str) -> Path:
        path: Path = self.request.getfixturevalue("shared_data")
        return path / name


def _feverous(tmp: Path, server: Any, shared: _Shared) -> Path:
    claims = shared / "feverous" / "feverous_s_dev_first5.json"
    if not claims.exists():
        pytest.skip(f"{claims} not found")
    return feverous_run(tmp, claims)


def _wikicontradict(tmp: Path, server: Any, shared: _Shared, judge: bool) -> Path:
    csv = shared / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if not csv.exists():
        pytest.skip(f"{csv} not found")
    server.set_replies(lambda body: "Yes.")
    run = tmp / "wc"
    argv = ["wikicontradict", "generate", "--data", str(csv), "--templates", "2"]
    assert main([*argv, "--limit", "3", "--out", str(run), *_model(server)]) == 0
    if judge:
        assert main(["wikicontradict", "judge", "--run", str(run), "--model", "lexical"]) == 0
    return run


KINDS: dict[str, tuple[str, Callable[..., Path]]] = {
    "score": ("conflictscore", lambda tmp, srv, shared: score_run(tmp)),
    "detect": ("detect", lambda tmp, srv, shared: detect_run(tmp)),
    "reports": ("reports", lambda tmp, srv, shared: reports_run(tmp, srv)),
    "regenerate": ("regenerate", lambda tmp, srv, shared: regenerate_run(tmp, srv)),
    "feverous": ("feverous", _feverous),
    "ramdocs": ("ramdocs", lambda tmp, srv, shared: _ramdocs(tmp, srv)),
    "faitheval": ("faitheval", lambda tmp, srv, shared: _faitheval(tmp, srv)),
    "bench": ("bench", lambda tmp, srv, shared: _bench(tmp, srv)),
    "wikicontradict-generated": (
        "wikicontradict",
        lambda tmp, srv, shared: _wikicontradict(tmp, srv, shared, judge=False),
    ),
    "wikicontradict-judged": (
        "wikicontradict",
        lambda tmp, srv, shared: _wikicontradict(tmp, srv, shared, judge=True),
    ),
}


@pytest.mark.parametrize("command", sorted(KINDS))
def test_every_command_writes_the_run_contract(
    command: str,
    tmp_path: Path,
    openai_server: Any,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    kind, make = KINDS[command]
    shared = _Shared(request)  # the shared data: those kinds skip when it is absent
    run = load_run(make(tmp_path, openai_server, shared))  # validates the contract
    s = run.summary
    assert s.kind == kind and s.status == "finished"
    assert s.progress.done == s.progress.total == s.counts.total > 0
    assert s.started_at is not None and s.elapsed_s is not None and s.elapsed_s >= 0
    assert s.latency is not None and s.cost.prices_as_of
    assert s.metrics and all(m.value is None or m.n > 0 for m in s.metrics)
    items = list(run.items())
    assert items and {it.id for it in items} <= {it.id for it in items}
    scored = [it for it in items if it.status == "ok"]
    assert len(scored) == s.counts.scored
    if command == "wikicontradict-generated":  # never judged: "not judged", never 0 %
        assert all(m.value is None and m.note == "not judged" for m in s.metrics)
    if command == "wikicontradict-judged":
        assert s.instruments[0].status == "unmeasured" and s.metrics[0].n == s.counts.scored
        # one answering model: items are template and instance, so runs of two models pair
        assert all(it.id.startswith("t2|") for it in items)
    if kind in ("ramdocs", "faitheval", "reports", "regenerate"):  # calls sent to the server
        assert s.cost.sent.calls > 0 and s.latency.calls == s.cost.sent.calls
        assert s.cost.usd is None and s.cost.unpriced  # openai/m has no price
    _n_agrees(run)
    _viewer_agrees(run, capsys)
    _export_validates(run, tmp_path / "eee")


def _n_agrees(run: Any) -> None:
    """Every item is counted and listed (none dropped from n), and a metric's n is the number
    of items holding a value for it, in items.jsonl and in the pandas table alike."""
    s = run.summary
    items = list(run.items())
    assert len(items) == s.counts.total  # failed and undetermined items are listed too
    assert sum(1 for it in items if it.status == "ok") == s.counts.scored
    for m in s.metrics:
        if m.items is None or m.value is None:
            continue
        with_value = [it for it in items if it.values.get(m.id) is not None]
        assert m.n == len(with_value), m.id
    pd = pytest.importorskip("pandas", reason="the pandas view needs the pandas extra")
    frame = run.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == s.counts.total


def _viewer_agrees(run: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The viewer shows the money the command printed, from the same contract; an
    unmeasured headline is never 0."""
    from conflicteval.results.load import cost_line
    from conflicteval.view import load_run as view_run

    printed = capsys.readouterr()
    line = cost_line(run.summary)
    if run.summary.kind != "bench":  # bench labeler prints its own closing lines
        assert line in printed.out + printed.err
    rv = view_run(run.path)
    # every headline the page shows is a metric of the contract: same value, interval and n
    metrics = [m for m in run.summary.metrics if m.value is not None]
    for h in rv.headlines:
        if h.value is None:
            continue
        same = [
            m
            for m in metrics
            if m.value == pytest.approx(h.value)
            and m.n == h.n
            and (m.ci is None or h.low is None or m.ci == pytest.approx([h.low, h.high]))
        ]
        assert same, (h.name, h.value, h.low, h.high, h.n)
    shown = rv.usage.get("cost") or rv.usage.get("unpriced")
    assert shown is not None and shown.startswith(line.removeprefix("cost: "))
    if all(m.note == "not judged" for m in run.summary.metrics):
        percents = [h for h in rv.headlines if h.percent]
        assert percents and all(h.value is None and h.note == "not judged" for h in percents)
        assert all(h.n == 0 for h in percents)


SCHEMAS = Path(__file__).parents[1] / "results" / "eee_schema"


def _export_validates(run: Any, out: Path) -> None:
    """``conflicteval export --format eee`` of the run validates against the Every Eval Ever
    0.3.0 JSON Schema files (copied under tests/results/eee_schema with their licence)."""
    jsonschema = pytest.importorskip("jsonschema", reason="validating needs jsonschema")
    assert main(["export", str(run.path), "--format", "eee", "--out", str(out)]) == 0
    aggregate_schema = json.loads((SCHEMAS / "eval.schema.json").read_text(encoding="utf-8"))
    sample_schema = json.loads(
        (SCHEMAS / "instance_level_eval.schema.json").read_text(encoding="utf-8")
    )
    (record,) = out.glob("data/*/*/*/*[0-9a-f].json")
    aggregate = json.loads(record.read_text(encoding="utf-8"))
    jsonschema.validate(aggregate, aggregate_schema)
    measured = [m for m in run.summary.metrics if m.value is not None]
    assert [r["evaluation_result_id"] for r in aggregate["evaluation_results"]] == [
        m.id for m in measured
    ]
    detail = aggregate.get("detailed_evaluation_results")
    if any(m.items == "binary" for m in measured):
        lines = (out / detail["file_path"]).read_text(encoding="utf-8").splitlines()
        assert len(lines) == detail["total_rows"] > 0
        for line in lines:
            jsonschema.validate(json.loads(line), sample_schema)
    else:
        assert detail is None
