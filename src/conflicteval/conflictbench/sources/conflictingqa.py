"""ConflictingQA (Wan, Wallace, Klein, ACL 2024).

Release: ``data.pkl``, a pickled pandas DataFrame with one row per webpage::

    category, search_query, search_engine_input, search_type, url, title,
    text_raw, text_window, stance   (and likely answer_id)

Unpickling runs arbitrary code, so the pickle is read only with an explicit
``allow_pickle=True``; :func:`convert_conflictingqa_pickle` turns it once into
JSON lines with the same columns. The same columns are accepted as JSON lines
(streamed), a JSON array, CSV (streamed) or parquet (pandas + pyarrow).

Mapping (one item per ``search_query``): each row is a document (``text_window``,
the 512-token window of the paper, else ``text_raw``), id ``answer_id`` when
present, else the url, else the row number. ``stance`` ``yes`` → SUPPORTS and
``no`` → CONTRADICTS, against the *affirmative* claim. ``search_type``
(``yes_statement``/``no_statement``) only says which search found the page: it
is kept as provenance and never used as a stance.

What the original repository (``AlexWan0/rag-convincingness``, HEAD ``001b6d9``)
confirms: the README names the pickle, ``pd.read_pickle('data.pkl')`` and the nine
columns above, and describes ``search_type`` as the search that retrieved the page.
The pipeline code groups pages by ``search_query`` and keys them by an integer
``answer_id`` (``utils.filter_pair_thresh``, ``filter_ensemble_preds.py``), and its
stance column holds the lower-case strings ``'yes'``/``'no'`` (the output of
``parse_model_classifications(..., ['yes', 'no'])``; only agreeing, non-empty
labels are kept). **Not confirmed**: the pipeline's columns are named
``anthropic_author_stance_p`` and ``text_thresh_window_sent`` there; that the
released file renames them to ``stance`` and ``text_window`` comes from the README
alone, and whether the released frame still has ``answer_id`` is unknown (hence
the fall-back to the url, then the row). The data file itself (Google Drive) could
not be opened.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.conflictbench.claims import ClaimRequest, template_claim
from conflicteval.conflictbench.items import BenchDocument, BenchItem, has_conflict
from conflicteval.conflictbench.sources._common import normalize_question, short_hash
from conflicteval.errors import ConflictEvalError, DataError, require
from conflicteval.jsonio import iter_json_records, require_mapping
from conflicteval.readers import id_text, iter_csv_rows
from conflicteval.types import Relation

COLUMNS = (
    "category",
    "search_query",
    "search_engine_input",
    "search_type",
    "url",
    "title",
    "text_raw",
    "text_window",
    "stance",
)
"""The columns of the release DataFrame (an ``answer_id`` column is used when present)."""

STANCES: dict[str, Relation] = {"yes": "SUPPORTS", "no": "CONTRADICTS"}

PICKLE_SUFFIXES = (".pkl", ".pickle")


def _clean(value: Any) -> Any:
    """None for missing values (NaN, pandas NA); numpy scalars become Python values."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


def _frame_rows(frame: Any) -> Iterator[tuple[int | str, dict[str, Any]]]:
    columns = [str(c) for c in frame.columns]
    for index, values in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        yield f"index {index}", {c: _clean(v) for c, v in zip(columns, values, strict=True)}


def _csv_rows(path: Path) -> Iterator[tuple[int | str, dict[str, Any]]]:
    # Web page text can be long: the reader's own field limit (readers.CSV_FIELD_LIMIT)
    # applies, never a process-wide one.
    for row in iter_csv_rows(path):
        yield row.line, {k: (v if v != "" else None) for k, v in row.values.items()}


def _read_pickle(path: Path) -> Any:
    pd: Any = require("pandas", "pandas")
    frame = pd.read_pickle(path)
    if not hasattr(frame, "columns"):
        raise DataError(
            path, None, None, f"expected a pandas DataFrame, got {type(frame).__name__}"
        )
    return frame


def iter_rows(
    path: str | PathLike[str], *, allow_pickle: bool = False
) -> Iterator[tuple[int | str, dict[str, Any]]]:
    """Yield ``(row, columns)`` from any supported ConflictingQA file.

    Args:
        path: ``.pkl``/``.pickle`` (needs ``allow_pickle=True``), ``.jsonl``/``.json``,
            ``.csv`` or ``.parquet``.
        allow_pickle: Permit unpickling (runs code from the file; only for trusted files).

    Raises:
        ConflictEvalError: for a pickle without ``allow_pickle=True``.
        DataError: for a malformed file.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if not p.is_file():
        raise DataError(p, None, None, "file not found")
    if suffix in PICKLE_SUFFIXES:
        if not allow_pickle:
            raise ConflictEvalError(
                f"{p}: reading a pickle runs code from the file; pass allow_pickle=True "
                "(CLI: --allow-pickle) only for a file you trust, or convert it once "
                "with convert_conflictingqa_pickle()"
            )
        return _frame_rows(_read_pickle(p))
    if suffix == ".csv":
        return _csv_rows(p)
    if suffix == ".parquet":
        pd: Any = require("pandas", "pandas")
        return _frame_rows(pd.read_parquet(p))
    return ((row, require_mapping(p, row, raw)) for row, raw in iter_json_records(p))


def _text(value: Any) -> str | None:
    value = _clean(value)
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return None
    text = str(value)
    return text if text.strip() else None


def _strict_text(path: Path, row: int | str, record: dict[str, Any], field: str) -> str | None:
    """Like :func:`_text`, but a number, object or list in a text column is refused."""
    value = _clean(record.get(field))
    if value is not None and not isinstance(value, str):
        raise DataError(path, row, field, f"expected text, got {type(value).__name__}")
    return _text(value)


def load_conflictingqa(
    path: str | PathLike[str] | None = None,
    *,
    allow_pickle: bool = False,
    text_field: str = "text_window",
) -> Iterator[BenchItem]:
    """Yield one item per ``search_query`` (id ``conflictingqa:<sha1(query)[:12]>``).

    Rows of one query need not be adjacent; items come in order of each query's
    first row. Only the fields used are kept in memory while grouping.

    Args:
        path: The release pickle (with ``allow_pickle=True``) or a JSONL/JSON/CSV/parquet copy.
        allow_pickle: Permit reading a pickle.
        text_field: ``"text_window"`` (default, falls back to ``text_raw``) or ``"text_raw"``.

    Raises:
        DataError: naming file, row and field of a malformed row.
    """
    if path is None:
        from conflicteval.data import fetch

        # A manual source: this says where to download it (or uses a copy placed in the cache).
        path = fetch("conflictingqa").path
    p = Path(path)
    groups: dict[str, list[BenchDocument]] = {}
    hints: dict[str, str] = {}
    categories: dict[str, str | None] = {}
    fallback = "text_raw" if text_field == "text_window" else "text_window"
    for row, record in iter_rows(p, allow_pickle=allow_pickle):
        query = _strict_text(p, row, record, "search_query")
        if query is None:
            raise DataError(p, row, "search_query", "missing or empty")
        text = _strict_text(p, row, record, text_field) or _strict_text(p, row, record, fallback)
        if text is None:
            raise DataError(p, row, text_field, f"missing or empty (and no {fallback})")
        stance_raw = _strict_text(p, row, record, "stance")
        stance = (stance_raw or "").strip().lower()
        if stance not in STANCES:
            raise DataError(p, row, "stance", f"expected 'yes' or 'no', got {stance_raw!r}")
        search_type = _strict_text(p, row, record, "search_type")
        search_input = _strict_text(p, row, record, "search_engine_input")
        url = _strict_text(p, row, record, "url")
        answer_id = _clean(record.get("answer_id"))
        if answer_id is not None and not (isinstance(answer_id, str) and not answer_id.strip()):
            answer_id = id_text(p, row, "answer_id", answer_id)  # a string or integer id
        docs = groups.setdefault(query, [])
        doc_id = answer_id or url or f"row-{row}"
        if any(d.id == doc_id for d in docs):
            doc_id = f"{doc_id}#{len(docs)}"
        docs.append(
            BenchDocument(
                id=doc_id,
                text=text,
                title=_strict_text(p, row, record, "title"),
                url=url,
                gold=STANCES[stance],
                meta={
                    "stance": stance,
                    "search_type": search_type,
                    "search_engine_input": search_input,
                    "category": _strict_text(p, row, record, "category"),
                },
            )
        )
        categories.setdefault(query, _strict_text(p, row, record, "category"))
        if search_type == "yes_statement" and search_input and query not in hints:
            hints[query] = search_input
    for query, docs in groups.items():
        request = ClaimRequest("conflictingqa", query, hint=hints.get(query))
        yield BenchItem(
            id=f"conflictingqa:{short_hash(query)}",
            source="conflictingqa",
            question=query,
            claim=template_claim(request),
            documents=docs,
            conflict=has_conflict(d.gold for d in docs),
            group=f"conflictingqa:{normalize_question(query)}",
            meta={
                "category": categories.get(query),
                "n_yes": sum(d.gold == "SUPPORTS" for d in docs),
                "n_no": sum(d.gold == "CONTRADICTS" for d in docs),
                "claim_hint": hints.get(query),
            },
        )


def _json_default(value: Any) -> Any:
    cleaned = _clean(value)
    if cleaned is not value:
        return cleaned
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def convert_conflictingqa_pickle(
    pickle_path: str | PathLike[str], out_path: str | PathLike[str], *, allow_pickle: bool = False
) -> int:
    """Convert the release ``data.pkl`` to JSON lines with the same columns (one row per line).

    Args:
        pickle_path: The release pickle.
        out_path: The JSONL file to write.
        allow_pickle: Must be True: unpickling runs code from the file.

    Returns:
        The number of rows written.
    """
    from conflicteval._atomic import atomic_open

    rows = iter_rows(pickle_path, allow_pickle=allow_pickle)
    n = 0
    with atomic_open(out_path) as fh:  # no partial file when reading fails
        for _row, record in rows:
            fh.write(json.dumps(record, ensure_ascii=False, default=_json_default) + "\n")
            n += 1
    return n
