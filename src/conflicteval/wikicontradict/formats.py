"""Readers for the two JSON layouts: the original nested records and Label Studio exports.

Both carry the same annotation fields (the names of the supplement's Label
Studio configuration), so a Label Studio task is first flattened into the
nested ``annotationResult`` shape and then read by the same code.

What could be confirmed: no public code that reads either layout was found (the
release has no loader; its current file is the CSV). The nested field names come
from the paper's Appendix E and the supplement's Label Studio configuration only;
the file layout (one JSON array of records), the record ``id`` and the id rule
``<record id>-q1``/``-q2`` are **the project's assumptions**, not confirmed on a
real file. The Label Studio task shape (``data``, ``annotations[].result[]`` with
``from_name``/``value``, ``was_cancelled``, ``updated_at``, ``id``) follows Label
Studio's documented JSON export (labelstud.io, "Label Studio Task Format"); how a
text area, choice or taxonomy value is nested under ``value`` follows the same
documentation, but no export of the WikiContradict project was seen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflicteval.errors import DataError
from conflicteval.jsonio import require_mapping
from conflicteval.readers import UniqueIds, id_text
from conflicteval.wikicontradict import fields
from conflicteval.wikicontradict.instance import ContradictionType, WikiContradictInstance

_KEY_CHARS = re.compile(r"[^a-z0-9]")


def _norm_key(key: str) -> str:
    return _KEY_CHARS.sub("", key.lower())


_TYPE_IV = _norm_key("Contradict type IV")


def _object_field(path: Path, n: int, record: dict[str, Any], key: str) -> dict[str, Any]:
    """``record[key]``, which must be a JSON object (else a DataError naming row and field)."""
    value = record.get(key)
    if not isinstance(value, dict):
        raise DataError(path, n, key, "missing or not an object")
    return value


def _record_id(path: Path, n: int, record: dict[str, Any], ids: UniqueIds) -> str:
    """The record's ``id`` (its row number when it has none), checked to be unique."""
    rid = id_text(path, n, "id", record["id"]) if "id" in record else str(n)
    ids.add(rid, n)
    return rid


def read_nested(path: Path, records: Sequence[Any]) -> list[WikiContradictInstance]:
    """Read the original nested JSON (paper Appendix E): one instance per non-empty question.

    Records whose ``wikitag_label_valid`` is ``Invalid`` yield no instance.
    """
    out: list[WikiContradictInstance] = []
    ids = UniqueIds(path, "id", "record id")
    for n, raw in enumerate(records, start=1):
        record = require_mapping(path, n, raw)
        ann = _object_field(path, n, record, "annotationResult")
        rid = _record_id(path, n, record, ids)
        meta = {k: record.get(k) for k in ("title", "url", "tag")}
        for key in ("revised_passage_1", "revised_passage_2"):
            if key in record and key not in ann:
                ann = {**ann, key: record[key]}
        out.extend(
            _from_annotation(path, n, rid, ann, meta, "annotationResult.", same_default=None)
        )
    return out


def read_label_studio(path: Path, tasks: Sequence[Any]) -> list[WikiContradictInstance]:
    """Read a Label Studio "JSON" export made with the supplement's labelling config.

    Tasks without a (non-cancelled) annotation are skipped; when a task has
    several annotations the most recently updated one is used. A missing
    ``wikitag_label_samepassage`` means "Different" (the config's default).
    """
    out: list[WikiContradictInstance] = []
    ids = UniqueIds(path, "id", "task id")
    for n, raw in enumerate(tasks, start=1):
        task = require_mapping(path, n, raw)
        data = _object_field(path, n, task, "data")
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list):
            raise DataError(path, n, "annotations", "not a list")
        rid = _record_id(path, n, task, ids)
        live = [a for a in annotations if isinstance(a, dict) and not a.get("was_cancelled")]
        if not live:
            continue
        chosen = max(
            enumerate(live), key=lambda pair: (str(pair[1].get("updated_at") or ""), pair[0])
        )[1]
        ann = _flatten_results(path, n, chosen.get("result"))
        for key, value in data.items():
            ann.setdefault(key, value)
        meta = {k: data.get(k) for k in ("title", "url", "tag")}
        out.extend(_from_annotation(path, n, rid, ann, meta, "", same_default=False))
    return out


def _flatten_results(path: Path, n: int, results: Any) -> dict[str, Any]:
    """Turn ``annotations[].result[]`` items into a ``from_name -> value`` mapping."""
    if not isinstance(results, list):
        raise DataError(path, n, "annotations.result", "missing or not a list")
    flat: dict[str, Any] = {}
    for item in results:
        if not isinstance(item, dict) or "from_name" not in item:
            raise DataError(path, n, "annotations.result", "an item has no 'from_name'")
        name = str(item["from_name"])
        value = item.get("value")
        if not isinstance(value, dict):
            raise DataError(path, n, name, "result item has no 'value' object")
        if "text" in value:
            text = value["text"]
            flat[name] = "\n".join(text) if isinstance(text, list) else text
        elif "choices" in value:
            choices = value["choices"]
            flat[name] = choices[0] if isinstance(choices, list) and len(choices) == 1 else choices
        elif "taxonomy" in value:
            flat[name] = value["taxonomy"]
        elif "rating" in value:
            flat[name] = value["rating"]
        else:
            flat[name] = value
    return flat


def _from_annotation(
    path: Path,
    n: int,
    rid: str,
    ann: dict[str, Any],
    meta: dict[str, Any],
    prefix: str,
    same_default: bool | None,
) -> list[WikiContradictInstance]:
    valid = fields.optional_text(ann.get("wikitag_label_valid"))
    if valid is not None and valid.strip().lower() == "invalid":
        return []
    row = f"{n} (record id {rid})"
    norm = {_norm_key(k): v for k, v in ann.items()}
    taxonomy = _taxonomy(path, row, ann.get("taxonomy"), prefix)
    ctype = _contradiction_type(path, row, norm, taxonomy, prefix)
    same_raw = ann.get("wikitag_label_samepassage")
    if fields.optional_text(same_raw) is None and same_default is not None:
        same = same_default
    else:
        same = fields.same_passage(same_raw, path, row, prefix + "wikitag_label_samepassage")
    p1 = _passage(path, row, ann, "A", prefix)
    p2_raw = fields.optional_text(ann.get("paragraphB_information_standalone")) or (
        fields.optional_text(ann.get("paragraphB_information"))
    )
    p2 = p2_raw if p2_raw is not None else (p1 if same else None)
    if p2 is None:
        raise DataError(path, row, prefix + "paragraphB_information_standalone", "empty value")
    out = []
    for q in (1, 2):
        question = fields.optional_str(ann.get(f"question{q}"), path, row, f"{prefix}question{q}")
        if question is None:
            continue
        out.append(
            WikiContradictInstance(
                id=f"{rid}-q{q}",
                question=question,
                passage_1=p1,
                passage_2=p2,
                answer_1=fields.required_text(
                    ann.get(f"question{q}_answer1"), path, row, f"{prefix}question{q}_answer1"
                ),
                answer_2=fields.required_text(
                    ann.get(f"question{q}_answer2"), path, row, f"{prefix}question{q}_answer2"
                ),
                contradiction_type=ctype,
                same_passage=same,
                title=str(meta.get("title") or ""),
                url=str(meta.get("url") or ""),
                taxonomy=taxonomy,
                tag=fields.optional_text(meta.get("tag")),
                revised_passage_1=fields.optional_text(ann.get("revised_passage_1")),
                revised_passage_2=fields.optional_text(ann.get("revised_passage_2")),
            )
        )
    if not out:
        raise DataError(
            path, row, prefix + "question1", "empty question (a valid record needs a question)"
        )
    return out


def _passage(path: Path, row: str, ann: dict[str, Any], side: str, prefix: str) -> str:
    """The stand-alone passage, falling back to the raw extracted one when it is blank."""
    key = f"paragraph{side}_information_standalone"
    text = fields.optional_str(ann.get(key), path, row, prefix + key) or fields.optional_str(
        ann.get(f"paragraph{side}_information"), path, row, f"{prefix}paragraph{side}_information"
    )
    if text is None:
        raise DataError(path, row, prefix + key, "empty value")
    return text


def _taxonomy(path: Path, row: str, value: Any, prefix: str) -> list[list[str]] | None:
    if value is None or value == []:
        return None
    if not isinstance(value, list) or not all(isinstance(p, list) for p in value):
        raise DataError(path, row, prefix + "taxonomy", "expected a list of lists of strings")
    return [[str(x) for x in p] for p in value]


def _contradiction_type(
    path: Path,
    row: str,
    norm: dict[str, Any],
    taxonomy: list[list[str]] | None,
    prefix: str,
) -> ContradictionType:
    """Type IV from its own key (any spelling), else from the taxonomy paths."""
    value = norm.get(_TYPE_IV)
    if fields.optional_text(value) is not None:
        return fields.contradiction_type(value, path, row, prefix + "Contradict_type_IV")
    for choice in taxonomy or []:
        if len(choice) >= 2 and _norm_key(choice[0]) == _TYPE_IV:
            return fields.contradiction_type(choice[-1], path, row, prefix + "taxonomy")
    raise DataError(
        path,
        row,
        prefix + "Contradict_type_IV",
        "no contradiction type (neither a 'Contradict type IV' value nor a taxonomy "
        "choice under 'Contradict type IV')",
    )
