"""A synthetic response file with the release's exact columns, small enough to score by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

COLUMNS = (
    "question, context_original, context_mod, answer_original, answer_mod, mod_type, dataset, "
    "prior_response, prior_correct, prior_logprobs, post_response, post_correct, "
    "post_logprobs, context_correct, neither_correct"
).split(", ")

LOW, HIGH = "[-3.0]", "[-0.5]"
# (question, domain, answer_original, mod_type, answer_mod, prior, prior_correct, post,
#  post_correct, prior_logprobs, post_logprobs)
ROWS: list[tuple[Any, ...]] = [
    ("Q1", "years", "1859", "0", "1859", "1850", 0, "1859", 1, LOW, HIGH),  # r0 context group
    ("Q1", "years", "1859", "-5", "1854", "1850", 0, "1854", 0, LOW, HIGH),  # r1 neither: out
    ("Q2", "years", "1900", "0", "1900", "1900", 1, "1900", 1, LOW, HIGH),  # r2 both: out
    ("Q2", "years", "1900", "10", "1910", "1900", 1, "1910", 0, "[0.0]", "[-2.0]"),  # r3
    ("Q2", "years", "1900", "-10", "1890", "1900", 1, "1900", 1, "[0.0]", "[-1.0]"),  # r4
    ("Q3", "names", "Ulysses S. Grant", "0", "Ulysses S. Grant", "Robert Lee", 0,
     "ulysses s grant", 1, LOW, HIGH),  # r5 context group
    ("Q3", "names", "Ulysses S. Grant", "slight", "Thomas Washington", "Robert Lee", 0,
     "Robert Lee", 0, LOW, HIGH),  # r6 out
    ("Q4", "records", "22.52", "0", "22.52", "23.10", 0, "22.5", 1, LOW, HIGH),  # r7
    ("Q4", "records", "22.52", "2.0", "45.04", "22.52", 1, "29", 0, LOW, HIGH),  # r8
]  # fmt: skip


def records() -> list[dict[str, Any]]:
    out = []
    for q, dom, ans, mod, am, prior, pc, post, poc, plp, polp in ROWS:
        out.append(
            {
                "question": q,
                "context_original": f"The answer is {ans}.",
                "context_mod": f"The answer is {am}.",
                "answer_original": ans,
                "answer_mod": am,
                "mod_type": mod,
                "dataset": dom,
                "prior_response": prior,
                "prior_correct": pc,
                "prior_logprobs": plp,
                "post_response": post,
                "post_correct": poc,
                "post_logprobs": polp,
                "context_correct": int(mod == "0"),
                "neither_correct": int(mod != "0" and not pc),
            }
        )
    return out


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    pa = pytest.importorskip("pyarrow", reason="needs the parquet extra")
    pq = pytest.importorskip("pyarrow.parquet", reason="needs the parquet extra")
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.fixture()
def responses(tmp_path: Path) -> Path:
    """The synthetic response file (parquet, the release's 15 columns)."""
    return write_parquet(tmp_path / "gpt4.pqt", records())


@pytest.fixture()
def synthetic() -> Any:
    """The helpers: ``records()`` (the rows as dicts), ``write_parquet(path, rows)``,
    ``COLUMNS``."""

    class Helpers:
        pass

    h = Helpers()
    h.records = records  # type: ignore[attr-defined]
    h.write_parquet = write_parquet  # type: ignore[attr-defined]
    h.COLUMNS = COLUMNS  # type: ignore[attr-defined]
    return h
