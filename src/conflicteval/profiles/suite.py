"""The profile suite as data (``conflicteval-suite/1``) and its item selection.

The suite (``suite.json`` beside this module) lists every benchmark of a profile: the
command of the existing workflow that runs it, its dataset (a registry name), how its items
are read and stratified, and why it is in the suite (docs/profile.md). The items of a size
are chosen by one documented rule, :func:`select_ids` (``stratified-sha256/1``): no random
generator, only sha256, so the same file gives the same ids on every machine and Python.

Item ids are what the rule ranks: a record's own id field where the format has one
(WikiContradict's ``question_ID``, FEVEROUS-S's ``id``), else its position in the file
(``"0"``, ``"1"``, ...; JSON lines, parquet rows). A card stores the ids it selected and the
source file's sha256, so two cards can be checked to cover the same items
(:func:`conflicteval.profiles.card.same_items`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from conflicteval.errors import ConflictEvalError

__all__ = [
    "SIZES",
    "SUITE_SCHEMA",
    "Benchmark",
    "Suite",
    "load_suite",
    "select_ids",
    "stratum_of",
]

SUITE_SCHEMA = "conflicteval-suite/1"
SIZES = ("small", "standard", "full")


@dataclass(frozen=True)
class Benchmark:
    """One row of the suite: a benchmark and method, run by one workflow command.

    Attributes:
        id: The cell's id prefix (``ramdocs.madam``).
        title: For people.
        family: ``inter-context``, ``context-memory`` or ``claim verification``.
        dataset: The dataset's name (the registry's, or the suite's own for a file the
            registry does not hold, e.g. ``feverous-s``); ``--data NAME=PATH`` gives it.
        format: How its items are read: ``jsonl``, ``json-array``, ``wikicontradict-csv``,
            ``parquet``.
        stratum: The stratification key's name (:func:`stratum_of`), or None.
        command: The workflow command and its fixed options (the model, data and run
            directory are added by the profile).
        data_option: The command's option naming the data file.
        judged: Whether a judge step follows (WikiContradict).
        scores: The cell whose answers this one scores with ConflictScore (its input is
            written from them: :mod:`conflicteval.profiles.derived`), or None.
        paper: The paper, by title and arXiv id.
        why: Why it is in the suite.
        provide: How a user provides the data when the registry cannot fetch it.
        ids: Ids stored in the suite per size (where the data could be read).
    """

    id: str
    title: str
    family: str
    dataset: str
    format: str
    stratum: str | None
    command: tuple[str, ...]
    data_option: str
    paper: str
    why: str
    judged: bool = False
    scores: str | None = None
    provide: str | None = None
    ids: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    """The suite: its sizes, selection rule and benchmarks."""

    schema: str
    sizes: Mapping[str, int | None]
    rule: str
    seed: int
    rule_text: str
    benchmarks: tuple[Benchmark, ...]

    def size(self, name: str) -> int | None:
        """Items per benchmark of size ``name`` (None: every item).

        Raises:
            ConflictEvalError: Not one of the suite's sizes.
        """
        if name not in self.sizes:
            raise ConflictEvalError(f"size {name!r}: one of {', '.join(self.sizes)}")
        return self.sizes[name]

    def benchmark(self, benchmark_id: str) -> Benchmark:
        """The benchmark with this id.

        Raises:
            ConflictEvalError: No such benchmark in the suite.
        """
        for b in self.benchmarks:
            if b.id == benchmark_id:
                return b
        raise ConflictEvalError(
            f"benchmark {benchmark_id!r} is not in the suite: "
            + ", ".join(b.id for b in self.benchmarks)
        )


def load_suite(data: Mapping[str, Any] | None = None) -> Suite:
    """The suite shipped with the library (or one given as its JSON object).

    Raises:
        ConflictEvalError: Not of schema ``conflicteval-suite/1``, or a field out of shape.
    """
    if data is None:
        text = resources.files(__package__).joinpath("suite.json").read_text(encoding="utf-8")
        data = json.loads(text)
    if data.get("schema") != SUITE_SCHEMA:
        raise ConflictEvalError(f"suite: schema {data.get('schema')!r}, not {SUITE_SCHEMA!r}")
    try:
        sel = data["selection"]
        benchmarks = tuple(
            Benchmark(
                id=b["id"],
                title=b["title"],
                family=b["family"],
                dataset=b["dataset"],
                format=b["format"],
                stratum=b.get("stratum"),
                command=tuple(b["command"]),
                data_option=b["data_option"],
                paper=b["paper"],
                why=b["why"],
                judged=bool(b.get("judged", False)),
                scores=b.get("scores"),
                provide=b.get("provide"),
                ids={k: tuple(v) for k, v in (b.get("ids") or {}).items()},
            )
            for b in data["benchmarks"]
        )
        suite = Suite(
            schema=data["schema"],
            sizes=dict(data["sizes"]),
            rule=sel["rule"],
            seed=int(sel["seed"]),
            rule_text=sel["text"],
            benchmarks=benchmarks,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConflictEvalError(f"suite: field {exc} missing or out of shape") from None
    ids = [b.id for b in benchmarks]
    if len(set(ids)) != len(ids):
        raise ConflictEvalError("suite: benchmark ids repeat")
    return suite


def _ramdocs(rec: Mapping[str, Any]) -> str:
    gold = rec.get("gold_answers") or []
    docs = rec.get("documents") or []
    misinfo = any(isinstance(d, Mapping) and d.get("type") == "misinfo" for d in docs)
    return f"{'one' if len(gold) <= 1 else 'several'} gold, {'with' if misinfo else 'no'} misinfo"


def _first(value: Any) -> str:
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value)


_STRATA: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "contradictType": lambda r: str(r.get("contradictType") or ""),
    "ramdocs": _ramdocs,
    "conflictqa": lambda r: _first(r.get("ground_truth")),
    "label": lambda r: str(r.get("label") or "").lower(),
    "dataset": lambda r: str(r.get("dataset") or ""),
    "conflictbench": lambda r: str(r.get("source") or ""),
}


def stratum_of(name: str | None, record: Mapping[str, Any]) -> str:
    """The stratum of ``record`` by the key ``name`` (``""`` when the suite names none):

    * ``contradictType``: WikiContradict's contradiction type;
    * ``ramdocs``: one or several gold answers, with or without a misinformation document;
    * ``conflictqa``: the ground truth (StrategyQA: True / False);
    * ``label``: the claim's gold label (FEVEROUS-S);
    * ``dataset``: ClashEval's domain;
    * ``conflictbench``: the item's source benchmark.
    """
    if name is None:
        return ""
    try:
        return _STRATA[name](record)
    except KeyError:
        raise ConflictEvalError(f"suite: unknown stratum {name!r}") from None


def _rank(seed: int, dataset: str, item_id: str) -> str:
    return hashlib.sha256(f"{seed}\x00{dataset}\x00{item_id}".encode()).hexdigest()


def select_ids(
    items: Sequence[tuple[str, str]], size: int | None, *, seed: int, dataset: str
) -> list[str]:
    """The ids ``stratified-sha256/1`` selects from ``items`` (``(id, stratum)`` in file
    order), kept in file order.

    Each stratum's quota is its share of ``size`` by largest remainder (equal remainders go to
    the stratum whose name sorts first); within a stratum, the items with the smallest
    ``sha256("<seed>\\0<dataset>\\0<id>")`` are taken. ``size`` None, or at least the number of
    items, selects every item.

    Raises:
        ConflictEvalError: An id repeats (the rule needs unique ids).
    """
    ids = [i for i, _ in items]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise ConflictEvalError(f"{dataset}: item id {dup!r} repeats (selection needs unique ids)")
    total = len(items)
    if size is None or size >= total:
        return ids
    strata: dict[str, list[str]] = {}
    for item_id, stratum in items:
        strata.setdefault(stratum, []).append(item_id)
    names = sorted(strata)
    exact = {s: size * len(strata[s]) / total for s in names}
    quota = {s: int(exact[s]) for s in names}
    left = size - sum(quota.values())
    for s in sorted(names, key=lambda s: (-(exact[s] - quota[s]), s))[:left]:
        quota[s] += 1
    chosen: set[str] = set()
    for s in names:
        ranked = sorted(strata[s], key=lambda i: _rank(seed, dataset, i))
        chosen.update(ranked[: quota[s]])
    return [i for i in ids if i in chosen]
