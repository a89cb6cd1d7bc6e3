"""ClashEval (Wu, Wu, Zou, "ClashEval: Quantifying the tug-of-war between an LLM's internal
prior and external evidence", arXiv 2404.10198): the question set and the released responses.

Files of github.com/kevinwu23/StanfordClashEval (CC BY 4.0), parquet:

* ``data/model_responses/<model>.pqt`` at commit 56e7e08 (registry ``clasheval-<model>``), one
  row per question and context variant, columns :data:`RESPONSE_COLUMNS`;
* ``data/dataset/dataset.pqt``, only in the history (last at commit ba892d1; registry
  ``clasheval``), the questions with their context variants; :func:`load_dataset` reads the
  input columns :data:`INPUT_COLUMNS` (a response file has them too).

``mod_type`` is the modification's level as text: ``"0"`` is the unmodified context, numeric
levels the multiplicative factor or the year shift, and for names and locations the kind of
change. ``prior_logprobs`` and ``post_logprobs`` are Python-literal lists of token log
probabilities stored as text (None where a model gave none).

Reading parquet needs pyarrow (``pip install '.[parquet]'``), imported lazily.
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.errors import DataError, require

INPUT_COLUMNS: tuple[str, ...] = (
    "question",
    "context_original",
    "context_mod",
    "answer_original",
    "answer_mod",
    "mod_type",
    "dataset",
)
RESPONSE_COLUMNS: tuple[str, ...] = (
    *INPUT_COLUMNS,
    "prior_response",
    "prior_correct",
    "prior_logprobs",
    "post_response",
    "post_correct",
    "post_logprobs",
    "context_correct",
    "neither_correct",
)
DOMAINS: tuple[str, ...] = ("drugs", "news", "years", "records", "names", "locations")
"""The six domains, as the ``dataset`` column spells them."""

MODELS: dict[str, str] = {  # keys: names.RELEASED_MODELS
    "claudeopus": "Claude Opus",
    "claudesonnet": "Claude Sonnet",
    "gemini15flash": "Gemini 1.5 Flash",
    "gpt4": "GPT-4o",
    "gpt35": "GPT-3.5",
    "llama3": "Llama-3-8b-Instruct",
}
"""The released response files (``<name>.pqt``) and the models' names in the paper."""


@dataclass(frozen=True)
class ClashRow:
    """One question with one context variant, with a model's answers when it is a response row.

    Attributes:
        row: The 0-based row in the file.
        question, context_original, context_mod, answer_original, answer_mod, mod_type,
            dataset: The inputs (see the module docstring).
        prior_response: The answer without context (None in the question set).
        prior_correct: Whether it was correct, as released (None in the question set).
        post_response: The answer with ``context_mod``.
        post_correct: Whether it was correct, as released.
        prior_logprobs, post_logprobs: Token log probabilities as released text, or None.
    """

    row: int
    question: str
    context_original: str
    context_mod: str
    answer_original: str
    answer_mod: str
    mod_type: str
    dataset: str
    prior_response: str | None = None
    prior_correct: int | None = None
    post_response: str | None = None
    post_correct: int | None = None
    prior_logprobs: str | None = None
    post_logprobs: str | None = None


def _table(path: Path, columns: tuple[str, ...]) -> dict[str, list[Any]]:
    require("pyarrow", "parquet")
    import pyarrow.parquet as pq

    if not path.is_file():
        raise DataError(path, None, None, "file not found")
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a file that is no parquet
        raise DataError(path, None, None, f"not a readable parquet file: {exc}") from exc
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise DataError(path, None, missing[0], f"missing column (needed: {', '.join(columns)})")
    return {c: table.column(c).to_pylist() for c in columns}


def _text(path: Path, row: int, name: str, value: Any, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise DataError(path, row, name, f"expected text, got {type(value).__name__}")
    return value if isinstance(value, str) else str(value)


def _flag(path: Path, row: int, name: str, value: Any) -> int:
    if isinstance(value, (bool, int, float)) and value in (0, 1):
        return int(value)
    raise DataError(path, row, name, f"expected 0 or 1, got {value!r}")


def _rows(path: str | PathLike[str], responses: bool) -> list[ClashRow]:
    p = Path(path)
    cols = _table(p, RESPONSE_COLUMNS if responses else INPUT_COLUMNS)
    n = len(cols["question"])
    rows: list[ClashRow] = []
    for i in range(n):
        # rows are named as DataError names them: 1-based for a person reading the file
        r = i + 1
        fields: dict[str, Any] = {c: _text(p, r, c, cols[c][i]) for c in INPUT_COLUMNS}
        if fields["dataset"] not in DOMAINS:
            raise DataError(
                p, r, "dataset", f"expected one of {', '.join(DOMAINS)}, got {fields['dataset']!r}"
            )
        if responses:
            for c in ("prior_response", "post_response", "prior_logprobs", "post_logprobs"):
                fields[c] = _text(p, r, c, cols[c][i], optional=True)
            for c in ("prior_correct", "post_correct"):
                fields[c] = _flag(p, r, c, cols[c][i])
        rows.append(ClashRow(row=i, **fields))
    if not rows:
        raise DataError(p, None, None, "no rows in the file")
    return rows


def load_responses(
    path: str | PathLike[str] | None = None, *, model: str = "gpt4"
) -> list[ClashRow]:
    """Load one released response file (or a run's rows in the same layout).

    Args:
        path: The parquet file. None: the release's ``<model>.pqt`` (registry
            ``clasheval-<model>``), fetched once and verified.
        model: The released model (only used when ``path`` is None).

    Raises:
        DataError: A missing column, a value of the wrong type, an unknown domain, or an empty
            file; the error names the file, the row (1-based) and the column.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch(f"clasheval-{model}").path
    return _rows(path, responses=True)


def load_dataset(path: str | PathLike[str] | None = None) -> list[ClashRow]:
    """Load the question set (:data:`INPUT_COLUMNS`; a response file is read the same way).

    Args:
        path: The parquet file. None: ``dataset.pqt`` at commit ba892d1 (registry
            ``clasheval``), fetched once and verified.

    Raises:
        DataError: As :func:`load_responses`.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("clasheval").path
    return _rows(path, responses=False)
