"""``conflicteval ramdocs run`` / ``faitheval run`` runs: RAMDocs, AmbigDocs and FaithEval with
No RAG, prompt-based RAG or MADAM-RAG (the RAMDocs paper's Table 1 setup).

The directory holds ``answers.jsonl`` (the checkpoint: each question's final output, gold and
wrong answers, documents), ``run.json`` (benchmark, task, method, model, decoding) and
``data.json``. The headline numbers, their bootstrap intervals and the paper's Table 1 figures
come from the protocol's own report (``conflicteval.ramdocs`` / ``conflicteval.faitheval``).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..common import (
    flatten,
    headline,
    lazy_items,
    open_run,
    read_json,
    record_item,
    tally,
)
from ..inputs import shown_inputs
from ..model import Chart, RunView
from ..registry import RunKind, has_files
from ..svg import hbar_svg

REPORTS = {
    "ramdocs": ("conflicteval.ramdocs.report", "ramdocs_report", ("exact_match",)),
    "ambigdocs": ("conflicteval.ramdocs.report", "ramdocs_report", ("exact_match",)),
    "faitheval": (
        "conflicteval.faitheval.report",
        "faitheval_report",
        ("accuracy_strict", "accuracy_non_strict"),
    ),
}


def _report(run: RunView, info: dict[str, Any]) -> dict[str, Any]:
    """The protocol's report of the run ({} when it cannot be made, said in a note)."""
    spec = REPORTS.get(str(info.get("benchmark")))
    if spec is None:
        return {}
    try:
        module = importlib.import_module(spec[0])
        report: dict[str, Any] = getattr(module, spec[1])(run.path)
    except Exception as exc:  # the items are still shown, without the scores
        run.notes.append(f"no {info.get('benchmark')} report: {exc}")
        return {}
    return report


def _sources(benchmark: str, task: Any) -> Any:
    """How to read the run's data file: a function from its path to its questions as
    :class:`_Source` (None for an unknown benchmark)."""

    def ramdocs(path: Path) -> Iterator[_Source]:
        from conflicteval.ramdocs.data import iter_ramdocs
        from conflicteval.ramdocs.items import ram_question

        return (_Source(i.id, i, ram_question(i)) for i in iter_ramdocs(path))

    # AmbigDocs and FaithEval are read whole by their loaders (each a fixed published set);
    # their questions are still made one at a time
    def ambigdocs(path: Path) -> Iterator[_Source]:
        from conflicteval.ramdocs.items import ambigdocs_items, ram_question

        return (_Source(i.id, i, ram_question(i)) for i in ambigdocs_items(path))

    def faitheval(path: Path) -> Iterator[_Source]:
        from conflicteval.faitheval.data import load_faitheval
        from conflicteval.faitheval.questions import faitheval_question

        return (_Source(i.id, i, faitheval_question(i)) for i in load_faitheval(str(task), path))

    return {"ramdocs": ramdocs, "ambigdocs": ambigdocs, "faitheval": faitheval}.get(benchmark)


@dataclasses.dataclass(frozen=True)
class _Shown:
    """What the page shows of a question from the data file: its text and, per document,
    its type and the answer it gives (None: the loader's documents have no type)."""

    question: str
    titles: tuple[str | None, ...] | None

    @classmethod
    def of(cls, source: _Source) -> _Shown:
        docs = getattr(source.item, "documents", None)
        titles = None
        if docs is not None:
            titles = tuple(
                f"{d.type} \u00b7 answer: {d.answer}" if hasattr(d, "type") else None for d in docs
            )
        return cls(str(source.question.question), titles)


@dataclasses.dataclass(frozen=True)
class _Source:
    """One question of the data file: the loader's item and the :class:`Question` made from
    it (whose fingerprint a record must carry to be shown beside it)."""

    id: str
    item: Any
    question: Any


def _texts(round_: dict[str, Any], key: str) -> list[str]:
    """A round's list under ``key`` as texts ("" for a missing one)."""
    values = round_.get(key)
    if not isinstance(values, list):
        return []
    return ["" if v is None else str(v) for v in values]


def _debate(rounds: Any) -> list[dict[str, Any]] | None:
    """MADAM-RAG's rounds as the page draws them: per round each agent's answer,
    explanation and whole response, and the aggregator's output."""
    if not isinstance(rounds, list) or not rounds:
        return None
    out = []
    for r in rounds:
        if not isinstance(r, dict):
            continue

        out.append(
            {
                "answers": _texts(r, "answers"),
                "explanations": _texts(r, "explanations"),
                "responses": _texts(r, "responses"),
                "aggregation": None if r.get("aggregation") is None else str(r["aggregation"]),
            }
        )
    return out or None


def _documents(res: dict[str, Any], source: _Shown | None) -> list[dict[str, Any]]:
    """The question's documents; with the data file's item, each one's type (correct,
    misinformation, noise) and the answer it gives, as its title."""
    docs = res.get("documents") or []
    titles = source.titles if source is not None else None
    out = []
    for j, d in enumerate(docs):
        title = titles[j] if titles is not None and j < len(titles) else None
        out.append({"id": str(j), "title": title, "text": d if isinstance(d, str) else str(d)})
    return out


def _item(rec: Any, scored: dict[str, Any] | None, source: _Shown | None = None) -> dict[str, Any]:
    res = rec.result if isinstance(rec.result, dict) else {}
    scored = scored or {}
    if "em" in scored:
        outcome = "unscored" if scored["em"] is None else "right" if scored["em"] else "wrong"
    elif "strict" in scored:
        outcome = "right" if scored["strict"] else "wrong"
    else:
        outcome = "failed" if rec.status != "ok" else "unscored"
    question = res.get("question") or (source.question if source is not None else None)
    return record_item(
        rec,
        rec.error or scored.get("reason"),
        question=question,
        gold=[str(a) for a in res.get("gold_answers") or []] or None,
        response=res.get("output"),
        documents=_documents(res, source),
        debate=_debate(res.get("rounds")),
        facets={"outcome": outcome},
        value=outcome,
        fields=[["wrong answers", ", ".join(map(str, res.get("wrong_answers") or []))]]
        + [[k, v] for k, v in flatten({k: v for k, v in scored.items() if k != "id"})],
    )


def _read(path: Path) -> RunView:
    info = read_json(path / "run.json") or {}
    bench = str(info.get("benchmark", "?"))
    run, records = open_run(
        "ramdocs", f"{bench} run ({info.get('method', '?')})", path, "answers.jsonl"
    )
    run.provenance[:0] = [(k, v) for k, v in flatten(info) if k != "items"]
    files = [v for k, v in run.provenance if k == "data"]
    run.dataset = Path(files[0].split("  ")[0]).name if files else bench
    report = _report(run, info)
    # the report's per-question scores (a few short fields each) are held by id; the
    # records and the page's items are read and made one at a time
    scored = {str(i.get("id")): i for i in report.get("items") or []}
    # the questions' texts and document types come from the data file, shown only beside
    # answers made from exactly those inputs (the record's fingerprint)
    reader = _sources(bench, info.get("task"))
    sources: dict[str, _Shown] = {}
    if reader is not None:
        # read one question at a time; only what the page shows of each is held
        sources = shown_inputs(
            run,
            path,
            records,
            reader,
            lambda s: s.id,
            lambda s: dataclasses.asdict(s.question),
            _Shown.of,
            what="data file",
            without="questions not shown",
            shown="their questions are not shown",
        )
    run.items = lazy_items(
        path / "answers.jsonl", records, lambda r: _item(r, scored.get(r.id), sources.get(r.id))
    )
    run.facets = ["outcome"]
    model = str(info.get("model") or "unpriced")
    tally(run, records, model)
    keys = REPORTS.get(bench, ("", "", ()))[2]
    for key in keys:
        if key in report:
            run.headlines.append(headline(key.replace("_", " "), report, key, percent=True))
    figures = (report.get("published") or {}).get("figures") or {}
    if run.headlines and run.headlines[0].value is not None:
        first = run.headlines[0]
        rows: list[tuple[str, float | None]] = [(f"measured: {model} (n={first.n})", first.value)]
        rows += [(f"paper: {name}", float(v)) for name, v in figures.items()]
        intervals: list[tuple[float, float] | None] = [None] * len(rows)
        if first.low is not None and first.high is not None:
            intervals[0] = (first.low, first.high)  # the run's own interval; the paper has none
        column = (report.get("published") or {}).get("column", "Table 1")
        sub = f"n = {first.n} questions \u00b7 model {model} \u00b7 {run.dataset}"
        sub += f" \u00b7 paper: {column}"
        title = f"{first.name} (%), measured beside published"
        run.charts.append(
            Chart(
                title,
                hbar_svg(
                    title,
                    sub,
                    rows,
                    x_label="%",
                    y_label="model",
                    x_max=100.0,
                    intervals=intervals,
                ),
            )
        )
    return run


KIND = RunKind(
    "ramdocs",
    "RAMDocs / AmbigDocs / FaithEval run",
    has_files("answers.jsonl", "run.json"),
    _read,
    priority=20,
)
