"""Every registry entry's values are pinned: a rewrite of how entries are written keeps them.

A digest of each entry's fields (all of them, as ``dataclasses.asdict`` gives them) is
compared with the one recorded here. Changing an entry on purpose means updating its line;
a test failure names the entries whose values moved.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

from conflicteval.data.registry import REGISTRY, DatasetFile

# name -> first 16 hex digits of the sha256 of the entry's fields as sorted JSON.
PINNED = {
    "wikicontradict": "66995b4be8837f98",
    "wikicontradict-humaneval": "ec9f9cd3df143a3d",
    "truthfulqa": "1d0aa1330f7a3a16",
    "ambigdocs": "a3a96b7e833475be",
    "ambigdocs-dev": "091b50d996fafda7",
    "contraqa-corpus": "edf229c4dcf8cfae",
    "contraqa-queries": "06d7bc7966c9f1ad",
    "conflictingqa": "dba7946d917f8377",
    "macnoise": "3a24f267cc5381d1",
    "feverous-dev": "993054146f321b5b",
    "feverous-train": "1bb5724a3090d8d5",
    "feverous-wikidb": "59ac7cfd86db7b63",
    "ramdocs": "74a8f04f106a0935",
    "faitheval-inconsistent": "94efcc79782e21d2",
    "faitheval-counterfactual": "38098a4a6cb41d1f",
    "faitheval-unanswerable": "e448722eecacddae",
    "conflictqa-strategyqa-chatgpt": "51b66fddfccc7bdc",
    "conflictqa-strategyqa-gpt4": "ce95439c2dc5d153",
    "conflictqa-strategyqa-palm2": "9cfff0728601935b",
    "conflictqa-strategyqa-qwen7b": "f4b977f35f2e459c",
    "conflictqa-strategyqa-llama2-7b": "5a5142b7217d090a",
    "conflictqa-strategyqa-llama2-70b": "88f2fa3b4aedd7c0",
    "conflictqa-strategyqa-vicuna7b": "c00a72a37cb99d4d",
    "conflictqa-strategyqa-vicuna33b": "6e3239a88f8be80e",
    "conflictqa-popqa-chatgpt": "b59e54692db7e3a3",
    "conflictqa-popqa-gpt4": "73eac2eb3e1b8c38",
    "conflictqa-popqa-palm2": "810d297ddaff1827",
    "conflictqa-popqa-qwen7b": "36f9fb7942e39198",
    "conflictqa-popqa-llama2-7b": "a4d45d7747e5b03b",
    "conflictqa-popqa-llama2-70b": "859d95185c0793b6",
    "conflictqa-popqa-vicuna7b": "736b677528ec9490",
    "conflictqa-popqa-vicuna33b": "dcde7bdf53fa5f90",
    "clasheval": "731b61d6c27dc098",
    "clasheval-claudeopus": "6d060943b2dc1cf1",
    "clasheval-claudesonnet": "a7fdeae44a12544b",
    "clasheval-gemini15flash": "02565da7b31a73f9",
    "clasheval-gpt35": "4aab2ba7009d4c09",
    "clasheval-gpt4": "5aa4910bb9709958",
    "clasheval-llama3": "f884c8d28c5b9758",
}


def _digest(entry: DatasetFile) -> str:
    fields = json.dumps(dataclasses.asdict(entry), sort_keys=True)
    return hashlib.sha256(fields.encode()).hexdigest()[:16]


def test_registry_entries_keep_their_values_and_order() -> None:
    assert [entry.name for entry in REGISTRY] == list(PINNED)
    moved = [entry.name for entry in REGISTRY if _digest(entry) != PINNED[entry.name]]
    assert moved == [], f"registry entries whose values changed: {moved}"
