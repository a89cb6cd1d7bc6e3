"""Building ConflictBench from its five sources (paper Appendix A).

* **ConflictingQA** keeps its own labels and documents "as they are": a query
  whose pages hold both stances is a conflict item, a one-sided query a
  no-conflict item.
* **AmbigDocs, ContraQA, MacNoise-NQ/-TQA**: a conflict item keeps its record's
  documents. A no-conflict item is the claim's supporting document plus two
  documents of *other* queries (gold IRRELEVANT), drawn with a random generator
  seeded by ``(seed, source)``. "Other" means: a different group (AmbigDocs:
  another ambiguous name; ContraQA: another article; MacNoise: another question),
  a different document id, a different text, and never a synthetic
  (perturbed/fake) passage. The three documents are shuffled with the same generator.
* Several files of one source (e.g. AmbigDocs ``dev.json`` and ``test.json``)
  are pooled. Their record ids would collide (``ambigdocs:17`` in both, or
  MacNoise's list positions), so when a source comes from more than one file
  every id of that source names its file: ``<source>:<file stem>:<record id>``
  (``meta["source_file"]`` keeps the path). The same file given twice for one
  source is refused, and so is any id that is still not unique.
* Each source record is used at most once. Records are shuffled (seeded); the
  first ``n_conf`` conflict-capable ones become conflict items, and the next
  ``n_noconf`` of the rest that have a supporting document become no-conflict
  items. Without explicit ``sizes``, every usable record is used: ConflictingQA keeps
  its own split (two-sided queries are conflict items, one-sided ones no-conflict), the
  other sources are split in the conflict/no-conflict proportion of the paper's Table 1.

Claims are written by a :class:`~conflicteval.conflictbench.claims.ClaimWriter`
after the split (so only used records cost calls), through the model layer and
:func:`conflicteval.runs.run_batch` (cached, checkpointed). A record whose
claim could not be written keeps its template claim, is flagged in
``meta["claim_error"]`` and counted.

The split of each source into items is in ``assembly``; its names stay importable
from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.conflictbench.assembly import (
    NATURAL_SOURCES,
    OTHER_DOCS,
    PAPER_TABLE1,
    assemble,
    draw_other_documents,
)
from conflicteval.conflictbench.claims import ClaimWriter, claim_request
from conflicteval.conflictbench.items import (
    SOURCE_LABELS,
    SOURCES,
    BenchItem,
    write_items,
)
from conflicteval.conflictbench.loader import load
from conflicteval.errors import DataError
from conflicteval.record_errors import reading_record
from conflicteval.tables import markdown_table
from conflicteval.types import Usage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

__all__ = [
    "NATURAL_SOURCES",
    "OTHER_DOCS",
    "PAPER_TABLE1",
    "BuildResult",
    "SourceSpec",
    "abuild_conflictbench",
    "assemble",
    "build_conflictbench",
    "claim_inputs",
    "draw_other_documents",
    "load_sources",
    "table1",
    "write_claims",
]


@dataclass
class SourceSpec:
    """One source to build from.

    Attributes:
        source: Loader name (``"macnoise-nq"`` etc. allowed).
        path: Release file or directory.
        options: Loader options (see :func:`conflicteval.conflictbench.load`).
    """

    source: str
    path: str | PathLike[str] | None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class BuildResult:
    """What :func:`build_conflictbench` produced.

    Attributes:
        items: The built items, by source (Table 1 order), conflict items first.
        counts: ``{source: (n_conflict, n_no_conflict)}``.
        available: ``{source: (records able to be conflict, able to be no-conflict)}``.
        shortfalls: Human-readable notes where requested sizes could not be met.
        claim_failures: Ids of items whose claim could not be written by the model.
        usage: Token usage of claim writing.
        output: The JSONL file written, if any.
    """

    items: list[BenchItem]
    counts: dict[str, tuple[int, int]]
    available: dict[str, tuple[int, int]] = field(default_factory=dict)
    shortfalls: list[str] = field(default_factory=list)
    claim_failures: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    output: Path | None = None

    def table(self) -> str:
        """Markdown table of the built counts next to the paper's Table 1."""
        return table1(self.counts)

    def summary(self) -> str:
        """A few lines: item counts, failures, tokens and their estimated cost."""
        from conflicteval.pricing import cost_text

        lines = [
            f"{len(self.items)} items built"
            + (f" -> {self.output}" if self.output is not None else ""),
            f"claim writing: {len(self.claim_failures)} failures (template claim kept); "
            f"{self.usage.calls} model calls ({self.usage.cached_calls} cached"
            f"{self.usage.truncated_note()}), "
            f"{self.usage.tokens_text()}; {cost_text(self.usage)}",
        ]
        lines += [f"shortfall: {s}" for s in self.shortfalls]
        return "\n".join(lines)


def table1(counts: Mapping[str, tuple[int, int]]) -> str:
    """Markdown table: built (conf / no-conf / total) beside the paper's Table 1."""
    head = ["Category", "#Conf", "#No-conf", "Total", "Paper #Conf", "Paper #No-conf"]
    head.append("Paper Total")
    rows: list[list[object]] = []
    tot = [0, 0, 0, 0]
    for src in SOURCES:
        c, n = counts.get(src, (0, 0))
        pc, pn = PAPER_TABLE1[src]
        tot = [tot[0] + c, tot[1] + n, tot[2] + pc, tot[3] + pn]
        rows.append([SOURCE_LABELS[src], c, n, c + n, pc, pn, pc + pn])
    c, n, pc, pn = tot
    rows.append(["Overall", c, n, c + n, f"{pc:,}", f"{pn:,}", f"{pc + pn:,}"])
    return markdown_table(head, rows)


def claim_inputs(item: BenchItem) -> dict[str, Any]:
    """What one written claim is made from: the writer's request (source, question, answer,
    subject, hint) and nothing else; an item whose request changed is written again."""
    return asdict(claim_request(item))


async def write_claims(
    items: list[BenchItem],
    writer: ClaimWriter,
    *,
    checkpoint: str | PathLike[str] | None = None,
    **run: Unpack[RunKeywords],
) -> tuple[list[BenchItem], list[str], Usage]:
    """Rewrite each item's claim with ``writer`` via :func:`~conflicteval.runs.run_batch`.

    ``**run``: how the batch runs (:class:`~conflicteval.runs.RunKeywords`);
    ``concurrency`` is claims written at once (default 8).

    Returns:
        ``(items, failed_ids, usage)``; a failed item keeps its template claim
        and records the reason in ``meta["claim_error"]``.
    """
    from conflicteval.runs import RunOptions, Stage
    from conflicteval.runs.identity import describe

    async def work(item: BenchItem) -> dict[str, str]:
        return {"claim": await writer.write(claim_request(item))}

    identity = {"task": "conflictbench-claims", "writer": describe(writer)}
    stage = Stage("writing claims", checkpoint, identity=identity, inputs=claim_inputs)
    result = await stage.run(
        work,
        items,
        RunOptions.of(run, concurrency=8),
    )
    out: list[BenchItem] = []
    failed: list[str] = []
    for item, rec in zip(items, result.records, strict=True):
        if rec.status == "ok":
            with reading_record(checkpoint, rec.id):
                claim = rec.result["claim"]
            if not isinstance(claim, str) or not claim.strip():
                raise DataError(checkpoint, rec.id, "result.claim", "missing or not a claim text")
            out.append(item.model_copy(update={"claim": claim, "claim_method": writer.name}))
        else:
            failed.append(item.id)
            out.append(item.model_copy(update={"meta": {**item.meta, "claim_error": rec.error}}))
    return out, failed, result.usage


def load_sources(specs: Iterable[SourceSpec | tuple[Any, ...]]) -> dict[str, list[BenchItem]]:
    """Load every source file, grouped by source, with ids unique across files.

    Items of a source read from more than one file get ids
    ``<source>:<file stem>:<record id>`` (a repeated stem gets ``-2``, ``-3``, ...)
    and ``meta["source_file"]``; a source read from one file keeps its ids.

    Raises:
        ValueError: the same file given twice for one source, or an id that is
            still not unique.
    """
    from collections import Counter

    seen_files: dict[tuple[str, str], int] = {}
    loaded: list[tuple[SourceSpec, list[BenchItem]]] = []
    for n, spec in enumerate(map(_spec, specs)):
        if spec.path is not None:
            key = (spec.source.lower(), str(Path(spec.path).resolve()))
            if key in seen_files:
                raise ValueError(
                    f"{spec.source}: the file {spec.path} is given twice; each source file "
                    "can be used once"
                )
            seen_files[key] = n
        loaded.append((spec, list(load(spec.source, spec.path, **spec.options))))
    files_per_source: dict[str, list[int]] = {}
    for n, (_spec_n, items) in enumerate(loaded):
        for name in dict.fromkeys(str(it.source) for it in items):
            files_per_source.setdefault(name, []).append(n)
    by_source: dict[str, list[BenchItem]] = {}
    for src, spec_numbers in files_per_source.items():
        tags: dict[int, str] = {}
        used: Counter[str] = Counter()
        for n in spec_numbers:
            path = loaded[n][0].path
            stem = Path(path).stem if path is not None else f"file{n + 1}"
            used[stem] += 1
            tags[n] = stem if used[stem] == 1 else f"{stem}-{used[stem]}"
        for n in spec_numbers:
            spec, items = loaded[n]
            for it in items:
                if it.source != src:
                    continue
                if len(spec_numbers) > 1:
                    rest = it.id[len(src) + 1 :] if it.id.startswith(src + ":") else it.id
                    it = it.model_copy(
                        update={
                            "id": f"{src}:{tags[n]}:{rest}",
                            "meta": {**it.meta, "source_file": str(spec.path)},
                        }
                    )
                by_source.setdefault(src, []).append(it)
    ids = Counter(it.id for items in by_source.values() for it in items)
    dupes = sorted(i for i, c in ids.items() if c > 1)
    if dupes:
        shown = ", ".join(dupes[:5]) + (" ..." if len(dupes) > 5 else "")
        raise ValueError(f"{len(dupes)} item ids are not unique across the sources: {shown}")
    return by_source


def _spec(value: SourceSpec | tuple[Any, ...]) -> SourceSpec:
    if isinstance(value, SourceSpec):
        return value
    if len(value) == 2:
        return SourceSpec(value[0], value[1])
    return SourceSpec(value[0], value[1], dict(value[2]))


async def abuild_conflictbench(
    specs: Iterable[SourceSpec | tuple[Any, ...]],
    *,
    output: str | PathLike[str] | None = None,
    seed: int = 0,
    sizes: Mapping[str, tuple[int | None, int | None]] | None = None,
    claim_writer: ClaimWriter | None = None,
    checkpoint: str | PathLike[str] | None = None,
    **run: Unpack[RunKeywords],
) -> BuildResult:
    """Build ConflictBench items from source files and optionally write them as JSONL (async).

    Args:
        specs: Sources to read: :class:`SourceSpec` or ``(source, path[, options])``.
        output: JSONL file to write (the unified schema, one item a line).
        seed: Seed of the record split and of the "other documents" draw.
        sizes: ``{source: (n_conflict, n_no_conflict)}``, e.g. :data:`PAPER_TABLE1`
            to aim at the paper's sizes; default: every usable record.
        claim_writer: Claim writer (e.g. ``LLMClaimWriter(model)``); default:
            the deterministic template claims.
        checkpoint: JSONL checkpoint for claim writing (resumable).
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            claims written at once (default 8).

    Returns:
        A :class:`BuildResult` (``.table()`` puts the counts beside Table 1).
    """
    by_source = load_sources(specs)
    built: dict[str, tuple[list[BenchItem], list[BenchItem]]] = {}
    result = BuildResult(items=[], counts={})
    for src in [s for s in SOURCES if s in by_source]:
        loaded = by_source[src]
        conf, noconf, notes = assemble(src, loaded, seed=seed, sizes=(sizes or {}).get(src))
        built[src] = (conf, noconf)
        result.shortfalls += notes
        n_conf = sum(it.conflict for it in loaded)
        if src in NATURAL_SOURCES:
            result.available[src] = (n_conf, len(loaded) - n_conf)
        else:
            result.available[src] = (n_conf, sum(bool(it.supporting()) for it in loaded))
    items = [it for src in built for part in built[src] for it in part]
    if claim_writer is not None and getattr(claim_writer, "name", "") != "template":
        items, result.claim_failures, result.usage = await write_claims(
            items,
            claim_writer,
            checkpoint=checkpoint,
            **run,
        )
    result.items = items
    for name, (conf, noconf) in built.items():
        result.counts[name] = (len(conf), len(noconf))
    from conflicteval.models.answerers import writes_outputs

    if output is not None and writes_outputs():  # a dry run writes nothing
        write_items(items, output)
        result.output = Path(output)
    return result


def build_conflictbench(
    specs: Iterable[SourceSpec | tuple[Any, ...]], **options: Any
) -> BuildResult:
    """Build ConflictBench items from source files and optionally write them as JSONL.

    Synchronous :func:`abuild_conflictbench`, which documents the options.
    """
    from conflicteval._sync import run_sync

    return run_sync(abuild_conflictbench(specs, **options))
