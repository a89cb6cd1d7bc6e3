"""The paper's prompts (Tables 8-18) are shipped verbatim, with the slots the code fills."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conflicteval.conflictbench._prompts import load_prompt, render

TABLES = {
    8: ("conflictbench_report_rag", {"main_entity", "Documents"}),
    9: ("conflictbench_report_balanced", {"main_entity", "Documents"}),
    10: ("conflictbench_report_super_balanced", {"main_entity", "Documents"}),
    11: ("conflictbench_qa_rag", {"context_text", "question"}),
    12: ("conflictbench_qa_control", {"context_text", "question"}),
    13: (
        "conflictbench_qa_regenerate",
        {"question", "context_text", "original_response", "selected_claim", "conflict_details"},
    ),
    14: ("conflictbench_choice_rag", {"context_text", "question", "option_a", "option_b"}),
    15: ("conflictbench_choice_control", {"context_text", "question", "option_a", "option_b"}),
    16: (
        "conflictbench_choice_regenerate",
        {
            "question",
            "context_text",
            "original_response",
            "selected_claim",
            "conflict_details",
            "option_a",
            "option_b",
        },
    ),
    17: (
        "conflictbench_judge_truthful",
        {"question", "answer", "correct_answers", "incorrect_answers"},
    ),
    18: (
        "conflictbench_judge_informative",
        {"question", "answer", "correct_answers", "incorrect_answers"},
    ),
}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_prompt_slots(table: int) -> None:
    name, slots = TABLES[table]
    text = load_prompt(name)
    assert set(re.findall(r"\{([A-Za-z_]+)\}", text)) == slots
    filled = render(text, **{s: f"<{s}>" for s in slots})
    assert "{" not in filled


def test_prompts_are_verbatim_seed_text(shared_data: Path) -> None:
    seed = shared_data.parent / "seeds" / "003_a25baeb50c40d0e6.txt"
    if not seed.is_file():
        pytest.skip("seed 003_a25baeb50c40d0e6.txt not beside the checkout")
    lines = seed.read_text(encoding="utf-8").split("\n")
    for table, (name, _) in TABLES.items():
        caption = next(i for i, ln in enumerate(lines) if ln.startswith(f"Table {table}:"))
        start = max(i for i in range(caption) if lines[i].strip() == "Prompt:")
        body = "\n".join(lines[start + 1 : caption]).strip("\n")
        assert load_prompt(name) == body, f"Table {table} differs from the seed"


def test_render_does_not_rescan_values() -> None:
    assert render("{a} and {b}", a="{b}", b="x") == "{b} and x"
    assert render("keep {unknown}", a="1") == "keep {unknown}"
