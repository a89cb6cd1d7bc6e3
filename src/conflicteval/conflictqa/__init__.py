"""ConflictQA: context against the model's own memory.

From "Adaptive Chameleon or Stubborn Sloth: Revealing the Behavior of Large Language Models in
Knowledge Conflicts" (Xie, Zhang, Chen, Lou, Su; ICLR 2024, arXiv 2305.13300).
:func:`load_conflictqa` reads the release; :func:`run_conflictqa` runs the paper's experiments
(its prompts byte for byte), against the release LLM's memory or a new model's own elicited
memory; :func:`conflictqa_report` gives the memorization ratio and answer shares with
intervals. See docs/conflictqa.md.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.conflictqa.answers import claim_polarity, parse_choice, parse_elicitation
    from conflicteval.conflictqa.data import DATASETS, LLMS, ConflictItem, load_conflictqa
    from conflicteval.conflictqa.experiments import EXPERIMENTS, MULTI, SINGLE, Sides, build
    from conflicteval.conflictqa.metrics import OUTCOMES, experiment_metrics, outcome
    from conflicteval.conflictqa.prompts import elicitation_prompt
    from conflicteval.conflictqa.published import PAPER_FIGURES, STRATEGYQA_QUESTIONS
    from conflicteval.conflictqa.report import conflictqa_report, format_conflictqa
    from conflicteval.conflictqa.run import read_run, run_conflictqa, run_conflictqa_sync

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".answers": "claim_polarity parse_choice parse_elicitation",
        ".data": "DATASETS LLMS ConflictItem load_conflictqa",
        ".experiments": "EXPERIMENTS MULTI SINGLE Sides build",
        ".metrics": "OUTCOMES experiment_metrics outcome",
        ".prompts": "elicitation_prompt",
        ".published": "PAPER_FIGURES STRATEGYQA_QUESTIONS",
        ".report": "conflictqa_report format_conflictqa",
        ".run": "read_run run_conflictqa run_conflictqa_sync",
    },
)
