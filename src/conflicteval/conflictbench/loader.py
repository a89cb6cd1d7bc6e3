"""``load(source, path, **options)``: the public entry to the source loaders."""

from __future__ import annotations

from collections.abc import Iterator
from os import PathLike
from typing import Any

from conflicteval._sync import run_sync
from conflicteval.conflictbench.claims import ClaimWriter, claim_request
from conflicteval.conflictbench.items import BenchItem
from conflicteval.conflictbench.sources import (
    load_ambigdocs,
    load_conflictingqa,
    load_contraqa,
    load_macnoise,
)

LOADERS = ("conflictingqa", "ambigdocs", "contraqa", "macnoise")
"""Source names :func:`load` accepts (``macnoise-nq``/``macnoise-tqa`` also work)."""


def load(
    source: str,
    path: str | PathLike[str] | None = None,
    *,
    claim_writer: ClaimWriter | None = None,
    seed: int | None = None,
    **options: Any,
) -> Iterator[BenchItem]:
    """Stream unified :class:`BenchItem` objects from one source's release files.

    Args:
        source: ``"conflictingqa"``, ``"ambigdocs"``, ``"contraqa"`` or ``"macnoise"``
            (``"macnoise-nq"``/``"macnoise-tqa"`` fix the variant).
        path: The release file (or, for ContraQA, the corpus directory). None: the pinned
            release from the dataset registry (AmbigDocs, ContraQA; ConflictingQA and MacNoise
            are on hosts that need a browser, so the error says how to get them).
        claim_writer: Rewrites each item's claim (e.g. an
            :class:`~conflicteval.conflictbench.claims.LLMClaimWriter`); default:
            the deterministic template claim the loader already wrote.
        seed: AmbigDocs: draw the claimed document with this seed (other
            sources are deterministic and ignore it).
        **options: Source options: MacNoise ``level`` (``"35"``, ``"100"``, ...),
            ``variant``, ``keep_original``; AmbigDocs ``claimed_index``;
            ConflictingQA ``allow_pickle``, ``text_field``; ContraQA ``queries``,
            ``qrels``, ``fake_match``.

    Raises:
        ValueError: for an unknown source or option.
        DataError: for a malformed record (file, record and field named).
    """
    name = source.strip().lower()
    if name in ("macnoise-nq", "macnoise-tqa"):
        options.setdefault("variant", name.split("-")[1])
        name = "macnoise"
    if name == "conflictingqa":
        items = load_conflictingqa(path, **options)
    elif name == "ambigdocs":
        items = load_ambigdocs(path, seed=seed, **options)
    elif name == "contraqa":
        items = load_contraqa(path, **options)
    elif name == "macnoise":
        items = load_macnoise(path, **options)
    else:
        raise ValueError(f"unknown ConflictBench source {source!r}; expected one of {LOADERS}")
    if claim_writer is None or getattr(claim_writer, "name", "") == "template":
        yield from items
        return
    for item in items:
        claim = run_sync(claim_writer.write(claim_request(item)))
        yield item.model_copy(update={"claim": claim, "claim_method": claim_writer.name})
