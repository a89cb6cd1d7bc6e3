"""Splitting one source's records into conflict and no-conflict items (paper Appendix A).

The seeded shuffle, the sizes (the paper's Table 1 proportions by default) and, for a
no-conflict item, the documents of *other* queries drawn beside its supporting
document. Pure: no files, no model calls (see ``builder`` for the whole build).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from conflicteval.conflictbench.items import BenchDocument, BenchItem

PAPER_TABLE1: dict[str, tuple[int, int]] = {
    "contraqa": (424, 374),
    "macnoise-nq": (94, 105),
    "macnoise-tqa": (116, 95),
    "ambigdocs": (291, 360),
    "conflictingqa": (355, 79),
}
"""ConflictBench sizes in the paper's Table 1: (conflict, no-conflict) per source."""

NATURAL_SOURCES = frozenset({"conflictingqa"})
"""Sources whose no-conflict items are their own one-sided records."""

OTHER_DOCS = 2
"""Documents of other queries added to a no-conflict item (Appendix A)."""


def _default_sizes(source: str, usable: int, n_conf_ok: int) -> tuple[int, int]:
    pc, pn = PAPER_TABLE1.get(source, (1, 1))
    want_c = round(usable * pc / (pc + pn))
    n_c = min(want_c, n_conf_ok)
    return n_c, usable - n_c


def _norm_text(text: str) -> str:
    return " ".join(text.split()).lower()


def draw_other_documents(
    item: BenchItem,
    pool: Sequence[tuple[str, str, BenchDocument]],
    rng: random.Random,
    k: int = OTHER_DOCS,
) -> list[BenchDocument]:
    """Draw ``k`` documents of other queries for a no-conflict item.

    Args:
        item: The item the documents are for.
        pool: ``(group, item id, document)`` for every non-synthetic document of the source.
        rng: The seeded generator.
        k: How many to draw.

    Returns:
        Copies of the drawn documents with gold IRRELEVANT and
        ``meta["drawn_from"]`` naming their item. Fewer than ``k`` only when
        the pool has no more eligible documents.
    """
    own_ids = {d.id for d in item.documents}
    own_texts = {_norm_text(d.text) for d in item.documents}

    def eligible(entry: tuple[str, str, BenchDocument], chosen: list[BenchDocument]) -> bool:
        group, owner, doc = entry
        if group == item.group or owner == item.id or doc.synthetic:
            return False
        if doc.id in own_ids or _norm_text(doc.text) in own_texts:
            return False
        return all(c.id != doc.id and _norm_text(c.text) != _norm_text(doc.text) for c in chosen)

    chosen: list[BenchDocument] = []
    owners: list[str] = []
    for _ in range(50 * k):
        if len(chosen) == k or not pool:
            break
        entry = pool[rng.randrange(len(pool))]
        if eligible(entry, chosen):
            chosen.append(entry[2])
            owners.append(entry[1])
    if len(chosen) < k:  # rare: fall back to a scan in seeded order
        order = list(range(len(pool)))
        rng.shuffle(order)
        for i in order:
            if len(chosen) == k:
                break
            if eligible(pool[i], chosen):
                chosen.append(pool[i][2])
                owners.append(pool[i][1])
    return [
        d.model_copy(
            update={
                "gold": "IRRELEVANT",
                "meta": {**d.meta, "drawn_from": o, "source_gold": d.gold},
            }
        )
        for d, o in zip(chosen, owners, strict=True)
    ]


def assemble(
    source: str,
    loaded: Sequence[BenchItem],
    *,
    seed: int = 0,
    sizes: tuple[int | None, int | None] | None = None,
) -> tuple[list[BenchItem], list[BenchItem], list[str]]:
    """Split one source's loaded items into conflict and no-conflict items (Appendix A).

    Args:
        source: The source name (e.g. ``"ambigdocs"``, ``"macnoise-nq"``).
        loaded: The loader's items for that source, in file order.
        seed: Seed of the source's random generator (mixed with the source name).
        sizes: ``(n_conflict, n_no_conflict)``; None (or a None entry) for the default.

    Returns:
        ``(conflict_items, no_conflict_items, shortfall_notes)``.
    """
    rng = random.Random(f"{seed}:{source}")
    order = list(loaded)
    rng.shuffle(order)
    notes: list[str] = []
    natural = source in NATURAL_SOURCES
    conf_ok = [it for it in order if it.conflict]
    if natural:
        noconf_ok = [it for it in order if not it.conflict]
        usable = len(conf_ok) + len(noconf_ok)
    else:
        noconf_ok = [it for it in order if it.supporting()]
        usable = len({it.id for it in conf_ok} | {it.id for it in noconf_ok})
    want_c, want_n = sizes if sizes is not None else (None, None)
    if want_c is None or want_n is None:
        if natural:
            dc, dn = len(conf_ok), len(noconf_ok)
        else:
            dc, dn = _default_sizes(source, usable, len(conf_ok))
        want_c = dc if want_c is None else want_c
        want_n = dn if want_n is None else want_n
    chosen_c = conf_ok[:want_c]
    used = {it.id for it in chosen_c}
    rest = [it for it in noconf_ok if it.id not in used]
    chosen_n = rest[:want_n]
    if len(chosen_c) < want_c:
        notes.append(f"{source}: {len(chosen_c)} of {want_c} conflict items available")
    if len(chosen_n) < want_n:
        notes.append(f"{source}: {len(chosen_n)} of {want_n} no-conflict items available")

    conflict_items = [
        it.model_copy(update={"id": f"{it.id}:conf", "kind": "conflict"}) for it in chosen_c
    ]
    if natural:
        noconf_items = [
            it.model_copy(update={"id": f"{it.id}:noconf", "kind": "no-conflict"})
            for it in chosen_n
        ]
        return conflict_items, noconf_items, notes
    pool = [(it.group, it.id, d) for it in loaded for d in it.documents if not d.synthetic]
    noconf_items = []
    for it in chosen_n:
        support = it.supporting()[0]
        others = draw_other_documents(it, pool, rng)
        if len(others) < OTHER_DOCS:
            notes.append(f"{it.id}: only {len(others)} other documents available")
        docs = [support, *others]
        rng.shuffle(docs)
        noconf_items.append(
            BenchItem.model_validate(
                {
                    **it.model_dump(),
                    "id": f"{it.id}:noconf",
                    "kind": "no-conflict",
                    "documents": [d.model_dump() for d in docs],
                    "conflict": False,
                }
            )
        )
    return conflict_items, noconf_items, notes
