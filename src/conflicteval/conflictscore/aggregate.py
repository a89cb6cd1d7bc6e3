"""Stage 3 of ConflictScore: from a claims x documents label table to CS-C and CS-R.

Pure and vectorised (numpy); no model calls.

Definitions (paper, Section 3), for one response with claims ``c`` and
documents ``d``:

* ``D+(c)`` = documents labelled SUPPORTS for ``c``; ``D-(c)`` = CONTRADICTS.
* ``c`` is *conflicted* when both are non-empty.
* **CS-C** = conflicted claims / claims.
* **CS-R** = mean over claims of ``|D-| / (|D+| + |D-|)``.

Choices the paper leaves open (documented in ``docs/conflictscore.md``):

* **Failed pairs** (``label`` None: no parsable label, or the call failed) are
  left out of every count and counted in ``n_failed_pairs``. They are never
  read as IRRELEVANT. A claim whose pairs *all* failed is *unlabelled*: it is
  left out of both means and counted in ``n_unlabelled``.
* **Claims with neither D+ nor D-** ("no evidence", e.g. all IRRELEVANT) have a
  ratio of 0/0. They count in the CS-C denominator (they are claims and are
  not conflicted), are left out of the CS-R mean, and are counted in
  ``n_no_evidence``. ``cs_r_all`` is the alternative that counts them as 0.
* **Zero claims** (or only unlabelled claims): CS-C and CS-R are ``None``
  (undefined), never NaN; the batch form reports how many responses were
  undefined.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from conflicteval.types import PairLabel

from .parse import normalize_label

__all__ = [
    "CODES",
    "FAILED",
    "Aggregate",
    "BatchAggregate",
    "aggregate",
    "aggregate_batch",
    "encode_table",
]

FAILED = -1
"""The code of a failed pair in an encoded table."""

CODES: Mapping[str, int] = {"IRRELEVANT": 0, "SUPPORTS": 1, "CONTRADICTS": 2}
"""Integer codes of an encoded table (failed pairs are :data:`FAILED`)."""

_IRR, _SUP, _CON = 0, 1, 2


def _code(value: Any) -> int:
    if value is None:
        return FAILED
    if isinstance(value, PairLabel):
        return FAILED if value.label is None else CODES[value.label]
    if isinstance(value, str):
        if value in CODES:
            return CODES[value]
        label = normalize_label(value)
        if label is None:
            raise ValueError(f"not a label: {value!r} (use None for a failed pair)")
        return CODES[label]
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if int(value) not in (FAILED, _IRR, _SUP, _CON):
            raise ValueError(f"not a label code: {value!r}")
        return int(value)
    raise TypeError(f"cannot read {type(value).__name__} as a label")


def encode_table(table: Any) -> np.ndarray:
    """Encode one claims x documents table as a 2-D ``int8`` array.

    Args:
        table: Rows of label strings (None for a failed pair), rows of
            :class:`~conflicteval.types.PairLabel`, a numpy array of codes
            (-1 failed, 0 IRRELEVANT, 1 SUPPORTS, 2 CONTRADICTS) or of strings,
            or an empty list (zero claims). Rows must have equal length.

    Raises:
        ValueError: Ragged rows, an unknown label or code.
    """
    if isinstance(table, np.ndarray):
        if table.ndim != 2:
            if table.size == 0:
                return np.zeros((0, 0), dtype=np.int8)
            raise ValueError(f"a label table is 2-D (claims x documents), got {table.ndim}-D")
        if np.issubdtype(table.dtype, np.integer):
            out = table.astype(np.int8, copy=False)
            if out.size and (out.min() < FAILED or out.max() > _CON):
                raise ValueError("label codes must be -1, 0, 1 or 2")
            return out
        flat = [_code(v) for v in table.ravel().tolist()]
        return np.asarray(flat, dtype=np.int8).reshape(table.shape)
    rows = list(table)
    if not rows:
        return np.zeros((0, 0), dtype=np.int8)
    width = len(rows[0])
    codes: list[int] = []
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"ragged label table: row {i} has {len(row)} labels, row 0 {width}")
        codes.extend(_code(v) for v in row)
    return np.asarray(codes, dtype=np.int8).reshape(len(rows), width)


class _Counts:
    """Per-claim and per-response counts of a batch of encoded tables."""

    def __init__(self, arrays: Sequence[np.ndarray]) -> None:
        n = len(arrays)
        shapes = np.asarray([a.shape for a in arrays], dtype=np.int64).reshape(n, 2)
        self.n_claims = shapes[:, 0]
        self.n_documents = shapes[:, 1]
        total_claims = int(self.n_claims.sum())
        docs_per_claim = np.repeat(self.n_documents, self.n_claims)
        if total_claims and int(docs_per_claim.sum()):
            flat = np.concatenate([a.ravel() for a in arrays]).astype(np.int64)
            claim_id = np.repeat(np.arange(total_claims, dtype=np.int64), docs_per_claim)
            counts = np.bincount(claim_id * 4 + (flat + 1), minlength=total_claims * 4)
            counts = counts.reshape(total_claims, 4)
        else:
            counts = np.zeros((total_claims, 4), dtype=np.int64)
        self.failed = counts[:, 0]
        self.irr = counts[:, 1]
        self.sup = counts[:, 2]
        self.con = counts[:, 3]
        evidence = self.sup + self.con
        self.conflicted = (self.sup > 0) & (self.con > 0)
        self.evidenced = evidence > 0
        self.unlabelled = (docs_per_claim > 0) & (self.failed == docs_per_claim)
        self.no_evidence = ~self.evidenced & ~self.unlabelled
        self.ratio = np.divide(
            self.con, evidence, out=np.full(total_claims, np.nan), where=self.evidenced
        )
        owner = np.repeat(np.arange(n, dtype=np.int64), self.n_claims)

        def per_response(values: np.ndarray) -> np.ndarray:
            return np.bincount(owner, weights=values, minlength=n)

        self.r_conflicted = per_response(self.conflicted).astype(np.int64)
        self.r_evidenced = per_response(self.evidenced).astype(np.int64)
        self.r_no_evidence = per_response(self.no_evidence).astype(np.int64)
        self.r_unlabelled = per_response(self.unlabelled).astype(np.int64)
        self.r_failed = per_response(self.failed).astype(np.int64)
        self.r_ratio_sum = per_response(np.where(self.evidenced, self.ratio, 0.0))
        self.r_scored = self.n_claims - self.r_unlabelled
        with np.errstate(invalid="ignore", divide="ignore"):
            self.cs_c = np.where(self.r_scored > 0, self.r_conflicted / self.r_scored, np.nan)
            self.cs_r = np.where(self.r_evidenced > 0, self.r_ratio_sum / self.r_evidenced, np.nan)
            self.cs_r_all = np.where(self.r_scored > 0, self.r_ratio_sum / self.r_scored, np.nan)


def _opt(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


class Aggregate(BaseModel):
    """CS-C, CS-R and their parts for one response.

    Attributes:
        n_claims: Claims in the response (rows of the table).
        n_documents: Documents (columns).
        cs_c: Conflicted claims / scored claims; None when no claim was scored.
        cs_r: Mean of |D-|/(|D+|+|D-|) over claims with evidence; None when no
            claim has evidence.
        cs_r_all: The same sum divided by all scored claims (no-evidence
            claims count 0); None when no claim was scored.
        supporting: Per claim, indices of documents labelled SUPPORTS (D+).
        contradicting: Per claim, indices of documents labelled CONTRADICTS (D-).
        failed: Per claim, indices of documents whose pair failed.
        conflicted: Per claim, whether D+ and D- are both non-empty.
        ratios: Per claim, |D-|/(|D+|+|D-|), None without evidence.
        n_conflicted: Conflicted claims.
        n_scored: Claims that count in CS-C (all but the unlabelled ones).
        n_evidenced: Claims with D+ or D- non-empty (the CS-R denominator).
        n_no_evidence: Scored claims with neither D+ nor D-.
        n_unlabelled: Claims whose every pair failed (left out of both means).
        n_pairs: Claims x documents.
        n_failed_pairs: Pairs without a label.
    """

    model_config = ConfigDict(frozen=True)

    n_claims: int
    n_documents: int
    cs_c: float | None
    cs_r: float | None
    cs_r_all: float | None
    supporting: list[list[int]]
    contradicting: list[list[int]]
    failed: list[list[int]]
    conflicted: list[bool]
    ratios: list[float | None]
    n_conflicted: int
    n_scored: int
    n_evidenced: int
    n_no_evidence: int
    n_unlabelled: int
    n_pairs: int
    n_failed_pairs: int

    @property
    def conflicted_claims(self) -> list[int]:
        """Indices of the conflicted claims."""
        return [i for i, flag in enumerate(self.conflicted) if flag]


def aggregate(labels: Any) -> Aggregate:
    """Aggregate one response's claims x documents label table.

    Args:
        labels: See :func:`encode_table` (strings / None, PairLabel rows, or an array).

    Returns:
        The :class:`Aggregate` of the response.
    """
    if not isinstance(labels, np.ndarray):
        return _aggregate_rows(_code_rows(labels))
    table = encode_table(labels)
    c = _Counts([table])
    return Aggregate(
        n_claims=int(table.shape[0]),
        n_documents=int(table.shape[1]),
        cs_c=_opt(c.cs_c[0]),
        cs_r=_opt(c.cs_r[0]),
        cs_r_all=_opt(c.cs_r_all[0]),
        supporting=[np.flatnonzero(row == _SUP).tolist() for row in table],
        contradicting=[np.flatnonzero(row == _CON).tolist() for row in table],
        failed=[np.flatnonzero(row == FAILED).tolist() for row in table],
        conflicted=c.conflicted.tolist(),
        ratios=[_opt(v) for v in c.ratio],
        n_conflicted=int(c.r_conflicted[0]),
        n_scored=int(c.r_scored[0]),
        n_evidenced=int(c.r_evidenced[0]),
        n_no_evidence=int(c.r_no_evidence[0]),
        n_unlabelled=int(c.r_unlabelled[0]),
        n_pairs=int(table.size),
        n_failed_pairs=int(c.r_failed[0]),
    )


def _code_rows(table: Any) -> list[list[int]]:
    """The codes of a table given as rows (checked as :func:`encode_table` checks them)."""
    rows = [[_code(v) for v in row] for row in table]
    width = len(rows[0]) if rows else 0
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"ragged label table: row {i} has {len(row)} labels, row 0 {width}")
    return rows


def _aggregate_rows(rows: list[list[int]]) -> Aggregate:
    """:func:`aggregate` of one small table in plain Python (one response: numpy's set-up
    costs more than the arithmetic). The same operations in the same order as ``_Counts``:
    counts, then float64 divisions and a running sum over the claims, so the same values."""
    width = len(rows[0]) if rows else 0
    conflicted: list[bool] = []
    ratios: list[float | None] = []
    n_evidenced = n_unlabelled = n_no_evidence = n_failed = 0
    ratio_sum = 0.0
    for row in rows:
        sup, con, failed = row.count(_SUP), row.count(_CON), row.count(FAILED)
        n_failed += failed
        conflicted.append(sup > 0 and con > 0)
        if sup + con > 0:
            n_evidenced += 1
            ratio = con / (sup + con)
            ratios.append(ratio)
            ratio_sum += ratio
        else:
            ratios.append(None)
            if width > 0 and failed == width:
                n_unlabelled += 1
            else:
                n_no_evidence += 1
    n_claims = len(rows)
    n_scored = n_claims - n_unlabelled
    n_conflicted = sum(conflicted)
    return Aggregate(
        n_claims=n_claims,
        n_documents=width,
        cs_c=n_conflicted / n_scored if n_scored > 0 else None,
        cs_r=ratio_sum / n_evidenced if n_evidenced > 0 else None,
        cs_r_all=ratio_sum / n_scored if n_scored > 0 else None,
        supporting=[[j for j, v in enumerate(row) if v == _SUP] for row in rows],
        contradicting=[[j for j, v in enumerate(row) if v == _CON] for row in rows],
        failed=[[j for j, v in enumerate(row) if v == FAILED] for row in rows],
        conflicted=conflicted,
        ratios=ratios,
        n_conflicted=n_conflicted,
        n_scored=n_scored,
        n_evidenced=n_evidenced,
        n_no_evidence=n_no_evidence,
        n_unlabelled=n_unlabelled,
        n_pairs=n_claims * width,
        n_failed_pairs=n_failed,
    )


class BatchAggregate:
    """CS-C / CS-R of many responses at once, as numpy arrays (one entry per response).

    Undefined values (zero claims, or no claim with evidence for CS-R) are NaN
    in the arrays and flagged by :attr:`cs_c_defined` / :attr:`cs_r_defined`;
    :meth:`summary` leaves them out of the means and reports how many there
    were. :meth:`result` gives one response's values with None instead of NaN.

    Attributes:
        cs_c, cs_r, cs_r_all: float arrays (NaN where undefined).
        n_claims, n_documents, n_conflicted, n_scored, n_evidenced,
        n_no_evidence, n_unlabelled, n_failed_pairs: int arrays.
    """

    def __init__(self, counts: _Counts) -> None:
        self.cs_c: np.ndarray = counts.cs_c
        self.cs_r: np.ndarray = counts.cs_r
        self.cs_r_all: np.ndarray = counts.cs_r_all
        self.n_claims: np.ndarray = counts.n_claims
        self.n_documents: np.ndarray = counts.n_documents
        self.n_conflicted: np.ndarray = counts.r_conflicted
        self.n_scored: np.ndarray = counts.r_scored
        self.n_evidenced: np.ndarray = counts.r_evidenced
        self.n_no_evidence: np.ndarray = counts.r_no_evidence
        self.n_unlabelled: np.ndarray = counts.r_unlabelled
        self.n_failed_pairs: np.ndarray = counts.r_failed

    def __len__(self) -> int:
        return int(self.cs_c.shape[0])

    @property
    def cs_c_defined(self) -> np.ndarray:
        """True where CS-C is defined (at least one scored claim)."""
        return ~np.isnan(self.cs_c)

    @property
    def cs_r_defined(self) -> np.ndarray:
        """True where CS-R is defined (at least one claim with evidence)."""
        return ~np.isnan(self.cs_r)

    def result(self, i: int) -> dict[str, Any]:
        """The values of response ``i`` as plain Python (None where undefined)."""
        return {
            "cs_c": _opt(self.cs_c[i]),
            "cs_r": _opt(self.cs_r[i]),
            "cs_r_all": _opt(self.cs_r_all[i]),
            "n_claims": int(self.n_claims[i]),
            "n_documents": int(self.n_documents[i]),
            "n_conflicted": int(self.n_conflicted[i]),
            "n_scored": int(self.n_scored[i]),
            "n_evidenced": int(self.n_evidenced[i]),
            "n_no_evidence": int(self.n_no_evidence[i]),
            "n_unlabelled": int(self.n_unlabelled[i]),
            "n_failed_pairs": int(self.n_failed_pairs[i]),
        }

    def summary(self) -> dict[str, Any]:
        """Means of per-response CS-C and CS-R over the responses where each is defined.

        ``mean_cs_c_ci`` / ``mean_cs_r_ci`` are their percentile bootstrap 95 % intervals
        (responses resampled, 1,000 resamples, seed 0; :func:`conflicteval.stats.bootstrap_ci`),
        None where the mean is undefined.
        """
        c_ok, r_ok = self.cs_c_defined, self.cs_r_defined
        return {
            "responses": len(self),
            "mean_cs_c": float(self.cs_c[c_ok].mean()) if c_ok.any() else None,
            "mean_cs_c_ci": _ci(self.cs_c[c_ok]),
            "mean_cs_r": float(self.cs_r[r_ok].mean()) if r_ok.any() else None,
            "mean_cs_r_ci": _ci(self.cs_r[r_ok]),
            "cs_c_undefined": int((~c_ok).sum()),
            "cs_r_undefined": int((~r_ok).sum()),
            "claims": int(self.n_claims.sum()),
            "conflicted_claims": int(self.n_conflicted.sum()),
            "no_evidence_claims": int(self.n_no_evidence.sum()),
            "unlabelled_claims": int(self.n_unlabelled.sum()),
            "failed_pairs": int(self.n_failed_pairs.sum()),
        }


def _ci(values: np.ndarray) -> list[float] | None:
    """The bootstrap interval of a mean (None for no values)."""
    from conflicteval.stats import bootstrap_ci

    return list(bootstrap_ci(values)) if values.size else None


def aggregate_batch(tables: Sequence[Any]) -> BatchAggregate:
    """Aggregate many responses' label tables at once (vectorised).

    Args:
        tables: One label table per response (any form :func:`encode_table`
            reads). Integer arrays are the fast path: a million labels take a
            few tens of milliseconds.
    """
    return BatchAggregate(_Counts([encode_table(t) for t in tables]))
