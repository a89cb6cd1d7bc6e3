"""One scorer factory for every command: the kinds left unset, and the scorer from its kinds."""

from __future__ import annotations

import pytest

from conflicteval.conflictbench.instruments import LABELERS
from conflicteval.conflictbench.instruments import make_scorer as bench_scorer
from conflicteval.conflictscore.factory import LABELER_KINDS, make_scorer, scorer_kinds
from conflicteval.errors import UsageError
from conflicteval.models import get_model


def test_unset_kinds_follow_whether_there_is_a_model() -> None:
    assert scorer_kinds(None, None, True) == ("llm", "llm")
    assert scorer_kinds(None, None, False) == ("sentence", "lexical")
    assert scorer_kinds("whole", None, True) == ("whole", "llm")
    assert scorer_kinds(None, "llm-per-claim", False) == ("sentence", "llm-per-claim")


def test_a_scorer_is_made_from_its_kinds() -> None:
    scorer = make_scorer("sentence", "lexical")
    assert scorer.decomposer.name.startswith("sentence")
    assert type(scorer.labeler).__name__ == "LexicalLabeler"
    model = get_model("scripted", replies=["x"])
    scorer = make_scorer("llm", "llm-per-document", model, structured=False)
    assert type(scorer.decomposer).__name__ == "LLMDecomposer"
    assert type(scorer.labeler).__name__ == "PerDocumentLLMLabeler"
    with pytest.raises(ValueError, match="needs a model"):
        make_scorer("sentence", "llm")


def test_conflictbench_takes_every_kind_but_nli_and_names_its_model_option() -> None:
    assert LABELERS == tuple(k for k in LABELER_KINDS if k != "nli")
    with pytest.raises(UsageError, match="need --scorer-model"):
        bench_scorer(None, "llm", None)
    assert type(bench_scorer(None, None, None).labeler).__name__ == "LexicalLabeler"
