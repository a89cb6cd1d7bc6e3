"""Verification items: a claim with the text of its (gold or retrieved) evidence.

Two sources:

* FEVEROUS claims (:func:`~conflicteval.feverous.claims.iter_claims`) plus the
  Wikipedia database to turn element ids into text (:func:`items_from_claims`);
* the FEVEROUS-S layout used by ProgramFC (:func:`load_feverous_s`): a JSON
  array of ``{id, claim, label, challenge, evidence}`` where ``label`` is
  lower-case ``supports``/``refutes`` and ``evidence`` is already text, one
  ``"page<TAB>sentence"`` line per element.

Evidence text is NFC-normalised by default (the dump is NFD, claims are NFC)
and wiki links ``[[Target|anchor]]`` are reduced to their anchor text, in the
evidence and in the claim (also when the anchor holds brackets, as the IPA
links of the FEVEROUS-S dev file do: ``[[Russian|[ˈzapədʲnʲɪk]])``, where the
link's ``]]`` also closes the anchor's ``[``, becomes ``[ˈzapədʲnʲɪk])``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import Any, Literal

from pydantic import BaseModel, Field

from conflicteval.errors import DataError
from conflicteval.jsonio import load_json
from conflicteval.readers import UniqueIds, id_text

from .claims import FeverousClaim, Label, normalize_label
from .wikidb import WikiDB
from .wikipage import ElementNotFoundError, strip_wiki_links


class EvidencePiece(BaseModel):
    """The text of one evidence element.

    Attributes:
        id: The element id (or a made-up id when the source has none).
        text: The element text.
        title: The page title.
        context: Text of the element's context other than the title
            (section titles, row/column headers), outermost first.
    """

    id: str
    text: str
    title: str | None = None
    context: list[str] = Field(default_factory=list)

    def render(self) -> str:
        """One line for a labeler: ``"Title (context; ...): text"``."""
        head = self.title or ""
        if self.context:
            head = f"{head} ({'; '.join(self.context)})" if head else "; ".join(self.context)
        return f"{head}: {self.text}" if head else self.text


class VerifyItem(BaseModel):
    """One claim to verify.

    Attributes:
        id: Unique id (the claim id, or its position when it has none).
        claim: The claim text.
        label: The gold label, None when unknown.
        evidence: The evidence the labeler sees.
        gold_evidence: Gold evidence sets (element ids), for the FEVEROUS score.
        predicted_evidence: Retrieved element ids, for the FEVEROUS score.
        missing: Element ids that could not be resolved to text (left out of ``evidence``).
        challenge: The claim's challenge category, if known.
    """

    id: str
    claim: str
    label: Label | None = None
    evidence: list[EvidencePiece] = Field(default_factory=list)
    gold_evidence: list[list[str]] | None = None
    predicted_evidence: list[str] | None = None
    missing: list[str] = Field(default_factory=list)
    challenge: str | None = None


EvidenceChoice = Literal["gold_union", "gold_first"]


def items_from_claims(
    claims: Iterable[FeverousClaim],
    db: WikiDB,
    *,
    evidence: EvidenceChoice | Mapping[Any, Sequence[str]] = "gold_union",
    predicted_evidence: Mapping[Any, Sequence[str]] | None = None,
    strip_links: bool = True,
    context: bool = True,
    normalize: Literal["NFC", "NFD", "NFKC", "NFKD"] | None = "NFC",
) -> list[VerifyItem]:
    """Resolve the evidence of FEVEROUS claims to text.

    Args:
        claims: Claims from :func:`~conflicteval.feverous.claims.iter_claims`.
        db: The Wikipedia database.
        evidence: Which element ids the labeler sees: ``"gold_union"`` (every
            gold set, first occurrence order, no repeats), ``"gold_first"``
            (the first gold set), or a mapping claim id → retrieved ids.
        predicted_evidence: Claim id → predicted ids for the FEVEROUS score
            (default: the retrieved ids when ``evidence`` is a mapping).
        strip_links: Reduce wiki links to their anchor text (evidence and claim).
        context: Add section titles and table headers to each piece.
        normalize: Unicode normal form of the evidence text (None: unchanged).

    Returns:
        One item per claim. Ids that are not in the database are listed in
        ``missing`` rather than failing the run.
    """
    if predicted_evidence is None and isinstance(evidence, Mapping):
        predicted_evidence = evidence
    items = []
    for claim in claims:
        key = claim.id if claim.id is not None else claim.index
        if isinstance(evidence, Mapping):
            ids = list(evidence.get(key, evidence.get(str(key), [])))
        elif evidence == "gold_first":
            ids = list(claim.evidence[0].content) if claim.evidence else []
        else:
            ids = claim.element_ids
        pieces, missing = _resolve(db, ids, strip_links, context, normalize)
        predicted = None
        if predicted_evidence is not None:
            predicted = list(predicted_evidence.get(key, predicted_evidence.get(str(key), [])))
        items.append(
            VerifyItem(
                id=str(key),
                claim=strip_wiki_links(claim.claim) if strip_links else claim.claim,
                label=claim.label,
                evidence=pieces,
                gold_evidence=[list(s.content) for s in claim.evidence] if claim.label else None,
                predicted_evidence=predicted,
                missing=missing,
                challenge=claim.challenge,
            )
        )
    return items


def _resolve(
    db: WikiDB,
    ids: Sequence[str],
    strip_links: bool,
    context: bool,
    normalize: str | None,
) -> tuple[list[EvidencePiece], list[str]]:
    def norm(text: str) -> str:
        return unicodedata.normalize(normalize, text) if normalize else text  # type: ignore[arg-type]

    pieces: list[EvidencePiece] = []
    missing: list[str] = []
    for eid in ids:
        try:
            resolved = db.resolve(eid, strip_links=strip_links, context=context)
        except ElementNotFoundError:
            missing.append(eid)
            continue
        # The first context element is the page title, shown as the title.
        extra = [
            norm(t)
            for cid, t in zip(resolved.context, resolved.context_text, strict=True)
            if not cid.endswith("_title") and t
        ]
        pieces.append(
            EvidencePiece(
                id=eid, text=norm(resolved.text), title=norm(resolved.page), context=extra
            )
        )
    return pieces, missing


def load_feverous_s(
    path: str | PathLike[str],
    *,
    strip_links: bool = True,
    normalize: Literal["NFC", "NFD", "NFKC", "NFKD"] | None = "NFC",
) -> list[VerifyItem]:
    """Read a FEVEROUS-S claim file (ProgramFC layout) into verification items.

    Args:
        path: A JSON array of ``{id, claim, label, challenge?, evidence}`` objects.
        strip_links: Reduce wiki links to their anchor text (evidence and claim).
        normalize: Unicode normal form of the evidence text (None: unchanged).

    Raises:
        DataError: The file or a record is malformed (names the file, the
            1-based record and the field).
    """
    data = load_json(path)
    if not isinstance(data, list):
        raise DataError(path, None, None, "expected a JSON array of claims")
    items: list[VerifyItem] = []
    ids = UniqueIds(path, "id", "claim id")
    for number, record in enumerate(data, start=1):
        item = _feverous_s_item(record, path, number, strip_links, normalize)
        ids.add(item.id, number)
        items.append(item)
    return items


def _feverous_s_item(
    record: object,
    path: str | PathLike[str],
    number: int,
    strip_links: bool,
    normalize: str | None,
) -> VerifyItem:
    if not isinstance(record, dict):
        raise DataError(path, number, None, "expected a JSON object")
    for field in ("id", "claim", "label", "evidence"):
        if field not in record:
            raise DataError(path, number, field, "missing")
    claim_id = id_text(path, number, "id", record["id"])
    if not isinstance(record["claim"], str):
        raise DataError(path, number, "claim", "expected a string")
    if not record["claim"].strip():
        raise DataError(path, number, "claim", "empty value")
    label = normalize_label(record["label"]) if isinstance(record["label"], str) else None
    if label is None:
        raise DataError(path, number, "label", f"not a FEVEROUS label: {record['label']!r}")
    text = record["evidence"]
    if not isinstance(text, str):
        raise DataError(path, number, "evidence", "expected 'page<TAB>text' lines")
    pieces: list[EvidencePiece] = []
    for k, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        page, sep, body = line.partition("\t")
        if not sep:
            raise DataError(path, number, "evidence", f"line {k + 1} has no tab: {line[:60]!r}")
        if strip_links:
            body = strip_wiki_links(body)
        if normalize:
            body = unicodedata.normalize(normalize, body)  # type: ignore[arg-type]
            page = unicodedata.normalize(normalize, page)  # type: ignore[arg-type]
        pieces.append(EvidencePiece(id=f"{claim_id}:{k}", text=body.strip(), title=page))
    if not pieces:  # nothing to verify against: never a silent NOT ENOUGH INFO in accuracy
        raise DataError(path, number, "evidence", "empty: no 'page<TAB>text' line")
    challenge = record.get("challenge")
    return VerifyItem(
        id=claim_id,
        claim=strip_wiki_links(record["claim"]) if strip_links else record["claim"],
        label=label,
        evidence=pieces,
        challenge=challenge if isinstance(challenge, str) else None,
    )


def verification_items(
    path: str | PathLike[str],
    *,
    db: str | PathLike[str] | None = None,
    evidence: EvidenceChoice = "gold_union",
    strip_links: bool = True,
    limit: int | None = None,
) -> list[VerifyItem] | None:
    """The verification items of a claim file: a FEVEROUS-S JSON array (evidence text
    included), or a FEVEROUS JSON-lines release whose evidence ``db`` resolves; None for a
    JSON-lines file without ``db``. ``limit``: only the first N claims."""
    if _is_json_array(path):
        items = load_feverous_s(path, strip_links=strip_links)
        return items[:limit] if limit is not None else items
    if db is None:
        return None
    import itertools

    from .claims import iter_claims

    with WikiDB(db) as wiki:
        claims: Iterable[FeverousClaim] = iter_claims(path)
        if limit is not None:
            claims = itertools.islice(claims, limit)
        return items_from_claims(claims, wiki, evidence=evidence, strip_links=strip_links)


def _is_json_array(path: str | PathLike[str]) -> bool:
    from conflicteval.readers import iter_lines

    # The reader layer drops a BOM, decompresses *.gz and refuses UTF-16 or non-UTF-8 text.
    for _lineno, line in iter_lines(path):
        if line.strip():
            return line.lstrip().startswith("[")
    return False
