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

__all__ = [
    "DOC_TYPES",
    "EM_RULE",
    "METHODS",
    "TABLE1",
    "Question",
    "RamDocument",
    "RamItem",
    "agent_answer",
    "ambigdocs_items",
    "answer",
    "answer_segment",
    "answers_unchanged",
    "call_count",
    "conflict_scores",
    "document_counts",
    "exact_match",
    "format_ramdocs",
    "load_ramdocs",
    "madam",
    "normalize_answer",
    "published",
    "questions",
    "ram_question",
    "ramdocs_report",
    "read_run",
    "run_method",
    "run_method_sync",
]

_lazy.install(
    __name__,
    {
        "agent_answer": ("conflicteval.ramdocs.answers", "agent_answer"),
        "answer_segment": ("conflicteval.ramdocs.answers", "answer_segment"),
        "answers_unchanged": ("conflicteval.ramdocs.answers", "answers_unchanged"),
        "normalize_answer": ("conflicteval.ramdocs.answers", "normalize_answer"),
        "conflict_scores": ("conflicteval.ramdocs.conflict", "conflict_scores"),
        "DOC_TYPES": ("conflicteval.ramdocs.data", "DOC_TYPES"),
        "RamDocument": ("conflicteval.ramdocs.data", "RamDocument"),
        "RamItem": ("conflicteval.ramdocs.data", "RamItem"),
        "document_counts": ("conflicteval.ramdocs.data", "document_counts"),
        "load_ramdocs": ("conflicteval.ramdocs.data", "load_ramdocs"),
        "ambigdocs_items": ("conflicteval.ramdocs.items", "ambigdocs_items"),
        "questions": ("conflicteval.ramdocs.items", "questions"),
        "ram_question": ("conflicteval.ramdocs.items", "ram_question"),
        "METHODS": ("conflicteval.ramdocs.methods", "METHODS"),
        "Question": ("conflicteval.ramdocs.methods", "Question"),
        "answer": ("conflicteval.ramdocs.methods", "answer"),
        "call_count": ("conflicteval.ramdocs.methods", "call_count"),
        "madam": ("conflicteval.ramdocs.methods", "madam"),
        "EM_RULE": ("conflicteval.ramdocs.metrics", "EM_RULE"),
        "exact_match": ("conflicteval.ramdocs.metrics", "exact_match"),
        "TABLE1": ("conflicteval.ramdocs.published", "TABLE1"),
        "published": ("conflicteval.ramdocs.published", "published"),
        "format_ramdocs": ("conflicteval.ramdocs.report", "format_ramdocs"),
        "ramdocs_report": ("conflicteval.ramdocs.report", "ramdocs_report"),
        "read_run": ("conflicteval.ramdocs.run", "read_run"),
        "run_method": ("conflicteval.ramdocs.run", "run_method"),
        "run_method_sync": ("conflicteval.ramdocs.run", "run_method_sync"),
    },
)
