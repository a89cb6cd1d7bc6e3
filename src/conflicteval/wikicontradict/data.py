"""Loading WikiContradict from any of its three layouts, and Table 1 statistics.

The layout is detected from the file's content, never its name:

* text starting with ``[`` or ``{`` is JSON: a list of Label Studio tasks
  (objects with ``annotations`` or ``data``) or of original nested records
  (objects with ``annotationResult``);
* anything else is the CSV release (``question_ID,question,context1,...``),
  with or without a UTF-8 byte-order mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from conflicteval.errors import DataError
from conflicteval.jsonio import parse_json, require_mapping
from conflicteval.readers import PathArg, UniqueIds, id_text, iter_csv_rows, read_text
from conflicteval.wikicontradict import fields
from conflicteval.wikicontradict.formats import read_label_studio, read_nested
from conflicteval.wikicontradict.instance import WikiContradictInstance

CSV_REQUIRED = (
    "question_ID",
    "question",
    "context1",
    "context2",
    "answer1",
    "answer2",
    "contradictType",
    "samepassage",
    "WikipediaArticleTitle",
    "url",
)
"""Columns a CSV file must have (``merged_context`` and ``ref_answer`` are not used)."""

REVISED_FIELDS = ("revised_passage_1", "revised_passage_2")
"""Optional columns/keys holding user-supplied conflict-free passages (templates 5.3/5.4)."""


def load_wikicontradict(path: PathArg | None = None) -> list[WikiContradictInstance]:
    """Load WikiContradict instances from a CSV release, nested JSON or Label Studio export.

    Args:
        path: The file to read. Its layout is detected from its content. None: the
            official CSV release, fetched once into the cache and verified against its
            pinned sha256 (registry name ``wikicontradict``).

    Returns:
        The instances in file order.

    Raises:
        DataError: When the file is malformed: bad JSON, a missing column or
            key, an empty question or answer, an unknown contradiction type,
            or a duplicate id. The error names the file, the row or record
            and the field.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("wikicontradict").path
    p = Path(path)
    text = read_text(p)
    stripped = text.lstrip()
    if not stripped:
        raise DataError(p, None, None, "file is empty")
    if stripped[0] in "[{":
        instances = _read_json(p, text)
    else:
        instances = _read_csv(p, text)
    _check_unique(p, instances)
    return instances


def _read_json(path: Path, text: str) -> list[WikiContradictInstance]:
    data = parse_json(text, path)
    records: list[Any] = data if isinstance(data, list) else [data]
    if not records:
        raise DataError(path, None, None, "the JSON list is empty")
    first = require_mapping(path, 1, records[0])
    if "annotationResult" in first:
        return read_nested(path, records)
    if "annotations" in first or "data" in first:
        return read_label_studio(path, records)
    raise DataError(
        path,
        1,
        None,
        "unrecognised JSON layout: expected nested WikiContradict records (with "
        "'annotationResult') or a Label Studio export (tasks with 'data' and 'annotations'); "
        f"found keys {sorted(first)[:12]}",
    )


def _read_csv(path: Path, text: str) -> list[WikiContradictInstance]:
    out: list[WikiContradictInstance] = []
    ids = UniqueIds(path, "question_ID", "instance id")
    for row in iter_csv_rows(path, required=CSV_REQUIRED, text=text):
        inst = _csv_instance(path, row.number, row.values)
        ids.add(inst.id, row.number)
        out.append(inst)
    if not out:
        raise DataError(path, None, None, "the CSV file has a header but no rows")
    return out


def _csv_instance(path: Path, n: int, row: dict[str, Any]) -> WikiContradictInstance:
    qid = (row.get("question_ID") or "").strip()
    where: int | str = f"{n} (question_ID {qid})" if qid else n
    if None in row:
        raise DataError(path, where, None, "more fields than the header has columns")
    if not qid:
        raise DataError(path, where, "question_ID", "empty value")
    return WikiContradictInstance(
        id=qid,
        question=fields.required_text(row["question"], path, where, "question"),
        passage_1=fields.required_text(row["context1"], path, where, "context1"),
        passage_2=fields.required_text(row["context2"], path, where, "context2"),
        answer_1=fields.required_text(row["answer1"], path, where, "answer1"),
        answer_2=fields.required_text(row["answer2"], path, where, "answer2"),
        contradiction_type=fields.contradiction_type(
            row["contradictType"], path, where, "contradictType"
        ),
        same_passage=fields.same_passage(row["samepassage"], path, where, "samepassage"),
        title=row["WikipediaArticleTitle"] or "",
        url=row["url"] or "",
        revised_passage_1=fields.optional_text(row.get("revised_passage_1")),
        revised_passage_2=fields.optional_text(row.get("revised_passage_2")),
    )


def _check_unique(path: Path, instances: Sequence[WikiContradictInstance]) -> None:
    ids = UniqueIds(path, "id", "instance id")
    for i, inst in enumerate(instances, start=1):
        ids.add(inst.id, i)


def load_revisions(path: PathArg) -> dict[str, tuple[str, str]]:
    """Read user-written revised passages (templates 5.3/5.4) from JSONL or CSV.

    Each row has ``id`` (or ``question_ID``), ``revised_passage_1`` and
    ``revised_passage_2``.

    Args:
        path: A ``.jsonl``/``.json`` file (JSON lines) or a CSV file.

    Returns:
        Mapping from instance id to ``(revised_passage_1, revised_passage_2)``.

    Raises:
        DataError: On a missing or empty field, unreadable content, or no row.
    """
    p = Path(path)
    rows = _read_table(p)
    out: dict[str, tuple[str, str]] = {}
    ids = UniqueIds(p, "id", "instance id")
    for n, row in rows:
        key = "id" if "id" in row else "question_ID"
        ident = row.get(key)
        if ident is None or (isinstance(ident, str) and not ident.strip()):
            raise DataError(p, n, "id", "missing instance id")
        ident = id_text(p, n, key, ident)
        ids.add(ident, n)
        r1 = fields.required_text(row.get("revised_passage_1"), p, n, "revised_passage_1")
        r2 = fields.required_text(row.get("revised_passage_2"), p, n, "revised_passage_2")
        out[ident] = (r1, r2)
    if not out:  # templates 5.3/5.4 would silently have no revised passage to show
        raise DataError(p, None, None, "no revised passages (an empty file or a header only)")
    return out


def add_revisions(
    instances: Iterable[WikiContradictInstance], revisions: dict[str, tuple[str, str]]
) -> list[WikiContradictInstance]:
    """Copies of ``instances`` with revised passages attached where ``revisions`` has them."""
    out = []
    for inst in instances:
        rev = revisions.get(inst.id)
        if rev is None:
            out.append(inst)
        else:
            out.append(
                inst.model_copy(update={"revised_passage_1": rev[0], "revised_passage_2": rev[1]})
            )
    return out


def _read_table(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a JSONL or CSV file as (1-based line/row number, mapping)."""
    text = read_text(path)
    if text.lstrip().startswith(("{", "[")):
        stripped = text.strip()
        if stripped.startswith("["):
            data = parse_json(text, path)
            return [(i, require_mapping(path, i, r)) for i, r in enumerate(data, start=1)]
        rows = []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            rows.append((i, require_mapping(path, i, parse_json(line, path, i))))
        return rows
    return [(r.number, dict(r.values)) for r in iter_csv_rows(path, text=text)]


_YES_NO = re.compile(r"^\s*(yes|no)\s*[.!]?\s*$", re.IGNORECASE)


def is_yes_no(instance: WikiContradictInstance) -> bool:
    """Yes/no-question heuristic: both gold answers are "Yes" or "No" (any case, final period).

    The release has no question-type column; on it this heuristic counts 134
    yes/no questions where the paper's Table 1 reports 133.
    """
    return bool(_YES_NO.match(instance.answer_1) and _YES_NO.match(instance.answer_2))


def summary(instances: Sequence[WikiContradictInstance]) -> dict[str, int]:
    """Table 1 counts the data supports.

    Args:
        instances: Loaded instances.

    Returns:
        ``total``, ``explicit``, ``implicit``, ``same_passage``,
        ``different_passage``, ``yes_no`` and ``wh`` (by :func:`is_yes_no`),
        ``same_passage_differing_text`` (annotated "Same" yet the two passage
        texts differ beyond whitespace) and ``with_revised_passages``.
    """
    same = [i for i in instances if i.same_passage]
    yes_no = sum(1 for i in instances if is_yes_no(i))
    return {
        "total": len(instances),
        "explicit": sum(1 for i in instances if i.contradiction_type == "explicit"),
        "implicit": sum(1 for i in instances if i.contradiction_type == "implicit"),
        "same_passage": len(same),
        "different_passage": len(instances) - len(same),
        "same_passage_differing_text": sum(
            1 for i in same if " ".join(i.passage_1.split()) != " ".join(i.passage_2.split())
        ),
        "yes_no": yes_no,
        "wh": len(instances) - yes_no,
        "with_revised_passages": sum(1 for i in instances if i.has_revised_passages),
    }
