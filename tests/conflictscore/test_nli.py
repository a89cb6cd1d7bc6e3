"""NLILabeler plumbing with a tiny randomly initialised model built from a config (no download)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from conflicteval.types import Document

S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"

HAVE_NLI = all(importlib.util.find_spec(m) is not None for m in ("transformers", "torch"))
pytestmark = pytest.mark.skipif(
    not HAVE_NLI,
    reason="transformers and torch are not installed (extra: pip install '.[nli]')",
)

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "canal",
    "opened",
    "in",
    "1847",
    "1851",
    "cats",
    "purr",
    ".",
]


def _tiny(
    tmp_path: Path, id2label: dict[int, str], winner: int | None = None
) -> tuple[Any, Any, Path]:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    torch.manual_seed(0)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(str(vocab))
    config = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    model = BertForSequenceClassification(config)
    if winner is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.zero_()
            model.classifier.bias[winner] = 10.0
    out = tmp_path / "model"
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return model, tokenizer, out


STANDARD = {0: "entailment", 1: "neutral", 2: "contradiction"}


def test_nli_labeler_from_a_local_directory(tmp_path: Path) -> None:
    from conflicteval.conflictscore import NLILabeler

    _, _, path = _tiny(tmp_path, STANDARD)
    labeler = NLILabeler(path, batch_size=2)
    assert labeler.classes == {0: S, 1: IRR, 2: C}
    claims = ["the canal opened in 1847 .", "cats purr ."]
    docs = [
        Document(id="a", text="the canal opened in 1851 ."),
        Document(id="b", text="cats purr ."),
        Document(id="c", text="the canal ."),
    ]
    result = labeler.label_sync(claims, docs)
    assert len(result.pairs) == 2 and all(len(row) == 3 for row in result.pairs)
    assert [[(p.claim_index, p.doc_index) for p in row] for row in result.pairs][1] == [
        (1, 0),
        (1, 1),
        (1, 2),
    ]
    assert all(p.label in (S, C, IRR) for row in result.pairs for p in row)
    assert all("NLI class" in (p.reasoning or "") for row in result.pairs for p in row)
    assert labeler.forward_passes == 3  # 6 pairs in batches of 2
    assert result.calls == 0


@pytest.mark.parametrize(("winner", "expected"), [(0, S), (1, IRR), (2, C)])
def test_nli_class_mapping_from_a_loaded_model(tmp_path: Path, winner: int, expected: str) -> None:
    from conflicteval.conflictscore import NLILabeler

    model, tokenizer, _ = _tiny(tmp_path, STANDARD, winner=winner)
    labeler = NLILabeler(model, tokenizer)
    result = labeler.label_sync(["cats purr ."], ["the canal opened in 1847 .", "cats purr ."])
    assert result.labels == [[expected, expected]]


def test_nli_custom_label_map_and_errors(tmp_path: Path) -> None:
    from conflicteval.conflictscore import NLILabeler

    odd = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    model, tokenizer, _ = _tiny(tmp_path, odd, winner=1)
    with pytest.raises(ValueError, match="label_map"):
        NLILabeler(model, tokenizer)
    labeler = NLILabeler(model, tokenizer, label_map={0: S, "label_1": C, "LABEL_2": IRR})
    assert labeler.label_sync(["cats purr ."], ["cats purr ."]).labels == [[C]]
    with pytest.raises(ValueError, match="tokenizer"):
        NLILabeler(model)


def test_score_command_with_a_local_nli_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from conflicteval.cli import main

    _, _, path = _tiny(tmp_path, STANDARD, winner=2)
    response = tmp_path / "response.txt"
    response.write_text("- the canal opened in 1847 .\n- cats purr .\n", encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text('"the canal opened in 1851 ."\n"cats purr ."\n', encoding="utf-8")
    args = ["score", "--response", str(response), "--documents", str(docs)]
    assert main([*args, "--labeler", "nli", "--nli-model", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["labeler"] == "nli" and data["calls"] == 0
    assert [[p["label"] for p in row] for row in data["labels"]] == [[C, C], [C, C]]
    assert data["cs_c"] == 0.0 and data["cs_r"] == 1.0
    assert main([*args, "--labeler", "nli"]) == 2
    assert "--nli-model" in capsys.readouterr().err
    missing = tmp_path / "no-such-model"
    assert main([*args, "--labeler", "nli", "--nli-model", str(missing)]) == 2
    assert f"NLI model '{missing}': no such directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main([*args, "--labeler", "nli", "--nli-model", str(tmp_path / "empty")]) == 2
    assert "no config.json" in capsys.readouterr().err


def test_nli_identity_hashes_the_weights_not_only_the_path(tmp_path: Path) -> None:
    import torch

    from conflicteval.conflictscore import NLILabeler

    model, tokenizer, path = _tiny(tmp_path, STANDARD)
    first = NLILabeler(path).identity()
    assert first == NLILabeler(path).identity()  # the same files: the same identity
    with torch.no_grad():  # other weights saved under the same path
        model.classifier.bias[0] += 1.0
    model.save_pretrained(path)
    second = NLILabeler(path).identity()
    assert second["nli_model"] == first["nli_model"]
    assert second["nli_weights"] != first["nli_weights"]
    loaded = NLILabeler(model, tokenizer).identity()  # a model object: its parameters
    assert len(loaded["nli_weights"]) == 64
    with torch.no_grad():
        model.classifier.bias[1] += 1.0
    assert NLILabeler(model, tokenizer).identity()["nli_weights"] != loaded["nli_weights"]
