"""FaithEval (Ming et al., ICLR 2025, arXiv 2410.03727): unanswerable, inconsistent and
counterfactual contexts, with the README's prompt and strict / non-strict valid-phrase scoring.

Run with the RAMDocs methods (:func:`conflicteval.ramdocs.run_method`, ``benchmark="faitheval"``)
or ``conflicteval faitheval run``; see docs/ramdocs.md.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.faitheval.data import TASKS, FaithItem, load_faitheval
    from conflicteval.faitheval.questions import (
        faitheval_question,
        faitheval_questions,
        split_documents,
    )
    from conflicteval.faitheval.report import faitheval_report, format_faitheval
    from conflicteval.faitheval.scoring import (
        faitheval_prompt,
        is_correct,
        normalize_answer,
        valid_phrases,
    )

__all__ = [
    "TASKS",
    "FaithItem",
    "faitheval_prompt",
    "faitheval_question",
    "faitheval_questions",
    "faitheval_report",
    "format_faitheval",
    "is_correct",
    "load_faitheval",
    "normalize_answer",
    "split_documents",
    "valid_phrases",
]

_lazy.install(
    __name__,
    {
        "TASKS": ("conflicteval.faitheval.data", "TASKS"),
        "FaithItem": ("conflicteval.faitheval.data", "FaithItem"),
        "load_faitheval": ("conflicteval.faitheval.data", "load_faitheval"),
        "faitheval_question": ("conflicteval.faitheval.questions", "faitheval_question"),
        "faitheval_questions": ("conflicteval.faitheval.questions", "faitheval_questions"),
        "split_documents": ("conflicteval.faitheval.questions", "split_documents"),
        "faitheval_report": ("conflicteval.faitheval.report", "faitheval_report"),
        "format_faitheval": ("conflicteval.faitheval.report", "format_faitheval"),
        "faitheval_prompt": ("conflicteval.faitheval.scoring", "faitheval_prompt"),
        "is_correct": ("conflicteval.faitheval.scoring", "is_correct"),
        "normalize_answer": ("conflicteval.faitheval.scoring", "normalize_answer"),
        "valid_phrases": ("conflicteval.faitheval.scoring", "valid_phrases"),
    },
)
