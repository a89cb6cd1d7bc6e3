"""FaithEval's reply budget (the RAMDocs script's 128 tokens) and its unpinned data files."""

from __future__ import annotations

from pathlib import Path


def test_the_reply_budget_is_the_ramdocs_scripts_and_the_docs_say_why() -> None:
    from conflicteval.faitheval import MAX_NEW_TOKENS
    from conflicteval.ramdocs.methods import SETTINGS

    assert MAX_NEW_TOKENS == SETTINGS["max_tokens"] == 128
    docs = Path(__file__).resolve().parents[2] / "docs" / "ramdocs.md"
    text = " ".join(docs.read_text(encoding="utf-8").split())
    assert (
        "**Reply budget: 128 new tokens**" in text
        and "not the 256 of FaithEval's own README" in text
    )


def test_unpinned_faitheval_entries_say_no_sha256_could_be_found() -> None:
    from conflicteval.data.registry import get_entry

    for task in ("inconsistent", "counterfactual", "unanswerable"):
        entry = get_entry(f"faitheval-{task}")
        assert entry.sha256 is None and entry.revision == "main"
        assert "no sha256 of the file could be found" in (entry.note or "")
