"""MacNoise-NQ / MacNoise-TQA (Hong et al., 2024, "Why so gullible?").

Release layout: one JSON array per file (``NQ_eval_gpt4_dev_256_new_fix.json``,
``TQA_eval_gpt4_dev_256_new_fix.json``; ``.jsonl`` is accepted too), each record::

    {"question": str, "answers": [str, ...],
     "ctxs": [{"id", "title", "text", "text_pert"}, ...],
     "pert_lbls": [0/1, ...], "pert_lbls_XX": [0/1, ...]}

``pert_lbls_XX`` says which passages are swapped for their perturbed text at
perturbation level XX (``00``/``15``/``25``/``35`` in the eval files,
``00``/``25``/``50``/``75``/``100`` in the train files). Both ``text`` and
``text_pert`` start with a ``title: … context:`` prefix (the perturbed one may
carry an invented title and a capitalised ``Context:``); it is stripped
case-insensitively and its title kept as the document title.

Mapping of one record at level L:

* a passage swapped at level L contributes its perturbed text, gold
  CONTRADICTS, id ``"<ctx id>#pert"`` (``synthetic=True``);
* every other passage contributes its original text, gold SUPPORTS when it is
  answer-bearing, else IRRELEVANT. Answer-bearing is the source's own flag
  ``pert_lbls[i] == 1`` (set exactly when the passage contains a gold answer
  string); with ``answer_match="text"``, or when ``pert_lbls`` is absent, it is
  whether the passage contains an answer alias as whole words (case-insensitive);
* with ``keep_original=True`` a swapped passage also keeps its original text
  (graded like an unswapped one). At level ``100`` every answer-bearing passage
  is swapped, so conflict items need ``keep_original=True`` there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any, Literal, cast

from conflicteval.conflictbench.claims import ClaimRequest, template_claim
from conflicteval.conflictbench.items import BenchDocument, BenchItem, SourceName, has_conflict
from conflicteval.conflictbench.sources._common import contains_answer, normalize_question
from conflicteval.errors import DataError
from conflicteval.jsonio import (
    get_list,
    get_str,
    index_of,
    iter_json_records,
    require_mapping,
)
from conflicteval.types import Relation

_PREFIX = re.compile(r"^\s*title:\s*(?P<title>.*?)\s*context:\s*", re.IGNORECASE | re.DOTALL)
_VARIANT = re.compile(r"(?:^|[^A-Z])(TQA|NQ)(?:[^A-Z]|$)")


def strip_prefix(text: str) -> tuple[str | None, str]:
    """Split ``"title: X context: passage"`` into ``("X", "passage")`` (any case).

    Text without the prefix is returned unchanged with title None.
    """
    match = _PREFIX.match(text)
    if not match:
        return None, text.strip()
    return match.group("title").strip() or None, text[match.end() :].strip()


def level_field(level: str | int | None) -> str:
    """The flag field of a level: ``"35"`` → ``"pert_lbls_35"``, None → ``"pert_lbls"``."""
    if level is None:
        return "pert_lbls"
    if isinstance(level, int):
        level = f"{level:02d}"
    level = str(level).strip()
    if not level.isdigit():
        raise ValueError(f"MacNoise level must be digits such as '35' or '100', got {level!r}")
    return f"pert_lbls_{level}"


class UnknownVariantError(ValueError):
    """The MacNoise variant cannot be told from the file name.

    ``str(error)`` names the Python argument (``variant='nq'``);
    ``error.cli_message`` names the command-line option (``--variant nq``).
    """

    def __init__(self, path: str | PathLike[str]) -> None:
        name = Path(path).name
        head = f"cannot tell MacNoise-NQ from -TQA by the file name {name!r}"
        super().__init__(f"{head}: pass variant='nq' or variant='tqa'")
        self.cli_message = f"{head}: give --variant nq or --variant tqa"


def infer_variant(path: str | PathLike[str]) -> str:
    """``"nq"`` or ``"tqa"`` from a file name such as ``NQ_eval_gpt4_dev_256_new_fix.json``.

    Raises:
        UnknownVariantError: the name says neither.
    """
    match = _VARIANT.search(Path(path).name.upper())
    if not match:
        raise UnknownVariantError(path)
    return match.group(1).lower()


def _flags(path: Path, row: int | str, record: dict[str, Any], field: str, n: int) -> list[bool]:
    if field not in record:
        present = sorted(k for k in record if k.startswith("pert_lbls"))
        raise DataError(path, row, field, f"missing perturbation level (record has {present})")
    values = get_list(path, row, record, field)
    if len(values) != n:
        raise DataError(path, row, field, f"has {len(values)} flags for {n} ctxs")
    out = []
    for v in values:
        if v not in (0, 1, True, False):
            raise DataError(path, row, field, f"flag {v!r} is not 0 or 1")
        out.append(bool(v))
    return out


def load_macnoise(
    path: str | PathLike[str] | None = None,
    *,
    level: str | int | None = "35",
    variant: str | None = None,
    keep_original: bool = False,
    answer_match: Literal["pert_lbls", "text"] = "pert_lbls",
) -> Iterator[BenchItem]:
    """Yield one item per MacNoise record (id ``macnoise-<variant>:<list index>``).

    Args:
        path: A MacNoise JSON array (or JSON lines) file.
        level: Perturbation level whose ``pert_lbls_<level>`` flags choose the
            swapped passages (``"35"``, ``"100"``, ...; None: ``pert_lbls``).
        variant: ``"nq"`` or ``"tqa"``; inferred from the file name when None.
        keep_original: Also keep the original text of swapped passages.
        answer_match: How an original passage is judged answer-bearing
            (SUPPORTS): the source's ``pert_lbls`` flags, or a text match.

    Raises:
        DataError: naming file, record and field of a malformed record.
        ValueError: for a bad ``level`` or an unknown variant.
    """
    if path is None:
        from conflicteval.data import fetch

        # A manual source: this says where to download it (or uses a copy placed in the cache).
        path = fetch("macnoise").path
    p = Path(path)
    var = (variant or infer_variant(p)).lower()
    if var not in ("nq", "tqa"):
        raise ValueError(f"variant must be 'nq' or 'tqa', got {variant!r}")
    source = f"macnoise-{var}"
    field = level_field(level)
    for row, raw in iter_json_records(p):
        record = require_mapping(p, row, raw)
        idx = index_of(row)
        question = get_str(p, row, record, "question")
        assert question is not None
        answers = [str(a) for a in get_list(p, row, record, "answers")]
        ctxs = get_list(p, row, record, "ctxs")
        flags = _flags(p, row, record, field, len(ctxs))
        bearing: list[bool] | None = None
        if answer_match == "pert_lbls" and "pert_lbls" in record:
            bearing = _flags(p, row, record, "pert_lbls", len(ctxs))
        docs: list[BenchDocument] = []
        seen_ids: set[str] = set()
        for i, (ctx_raw, swapped) in enumerate(zip(ctxs, flags, strict=True)):
            where = f"ctxs[{i}]"
            if not isinstance(ctx_raw, dict):
                raise DataError(p, row, where, "expected a JSON object")
            raw_id = get_str(p, row, ctx_raw, "id")
            if raw_id is None:  # pragma: no cover - get_str raises
                raise DataError(p, row, f"{where}.id", "missing field")
            # A passage id given twice in one record gets "#<ctx index>" so that
            # document ids stay unique within the item (meta keeps the original).
            ctx_id = raw_id if raw_id not in seen_ids else f"{raw_id}#{i}"
            seen_ids.add(ctx_id)
            for key in ("text",) + (("text_pert",) if swapped else ()):
                if not isinstance(ctx_raw.get(key), str):
                    raise DataError(p, row, f"{where}.{key}", "missing or not a string")
            ctx_title = ctx_raw.get("title")
            meta = {"ctx_index": i, "ctx_id": raw_id}
            if not swapped or keep_original:
                title, text = strip_prefix(ctx_raw["text"])
                hit = bearing[i] if bearing is not None else contains_answer(text, answers)
                gold: Relation = "SUPPORTS" if hit else "IRRELEVANT"
                docs.append(
                    BenchDocument(
                        id=ctx_id,
                        text=text,
                        title=title or ctx_title,
                        gold=gold,
                        meta=meta,
                    )
                )
            if swapped:
                title, text = strip_prefix(ctx_raw["text_pert"])
                docs.append(
                    BenchDocument(
                        id=f"{ctx_id}#pert",
                        text=text,
                        title=title or ctx_title,
                        gold="CONTRADICTS",
                        synthetic=True,
                        meta=meta,
                    )
                )
        if not docs:
            raise DataError(p, row, "ctxs", "no passages")
        meta_out: dict[str, Any] = {"answers": answers, "level": field, "index": idx}
        if "target" in record:
            meta_out["target"] = record["target"]
        answer = answers[0] if answers else None
        yield BenchItem(
            id=f"{source}:{idx}",
            source=cast(SourceName, source),
            question=question,
            claim=template_claim(ClaimRequest("macnoise", question, answer)),
            answer=answer,
            documents=docs,
            conflict=has_conflict(d.gold for d in docs),
            group=f"{source}:{normalize_question(question)}",
            meta=meta_out,
        )
