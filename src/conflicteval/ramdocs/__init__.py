"""RAMDocs and MADAM-RAG: questions whose retrieved documents mix ambiguity, misinformation and
noise, and the multi-agent debate that answers them.

From "Retrieval-Augmented Generation with Conflicting Evidence" (Wang, Prasad, Stengel-Eskin,
Bansal; arXiv 2504.13079, COLM 2025). :func:`load_ramdocs` reads the release; :func:`madam`,
:func:`run_method` run the Table 1 methods (``no-rag``, ``rag``, ``madam``) on the model layer;
:func:`exact_match` and :func:`ramdocs_report` score them. See docs/ramdocs.md.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.ramdocs.answers import (
        agent_answer,
        answer_segment,
        answers_unchanged,
        normalize_answer,
    )
    from conflicteval.ramdocs.conflict import conflict_scores
    from conflicteval.ramdocs.data import (
        DOC_TYPES,
        RamDocument,
        RamItem,
        document_counts,
        load_ramdocs,
    )
    from conflicteval.ramdocs.items import ambigdocs_items, questions, ram_question
    from conflicteval.ramdocs.methods import METHODS, Question, answer, call_count, madam
    from conflicteval.ramdocs.metrics import EM_RULE, exact_match
    from conflicteval.ramdocs.published import TABLE1, published
    from conflicteval.ramdocs.report import format_ramdocs, ramdocs_report
    from conflicteval.ramdocs.run import read_run, run_method, run_method_sync

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".answers": "agent_answer answer_segment answers_unchanged normalize_answer",
        ".conflict": "conflict_scores",
        ".data": "DOC_TYPES RamDocument RamItem document_counts load_ramdocs",
        ".items": "ambigdocs_items questions ram_question",
        ".methods": "METHODS Question answer call_count madam",
        ".metrics": "EM_RULE exact_match",
        ".published": "TABLE1 published",
        ".report": "format_ramdocs ramdocs_report",
        ".run": "read_run run_method run_method_sync",
    },
)
