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

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".claims": (
            "LABELS EvidenceSet FeverousClaim Label is_header_record iter_claims load_claims",
            "normalize_label",
        ),
        ".ids": (
            "CELL_TYPES ELEMENT_TYPES ElementId ElementIdError format_element_id from_triple",
            "parse_element_id to_triple",
        ),
        ".items": "EvidencePiece VerifyItem items_from_claims load_feverous_s",
        ".metrics": "LabelMetrics label_metrics",
        ".scorefiles": "load_predictions score_files",
        ".feverous_score": (
            "ClaimScore FeverousScore ScoreInputError gold_evidence_sets score",
            "truncate_predictions",
        ),
        ".verify": (
            "DEFAULT_MAPPING Labeler VerifyRecord VerifyResult combine_relations documents_for",
            "verify verify_sync",
        ),
        ".wikidb": "ResolvedElement WikiDB",
        ".wikipage": "ElementNotFoundError WikiPage strip_wiki_links",
    },
)
