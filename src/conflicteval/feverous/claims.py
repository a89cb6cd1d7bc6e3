"""Reading FEVEROUS claim files (JSON Lines), streaming.

The release files (``feverous_train_challenges.jsonl``, ``feverous_dev_challenges.jsonl``,
``feverous_test_unlabeled.jsonl``) hold one JSON object a line. Current copies
start with a header record whose values are all empty strings; older copies
do not. The header is detected, never assumed. Records of the unlabeled test
file carry no ``id``, ``label`` or ``evidence``; their position
(:attr:`FeverousClaim.index`) is what a submission is matched by.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from os import PathLike
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from conflicteval import jsonio
from conflicteval.errors import DataError
from conflicteval.readers import UniqueIds

from .ids import ElementId, parse_element_id

Label = Literal["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
"""A FEVEROUS verdict."""

LABELS: tuple[Label, ...] = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")

_KNOWN_KEYS = frozenset({"id", "claim", "label", "evidence", "challenge", "annotator_operations"})


class EvidenceSet(BaseModel):
    """One alternative evidence set of a claim.

    Attributes:
        content: The element ids of the set, in file order (only these are scored).
        context: For each content id, its context ids (title, sections, headers).
    """

    content: list[str]
    context: dict[str, list[str]] = Field(default_factory=dict)

    def elements(self) -> list[ElementId]:
        """The content ids parsed (raises ``ElementIdError`` on a malformed id)."""
        return [parse_element_id(eid) for eid in self.content]


class FeverousClaim(BaseModel):
    """One record of a FEVEROUS claim file.

    Attributes:
        id: The claim id (None in the unlabeled test file).
        claim: The claim text (NFC).
        label: ``SUPPORTS``, ``REFUTES`` or ``NOT ENOUGH INFO`` (None when unlabeled).
        evidence: The alternative evidence sets (empty when unlabeled).
        challenge: The main verification challenge (files since Sept 2021), else None.
        annotator_operations: The annotators' operation log, kept raw, or None.
        extra: Any other keys of the record, unchanged.
        line: The 1-based line of the record in its file.
        index: The 0-based position of the claim in its file, not counting a header.
    """

    id: int | None = None
    claim: str
    label: Label | None = None
    evidence: list[EvidenceSet] = Field(default_factory=list)
    challenge: str | None = None
    annotator_operations: list[Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    line: int | None = None
    index: int = 0

    @property
    def element_ids(self) -> list[str]:
        """Every content id of every evidence set, first occurrence order, no repeats."""
        return list(dict.fromkeys(eid for s in self.evidence for eid in s.content))


def normalize_label(value: str) -> Label | None:
    """Return the canonical label for ``value`` (case and outer spaces ignored), else None."""
    upper = value.strip().upper()
    for label in LABELS:
        if upper == label:
            return label
    return None


def is_header_record(record: object) -> bool:
    """True for the release's header line: a non-empty object whose values are all empty."""
    return (
        isinstance(record, dict)
        and len(record) > 0
        and all(
            v is None or (isinstance(v, (str, list, dict)) and len(v) == 0) for v in record.values()
        )
    )


def iter_json_lines(path: str | PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line, skipping a leading header.

    Reads one line at a time (bounded memory). A UTF-8 byte-order mark is
    ignored; the project's reader rules apply (:mod:`conflicteval.jsonio`).

    Raises:
        DataError: A line is not UTF-8, not valid JSON (or nested too deeply,
            or holding NaN) or not a JSON object.
    """
    first = True
    for lineno, raw in jsonio.iter_json_lines(path):
        record = jsonio.require_mapping(path, lineno, raw)
        if first:
            first = False
            if is_header_record(record):
                continue
        yield lineno, record


def iter_claims(path: str | PathLike[str] | None = None) -> Iterator[FeverousClaim]:
    """Stream the claims of a FEVEROUS JSON-lines file, one line at a time.

    Works on the train/dev release (with or without the header line, with or
    without ``challenge``) and on the unlabeled test file. A ``.gz`` file is
    decompressed on the fly. Memory stays bounded whatever the file size.

    Args:
        path: The ``.jsonl`` (or ``.jsonl.gz``) file. None: the dev release, fetched once
            from the registry (``feverous-dev``).

    Yields:
        One :class:`FeverousClaim` per record, in file order.

    Raises:
        DataError: A line is malformed, or a claim id is given twice; the error
            names the file, the 1-based line(s) and the field (e.g.
            ``evidence[0].content[2]``).
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("feverous-dev").path
    source = path

    def first_line(claim_id: object) -> int | None:
        # Only on a duplicate: the file is read again rather than every line kept.
        return next((n for n, r in iter_json_lines(source) if r.get("id") == claim_id), None)

    ids = UniqueIds(path, "id", "claim id", first_row=first_line)
    for index, (lineno, record) in enumerate(iter_json_lines(path)):
        claim = parse_claim_record(record, path=path, line=lineno, index=index)
        if claim.id is not None:
            ids.add(claim.id, lineno)
        yield claim


def load_claims(path: str | PathLike[str] | None = None) -> list[FeverousClaim]:
    """Read every claim of a FEVEROUS JSON-lines file into a list.

    See :func:`iter_claims` (use it instead for the 71k-line train file when
    the claims need not all be held at once).
    """
    return list(iter_claims(path))


def parse_claim_record(
    record: Mapping[str, Any],
    *,
    path: str | PathLike[str] | None = None,
    line: int | None = None,
    index: int = 0,
) -> FeverousClaim:
    """Check one decoded record and turn it into a :class:`FeverousClaim`.

    Args:
        record: The decoded JSON object.
        path: The file it came from, for error messages.
        line: Its 1-based line, for error messages.
        index: Its position among the file's claims.

    Raises:
        DataError: A field is missing or has the wrong type or value.
    """

    def fail(field: str | None, message: str) -> DataError:
        return DataError(path, line, field, message)

    claim_id = record.get("id")
    if claim_id is not None and (isinstance(claim_id, bool) or not isinstance(claim_id, int)):
        raise fail("id", f"expected an integer, got {claim_id!r}")

    if "claim" not in record:
        raise fail("claim", "missing")
    text = record["claim"]
    if not isinstance(text, str):
        raise fail("claim", f"expected a string, got {type(text).__name__}")
    if not text.strip():
        raise fail("claim", "empty value")

    label: Label | None = None
    if record.get("label") is not None:
        raw_label = record["label"]
        label = normalize_label(raw_label) if isinstance(raw_label, str) else None
        if label is None:
            raise fail("label", f"expected one of {', '.join(LABELS)}, got {raw_label!r}")

    evidence = _parse_evidence(record.get("evidence"), fail)

    challenge = record.get("challenge")
    if challenge is not None and not isinstance(challenge, str):
        raise fail("challenge", f"expected a string, got {type(challenge).__name__}")

    operations = record.get("annotator_operations")
    if operations is not None and not isinstance(operations, list):
        raise fail("annotator_operations", f"expected a list, got {type(operations).__name__}")

    return FeverousClaim(
        id=claim_id,
        claim=text,
        label=label,
        evidence=evidence,
        challenge=challenge,
        annotator_operations=operations,
        extra={k: v for k, v in record.items() if k not in _KNOWN_KEYS},
        line=line,
        index=index,
    )


def _parse_evidence(value: object, fail: Any) -> list[EvidenceSet]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise fail("evidence", f"expected a list of evidence sets, got {type(value).__name__}")
    sets: list[EvidenceSet] = []
    for i, raw in enumerate(value):
        where = f"evidence[{i}]"
        if isinstance(raw, list):  # a bare list of ids (older or hand-made files)
            content_raw: object = raw
            context_raw: object = {}
            content_field = where
        elif isinstance(raw, dict):
            if "content" not in raw:
                raise fail(f"{where}.content", "missing")
            content_raw = raw["content"]
            context_raw = raw.get("context") or {}
            content_field = f"{where}.content"
        else:
            raise fail(where, f"expected an object with 'content', got {type(raw).__name__}")
        if not isinstance(content_raw, list):
            raise fail(content_field, f"expected a list of ids, got {type(content_raw).__name__}")
        for j, eid in enumerate(content_raw):
            if not isinstance(eid, str) or not eid:
                raise fail(f"{content_field}[{j}]", f"expected a non-empty id string, got {eid!r}")
        if not isinstance(context_raw, dict):
            raise fail(f"{where}.context", f"expected an object, got {type(context_raw).__name__}")
        for key, ctx in context_raw.items():
            if not isinstance(ctx, list) or not all(isinstance(c, str) for c in ctx):
                raise fail(f"{where}.context[{key!r}]", "expected a list of id strings")
        sets.append(
            EvidenceSet(
                content=cast(list[str], content_raw),
                context=cast(dict[str, list[str]], context_raw),
            )
        )
    return sets
