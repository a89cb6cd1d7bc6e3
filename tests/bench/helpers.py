"""Helpers of the labeler bench tests: scripted labelers and a wiki database for real claims."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conflicteval.conflictscore.labelers import LabelResult
from conflicteval.types import Document, PairLabel

RAMDOCS_SAMPLE = "ramdocs/RAMDocs_test_first30.jsonl"
TRAIN_SAMPLE = "feverous/feverous_train_first10.jsonl"
S_SAMPLE = "feverous/feverous_s_dev_first5.json"
MACNOISE_SAMPLE = "macnoise/GPT_trainx_chatgptpert_samples.json"


def sample(shared_data: Path, name: str) -> Path:
    """A file of the shared sample data (skips the test when it is absent)."""
    path = shared_data / name
    if not path.is_file():
        pytest.skip(f"{name} not in the shared sample data")
    return path


def pages_for(element_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Wiki pages (database layout) holding a made-up text for every sentence and cell id."""
    pages: dict[str, dict[str, Any]] = {}
    for eid in element_ids:
        title, _, element = eid.rpartition("_")
        title, _, kind = title.rpartition("_")
        page = pages.setdefault(title, {"title": title, "order": []})
        if kind == "sentence":
            key = f"sentence_{element}"
            page[key] = f"{title} says fact {element}."
        else:
            match = re.match(r"(.+)_cell_(\d+)_(\d+)_(\d+)$", eid)
            if match is None:
                continue  # captions and list items stay unresolved (counted as missing)
            title, t, r, c = match.group(1), *map(int, match.groups()[1:])
            page = pages.setdefault(title, {"title": title, "order": []})
            key = f"table_{t}"
            table = page.setdefault(key, {"type": "table", "table": []})
            rows = table["table"]
            while len(rows) <= r:
                rows.append([])
            for row_i, row in enumerate(rows):
                while len(row) <= c:
                    j = len(row)
                    row.append(
                        {
                            "id": f"cell_{t}_{row_i}_{j}",
                            "value": f"value {row_i}/{j}",
                            "is_header": False,
                            "row_span": 1,
                            "column_span": 1,
                        }
                    )
        if key not in page["order"]:
            page["order"].append(key)
    return list(pages.values())


class TableLabeler:
    """A scripted labeler: the label of each document is looked up by its text.

    ``answers`` maps a document's text to a label, or to ``None`` (a failed pair), or to
    ``"raise"`` (the call raises a model error).
    """

    name = "scripted-table"

    def __init__(self, answers: dict[str, str | None], default: str = "IRRELEVANT") -> None:
        self.answers = answers
        self.default = default
        self.calls = 0

    def identity(self) -> dict[str, Any]:
        return {"labeler": self.name, "answers": sorted(self.answers.items(), key=repr)}

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        from conflicteval.errors import ModelError

        self.calls += 1
        rows = []
        for i, _claim in enumerate(claims):
            row = []
            for j, doc in enumerate(documents):
                value = self.answers.get(doc.text, self.default)
                if value == "raise":
                    raise ModelError("scripted outage")
                row.append(
                    PairLabel(claim_index=i, doc_index=j, label=value, error=None)
                    if value is not None
                    else PairLabel(claim_index=i, doc_index=j, label=None, error="unparsable")
                )
            rows.append(row)
        return LabelResult(pairs=rows, calls=1)
