"""ContraQA (Pan, Chen, Kan, Wang, IJCNLP-AACL 2023).

Two release layouts are read:

* **Current** (``corpus/wiki_noisy_1M/``): ``corpus.json`` is JSON *lines* despite
  its name, one ``{"id", "contents"}`` per paragraph; fake paragraphs have ids
  ending in ``-FAKE`` (``1020959:::Super_Bowl_50-FAKE``). ``queries.json`` is one
  JSON array of SQuAD-dev-style records (``id``, ``question``,
  ``answers.text``; SQuAD's ``title`` and ``context`` when present).
* **Older BEIR** (``corpus/noisy_wiki_1M/``): ``corpus.jsonl`` lines
  ``{"_id", "title": "<paragraph title>:::<type>", "text", "metadata"}`` where a
  type starting with ``FAKE`` (e.g. ``FAKE_Human``) marks a fake; ``queries.jsonl``
  lines ``{"_id", "text", "metadata"}``; and the qrels TSV ``q_rel_dev.tsv``
  (``query-id``, ``corpus-id``, ``score``).

Confirmed in the original repository (``teacherpeterpan/ContraQA``, HEAD
``36f0477``): ``corpus/wiki_noisy_1M/fake_number.py`` reads ``corpus.json``
line by line (``json.loads``) and finds fakes with ``id.find('-FAKE') >= 0``;
``sparse_retriever.py`` reads ``queries.json`` with ``json.load`` and uses
``sample['id']`` and ``sample['question']``; ``question_answering.py`` uses
``sample['answers']['text']``. The README documents ``{"id", "contents"}``. The
BEIR layout (commit ``4632af8``) is documented there only for the corpus
(``_id``, ``title`` = ``<title>:::<type>``, ``text``, ``metadata``); the
``queries.jsonl`` fields (``_id``, ``text``, ``metadata``) and the qrels columns
are the BEIR convention, **not confirmed**: no code in the repository reads them
and the files are Git-LFS pointers. SQuAD's ``title``/``context`` in
``queries.json`` are not confirmed either.

Linking questions to paragraphs is **unverified** (no file of the current
layout links them, and the data could not be opened). Rules: the qrels when
given; otherwise (current layout) the corpus paragraph whose
whitespace-normalised text equals the SQuAD ``context``. A fake belongs to a
question when the qrels list it, or its id with the ``-FAKE`` suffix removed
is a linked real paragraph (``fake_match="id"``), or (``fake_match="title"``)
it shares a linked real paragraph's title.

Gold (Table 7 rules): a real paragraph SUPPORTS the claim when it states one of
the question's answers (case and spacing ignored; SQuAD answers are spans of
their paragraph), else it is IRRELEVANT; fakes are CONTRADICTS
(``synthetic=True``). Whether a fake rewrites the fact *this* question asks
about (a paragraph can carry several SQuAD questions) cannot be checked without
the data.

Questions linked to no paragraph are skipped (logged). The corpus is streamed
line by line, at most twice, keeping only the linked paragraphs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from conflicteval.conflictbench.claims import ClaimRequest, template_claim
from conflicteval.conflictbench.items import BenchDocument, BenchItem, has_conflict
from conflicteval.conflictbench.sources._common import contains_answer, normalize_question
from conflicteval.errors import DataError
from conflicteval.fingerprint import text_fingerprint
from conflicteval.jsonio import get_str, iter_json_lines, iter_json_records, require_mapping
from conflicteval.readers import get_id, iter_csv
from conflicteval.types import Relation

log = logging.getLogger(__name__)

FAKE_MARK = "-FAKE"


@dataclass
class _Paragraph:
    id: str
    text: str
    title: str | None
    fake: bool
    kind: str | None = None


@dataclass
class _Query:
    id: str
    question: str
    answers: list[str]
    title: str | None = None
    context: str | None = None
    real: list[str] = field(default_factory=list)
    fakes: list[str] = field(default_factory=list)


def _norm(text: str) -> str:
    return text_fingerprint(" ".join(text.split()))


def base_id(doc_id: str) -> str:
    """The real paragraph id a fake id was derived from (``"a:::B-FAKE"`` → ``"a:::B"``)."""
    pos = doc_id.find(FAKE_MARK)
    return doc_id[:pos] if pos >= 0 else doc_id


def _title_from_id(doc_id: str) -> str | None:
    if ":::" not in doc_id:
        return None
    return base_id(doc_id).split(":::", 1)[1].replace("_", " ") or None


def _paragraph(path: Path, row: int | str, record: dict[str, Any], beir: bool) -> _Paragraph:
    if beir:
        doc_id = get_id(path, row, record, "_id")
        text = get_str(path, row, record, "text", allow_empty=True)
        raw_title = get_str(path, row, record, "title", required=False) or ""
        title, _, kind = raw_title.rpartition(":::") if ":::" in raw_title else (raw_title, "", "")
        assert doc_id is not None and text is not None
        fake = kind.upper().startswith("FAKE") or FAKE_MARK in doc_id
        return _Paragraph(doc_id, text, title or None, fake, kind or None)
    doc_id = get_id(path, row, record, "id")
    text = get_str(path, row, record, "contents", allow_empty=True)
    assert doc_id is not None and text is not None
    return _Paragraph(doc_id, text, _title_from_id(doc_id), FAKE_MARK in doc_id)


def _answers(path: Path, row: int | str, record: dict[str, Any]) -> list[str]:
    holder: Any = record.get("answers")
    if holder is None and isinstance(record.get("metadata"), dict):
        holder = record["metadata"].get("answers", record["metadata"].get("answer"))
    if holder is None:
        return []
    if isinstance(holder, dict):
        holder = holder.get("text", [])
    if isinstance(holder, str):
        return [holder]
    if not isinstance(holder, list):
        raise DataError(path, row, "answers", f"unexpected type {type(holder).__name__}")
    out = []
    for a in holder:
        if isinstance(a, dict):
            a = a.get("text")
        if isinstance(a, str) and a.strip():
            out.append(a)
    return out


def _read_queries(path: Path, beir: bool) -> list[_Query]:
    queries = []
    first_row: dict[str, int | str] = {}
    id_field = "_id" if beir else "id"
    for row, raw in iter_json_records(path):
        record = require_mapping(path, row, raw)
        qid = get_id(path, row, record, id_field)
        question = get_str(path, row, record, "text" if beir else "question")
        assert qid is not None and question is not None
        if qid in first_row:
            raise DataError(path, row, id_field, f"duplicate query id (first at {first_row[qid]})")
        first_row[qid] = row
        queries.append(
            _Query(
                qid,
                question,
                _answers(path, row, record),
                title=get_str(path, row, record, "title", required=False),
                context=get_str(path, row, record, "context", required=False),
            )
        )
    return queries


def _read_qrels(path: Path) -> dict[str, list[str]]:
    links: dict[str, list[str]] = {}
    for lineno, cells in iter_csv(path, delimiter="\t"):
        if not "".join(cells).strip():
            continue
        if lineno == 1 and cells[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if len(cells) < 2:
            raise DataError(path, lineno, "corpus-id", "expected query-id<TAB>corpus-id")
        if len(cells) >= 3 and cells[2].strip() not in ("", "1", "1.0"):
            try:
                if float(cells[2]) <= 0:
                    continue
            except ValueError as exc:
                raise DataError(path, lineno, "score", f"not a number: {cells[2]!r}") from exc
        links.setdefault(cells[0].strip(), []).append(cells[1].strip())
    return links


def _stream_corpus(path: Path, beir: bool) -> Iterator[_Paragraph]:
    for lineno, raw in iter_json_lines(path):
        yield _paragraph(path, lineno, require_mapping(path, lineno, raw), beir)


def _resolve_layout(
    path: Path, queries: str | PathLike[str] | None, qrels: str | PathLike[str] | None
) -> tuple[Path, Path, Path | None, bool]:
    if path.is_dir():
        if (path / "corpus.json").is_file():
            corpus, beir = path / "corpus.json", False
            default_queries = path / "queries.json"
            default_qrels = None
        elif (path / "corpus.jsonl").is_file():
            corpus, beir = path / "corpus.jsonl", True
            default_queries = path / "queries.jsonl"
            candidates = sorted(path.glob("q_rel*.tsv")) + sorted(path.glob("qrels*.tsv"))
            default_qrels = candidates[0] if candidates else None
        else:
            raise DataError(path, None, None, "no corpus.json (current) or corpus.jsonl (BEIR)")
    else:
        corpus = path
        beir = path.suffix.lower() == ".jsonl"
        default_queries = None
        default_qrels = None
    q = Path(queries) if queries is not None else default_queries
    if q is None:
        raise ValueError("ContraQA: pass queries=<queries.json or queries.jsonl>")
    if not q.is_file():
        raise DataError(q, None, None, "queries file not found")
    r = Path(qrels) if qrels is not None else default_qrels
    if beir and r is None:
        raise ValueError("ContraQA BEIR layout: pass qrels=<q_rel_dev.tsv>")
    return corpus, q, r, beir


def load_contraqa(
    path: str | PathLike[str] | None = None,
    *,
    queries: str | PathLike[str] | None = None,
    qrels: str | PathLike[str] | None = None,
    fake_match: Literal["id", "title"] = "id",
) -> Iterator[BenchItem]:
    """Yield one item per linked ContraQA question (id ``contraqa:<query id>``).

    Args:
        path: A corpus directory (``wiki_noisy_1M/`` or the BEIR ``noisy_wiki_1M/``)
            or the corpus file itself. None: the polluted corpus and its queries, fetched
            once from the registry (``contraqa-corpus``, ``contraqa-queries``).
        queries: The queries file (default: ``queries.json``/``queries.jsonl`` beside the corpus).
        qrels: A qrels TSV (default for the BEIR layout: ``q_rel*.tsv`` beside the corpus).
        fake_match: How fakes are tied to a real paragraph (see the module docstring).

    Raises:
        DataError: naming file, line and field of a malformed record.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("contraqa-corpus").path
        if queries is None:
            queries = fetch("contraqa-queries").path
    corpus, qpath, rpath, beir = _resolve_layout(Path(path), queries, qrels)
    qs = _read_queries(qpath, beir)
    links = _read_qrels(rpath) if rpath is not None else None
    wanted_ids: set[str] = set()
    wanted_text: dict[str, list[_Query]] = {}
    for q in qs:
        if links is not None:
            wanted_ids.update(links.get(q.id, []))
        elif q.context:
            wanted_text.setdefault(_norm(q.context), []).append(q)
    if links is None and not wanted_text:
        raise DataError(qpath, None, "context", "no qrels given and no query has a SQuAD context")

    kept: dict[str, _Paragraph] = {}
    # Pass 1: linked paragraphs (by id or by text), and fakes of id-linked ones.
    for para in _stream_corpus(corpus, beir):
        if para.id in wanted_ids or base_id(para.id) in wanted_ids:
            kept[para.id] = para
        elif not para.fake and wanted_text and _norm(para.text) in wanted_text:
            kept[para.id] = para
            for q in wanted_text[_norm(para.text)]:
                q.real.append(para.id)
    real_ids = {pid for pid, para in kept.items() if not para.fake}
    real_titles = {para.title for para in kept.values() if not para.fake and para.title}
    needs_pass2 = bool(wanted_text) or fake_match == "title"
    if needs_pass2 and (real_ids or real_titles):
        # Pass 2: fakes of text-linked paragraphs, or fakes sharing a title.
        for para in _stream_corpus(corpus, beir):
            if not para.fake or para.id in kept:
                continue
            if base_id(para.id) in real_ids or (
                fake_match == "title" and para.title in real_titles
            ):
                kept[para.id] = para
    fakes_by_base: dict[str, list[str]] = {}
    fakes_by_title: dict[str, list[str]] = {}
    for pid, para in kept.items():
        if para.fake:
            fakes_by_base.setdefault(base_id(pid), []).append(pid)
            if para.title:
                fakes_by_title.setdefault(para.title, []).append(pid)

    skipped = 0
    for q in qs:
        ids = list(dict.fromkeys((links or {}).get(q.id, []) + q.real))
        ids = [i for i in ids if i in kept]
        real = [i for i in ids if not kept[i].fake]
        fakes = [i for i in ids if kept[i].fake]
        for rid in real:
            fakes += fakes_by_base.get(rid, [])
            if fake_match == "title" and kept[rid].title:
                fakes += fakes_by_title.get(kept[rid].title or "", [])
        fakes = [f for f in dict.fromkeys(fakes) if f not in real]
        if not real and not fakes:
            skipped += 1
            continue
        docs = [_doc(kept[i], _real_gold(kept[i], q.answers)) for i in real] + [
            _doc(kept[i], "CONTRADICTS") for i in fakes
        ]
        answer = q.answers[0] if q.answers else None
        title = q.title or next((kept[i].title for i in real if kept[i].title), None)
        group_key = title or normalize_question(q.question)
        yield BenchItem(
            id=f"contraqa:{q.id}",
            source="contraqa",
            question=q.question,
            claim=template_claim(ClaimRequest("contraqa", q.question, answer)),
            answer=answer,
            documents=docs,
            conflict=has_conflict(d.gold for d in docs),
            group=f"contraqa:{group_key.replace('_', ' ').lower()}",
            meta={
                "answers": q.answers,
                "squad_title": q.title,
                "layout": "beir" if beir else "current",
            },
        )
    if skipped:
        log.warning(
            "ContraQA: %d of %d questions are linked to no paragraph; skipped", skipped, len(qs)
        )


def _real_gold(para: _Paragraph, answers: list[str]) -> Relation:
    """SUPPORTS when the real paragraph states an answer, else IRRELEVANT (Table 7 rules).

    An answer counts when the paragraph holds it as whole words (case and
    spacing ignored; :func:`~conflicteval.conflictbench.sources._common.contains_answer`).
    A SQuAD answer is a span of its context, so the linked paragraph normally
    holds it; a paragraph linked by the qrels that does not state the answer
    says nothing about the claim. Without answers nothing can be checked and
    the paragraph stays SUPPORTS.
    """
    if not answers:
        return "SUPPORTS"
    # Whole words, as the other sources match answers: "1" is not in "1847".
    return "SUPPORTS" if contains_answer(para.text, answers) else "IRRELEVANT"


def _doc(para: _Paragraph, gold: Relation) -> BenchDocument:
    meta: dict[str, Any] = {"fake": para.fake}
    if para.kind:
        meta["type"] = para.kind
    return BenchDocument(
        id=para.id, text=para.text, title=para.title, gold=gold, synthetic=para.fake, meta=meta
    )
