"""FEVEROUS: claims, element ids, the Wikipedia database, the official score, verification.

* :func:`iter_claims` / :func:`load_claims` read the JSON-lines release
  (header line detected, ``challenge`` optional, unlabeled test file too).
* :func:`parse_element_id`, :func:`format_element_id`, :func:`to_triple`,
  :func:`from_triple` handle ids such as ``"Korean Air_cell_1_19_0"``.
* :class:`WikiDB` reads ``feverous_wikiv1.db`` read-only: element text and context.
* :func:`score` is the official FEVEROUS scorer, rule for rule.
* :func:`verify` labels claims against their evidence with a ConflictScore labeler.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from .claims import (
        LABELS,
        EvidenceSet,
        FeverousClaim,
        Label,
        is_header_record,
        iter_claims,
        load_claims,
        normalize_label,
    )
    from .feverous_score import (
        ClaimScore,
        FeverousScore,
        ScoreInputError,
        gold_evidence_sets,
        score,
        truncate_predictions,
    )
    from .ids import (
        CELL_TYPES,
        ELEMENT_TYPES,
        ElementId,
        ElementIdError,
        format_element_id,
        from_triple,
        parse_element_id,
        to_triple,
    )
    from .items import EvidencePiece, VerifyItem, items_from_claims, load_feverous_s
    from .metrics import LabelMetrics, label_metrics
    from .scorefiles import load_predictions, score_files
    from .verify import (
        DEFAULT_MAPPING,
        Labeler,
        VerifyRecord,
        VerifyResult,
        combine_relations,
        documents_for,
        verify,
        verify_sync,
    )
    from .wikidb import ResolvedElement, WikiDB
    from .wikipage import ElementNotFoundError, WikiPage, strip_wiki_links

__all__ = [
    "CELL_TYPES",
    "DEFAULT_MAPPING",
    "ELEMENT_TYPES",
    "LABELS",
    "ClaimScore",
    "ElementId",
    "ElementIdError",
    "ElementNotFoundError",
    "EvidencePiece",
    "EvidenceSet",
    "FeverousClaim",
    "FeverousScore",
    "Label",
    "LabelMetrics",
    "Labeler",
    "ResolvedElement",
    "ScoreInputError",
    "VerifyItem",
    "VerifyRecord",
    "VerifyResult",
    "WikiDB",
    "WikiPage",
    "combine_relations",
    "documents_for",
    "format_element_id",
    "from_triple",
    "gold_evidence_sets",
    "is_header_record",
    "items_from_claims",
    "iter_claims",
    "label_metrics",
    "load_claims",
    "load_feverous_s",
    "load_predictions",
    "normalize_label",
    "parse_element_id",
    "score",
    "score_files",
    "strip_wiki_links",
    "to_triple",
    "truncate_predictions",
    "verify",
    "verify_sync",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "LABELS": (".claims", "LABELS"),
        "EvidenceSet": (".claims", "EvidenceSet"),
        "FeverousClaim": (".claims", "FeverousClaim"),
        "Label": (".claims", "Label"),
        "is_header_record": (".claims", "is_header_record"),
        "iter_claims": (".claims", "iter_claims"),
        "load_claims": (".claims", "load_claims"),
        "normalize_label": (".claims", "normalize_label"),
        "CELL_TYPES": (".ids", "CELL_TYPES"),
        "ELEMENT_TYPES": (".ids", "ELEMENT_TYPES"),
        "ElementId": (".ids", "ElementId"),
        "ElementIdError": (".ids", "ElementIdError"),
        "format_element_id": (".ids", "format_element_id"),
        "from_triple": (".ids", "from_triple"),
        "parse_element_id": (".ids", "parse_element_id"),
        "to_triple": (".ids", "to_triple"),
        "EvidencePiece": (".items", "EvidencePiece"),
        "VerifyItem": (".items", "VerifyItem"),
        "items_from_claims": (".items", "items_from_claims"),
        "load_feverous_s": (".items", "load_feverous_s"),
        "LabelMetrics": (".metrics", "LabelMetrics"),
        "label_metrics": (".metrics", "label_metrics"),
        "load_predictions": (".scorefiles", "load_predictions"),
        "score_files": (".scorefiles", "score_files"),
        "ClaimScore": (".feverous_score", "ClaimScore"),
        "FeverousScore": (".feverous_score", "FeverousScore"),
        "ScoreInputError": (".feverous_score", "ScoreInputError"),
        "gold_evidence_sets": (".feverous_score", "gold_evidence_sets"),
        "score": (".feverous_score", "score"),
        "truncate_predictions": (".feverous_score", "truncate_predictions"),
        "DEFAULT_MAPPING": (".verify", "DEFAULT_MAPPING"),
        "Labeler": (".verify", "Labeler"),
        "VerifyRecord": (".verify", "VerifyRecord"),
        "VerifyResult": (".verify", "VerifyResult"),
        "combine_relations": (".verify", "combine_relations"),
        "documents_for": (".verify", "documents_for"),
        "verify": (".verify", "verify"),
        "verify_sync": (".verify", "verify_sync"),
        "ResolvedElement": (".wikidb", "ResolvedElement"),
        "WikiDB": (".wikidb", "WikiDB"),
        "ElementNotFoundError": (".wikipage", "ElementNotFoundError"),
        "WikiPage": (".wikipage", "WikiPage"),
        "strip_wiki_links": (".wikipage", "strip_wiki_links"),
    },
)
