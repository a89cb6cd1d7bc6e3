"""AmbigDocs (Lee, Ye, Choi, COLM 2024).

Release layout (``train.json``/``dev.json``/``test.json``; HF ``yoonsanglee/AmbigDocs``):
one JSON array of records::

    {"qid": str|int, "ambiguous_entity": str, "question": str,
     "documents": [{"title", "text", "pid", "answer"}, ...]}

A copy exported through the ``datasets`` library stores ``documents`` column-wise
(``{"title": [...], "text": [...], "pid": [...], "answer": [...]}``), and a
column-wise export of the whole table (``{"qid": [...], "question": [...], ...}``)
or JSON lines are accepted too.

Confirmed in the original repository (``lilys012/AmbigDocs``, README and
``src/eval/qa.py``, ``src/eval/eval.py``): each split file is read with
``json.load`` as a list of records; a record has ``question``,
``ambiguous_entity`` and ``documents``, each document ``title`` (the
disambiguated entity), ``text``, ``pid`` and ``answer``. ``qid`` is named in the
README's field list but read by no code there, so its type (string or integer)
is not confirmed; it is normalised with ``str()``. The column-wise layouts are
what the ``datasets`` library writes; the repository does not use them. The
evaluation code strips a trailing ``(disambiguation)`` from ``ambiguous_entity``
before looking for it in the question; the name is kept as given here (it only
groups records).

Mapping (paper App. A: "the question and its transformed claim, and their
grounding docs"): the claim is the *question's* claim, so it keeps the question's
ambiguous name (``The answer to "What is the population of Cleveland?" is
1,485.``), asserting the answer of the claimed document ``k`` (``claimed_index``,
default 0). Every document is about an entity under that name, so under the
paper's labelling rules (Table 7) a document whose ``answer`` equals the claimed
answer SUPPORTS the claim and one with a different answer CONTRADICTS it (it
assigns an incompatible value to the same attribute of the same name). Answers
are compared after lower-casing and removing punctuation, articles and extra
spaces (the SQuAD normalisation the AmbigDocs evaluation also uses). A record
whose documents all give the claimed answer is therefore not a conflict item.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.conflictbench.claims import ClaimRequest, template_claim
from conflicteval.conflictbench.items import BenchDocument, BenchItem, has_conflict
from conflicteval.conflictbench.sources._common import normalize_answer, normalize_question
from conflicteval.errors import DataError
from conflicteval.jsonio import get_str, iter_json_records, require_mapping
from conflicteval.readers import get_id, id_text

DOC_FIELDS = ("title", "text", "pid", "answer")


def _expand_columns(
    path: Path, row: int | str, record: dict[str, Any]
) -> Iterator[tuple[int | str, dict[str, Any]]]:
    """Turn a column-wise table (every value a list) into records."""
    lengths = {k: len(v) for k, v in record.items() if isinstance(v, list)}
    if len(set(lengths.values())) > 1:
        raise DataError(path, row, None, f"column lengths differ: {lengths}")
    n = next(iter(lengths.values()), 0)
    for i in range(n):
        yield f"[{i}]", {k: v[i] for k, v in record.items()}


def _records(path: Path) -> Iterator[tuple[int | str, dict[str, Any]]]:
    for row, raw in iter_json_records(path):
        record = require_mapping(path, row, raw)
        if isinstance(record.get("question"), list):
            yield from _expand_columns(path, row, record)
        else:
            yield row, record


def _documents(path: Path, row: int | str, record: dict[str, Any]) -> list[dict[str, Any]]:
    if "documents" not in record:
        raise DataError(path, row, "documents", "missing field")
    docs = record["documents"]
    if isinstance(docs, dict):  # datasets export: dict of lists
        lengths = {}
        for key in DOC_FIELDS:
            if not isinstance(docs.get(key), list):
                raise DataError(path, row, f"documents.{key}", "missing or not a list")
            lengths[key] = len(docs[key])
        if len(set(lengths.values())) != 1:
            raise DataError(path, row, "documents", f"column lengths differ: {lengths}")
        return [{key: docs[key][i] for key in docs} for i in range(lengths["title"])]
    if not isinstance(docs, list):
        raise DataError(path, row, "documents", f"expected a list, got {type(docs).__name__}")
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict):
            raise DataError(path, row, f"documents[{i}]", "expected a JSON object")
    return docs


def load_ambigdocs(
    path: str | PathLike[str] | None = None, *, claimed_index: int = 0, seed: int | None = None
) -> Iterator[BenchItem]:
    """Yield one item per AmbigDocs record (id ``ambigdocs:<qid>``).

    Args:
        path: An AmbigDocs JSON file (array, column-wise export, or JSON lines); None:
            the test split, fetched once from the registry (``ambigdocs``).
        claimed_index: Which document gives the claim (the last one when a
            record has fewer documents).
        seed: When given, the claimed document is drawn per record with a
            random generator seeded by ``(seed, qid)`` instead of ``claimed_index``.

    Raises:
        DataError: naming file, record and field of a malformed record (also
            for a ``qid`` given twice in the file, a blank document text or answer,
            or a file without any record).
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("ambigdocs").path
    p = Path(path)
    first_row: dict[str, int | str] = {}
    read = 0
    for row, record in _records(p):
        qid = get_id(p, row, record, "qid")
        entity = get_str(p, row, record, "ambiguous_entity")
        question = get_str(p, row, record, "question")
        assert qid is not None and entity is not None and question is not None
        if qid in first_row:
            raise DataError(p, row, "qid", f"duplicate qid {qid!r} (first at {first_row[qid]})")
        first_row[qid] = row
        raw_docs = _documents(p, row, record)
        if not raw_docs:
            raise DataError(p, row, "documents", "no documents")
        if seed is not None:
            k = random.Random(f"{seed}:{qid}").randrange(len(raw_docs))
        else:
            k = min(max(claimed_index, 0), len(raw_docs) - 1)
        docs: list[BenchDocument] = []
        seen: set[str] = set()
        values_by_doc: list[dict[str, str]] = []
        for i, doc in enumerate(raw_docs):
            where = f"documents[{i}]"
            values = {}
            for key in DOC_FIELDS:
                value = doc.get(key)
                if key == "pid" and value is not None:
                    values[key] = id_text(p, row, f"{where}.{key}", value)
                    continue
                if not isinstance(value, str):
                    raise DataError(p, row, f"{where}.{key}", "missing or not a string")
                if key in ("text", "answer") and not value.strip():
                    # a blank document has nothing to answer from; a blank answer is no gold
                    raise DataError(p, row, f"{where}.{key}", "empty value")
                values[key] = value
            values_by_doc.append(values)
        claimed_answer = normalize_answer(values_by_doc[k]["answer"])
        for i, values in enumerate(values_by_doc):
            doc_id = values["pid"]
            if doc_id in seen:
                doc_id = f"{doc_id}#{i}"
            seen.add(doc_id)
            same = normalize_answer(values["answer"]) == claimed_answer
            docs.append(
                BenchDocument(
                    id=doc_id,
                    text=values["text"],
                    title=values["title"],
                    gold="SUPPORTS" if same else "CONTRADICTS",
                    meta={"answer": values["answer"], "pid": values["pid"]},
                )
            )
        claimed = docs[k]
        # The question's claim: it names the ambiguous entity as the question does
        # (no disambiguated subject), so same-name documents really contradict it.
        request = ClaimRequest("ambigdocs", question, answer=claimed.meta["answer"])
        read += 1
        yield BenchItem(
            id=f"ambigdocs:{qid}",
            source="ambigdocs",
            question=question,
            claim=template_claim(request),
            answer=request.answer,
            documents=docs,
            conflict=has_conflict(d.gold for d in docs),
            group=f"ambigdocs:{normalize_question(entity)}",
            meta={
                "ambiguous_entity": entity,
                "qid": qid,
                "claimed_index": k,
                "claimed_title": claimed.title,
            },
        )
    if not read:  # an empty (or whitespace-only) file is a mistake, never "0 questions"
        raise DataError(p, None, None, "no AmbigDocs records (the file is empty)")
