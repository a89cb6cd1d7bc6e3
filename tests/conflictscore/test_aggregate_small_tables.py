"""One response's table is aggregated in plain Python: the same Aggregate as numpy's path."""

from __future__ import annotations

import random

import numpy as np
import pytest

from conflicteval.conflictscore.aggregate import aggregate, encode_table
from conflicteval.types import PairLabel

LABELS = ["SUPPORTS", "CONTRADICTS", "IRRELEVANT", None]


def test_random_tables_give_the_same_aggregate_both_ways() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        claims, docs = rng.randint(0, 6), rng.randint(0, 6)
        weights = [rng.random() for _ in LABELS]
        rows = [[rng.choices(LABELS, weights)[0] for _ in range(docs)] for _ in range(claims)]
        as_rows = aggregate(rows)
        as_array = aggregate(encode_table(rows))
        assert as_rows == as_array
        assert as_rows.model_dump_json() == as_array.model_dump_json()  # bit for bit
        pairs = [
            [PairLabel(claim_index=i, doc_index=j, label=v) for j, v in enumerate(row)]
            for i, row in enumerate(rows)
        ]
        assert aggregate(pairs) == as_rows


def test_the_plain_path_checks_its_input_as_encode_table_does() -> None:
    with pytest.raises(ValueError, match="ragged label table: row 1 has 1 labels, row 0 2"):
        aggregate([["SUPPORTS", None], ["IRRELEVANT"]])
    with pytest.raises(ValueError):
        aggregate([["MAYBE"]])
    assert aggregate([]) == aggregate(np.zeros((0, 0), dtype=np.int8))
    one = aggregate([["SUPPORTS", "CONTRADICTS", None]])
    assert (one.cs_c, one.cs_r, one.ratios, one.failed) == (1.0, 0.5, [0.5], [[2]])
