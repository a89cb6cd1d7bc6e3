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
}


def _digest(entry: DatasetFile) -> str:
    fields = json.dumps(dataclasses.asdict(entry), sort_keys=True)
    return hashlib.sha256(fields.encode()).hexdigest()[:16]


def test_registry_entries_keep_their_values_and_order() -> None:
    assert [entry.name for entry in REGISTRY] == list(PINNED)
    moved = [entry.name for entry in REGISTRY if _digest(entry) != PINNED[entry.name]]
    assert moved == [], f"registry entries whose values changed: {moved}"
