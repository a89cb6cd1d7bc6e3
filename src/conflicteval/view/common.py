"""Helpers every kind's reader shares: records, counts, failure reasons, usage and money,
provenance (the checkpoint's identity and the data record), intervals."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from conflicteval.record_errors import reading_record
from conflicteval.runs import Record, read_checkpoint, read_identity
from conflicteval.runs.records_on_disk import LazyRecords
from conflicteval.types import Usage

from .model import Headline, ItemStream, RunView

__all__ = [
    "LazyRecords",
    "add_usage",
    "bench_items_by_id",
    "counts_of",
    "current_sources",
    "data_provenance",
    "failure_reasons",
    "flatten",
    "headline",
    "identity_provenance",
    "input_file",
    "interval",
    "items_by_id",
    "items_of",
    "lazy_items",
    "models_in",
    "open_run",
    "read_json",
    "read_records",
    "record_item",
    "replies_by_id",
    "run_provenance",
    "stale_ids",
    "stale_note",
    "stream_items",
    "tally",
]

T = TypeVar("T")

LABEL_LETTER = {"SUPPORTS": "S", "CONTRADICTS": "C", "IRRELEVANT": "I"}


def read_records(path: Path) -> list[Record]:
    """A checkpoint's records in file order (an absent file: none)."""
    if not path.exists():
        return []
    return list(read_checkpoint(path).values())


def stream_items(
    path: Path, records: Iterable[T], make: Callable[[T], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """``make(record)`` for every record read from ``path``, in order, one at a time.

    A record whose content is not what conflicteval wrote there (a file edited by hand)
    is a :class:`~conflicteval.errors.DataError` naming ``path``, the record's id (or
    its line, for ``(line, row)`` pairs) and the field where the error says it.
    """
    for rec in records:
        if isinstance(rec, tuple):
            row = rec[0]
        else:
            row = rec.get("id") if isinstance(rec, dict) else getattr(rec, "id", None)
        with reading_record(path, row):
            item = make(rec)
        yield item


def items_of(
    path: Path, records: Iterable[T], make: Callable[[T], dict[str, Any]]
) -> list[dict[str, Any]]:
    """:func:`stream_items` as a list."""
    return list(stream_items(path, records, make))


PAGE_REPLY = 1000
"""Characters of each kept model reply the page shows (the record keeps up to 4,000)."""


def record_item(rec: Record, error: str | None, **fields: Any) -> dict[str, Any]:
    """A record as a report item: its id, status, ``error`` (the record's own, or the reason
    a kind found in its result) and raw reply, then the kind's ``fields``; with the replies of
    its model calls (``calls``: ``[model, reply, cached, finish reason, seconds, characters
    not shown]`` each, the reply cut to :data:`PAGE_REPLY` characters) when the run kept them."""
    item = {"id": rec.id, "status": rec.status, "error": error, "raw": rec.raw, **fields}
    item.update(calls_of(rec))
    return item


def calls_of(rec: Record) -> dict[str, Any]:
    """The item keys that show a record's kept replies (none when the run kept none)."""
    if not rec.calls:
        return {}
    shown: dict[str, Any] = {
        "calls": [
            [
                c.model,
                c.reply[:PAGE_REPLY],
                c.cached,
                c.finish_reason,
                c.latency_s,
                c.left_out + max(0, len(c.reply) - PAGE_REPLY),
            ]
            for c in rec.calls
        ]
    }
    if rec.more_calls:
        shown["more_calls"] = rec.more_calls
    return shown


def replies_by_id(
    run: RunView, records: LazyRecords | Path, rows: str
) -> Callable[[str], dict[str, Any]]:
    """The kept replies (:func:`calls_of`) of the record with an id, read from ``records``
    (the checkpoint, or its path, that a derived file's ``rows`` were made from) when asked.

    Only each id's byte offset is held (one pass builds the index); a record is read when
    its item is made. A checkpoint that cannot be read gives no replies and a note.
    """
    try:
        checkpoint = records if isinstance(records, LazyRecords) else LazyRecords(records)
        offsets = checkpoint.offsets_by_id()
    except Exception as exc:  # the rows are still shown, without their replies
        name = records.path if isinstance(records, LazyRecords) else records
        run.notes.append(f"{name} unreadable ({exc}): the {rows} show no model replies")
        return lambda _id: {}

    def replies(item_id: str) -> dict[str, Any]:
        off = offsets.get(item_id)
        if off is None:
            return {}
        with reading_record(checkpoint.path, item_id):
            return calls_of(checkpoint.at(off))

    return replies


def read_json(path: Path) -> Any:
    """A JSON file's content, or None when it is absent or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def counts_of(records: Iterable[Record]) -> dict[str, int]:
    """Items per status, ``total`` and ``truncated`` (replies cut off by max_tokens)."""
    counts: Counter[str] = Counter()
    truncated = 0
    n = 0
    for r in records:
        counts[r.status] += 1
        truncated += r.usage.truncated
        n += 1
    out = {"ok": counts.get("ok", 0), "parse_error": 0, "model_error": 0}
    out.update(counts)
    out["total"] = n
    out["truncated"] = truncated
    return out


def failure_reasons(
    failed: Iterable[tuple[str, str | None]], limit: int = 5
) -> list[tuple[str, int, str]]:
    """``[(reason, count, example id)]`` of ``(id, error)`` pairs, most common first."""
    groups: dict[str, list[str]] = {}
    for item_id, error in failed:
        key = " ".join((error or "no reason recorded").split())[:200]
        groups.setdefault(key, []).append(item_id)
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]
    return [(reason, len(ids), ids[0]) for reason, ids in ranked]


def add_usage(records: Iterable[Record], usage: Usage | None = None) -> Usage:
    """The summed usage of ``records`` (added into ``usage`` when given)."""
    total = usage if usage is not None else Usage()
    for r in records:
        total.add(r.usage)
    return total


def tally(run: RunView, records: Sequence[Record], model: str) -> None:
    """Set ``run``'s counts, failures (its records that did not end ok) and usage (all of its
    records' usage, priced as ``model``)."""
    usage = Usage()
    failed: list[tuple[str, str | None]] = []

    def each() -> Iterator[Record]:  # one pass over the records (they may be read from disk)
        for r in records:
            usage.add(r.usage)
            if r.status != "ok":
                failed.append((r.id, r.error))
            yield r

    run.counts = counts_of(each())
    run.failures = failure_reasons(failed)
    run.usage = usage_view({model: usage})


def usage_view(per_model: Mapping[str, Usage]) -> dict[str, Any]:
    """Tokens and calls summed over models, and the estimated money of the priced ones."""
    from conflicteval.pricing import estimate, format_usd, source_note

    total = Usage()
    cost = 0.0
    priced: list[str] = []
    unpriced: list[str] = []
    for model, u in per_model.items():
        total.add(u)
        if not u.calls or u.calls == u.cached_calls:
            continue  # nothing was sent: nothing to pay
        dollars = estimate(model, u.prompt_tokens, u.completion_tokens)
        if dollars is None:
            unpriced.append(model)
        else:
            cost += dollars
            priced.append(model)
    view: dict[str, Any] = total.model_dump()
    if priced:
        view["cost"] = f"{format_usd(cost)} ({source_note()})"
        if total.cached_calls:  # a cached call's tokens are recorded, but cost nothing
            view["cost"] += (
                f"; an upper bound: it counts the tokens of the {total.cached_calls} calls "
                "answered from the cache"
            )
    if unpriced:
        view["unpriced"] = ", ".join(unpriced)
    return view


def interval(obj: Mapping[str, Any] | None, key: str) -> tuple[float | None, float | None]:
    """The interval recorded beside ``obj[key]`` as ``<key>_ci``, or ``(None, None)``.

    Accepts ``[low, high]`` and ``{"low", "high"}`` (or ``lo``/``hi``, ``lower``/``upper``).
    """
    if not obj:
        return None, None
    ci = obj.get(f"{key}_ci")
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return _num(ci[0]), _num(ci[1])
    if isinstance(ci, Mapping):
        for lo, hi in (("low", "high"), ("lo", "hi"), ("lower", "upper")):
            if lo in ci and hi in ci:
                return _num(ci[lo]), _num(ci[hi])
    return None, None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def headline(
    name: str,
    obj: Mapping[str, Any] | None,
    key: str,
    *,
    n: int | None = None,
    percent: bool = False,
    note: str = "",
) -> Headline:
    """A headline number read from ``obj[key]``, with ``obj[key + "_ci"]`` when present.

    ``obj[key]`` may also be a metric object ``{"value", "ci": [low, high], "n"}`` (the form
    the library's bootstrap intervals take in a run's JSON).
    """
    raw = obj.get(key) if obj else None
    if isinstance(raw, Mapping):
        low, high = interval({"v_ci": raw.get("ci")}, "v")
        count = raw.get("n")
        n = int(count) if isinstance(count, int) and not isinstance(count, bool) else n
        return Headline(name, _num(raw.get("value")), low, high, n=n, percent=percent, note=note)
    low, high = interval(obj, key)
    return Headline(name, _num(raw), low, high, n=n, percent=percent, note=note)


def flatten(value: Any, prefix: str = "", depth: int = 4) -> list[tuple[str, str]]:
    """``[(dotted key, text)]`` of a nested JSON value, for the provenance table."""
    if isinstance(value, Mapping) and depth > 0:
        out: list[tuple[str, str]] = []
        for k, v in value.items():
            out += flatten(v, f"{prefix}.{k}" if prefix else str(k), depth - 1)
        return out
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return [(prefix, ", ".join(str(v) for v in value))]
    if value is None or value == "":
        return []
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [(prefix, text if len(text) <= 300 else text[:297] + "...")]


def identity_provenance(checkpoint: Path) -> list[tuple[str, str]]:
    """What produced a checkpoint (its recorded identity), flattened; none recorded: []."""
    try:
        ident = read_identity(checkpoint)
    except Exception:  # an unreadable identity file is shown as such, not fatal to the view
        return [("identity", f"unreadable: {checkpoint}.meta.json")]
    return flatten(ident) if ident else []


def open_run(
    kind: str, title: str, run_dir: Path, records: str = "checkpoint.jsonl"
) -> tuple[RunView, LazyRecords]:
    """A kind's view of ``run_dir`` and the records of its ``records`` file (read one at a
    time from the file each time they are iterated), the view's provenance set
    (:func:`run_provenance`)."""
    run = RunView(kind, title, str(run_dir))
    run.provenance = run_provenance(run_dir, records)
    with reading_record(run_dir / records):
        return run, LazyRecords(run_dir / records)


def lazy_items(path: Path, records: Sequence[T], make: Callable[[T], dict[str, Any]]) -> ItemStream:
    """The items ``make(record)`` of ``records`` (read from ``path``), made anew one at a
    time each time they are iterated (:func:`stream_items`), never all held."""
    return ItemStream(lambda: stream_items(path, records, make), len(records))


def run_provenance(run_dir: Path, records: str = "checkpoint.jsonl") -> list[tuple[str, str]]:
    """What produced the run (the identity of its records file), then its data files."""
    return identity_provenance(run_dir / records) + data_provenance(run_dir)


def data_provenance(run_dir: Path) -> list[tuple[str, str]]:
    """The run's data files with their sha256 (``data.json``, written by the data commands)."""
    record = read_json(run_dir / "data.json")
    out: list[tuple[str, str]] = []
    files = record.get("files", []) if isinstance(record, dict) else []
    for f in files if isinstance(files, list) else []:
        if isinstance(f, dict):
            text = str(f.get("path", "?"))
            if f.get("sha256"):
                text += f"  sha256 {f['sha256']}"
            if f.get("name"):
                text = f"{f['name']}: {text}"
            out.append(("data", text))
    return out


def input_file(run_dir: Path) -> Path | None:
    """The first data file ``data.json`` records that is still there (None: none)."""
    record = read_json(run_dir / "data.json")
    files = record.get("files", []) if isinstance(record, dict) else []
    for f in files if isinstance(files, list) else []:
        if isinstance(f, dict) and f.get("path") and Path(str(f["path"])).is_file():
            return Path(str(f["path"]))
    return None


def items_by_id(
    run: RunView, run_dir: Path, read: Callable[[Path], Iterable[Any]], what: str, without: str
) -> dict[str, Any]:
    """The run's input items by ``id``, read by ``read`` from :func:`input_file`.

    A file that is gone gives ``{}``; one ``read`` fails on gives ``{}`` and a note naming
    ``what`` it is and what the view does ``without`` it (the run is still shown).
    """
    source = input_file(run_dir)
    if source is None:
        return {}
    try:
        return {item.id: item for item in read(source)}
    except Exception as exc:  # the run is still shown, without the input's texts
        run.notes.append(f"{what} {source} unreadable ({exc}): {without}")
        return {}


def current_sources(
    run: RunView,
    records: Iterable[Record],
    sources: Mapping[str, T],
    inputs: Callable[[T], Any],
    *,
    what: str,
    shown: str,
) -> dict[str, T]:
    """The sources (input rows, items) by id that each record was made from.

    A record's source is kept when ``inputs(source)`` has the fingerprint the record carries.
    One made from other contents (the ``what`` file edited since the run), or carrying no
    fingerprint, or whose source cannot be read as inputs, is left out, so new texts are
    not shown beside old labels; a note on ``run`` counts them and says what is ``shown``
    instead (:func:`stale_ids`).
    """
    stale = stale_ids(run, records, sources, inputs, what=what, shown=shown)
    return {rec.id: sources[rec.id] for rec in records if rec.id in sources and rec.id not in stale}


def stale_ids(
    run: RunView,
    records: Iterable[Record],
    sources: Mapping[str, T],
    inputs: Callable[[T], Any],
    *,
    what: str,
    shown: str,
) -> set[str]:
    """The ids of the records whose source in ``sources`` is not what they were made from
    (see :func:`current_sources`), with the note on ``run``; one source looked at a time."""
    from conflicteval.fingerprint import input_fingerprint

    def made_from(rec: Record, source: T) -> bool:
        if rec.inputs is None:
            return False
        try:
            return rec.inputs == input_fingerprint(inputs(source))
        except (TypeError, ValueError):
            return False

    stale: set[str] = set()
    for rec in records:
        if rec.id in sources and not made_from(rec, sources[rec.id]):
            stale.add(rec.id)
    stale_note(run, len(stale), what=what, shown=shown)
    return stale


def stale_note(run: RunView, edited: int, *, what: str, shown: str) -> None:
    """The note on ``run`` counting ``edited`` records made from other contents than the
    ``what`` file now holds, and what is ``shown`` instead (none when there are none)."""
    if edited:
        run.notes.append(
            f"{edited} record{'s' if edited != 1 else ''} made from other contents than the "
            f"{what} now holds (edited since the run): {shown}"
        )


def bench_items_by_id(run: RunView, run_dir: Path, without: str) -> dict[str, Any]:
    """:func:`items_by_id` of a run whose input is a ConflictBench items file."""
    from conflicteval.conflictbench import read_items

    return items_by_id(run, run_dir, read_items, "items file", without)


def models_in(provenance: Sequence[tuple[str, str]]) -> list[str]:
    """Model names mentioned in a flattened identity (keys ending in ``model``)."""
    seen: list[str] = []
    for key, value in provenance:
        if key.split(".")[-1] == "model" and value not in seen and "/" in value:
            seen.append(value)
    return seen
