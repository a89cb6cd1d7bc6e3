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
        MAX_NEW_TOKENS,
        faitheval_question,
        faitheval_questions,
        split_documents,
    )
    from conflicteval.faitheval.report import faitheval_report, format_faitheval
    from conflicteval.faitheval.scoring import (
        counterfactual_verdict,
        faitheval_prompt,
        is_correct,
        negated_credit,
        normalize_answer,
        valid_phrases,
    )

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".data": "TASKS FaithItem load_faitheval",
        ".questions": "MAX_NEW_TOKENS faitheval_question faitheval_questions split_documents",
        ".report": "faitheval_report format_faitheval",
        ".scoring": "counterfactual_verdict faitheval_prompt is_correct negated_credit "
        "normalize_answer valid_phrases",
    },
)
