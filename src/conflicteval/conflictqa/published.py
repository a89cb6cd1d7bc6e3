"""What of "Adaptive Chameleon or Stubborn Sloth" (arXiv 2305.13300) is stored here.

The paper's tables and figures (memorization ratios and answer shares per LLM and setting)
could not be read where this library was built: no text of the paper was at hand, and the
repository holds neither results nor metric code. So :data:`PAPER_FIGURES` is empty and a
report prints "none recovered" beside its measured figures instead of a number from memory.

What could be recovered and checked is the release itself: the number of questions in each
StrategyQA file at commit 595e02b (:data:`STRATEGYQA_QUESTIONS`), read from the files whose
sha256 the registry pins. The PopQA files could not be read.
"""

from __future__ import annotations

PAPER_FIGURES: dict[str, dict[str, float]] = {}
"""The paper's figures by LLM and setting: none recovered (see the module docstring)."""

STRATEGYQA_QUESTIONS: dict[str, int] = {
    "chatgpt": 1245,
    "gpt4": 1356,
    "llama2-70b": 822,
    "llama2-7b": 698,
    "palm2": 502,
    "qwen7b": 671,
    "vicuna33b": 775,
    "vicuna7b": 559,
}
"""Questions (lines) in ``conflictQA-strategyQA-<llm>.json`` at commit 595e02b."""
