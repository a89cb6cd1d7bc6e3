"""Benchmark items as the methods' :class:`~conflicteval.ramdocs.methods.Question`.

RAMDocs items keep their documents in file order. AmbigDocs (Table 1's AmbigDocs column) is
read with ConflictBench's loader
(:func:`conflicteval.conflictbench.sources.ambigdocs.load_ambigdocs`): every document is a
``correct`` document whose ``answer`` is the answer for its disambiguated entity (its
``title``); the gold answers are the documents' distinct answers (compared after
``normalize_answer``, first spelling kept), and there are no wrong answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike

from conflicteval.conflictbench.items import BenchItem
from conflicteval.ramdocs import prompts
from conflicteval.ramdocs.answers import normalize_answer
from conflicteval.ramdocs.data import RamDocument, RamItem
from conflicteval.ramdocs.methods import Question


def baseline_versions() -> dict[str, str]:
    """The prompt versions of the two baselines (recorded with every result)."""
    return {
        "rag": prompts.prompt_version(prompts.RAG),
        "no-rag": prompts.prompt_version(prompts.NO_RAG),
    }


def ram_question(item: RamItem) -> Question:
    """A RAMDocs item as the methods' input (gold and wrong answers in ``meta``)."""
    docs = tuple(d.text for d in item.documents)
    return Question(
        id=item.id,
        question=item.question,
        documents=docs,
        rag_prompt=prompts.rag_prompt(item.question, docs),
        no_rag_prompt=prompts.no_rag_prompt(item.question),
        meta={
            "gold_answers": list(item.gold_answers),
            "wrong_answers": list(item.wrong_answers),
            "documents": list(docs),
            "prompt_versions": baseline_versions(),
        },
    )


def ambigdocs_items(path: str | PathLike[str] | None = None) -> list[RamItem]:
    """AmbigDocs questions as RAMDocs-shaped items (every document ``correct``)."""
    from conflicteval.conflictbench.sources.ambigdocs import load_ambigdocs

    return [_from_bench(b) for b in load_ambigdocs(path)]


def _from_bench(bench: BenchItem) -> RamItem:
    docs = bench.documents
    gold: list[str] = []
    seen: set[str] = set()
    for d in docs:
        key = normalize_answer(d.meta["answer"])
        if key and key not in seen:
            seen.add(key)
            gold.append(d.meta["answer"])
    titles = tuple(dict.fromkeys(d.title or "" for d in docs))
    return RamItem(
        id=bench.id,
        question=bench.question,
        documents=tuple(RamDocument(d.text, "correct", d.meta["answer"]) for d in docs),
        gold_answers=tuple(gold),
        wrong_answers=(),
        disambig_entity=titles,
    )


def questions(items: Iterable[RamItem]) -> list[Question]:
    """Every item as a :class:`Question`."""
    return [ram_question(i) for i in items]
