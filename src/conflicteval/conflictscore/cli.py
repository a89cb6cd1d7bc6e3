"""Command-line sub-commands of ConflictScore: ``demo`` and ``score``.

``conflicteval demo [--model SPEC] [--base-url URL]``
    The bundled offline demo (see :mod:`conflicteval.conflictscore.demo`).

``conflicteval score --response FILE|- --documents DOCS.jsonl [...]``
    Score one response. DOCS.jsonl has one document per line: a JSON string,
    or an object with ``text`` (and optional ``id``, ``title``); a JSON array
    file works too.

``conflicteval score --input ITEMS.jsonl --out DIR [--dry-run]``
    Score many responses, one per line ``{"id", "response", "documents"}``.
    Writes ``DIR/checkpoint.jsonl`` (resume by running the same command
    again), ``DIR/scores.jsonl`` (one row per response) and
    ``DIR/summary.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.cli_common import (
    add_batch_options,
    add_model_options,
    add_run_options,
    finish,
    model_from_args,
    run_options,
)
from conflicteval.data.cli import record_input
from conflicteval.errors import DataError, UsageError
from conflicteval.executors.batch_cli import batch_command
from conflicteval.jsonio import LazyItems, iter_json_lines, parse_json
from conflicteval.readers import UniqueIds, id_text, read_text

from .factory import DECOMPOSER_KINDS, LABELER_KINDS

if TYPE_CHECKING:  # imported where used: the command line starts without pydantic
    from conflicteval.types import Document

__all__ = ["register"]

DECOMPOSERS = DECOMPOSER_KINDS

LABELERS = LABELER_KINDS

NO_DOCUMENTS = (
    "no documents: a response scored against no documents has no ConflictScore "
    "(every claim would count as unconflicted)"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` and ``score`` sub-commands."""
    demo = subparsers.add_parser(
        "demo",
        help="ConflictScore on a few bundled responses (offline, seconds, no key)",
        description=(
            "Score three bundled responses (one takes a side although its documents conflict, "
            "one hedges, one is about documents that agree) and print a per-claim table with "
            "CS-C and CS-R. Offline by default; --model uses the paper's LLM prompts."
        ),
    )
    add_model_options(demo, what="model for the paper's LLM decomposer and labeler")
    demo.set_defaults(func=_demo)

    score = subparsers.add_parser(
        "score",
        help="ConflictScore (CS-C, CS-R) of a response against its documents",
        description=(
            "Score one response (--response/--documents) or a batch (--input/--out). Without "
            "--model the offline sentence decomposer and lexical labeler are used."
        ),
    )
    one = score.add_argument_group("one response")
    one.add_argument("--response", metavar="FILE|-", help="the response text ('-': stdin)")
    one.add_argument("--documents", metavar="FILE.jsonl", help="its documents, one per line")
    one.add_argument("--json", action="store_true", help="print the full result as JSON")
    batch = score.add_argument_group("batch")
    batch.add_argument(
        "--input",
        metavar="FILE.jsonl",
        help='one row per response: {"id", "response", "documents"}',
    )
    batch.add_argument(
        "--out", metavar="DIR", help="output directory (checkpoint, scores, summary)"
    )
    batch.add_argument(
        "--dry-run",
        action="store_true",
        help="count the model calls and prompt tokens; call nothing",
    )
    add_model_options(
        score,
        what="model for the LLM decomposer and labeler",
        concurrency_help="responses in flight at once (batch)",
    )
    add_run_options(score)
    score.add_argument(
        "--decomposer",
        choices=DECOMPOSERS,
        default=None,
        help="llm (Table 6 prompt), sentence, or whole (default: llm with --model, else sentence)",
    )
    score.add_argument(
        "--labeler",
        choices=LABELERS,
        default=None,
        help="llm (Table 7, one call per pair), llm-per-document, llm-per-claim, "
        "lexical, or nli (default: llm with --model, else lexical)",
    )
    score.add_argument(
        "--nli-model", metavar="DIR", help="local NLI model directory for --labeler nli"
    )
    score.add_argument(
        "--plain-json",
        action="store_true",
        help="llm labelers: ask for the JSON in the prompt only, as the paper does (no "
        "response_format schema); default: send the schema",
    )
    add_batch_options(score)
    score.set_defaults(func=batch_command(_score))


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    model = model_from_args(args) if args.model else None
    return run_demo(model=model)


def _scorer(args: argparse.Namespace) -> Any:
    from .factory import make_decomposer, make_labeler, needs_model
    from .scorer import ConflictScorer

    decomposer = args.decomposer or ("llm" if args.model else "sentence")
    labeler = args.labeler or ("llm" if args.model else "lexical")
    model = None
    if needs_model(decomposer) or needs_model(labeler):
        if not args.model:
            raise UsageError(f"--decomposer {decomposer} / --labeler {labeler} need --model")
        model = model_from_args(args)
    return ConflictScorer(
        make_decomposer(decomposer, model),
        make_labeler(labeler, model, nli_model=args.nli_model, structured=not args.plain_json),
    )


def read_documents(path: str) -> list[Document]:
    """Documents from a JSONL file (strings or objects) or a JSON array file.

    Raises:
        DataError: A malformed file or document (file, line or record, field),
            or a document id given twice.
    """
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows = parse_json(text, path)
        if isinstance(rows, list) and not rows:
            raise DataError(path, None, None, NO_DOCUMENTS)
        listed = [_doc(path, i + 1, row, i) for i, row in enumerate(rows)]
        _unique_documents(path, listed, list(range(1, len(listed) + 1)))
        return listed
    lines: list[int] = []
    docs: list[Document] = []
    for lineno, row in iter_json_lines(path):
        docs.append(_doc(path, lineno, row, len(docs)))
        lines.append(lineno)
    if not docs:
        raise DataError(path, None, None, NO_DOCUMENTS)
    _unique_documents(path, docs, lines)
    return docs


def _unique_documents(path: str, docs: list[Document], rows: list[int]) -> None:
    ids = UniqueIds(path, "id", "document id")
    for doc, row in zip(docs, rows, strict=True):
        ids.add(doc.id, row)


def _doc(path: str, row: int, value: Any, index: int) -> Document:
    from conflicteval.types import Document

    if isinstance(value, dict):
        # Types are checked here, not stringified: an id is a string or an integer,
        # the text and title are strings.
        if "id" in value:
            id_text(path, row, "id", value["id"])
        for key in ("text", "contents", "content", "passage", "title"):
            if value.get(key) is not None and not isinstance(value[key], str):
                raise DataError(path, row, key, f"expected text, got {type(value[key]).__name__}")
    try:
        doc = Document.coerce(value, index)
    except (TypeError, ValueError) as exc:
        raise DataError(path, row, "text", f"not a document: {exc}") from exc
    if not doc.text.strip():
        raise DataError(path, row, "text", "empty value")
    return doc


def _item_reader(path: str) -> Callable[[int, Any], dict[str, Any]]:
    """A converter of one pass over ``path``: a row to a checked item (ids unique in the pass)."""
    seen = UniqueIds(path, "id", "item id")

    def convert(lineno: int, row: Any) -> dict[str, Any]:
        if not isinstance(row, dict):
            raise DataError(path, lineno, None, "each line must be a JSON object")
        if not isinstance(row.get("response"), str):
            raise DataError(path, lineno, "response", "missing or not a string")
        docs = row.get("documents")
        if not isinstance(docs, list):
            raise DataError(path, lineno, "documents", "missing or not a list")
        if not docs:
            raise DataError(path, lineno, "documents", NO_DOCUMENTS)
        item_id = id_text(path, lineno, "id", row["id"]) if "id" in row else str(lineno)
        seen.add(item_id, lineno)
        return {
            "id": item_id,
            "response": row["response"],
            "documents": [_doc(path, lineno, d, i) for i, d in enumerate(docs)],
        }

    return convert


# a mean over no response would read as a run that went well
_NO_ITEMS = "no items (an empty file): nothing to score"


def lazy_items(path: str) -> LazyItems[dict[str, Any]]:
    """Batch rows ``{"id", "response", "documents"}`` of a JSONL file, read when iterated.

    Every pass checks every row (the runner's first pass does so before any
    call); the rows are never all in memory (see :class:`~conflicteval.jsonio.LazyItems`).
    """
    return LazyItems(path, lambda: _item_reader(path), empty=_NO_ITEMS)


def read_items(path: str) -> list[dict[str, Any]]:
    """Batch rows ``{"id", "response", "documents"}`` from a JSONL file, checked."""
    return list(lazy_items(path))


def _score(args: argparse.Namespace) -> int:
    if args.input:
        if args.response or args.documents:
            raise UsageError("use either --input/--out (batch) or --response/--documents")
        if not args.out and not args.dry_run:
            raise UsageError("--input needs --out DIR")
        return _score_batch(args)
    if not (args.response and args.documents):
        raise UsageError(
            "give --response FILE|- and --documents FILE.jsonl, or --input FILE.jsonl --out DIR"
        )
    return _score_one(args)


def _score_one(args: argparse.Namespace) -> int:
    from .scorer import format_result

    response = sys.stdin.read() if args.response == "-" else read_text(args.response)
    documents = read_documents(args.documents)
    scorer = _scorer(args)
    if args.dry_run:  # count, call nothing: as for a batch of one
        return _dry_run(scorer, [{"id": "response", "response": response, "documents": documents}])
    result = scorer.score(response, documents)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(format_result(result))
        u = result.usage
        print(
            f"{result.calls} model calls ({u.cached_calls} from cache{u.truncated_note()}), "
            f"{u.tokens_text()}; {result.n_failed_pairs} failed pairs"
        )
        _print_measured(scorer.labeler)
    # 0: every pair labelled; 1: some pairs (or the decomposition) failed
    return 0 if result.error is None and result.n_failed_pairs == 0 else 1


def _dry_run(scorer: Any, items: LazyItems[dict[str, Any]] | list[dict[str, Any]]) -> int:
    """Print the calls and prompt tokens scoring ``items`` would take; call nothing."""
    report = scorer.dry_run(items)
    if report is None:
        pairs = 0
        for item in items:
            claims = scorer.decomposer.decompose_sync(item["response"]).claims
            pairs += len(claims) * len(item["documents"])
        print(
            f"dry run: {len(items)} responses, {pairs} claim-document pairs, "
            "no model calls (offline decomposer and labeler)"
        )
    else:
        print(f"dry run: {len(items)} responses")
        print(report.summary())
    return 0


def _score_batch(args: argparse.Namespace) -> int:
    items = lazy_items(args.input)  # read twice (check and count, then run): never held
    scorer = _scorer(args)
    if args.dry_run:
        return _dry_run(scorer, items)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = scorer.score_many(
        items,
        checkpoint=out / "checkpoint.jsonl",
        concurrency=args.concurrency,
        keep_records=False,  # records stay in the checkpoint: memory flat in the items
        **run_options(args),
    )
    from conflicteval.pricing import cost_summary
    from conflicteval.runner import write_json_lines

    tally = _ScoreTally()
    write_json_lines(out / "scores.jsonl", map(tally.add, _score_rows(result)))
    cs_c, cs_r = tally.cs_c, tally.cs_r
    summary = {
        "counts": result.counts,
        "resumed": result.resumed,
        "recomputed": result.changed,  # made again because their inputs changed
        "mean_cs_c": sum(cs_c) / len(cs_c) if cs_c else None,
        "mean_cs_c_ci": _mean_ci(cs_c),
        "mean_cs_r": sum(cs_r) / len(cs_r) if cs_r else None,
        "mean_cs_r_ci": _mean_ci(cs_r),
        "cs_c_undefined": tally.cs_c_undefined,
        "cs_r_undefined": tally.cs_r_undefined,
        "failed_pairs": tally.failed_pairs,
        "usage": result.total_usage.model_dump(),
        "usage_this_run": result.usage.model_dump(),
        # tokens sent vs replayed from the cache are in the usage fields; money beside them
        "cost": cost_summary(result.total_usage),
        "cost_this_run": cost_summary(result.usage),
        "decomposer": scorer.decomposer.name,
        "labeler": scorer.labeler.name,
        "executor": result.executor,
        "labeler_measured": _measured(scorer.labeler),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    record_input(out, args.input)  # data.json: the input and its sha256 (the report reads it)

    def fmt(v: float | None) -> str:
        return "undefined" if v is None else f"{v:.4f}"

    from conflicteval.stats import format_ci

    print(
        f"mean CS-C {fmt(summary['mean_cs_c'])} {format_ci(summary['mean_cs_c_ci'])} over "
        f"{len(cs_c)} responses; mean CS-R {fmt(summary['mean_cs_r'])} "
        f"{format_ci(summary['mean_cs_r_ci'])} over {len(cs_r)}; "
        f"{summary['failed_pairs']} failed pairs (95% bootstrap intervals over responses)"
    )
    _print_measured(scorer.labeler)
    written = [out / "scores.jsonl", out / "summary.json"]
    if (out / "checkpoint.jsonl").exists():  # not yet when every item waits for batch results
        written.append(out / "checkpoint.jsonl")
    print(f"wrote {', '.join(map(str, written[:-1]))} and {written[-1]}")
    return finish(result, "responses", stream=sys.stdout, run_dir=out)


def _score_rows(result: Any) -> Iterator[dict[str, Any]]:
    """One scores.jsonl row per record, in input order (records read one at a time)."""
    for rec in result.records:
        res = rec.result if rec.status == "ok" and isinstance(rec.result, dict) else {}
        agg = res.get("aggregate") or {}
        yield {
            "id": rec.id,
            "status": rec.status,
            "cs_c": res.get("cs_c"),
            "cs_r": res.get("cs_r"),
            "n_claims": agg.get("n_claims"),
            "n_conflicted": agg.get("n_conflicted"),
            "n_no_evidence": agg.get("n_no_evidence"),
            "n_failed_pairs": agg.get("n_failed_pairs"),
            "calls": res.get("calls"),
            "error": rec.error,
        }


class _ScoreTally:
    """The summary's figures, gathered row by row as scores.jsonl is written."""

    def __init__(self) -> None:
        # 8 bytes a response (the bootstrap interval needs every value)
        self.cs_c: array[float] = array("d")
        self.cs_r: array[float] = array("d")
        self.cs_c_undefined = 0
        self.cs_r_undefined = 0
        self.failed_pairs = 0

    def add(self, row: dict[str, Any]) -> dict[str, Any]:
        for name in ("cs_c", "cs_r"):
            if row[name] is not None:
                getattr(self, name).append(row[name])
            elif row["status"] == "ok":
                setattr(self, f"{name}_undefined", getattr(self, f"{name}_undefined") + 1)
        self.failed_pairs += row["n_failed_pairs"] or 0
        return row


def _mean_ci(values: Sequence[float]) -> list[float] | None:
    from conflicteval.stats import bootstrap_ci

    return list(bootstrap_ci(values)) if values else None


def _measured(labeler: Any) -> list[dict[str, Any]]:
    """The saved bench results of this labeler (see ``conflicteval bench labeler``)."""
    from conflicteval.bench.store import load_measurements

    keys = ("gold", "macro_f1", "macro_f1_ci", "n", "failed", "created")
    return [{k: r.get(k) for k in keys} for r in load_measurements(labeler)]


def _print_measured(labeler: Any) -> None:
    """The labeler's measured macro-F1 (or how to measure it), beside CS-C and CS-R."""
    from conflicteval.bench.store import measured_lines

    for line in measured_lines(labeler):
        print(line)
