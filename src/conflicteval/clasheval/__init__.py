"""ClashEval: how an LLM arbitrates between its prior and a context that contradicts it.

From "ClashEval: Quantifying the tug-of-war between an LLM's internal prior and external
evidence" (Wu, Wu, Zou; arXiv 2404.10198). :func:`load_responses` reads the released
responses; :func:`reproduce_file` recomputes the paper's accuracy, context bias and prior bias
from them with no model call; :func:`run_clasheval` asks a new model with the paper's prompts.
See docs/clasheval.md.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.clasheval.data import (
        DOMAINS,
        INPUT_COLUMNS,
        MODELS,
        RESPONSE_COLUMNS,
        ClashRow,
        load_dataset,
        load_responses,
    )
    from conflicteval.clasheval.metrics import context_curve, figures, judge
    from conflicteval.clasheval.published import TABLE2, TABLE3
    from conflicteval.clasheval.reproduce import format_reproduction, reproduce_file

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".data": "DOMAINS INPUT_COLUMNS MODELS RESPONSE_COLUMNS ClashRow load_dataset "
        "load_responses",
        ".metrics": "context_curve figures judge",
        ".published": "TABLE2 TABLE3",
        ".reproduce": "format_reproduction reproduce_file",
    },
)
